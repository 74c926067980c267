"""The two-round lynch vote (LUP-222, LUP-223, LUP-224, LUP-225, LUP-400, LUP-401, LUP-402, LUP-403, LUP-404, LUP-405, LUP-406, LUP-407, LUP-408, LUP-409, LUP-410, LUP-411, LUP-D16..LUP-D19)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.lupus.scenario import kill, rejected, unchanged, votes
from tests.support.game_by_mail import Game, lupus_roles


@pytest.fixture
def g() -> Game:
    game = Game(lupus_roles(10, p4="medium", p5="possessed"))
    game.deadline()  # a quiet Night 1
    return game


def test_day_timeline(g: Game) -> None:
    """LUP-222, LUP-407, LUP-D19: debate 24 h, round 1 12 h, defence 6 h, round 2 12 h."""
    start = g.now
    ends = []
    for phase in ("debate", "round1", "defence", "round2"):
        assert g.phase == phase
        ends.append(next(iter(g.table.deadlines().values())) - start)
        if phase == "round1":
            votes(g, {"p3": "p1", "p4": "p2"})
        g.deadline()
    assert ends == [timedelta(hours=h) for h in (24, 36, 42, 54)]


def test_no_vote_during_debate_or_defence(g: Game) -> None:
    """LUP-222, LUP-223, LUP-D19: VOTE is refused with the opening time; defence is free talk."""
    assert "round 1 opens Wed 7 Jan 12:00 UTC" in rejected(g, "p3", "VOTE p1", post=True)
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.deadline()
    assert g.phase == "defence"
    assert "Round 2 has not started yet: it opens Thu 8 Jan 06:00 UTC" in rejected(
        g, "p5", "VOTE p1", post=True
    )
    unchanged(g, lambda: g.post("p1", "I am innocent, I swear!"))
    assert g.last == []


def test_round1_every_living_player_votes_any_order_changeable(g: Game) -> None:
    """LUP-400, LUP-401, LUP-402, LUP-D18: any order, self-vote and changes allowed."""
    g.deadline()
    votes(g, {"p9": "p9", "p1": "p3", "p3": "p1", "p4": "p1"})
    g.post("p9", "VOTE p1")  # changed
    g.deadline()
    assert g.state.round1_counts == {"p1": 3, "p3": 1}


def test_round1_votes_are_public_with_a_running_tally(g: Game) -> None:
    """LUP-403, LUP-740, LUP-D18: the tally goes to the list, at most once per 15 min."""
    g.deadline()
    g.post("p3", "VOTE p1")
    assert "p3 → p1" in g.public_text() and "round 1 tally" in g.public_text()
    g.post("p4", "VOTE p2")
    assert g.public() == []
    g.advance(15 * 60)
    g.post("p5", "VOTE p2")
    assert "p2 2, p1 1" in g.public_text()


def test_two_most_voted_are_nominated_and_published(g: Game) -> None:
    """LUP-404, LUP-406, LUP-741: every vote, the counts, the two nominees, the defence."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p1", "p5": "p2", "p6": "p2", "p7": "p8"})
    g.deadline()
    assert g.state.nominees == ("p1", "p2")
    text = g.public_text()
    assert all(f"{v} → {t}" in text for v, t in [("p3", "p1"), ("p5", "p2"), ("p7", "p8")])
    assert "Count: p1 2, p2 2, p8 1" in text
    assert "Nominees: p1 and p2." in text and "defend themselves" in text


def test_tie_for_a_slot_is_drawn_and_published() -> None:
    """LUP-404, LUP-D16, LUP-X04: a random draw among the tied, published with the result."""
    chosen = set()
    for seed in range(8):
        g = Game(lupus_roles(10), seed=seed)
        g.until("round1")
        votes(g, {"p3": "p1", "p4": "p1", "p5": "p2", "p6": "p7"})
        g.deadline()
        assert g.state.nominees[0] == "p1" and g.state.nominees[1] in ("p2", "p7")
        chosen.add(g.state.nominees[1])
        assert f"Tie between p2 and p7: drawn at random, {g.state.nominees[1]}." in g.public_text()
    assert chosen == {"p2", "p7"}


