"""What a Lupus player is offered (his HELP, his mails' quick actions, the bots' moves)
against what the rules take (LUP-603, LUP-607, LUP-610..LUP-622, LUP-D04, LUP-D18, LUP-D22):
whole bot games checked step by step, and the offers a sweep of them found wrong."""

from __future__ import annotations

import pytest

from pbem.core.ids import PlayerId
from tests.lupus.scenario import kill, votes
from tests.support.game_by_mail import Game, lupus_roles
from tests.support.offered import cancel_vote_is_unvote, check_game, described

_EVERY_SPECIAL = [
    "seer",
    "medium",
    "possessed",
    "bodyguard",
    "owl",
    "mason",
    "mason",
    "werehamster",
    "mythomaniac",
]


@pytest.mark.parametrize(
    ("seed", "options"),
    [
        (1, {"ghost_variant": True, "seer_result_timing": "immediate"}),
        (2, {"ghost_variant": True, "vote_changes_allowed": False, "self_vote_allowed": False}),
    ],
)
def test_every_offered_command_is_taken_and_every_other_refused(
    seed: int, options: dict[str, object]
) -> None:
    """At each step as it opens and as it closes, for every seat, living, ghost or dead:
    what HELP offers is taken with some argument (LUP-610..LUP-620), what it does not is
    refused with every argument on both channels (LUP-607: a dead player only his ghost's
    round-1 vote, LUP-D22), but ANNULER VOTE, which is RETIRER (LUP-603, LUP-620)."""
    counts = check_game(
        "lupus-in-tabula",
        seed,
        {"deck_mode": "custom", "specials": _EVERY_SPECIAL, **options},
        players=12,
        moot=cancel_vote_is_unvote,
    )
    assert not counts.mismatches, described(counts.mismatches)
    assert counts.steps > 20 and counts.offered > 150 and counts.refused > 50_000
    assert counts.dead > 100 and counts.dead_offered > 20  # the ghosts' round-1 votes


def _verbs(g: Game, name: str) -> frozenset[str]:
    verbs = g.table.rules.available_verbs(g.state, PlayerId(name))
    assert verbs is not None
    return verbs


def _help(g: Game, name: str) -> str:
    g.mail(name, "HELP")
    return g.reply()


def test_unvote_is_offered_once_a_vote_stands() -> None:
    """LUP-620: RETIRER withdraws a vote: offered (HELP) only to a voter who has one."""
    g = Game(lupus_roles(10))
    g.deadline()  # a quiet Night 1
    g.deadline()  # the debate
    assert g.phase == "round1"
    assert "UNVOTE" not in _help(g, "p5")
    assert "VOTE name" in g.reply()
    votes(g, {"p5": "p1"})
    assert "UNVOTE" in _help(g, "p5")
    g.post("p5", "UNVOTE")
    assert "UNVOTE" not in _verbs(g, "p5") and "vote" in _verbs(g, "p5")


def test_a_final_vote_offers_neither_vote_nor_unvote() -> None:
    """LUP-D18 (vote_changes_allowed off): a vote given is final, so neither another VOTE
    nor RETIRER is offered once it stands."""
    g = Game(lupus_roles(10), options={"vote_changes_allowed": False})
    g.deadline()
    g.deadline()
    votes(g, {"p5": "p1"})
    reply = _help(g, "p5")
    assert "VOTE" not in reply and "UNVOTE" not in reply
    assert {"vote", "unvote"}.isdisjoint(_verbs(g, "p5"))
    assert "vote" in _verbs(g, "p6")


def test_the_last_werewolf_is_not_offered_the_pack_relay() -> None:
    """LUP-613: LOUPS relays to the other werewolves; once the last one lives alone it would
    reach nobody (refused « nobody_to_hear »), so it is no longer offered."""
    g = Game(lupus_roles(10))
    assert "PACK" in _help(g, "p1")
    g.deadline()
    g.deadline()
    votes(g, {p: "p2" for p in ("p3", "p4", "p5", "p6")} | {"p7": "p8", "p9": "p8"})
    g.deadline()
    g.deadline()  # the defence
    votes(g, {p: "p2" for p in ("p3", "p4", "p5", "p6")})
    g.deadline()
    assert not g.alive("p2") and g.phase == "night"
    assert "PACK" not in _help(g, "p1")
    assert "KILL name" in g.reply()


def test_an_immediate_probe_closes_the_seers_probe_and_pass() -> None:
    """LUP-D04 (seer_result_timing immediate): the first probe is final and answered, so
    neither another SCAN nor a PASS is offered to the Seer after it."""
    g = Game(lupus_roles(10), options={"seer_result_timing": "immediate"})
    assert {"scan", "pass"} <= _verbs(g, "p3")
    g.mail("p3", "SCAN p5")
    reply = _help(g, "p3")
    assert "SCAN" not in reply and "PASS" not in reply
    kill(g, "p6")  # the werewolves' orders stay open to them
    assert {"kill", "pass"} <= _verbs(g, "p1")


@pytest.mark.parametrize(
    ("lang", "line", "nothing", "which"),
    [
        (
            "fr",
            "\n  ANNULER [",
            "Vous n'avez aucune commande en attente : rien à annuler.",
            "Précisez la commande à annuler",
        ),
        (
            "en",
            "\n  CANCEL [",
            "You have no command pending: nothing to cancel.",
            "Say which command to cancel",
        ),
    ],
)
def test_cancel_is_offered_only_while_an_order_stands(
    lang: str, line: str, nothing: str, which: str
) -> None:
    """LUP-603, LUP-621: CANCEL withdraws a night order he gave: offered (HELP) once one
    stands, no longer once it is withdrawn, nor for a final immediate probe (LUP-D04); sent
    bare with nothing standing, the answer says there is nothing to cancel."""
    g = Game(lupus_roles(10), options={"seer_result_timing": "immediate"}, lang=lang)
    assert "cancel" not in _verbs(g, "p1")
    assert line not in _help(g, "p1")
    g.mail("p1", "CANCEL")
    assert nothing in g.reply()
    g.mail("p1", "KILL p5")
    assert line in _help(g, "p1")
    g.mail("p1", "CANCEL")
    assert which in g.reply()
    g.mail("p1", "CANCEL KILL")
    assert "cancel" not in _verbs(g, "p1")
    g.mail("p5", "PASS")
    assert "cancel" in _verbs(g, "p5")
    g.mail("p3", "SCAN p5")  # final once answered
    assert "cancel" not in _verbs(g, "p3")
