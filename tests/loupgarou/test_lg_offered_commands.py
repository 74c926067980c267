"""What a Loup-Garou player is offered (his AIDE, his mails' quick actions, the bots' moves)
against what the rules take (LG-603, LG-606, LG-610..LG-626, LG-D11, LG-D33): whole bot
games checked step by step, and the offers a sweep of them found wrong."""

from __future__ import annotations

import pytest

from pbem.core.ids import PlayerId
from tests.loupgarou.scenario import LG
from tests.support.offered import cancel_vote_is_unvote, check_game, described

_EVERY_CARD = [
    "werewolf",
    "master_wolf",
    "thief",
    "seer",
    "witch",
    "little_girl",
    "elder",
    "pied_piper",
    "villager",
    "villager",
]


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (
            2,
            {
                "custom_deck": _EVERY_CARD,
                "election_concurrent_with_night1": True,
                "seer_result_timing": "immediate",
                "vote_changes_allowed": False,
            },
        ),
        (
            7,
            {"custom_deck": _EVERY_CARD, "mayor_election_tie": "runoff", "witch_self_poison": True},
        ),
    ],
)
def test_every_offered_command_is_taken_and_every_other_refused(
    seed: int, options: dict[str, object]
) -> None:
    """Ten players, one of each card (LG-D01). At each step as it opens and as it closes,
    for every seat, living or dead: what AIDE
    offers is taken with some argument (LG-610..LG-626), what it does not is refused with
    every argument on both channels (LG-606: a dead Mayor only his sash, LG-447), but
    ANNULER VOTE, which is RETIRER (LG-603, LG-623)."""
    counts = check_game("loup-garou", seed, options, players=10, moot=cancel_vote_is_unvote)
    assert not counts.mismatches, described(counts.mismatches)
    assert counts.steps > 20 and counts.offered > 250 and counts.refused > 50_000
    assert counts.dead > 50 and (counts.dead_offered or seed == 2)  # seed 7: a dead Mayor's sash


def _verbs(g: LG, name: str) -> frozenset[str]:
    verbs = g.rules.available_verbs(g.state, PlayerId(name))
    assert verbs is not None
    return verbs


def test_unvote_is_offered_once_a_vote_stands() -> None:
    """LG-623: RETIRER withdraws a vote: offered (AIDE) only to a voter who has one."""
    g = LG()
    g.to_night1()
    g.night()
    assert g.state.phase == "day"
    assert "RETIRER" not in g.reply(g.send("ivan", "AIDE"))
    g.post("ivan", "VOTE judy")
    assert "RETIRER" in g.reply(g.send("ivan", "AIDE"))


def test_a_final_vote_offers_neither_vote_nor_unvote() -> None:
    """LG-D33 (vote_changes_allowed off): a vote given is final: neither VOTE nor RETIRER."""
    g = LG(options={"vote_changes_allowed": False})
    g.to_night1()
    g.night()
    g.post("ivan", "VOTE judy")
    assert {"vote", "unvote"}.isdisjoint(_verbs(g, "ivan"))
    assert "vote" in _verbs(g, "judy")


def test_a_council_of_one_is_not_offered_the_pack_relay() -> None:
    """LG-613: LOUPS is relayed to the other council members; a Wolf alone in the council
    would reach nobody (refused « alone_in_council »): not offered."""
    g = LG()
    g.to_night1()
    assert "pack" in _verbs(g, "alice")
    g.night()
    g.day({n: "bob" for n in g.names if n != "bob"})
    assert not g.state.seat("bob").alive and g.state.phase == "night"
    assert "pack" not in _verbs(g, "alice") and "kill" in _verbs(g, "alice")


def test_an_immediate_scan_is_not_offered_again() -> None:
    """LG-D11 (seer_result_timing immediate): the first scan is final and answered."""
    g = LG(options={"seer_result_timing": "immediate"})
    g.to_night1()
    assert "scan" in _verbs(g, "dave")
    g.send("dave", "SONDER ivan")
    assert "scan" not in _verbs(g, "dave") and "pass" in _verbs(g, "dave")


def test_the_bite_step_offers_cancel_once_an_order_stands() -> None:
    """LG-603, LG-626: until the deadline ANNULER withdraws a pending command, the Master
    Wolf's bite or a PASS included: offered while one stands, not before nor after it."""
    g = LG()
    assert g.state.phase == "bite"
    assert "cancel" not in _verbs(g, "alice")
    assert "\n  ANNULER [" not in g.reply(g.send("alice", "AIDE"))
    g.send("alice", "MORDRE ivan")
    assert "\n  ANNULER [" in g.reply(g.send("alice", "AIDE"))
    assert "✓" in g.reply(g.send("alice", "ANNULER MORDRE"))
    assert "cancel" not in _verbs(g, "alice")
    g.send("ivan", "RIEN")
    assert "cancel" in _verbs(g, "ivan")


@pytest.mark.parametrize(
    ("lang", "help_word", "cancel", "nothing"),
    [
        ("fr", "AIDE", "ANNULER", "Vous n'avez aucune commande en attente : rien à annuler."),
        ("en", "HELP", "CANCEL", "You have no command pending: nothing to cancel."),
    ],
)
def test_a_night_offers_cancel_only_while_an_order_stands(
    lang: str, help_word: str, cancel: str, nothing: str
) -> None:
    """LG-603, LG-626, LG-612: at night ANNULER is offered (AIDE/HELP) only once an order of
    the player stands, and no longer once withdrawn or once the council is over for a
    council vote (LG-213); sent bare with nothing standing, the answer says so."""
    g = LG(lang=lang)
    g.to_night1()
    assert "cancel" not in _verbs(g, "bob")
    assert f"\n  {cancel} [" not in g.reply(g.send("bob", help_word))
    assert nothing in g.reply(g.send("bob", cancel))
    g.send("bob", "TUER ivan")
    assert f"\n  {cancel} [" in g.reply(g.send("bob", help_word))
    g.send("bob", f"{cancel} {'TUER' if lang == 'fr' else 'KILL'}")
    assert "cancel" not in _verbs(g, "bob")
    g.send("bob", "TUER ivan")
    g.deadline("council")
    assert "cancel" not in _verbs(g, "bob")  # LG-213: the council's vote is carried out


def test_an_immediate_scan_is_not_withdrawn_by_cancel() -> None:
    """LG-D11 (seer_result_timing immediate): the first scan is final and answered, so
    ANNULER SONDER is neither offered nor taken (no second scan by way of it)."""
    g = LG(options={"seer_result_timing": "immediate"})
    g.to_night1()
    g.send("dave", "SONDER ivan")
    assert "cancel" not in _verbs(g, "dave")
    assert "définitif" in g.reply(g.send("dave", "ANNULER SONDER"))
    assert g.state.action("dave", "scan") is not None