def test_only_players_with_votes_are_nominated(g: Game) -> None:
    """LUP-D16: one player with votes is the only nominee and is lynched without round 2."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p1"})
    g.deadline()
    assert not g.alive("p1") and (g.phase, g.number) == ("night", 2)
    assert "p1 is the only nominee and is lynched" in g.public_text()


def test_nobody_voted_nobody_lynched(g: Game) -> None:
    """LUP-D16: if nobody is nominated, nobody is lynched."""
    g.deadline()
    g.deadline()
    assert len(g.living()) == 10 and "Nobody received a vote" in g.public_text()


def test_round2_nominees_do_not_vote_others_choose(g: Game) -> None:
    """LUP-224, LUP-408, LUP-409, LUP-410, LUP-742, LUP-743: the most voted nominee is lynched."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    assert "Round 2 is open until" in g.public_text() and "p1 and p2" in g.public_text()
    assert "Nominees do not vote" in rejected(g, "p1", "VOTE p2", post=True)
    votes(g, {"p3": "p2", "p4": "p2", "p5": "p1"})
    g.deadline()
    assert not g.alive("p2") and g.alive("p1")
    text = g.public_text()
    assert "p2 goes to the gallows." in text and "Werewolf" not in text.split("Night 2 falls")[0]


def test_round2_tie_goes_to_round1_count_then_draw(g: Game) -> None:
    """LUP-409, LUP-D17, LUP-X05: a round-2 tie: more round-1 votes, else a random draw."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p1", "p5": "p2"})
    g.until("round2")
    votes(g, {"p3": "p2", "p4": "p1"})
    g.deadline()
    assert not g.alive("p1") and "Tie: p1 had more votes in round 1." in g.public_text()


def test_round2_nobody_votes_is_a_tie() -> None:
    """LUP-D17: nobody votes in round 2 -> a tie, settled by the round-1 count, then a draw."""
    lynched = set()
    for seed in range(8):
        g = Game(lupus_roles(8), seed=seed)
        g.until("round1")
        votes(g, {"p3": "p1", "p4": "p2"})
        g.until("round2")
        g.deadline()
        (dead,) = {"p1", "p2"} - set(g.living())
        lynched.add(dead)
        assert f"Tie between p1 and p2: drawn at random, {dead}." in g.public_text()
    assert lynched == {"p1", "p2"}


def test_each_vote_weighs_one_invalid_votes_do_not_count() -> None:
    """LUP-411: every vote weighs 1; a vote for a dead player is refused and not counted."""
    g = Game(lupus_roles(10))
    kill(g, "p9")
    g.until("round1")
    votes(g, {p: "p1" for p in ("p1", "p2", "p3")})
    assert "p9 is not a living player" in rejected(g, "p4", "VOTE p9", post=True)
    g.deadline()
    assert g.state.round1_counts == {"p1": 3}


def test_mob_cards_are_collected_each_day(g: Game) -> None:
    """LUP-225: the counts are reset; yesterday's votes do not carry over."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2", "p5": "p2"})
    g.until("round2")
    votes(g, {"p3": "p2"})
    g.until("round1", 2)
    assert g.state.votes == {}
    g.post("p3", "VOTE p4")
    g.deadline()
    assert g.state.round1_counts == {"p4": 1}


def test_nominees_may_vote_in_round1(g: Game) -> None:
    """LUP-D18: nominees may vote in round 1; the seating order of LUP-401 is not used."""
    g.deadline()
    votes(g, {"p1": "p3", "p3": "p1", "p2": "p3"})
    g.deadline()
    assert g.state.nominees == ("p3", "p1")


def test_final_tally_in_round_result(g: Game) -> None:
    """LUP-D18, LUP-743: a final tally with the round-2 result."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    votes(g, {"p5": "p1", "p6": "p1", "p7": "p2"})
    g.deadline()
    assert "Count: p1 2, p2 1" in g.public_text()


def test_defence_lasts_defence_duration(g: Game) -> None:
    """LUP-223, LUP-407, LUP-D19: the nominees' defence before round 2 opens."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.deadline()
    assert g.phase == "defence"
    assert g.table.deadlines()["defence"] - g.now == timedelta(hours=6)
    assert "defend themselves on the list until Thu 8 Jan 06:00 UTC" in g.public_text()


def test_day_after_lynch_is_a_new_night(g: Game) -> None:
    """LUP-225, LUP-743: after round 2 Night N+1 begins."""
    g.deadline()
    votes(g, {"p3": "p1", "p4": "p2"})
    g.until("round2")
    g.deadline()
    assert (g.phase, g.number) == ("night", 2)
    assert "Night 2 falls" in g.public_text()
