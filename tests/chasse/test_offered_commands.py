"""What a Chasse aux sorcières player is offered (his AIDE, his mails' quick actions, the
bots' moves) against what the rules take (CAS-603, CAS-606, CAS-610..CAS-625): whole bot
games checked step by step, and the offers a sweep of them found wrong."""

from __future__ import annotations

import pytest

from pbem.core.ids import PlayerId
from pbem.mail.render import Renderer
from tests.chasse.scenario import Game
from tests.chasse.test_day import day1
from tests.support.offered import cancel_vote_is_unvote, check_game, described

_EVERY_CARD = [
    "demon",
    "demon",
    "phoebe",
    "prue",
    "coop",
    "piper",
    "paige",
    "leo",
    "billie",
    "cole",
    "innocent",
    "innocent",
]


@pytest.mark.parametrize("seed", [1, 18])  # Prue's revenge; the Penny's tie-break
def test_every_offered_command_is_taken_and_every_other_refused(seed: int) -> None:
    """Ten players, one of each card (CAS-D01). At each step as it opens and as it closes,
    for every seat, living or dead: what AIDE offers is taken with some argument
    (CAS-610..CAS-623), what it does not is refused with every argument on both channels
    (CAS-606: a dead Prue only her revenge, CAS-619), but ANNULER VOTE, which is RETIRER
    (CAS-603, CAS-621)."""
    options = {"custom_deck": _EVERY_CARD, "prue_revenge_triggers": "any"}
    counts = check_game(
        "chasse-aux-sorcieres", seed, options, players=10, moot=cancel_vote_is_unvote
    )
    assert not counts.mismatches, described(counts.mismatches)
    assert counts.steps > 20 and counts.offered > 250 and counts.refused > 50_000
    assert counts.dead > 50 and counts.dead_offered  # a dead Prue's revenge, a dead Penny's choice


def test_unvote_is_offered_once_a_vote_stands() -> None:
    """CAS-621: RETIRER withdraws a vote: offered only to a voter who has one."""
    g = day1()
    assert g.rules.available_verbs(g.state, PlayerId("alice")) >= {"vote"}
    assert "unvote" not in g.rules.available_verbs(g.state, PlayerId("alice"))
    g.vote("alice", "dave")
    assert "unvote" in g.rules.available_verbs(g.state, PlayerId("alice"))


def test_a_night_order_is_not_withdrawn_by_day() -> None:
    """CAS-603: a command replaces or withdraws the pending one « until the deadline »: by
    day the last sub-phase's orders are resolved, so ANNULER is refused (it was taken,
    with a receipt saying the order was withdrawn), and ANNULER VOTE stays RETIRER."""
    g = Game()
    g.until("W2")
    g.do("niaj", "PASS")
    g.until("day", 1)
    assert g.state.actions, "the last sub-phase's orders are still held by day"
    assert g.fails("niaj", "CANCEL PASS").reason == "night_only"
    g.vote("alice", "dave")
    g.do("alice", "CANCEL VOTE", "list")
    assert "alice" not in g.state.votes


def test_cancel_is_offered_only_while_a_night_order_stands() -> None:
    """CAS-603: ANNULER withdraws a night order he gave: offered (AIDE) once one stands, no
    longer once withdrawn, nor by day; sent bare with nothing standing, the answer says
    there is nothing to cancel."""
    g = Game()
    g.until("W1")
    assert "cancel" not in g.rules.available_verbs(g.state, PlayerId("alice"))
    assert g.fails("alice", "ANNULER").reason == "nothing_standing"
    g.do("alice", "SONDER dave")
    assert "cancel" in g.rules.available_verbs(g.state, PlayerId("alice"))
    bare = g.fails("alice", "ANNULER")  # his own order as the example, not another card's
    assert bare.reason == "cancel_what" and bare.params["standing_fr"] == "SONDER"
    for lang, words in (("fr", "par exemple ANNULER SONDER."), ("en", "e.g. CANCEL SCAN.")):
        assert words in Renderer().text("reasons/cancel_what", lang, bare.params)
    g.do("alice", "ANNULER SONDER")
    assert "cancel" not in g.rules.available_verbs(g.state, PlayerId("alice"))
    g.do("alice", "RIEN")
    assert "cancel" in g.rules.available_verbs(g.state, PlayerId("alice"))
    g.until("day", 1)
    assert "cancel" not in g.rules.available_verbs(g.state, PlayerId("alice"))
    assert g.fails("alice", "ANNULER").reason == "nothing_standing"
