"""Factions and victory (LUP-002, LUP-100..LUP-114, LUP-374, LUP-750, LUP-D15, LUP-D21,
LUP-D26)."""

from __future__ import annotations

from dataclasses import replace

from pbem.core.outcome import Termination
from pbem.games.lupus.ending import victory
from tests.lupus.scenario import FULL16, kill, rejected, votes
from tests.support.game_by_mail import Game, lupus_roles


def lynch(g: Game, target: str, voters: list[str]) -> None:
    g.until("round1")
    votes(g, dict.fromkeys(voters, target))
    g.deadline()


def test_factions_in_the_state() -> None:
    """LUP-002, LUP-100, LUP-101, LUP-102: two factions; the Werehamster alone."""
    teams = {p["name"]: p["team"] for p in Game(FULL16).summary()["players"]}
    assert {p for p, t in teams.items() if t == "werewolves"} == {"p1", "p2", "p3", "p6"}
    assert {p for p, t in teams.items() if t == "werehamster"} == {"p11"}
    assert teams["p12"] == teams["p9"] == teams["p4"] == "villagers"


def test_converted_myth_changes_faction() -> None:
    """LUP-100, LUP-101, LUP-D14 (4): a Werewolf Mythomaniac is a Werewolf, else a Villager."""
    g = Game(FULL16)
    g.until("night", 2)
    g.mail("p12", "COPY p3")
    g.deadline()
    teams = {p["name"]: p["team"] for p in g.summary()["players"]}
    assert teams["p12"] == "werewolves"


def test_wolves_win_at_dawn_with_the_dead_possessed() -> None:
    """LUP-110, LUP-113, LUP-114, LUP-330, LUP-D15, LUP-D26: W >= V at dawn; the whole
    faction wins, the Possessed although dead."""
    g = Game(lupus_roles(8, p4="possessed"))
    kill(g, "p4")
    lynch(g, "p8", ["p1", "p2"])
    g.until("night", 2)
    kill(g, "p7")
    g.until("night", 3)  # Day 2: nobody lynched
    assert g.summary()["status"] == "running"  # W=2, V=3
    kill(g, "p6")
    g.deadline()
    s = g.summary()
    assert (s["status"], s["side"]) == ("finished", "werewolves")
    assert s["winners"] == ["p1", "p2", "p4"]
    text = g.public_text()
    assert (
        "p6 was torn apart" in text and "Victory for the Werewolves! Winners: p1, p2 and p4" in text
    )
    assert "Today:" not in text  # no day schedule after a victory (LUP-730)


def test_villagers_win_when_no_wolf_is_left() -> None:
    """LUP-111, LUP-113, LUP-114, LUP-D26: checked right after the lynch; dead Villagers win."""
    g = Game(lupus_roles(8, p4="possessed"))
    kill(g, "p8")
    lynch(g, "p1", ["p3", "p4", "p5"])
    assert g.summary()["status"] == "running"
    g.until("night", 2)
    g.deadline()
    lynch(g, "p2", ["p3", "p5", "p6"])
    s = g.summary()
    assert (s["side"], s["winners"]) == ("villagers", ["p3", "p5", "p6", "p7", "p8"])
    assert "p2 is the only nominee and is lynched" in g.public_text()


def test_hamster_alive_at_the_end_wins_alone() -> None:
    """LUP-112, LUP-374, LUP-D15 (5): the end comes with LUP-111; the Werehamster alone wins."""
    g = Game(lupus_roles(8, p4="werehamster"))
    lynch(g, "p1", ["p3", "p4"])
    g.until("night", 2)
    g.deadline()
    lynch(g, "p2", ["p3", "p4"])
    s = g.summary()
    assert (s["side"], s["winners"]) == ("werehamster", ["p4"])
    assert "Victory for the Werehamster! Winner: p4." in g.public_text()  # one: singular


def test_parity_counts_the_possessed_not_the_hamster() -> None:
    """LUP-110, LUP-D15 (1), (2): V counts the Possessed, not the Werehamster."""
    g = Game(lupus_roles(8, p4="werehamster", p5="possessed"))
    kill(g, "p8")
    lynch(g, "p7", ["p1", "p2"])
    g.until("night", 2)
    kill(g, "p6")
    g.deadline()  # living: p1 p2 | p3 p5 | hamster p4 -> W=2, V=2
    s = g.summary()
    assert (s["status"], s["side"]) == ("finished", "werehamster")


def test_end_message_reveals_every_role_and_refuses_commands() -> None:
    """LUP-750, LUP-D21: winner, winners, full reveal (with the Mythomaniac's change);
    afterwards no game command is accepted."""
    g = Game(FULL16)
    g.until("night", 2)
    g.mail("p12", "COPY p1")
    g.deadline()
    for day, wolf in ((2, "p1"), (3, "p2"), (4, "p3"), (5, "p12")):
        g.until("round1", day)
        votes(g, dict.fromkeys(("p4", "p5", "p13", "p14"), wolf))
        g.deadline()
    text = g.public_text()
    assert "The game is over" in text and "the Werehamster" in text
    assert "p12: Werewolf (dealt Mythomaniac), dead" in text and "p6: Possessed" in text
    assert "p11: Werehamster\n" in text
    assert "game is over" in rejected(g, "p4", "SCAN p6")
    assert g.table.deadlines() == {}


def test_nobody_alive_no_winner() -> None:
    """LUP-D15 (6): if nobody is alive there is no winner (not reachable in play)."""
    g = Game(lupus_roles(8))
    state = g.state
    seats = {p: replace(s, alive=False) for p, s in state.seats.items()}
    (ended, notice) = victory(replace(state, seats=seats))
    assert (ended.termination, ended.winners) == (Termination.NO_WINNER, ())
    assert notice.params["side"] is None
