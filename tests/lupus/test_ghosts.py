"""The ghost variant (LUP-005, LUP-500, LUP-501, LUP-502, LUP-503, LUP-504, LUP-505, LUP-618, LUP-D22)."""

from __future__ import annotations

from tests.lupus.scenario import kill, rejected, votes
from tests.support.game_by_mail import Game, address, lupus_roles

GHOSTS = {"ghost_variant": True}


def ghost_game(roles: dict[str, str] | None = None) -> Game:
    """p8 torn apart on Night 1, now in round 1 of Day 1."""
    g = Game(roles or lupus_roles(9, p4="medium"), options=GHOSTS)
    kill(g, "p8")
    g.until("round1")
    return g


def test_variant_off_dead_players_do_not_vote() -> None:
    """LUP-500, LUP-005, LUP-607: by default an eliminated player does not vote at all."""
    g = Game(lupus_roles(8))
    kill(g, "p8")
    g.until("round1")
    assert "You have been eliminated" in rejected(g, "p8", "VOTE p1")
    assert "You have been eliminated" in rejected(g, "p8", "VOTE p1", post=True)


def test_ghost_votes_privately_in_round1_counted_and_marked() -> None:
    """LUP-501, LUP-502, LUP-618, LUP-D22: a ghost's private vote counts like any other,
    shown as "(ghost)" in the public tally."""
    g = ghost_game()
    assert "The ghost (p8) votes by private message" in g.public_text(g.sent)
    g.mail("p8", "VOTE p1")
    assert "✓ VOTE p1" in g.reply()
    assert "p8 (ghost) → p1" in g.public_text()
    g.post("p3", "VOTE p2")
    g.mail("p8", "UNVOTE")  # LUP-620: a ghost withdraws privately too
    assert "p8" not in g.state.votes
    g.mail("p8", "VOTE p1")
    g.post("p4", "VOTE p1")
    g.deadline()
    assert g.state.round1_counts == {"p1": 2, "p2": 1}


def test_ghost_may_not_speak_on_the_list() -> None:
    """LUP-505, LUP-D22: a ghost's only act is a private round-1 vote; never on the list."""
    g = ghost_game()
    assert "may not speak on the list" in rejected(g, "p8", "VOTE p1", post=True)


def test_ghost_does_not_vote_in_round2() -> None:
    """LUP-408, LUP-502: ghosts do not vote in round 2."""
    g = ghost_game()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    assert "Ghosts vote only in round 1" in rejected(g, "p8", "VOTE p1")


def test_ghost_has_no_power_and_no_night_information() -> None:
    """LUP-503, LUP-504, LUP-D24: a dead Werewolf or Medium gets nothing and can do nothing."""
    g = Game(lupus_roles(9, p4="medium"), options=GHOSTS)
    g.until("round1")
    votes(g, {"p3": "p1", "p4": "p1"})
    g.deadline()
    kill(g, "p4", ("p2",))  # the Medium dies on Night 2
    assert "You have been eliminated" in rejected(g, "p1", "KILL p5")
    assert "You have been eliminated" in rejected(g, "p1", "PACK hello")
    start = len(g.sent)
    g.until("night", 3)
    night3 = g.sent[start:]
    assert g.to("p1", night3) == [] and g.to("p4", night3) == []
    assert address("p2") in g.recipients(night3)


def test_lynched_player_votes_from_the_next_day() -> None:
    """LUP-501, LUP-502, LUP-D22: lynched on Day N, a ghost from Day N+1."""
    g = Game(lupus_roles(9), options=GHOSTS)
    g.until("round1")
    votes(g, {"p3": "p5", "p4": "p5"})
    g.deadline()
    assert not g.alive("p5")
    g.until("round1", 2)
    g.mail("p5", "VOTE p1")
    assert g.state.votes == {"p5": "p1"}


def test_hamster_killed_by_the_probe_is_a_ghost() -> None:
    """LUP-501, LUP-D22 (ghost_includes_probe_death=true): the probe's victim votes too."""
    g = Game(lupus_roles(15, p4="werehamster"), options=GHOSTS)
    g.mail("p3", "SCAN p4")
    g.until("round1")
    g.mail("p4", "VOTE p1")
    assert g.state.votes == {"p4": "p1"}


def test_help_offers_vote_only_to_those_who_may_vote() -> None:
    """LUP-408, LUP-502, LUP-622: HELP in round 2 offers VOTE to neither ghosts nor nominees.

    Bug fixed: HELP listed VOTE to ghosts and nominees in round 2.
    """
    g = ghost_game()
    g.mail("p8", "HELP")
    assert "VOTE" in g.reply()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    for player, may in (("p8", False), ("p1", False), ("p3", True)):
        g.mail(player, "HELP")
        assert ("VOTE" in g.reply()) is may
