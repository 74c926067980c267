"""Victory: CAS-003, CAS-100, CAS-101, CAS-102, CAS-103, CAS-104, CAS-105, CAS-103, CAS-332, CAS-335, CAS-336, CAS-383, CAS-750,
CAS-X07, CAS-D08, CAS-D22, CAS-D23, CAS-D25, CAS-D26."""

from __future__ import annotations

from dataclasses import replace

from pbem.core.events import GameEnded
from pbem.core.ids import PlayerId
from pbem.games.chasse.victory import check_victory
from tests.chasse.scenario import NAMES, Game, notices

GOOD = [
    "alice",
    "bob",
    "carol",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "niaj",
    "olivia",
    "peggy",
]


def lynch(g: Game, target: str, voter: str = "peggy") -> None:
    """Reach the current or next day and lynch ``target`` (Penny's double vote decides)."""
    if g.state.phase != "day":
        g.until("day")
    g.vote(voter, target)
    g.deadline()


def night_kill(g: Game, victim: str | None, killer: str = "dave") -> None:
    g.until("W1")
    if victim:
        g.do(killer, f"KILL {victim}")
    g.until("day")


def test_cas_101_003_good_wins_when_the_last_demon_falls() -> None:
    """CAS-101, CAS-003, CAS-383, CAS-D25: the last Demon lynched: the Forces of Good win, every
    player holding a good card, dead or alive (Billie included)."""
    g = Game()
    lynch(g, "dave")
    lynch(g, "erin")
    assert g.side is None
    lynch(g, "frank")
    assert g.side == "good" and g.state.phase == "over"
    assert g.winners == sorted(GOOD)
    assert g.rules.deadlines(g.state) == {}


def test_cas_102_demons_win_when_at_most_one_good_is_alive() -> None:
    """CAS-102, CAS-D25: the Demons win as soon as the second-to-last Force of Good falls."""
    g = Game()
    order = [p for p in GOOD if p not in ("peggy", "bob")] + ["bob"]
    night_kills = iter(order[::2])
    lynches = iter(order[1::2])
    while g.side is None:
        night_kill(g, next(night_kills, None))
        if g.side is None:
            lynch(g, next(lynches, "dave"))
    assert g.side == "demons"
    living_good = [p for p in GOOD if g.alive(p)]
    assert len(living_good) == 1
    assert g.winners == ["dave", "erin", "frank"]


def kill_off(g: Game, *players: str) -> None:
    """Mark players dead without announcements (to reach an endgame quickly)."""
    for p in players:
        seat = replace(g.state.seat(PlayerId(p)), alive=False)
        g.state = replace(g.state, seats={**g.state.seats, PlayerId(p): seat})


def test_cas_105_721_victory_at_dawn_no_day_and_no_revenge() -> None:
    """CAS-105, CAS-721, CAS-D22 (a): a dawn victory publishes CAS-750 instead of opening the
    day; Prue killed that night gets no revenge; no command is accepted afterwards."""
    g = Game()
    kill_off(g, "alice", "carol", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "peggy")
    g.until("W1")
    g.do("dave", "KILL bob")  # alive good: bob (Prue) and olivia
    events = g.until("over")
    assert g.side == "demons"
    assert notices(events, "revenge_prompt") == [] and g.state.revenge is None
    (dawn,) = notices(events, "dawn")
    assert dawn.params["deadline"] is None and dawn.params["revenge"] is None
    assert [n.template for n in notices(events) if n.public][-1] == "chasse/victory"
    assert g.fails("olivia", "VOTE dave", "list").reason == "game_over"  # CAS-750
    assert g.fails("bob", "REVENGE dave").reason == "game_over"


def test_cas_105_victory_cancels_the_revenge_of_a_lynched_prue() -> None:
    """CAS-105: Prue lynched as the second-to-last Force of Good: the Demons win at once, her
    revenge is never offered, no deadline is left."""
    g = Game()
    kill_off(g, "alice", "carol", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia")
    g.until("day")
    g.vote("peggy", "bob")
    events = g.deadline("day")
    assert g.side == "demons" and g.rules.deadlines(g.state) == {}
    assert notices(events, "revenge_prompt") == [] and g.state.revenge is None
    assert notices(events, "lynch")[0].params["revenge"] is None


def test_cas_104_d22_victory_through_grief() -> None:
    """CAS-104, CAS-335, CAS-D22 (c): the lynch of a Demon whose Lover is the last Demon: the
    grief death ends the game for the Forces of Good."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS erin frank")
    lynch(g, "dave")
    lynch(g, "erin")
    assert not g.alive("frank") and g.side == "good"
    (verdict,) = notices(g.last, "lynch")
    assert verdict.params["grief"] == [{"name": "frank", "role": "demon", "partner": "erin"}]


def test_cas_x07_103_336_mixed_lovers_win_alone() -> None:
    """CAS-X07, CAS-103, CAS-332, CAS-336, CAS-D08 (3), CAS-D25: mixed Lovers (dave, a Demon, and
    niaj) alive when the Demons' kill leaves niaj as the last Force of Good: the Lovers win,
    and only they."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS dave niaj")
    order = [p for p in GOOD if p not in ("niaj", "peggy")] + ["peggy"]
    night_kills = iter(order[::2])
    lynches = iter(order[1::2])
    while g.side is None:
        night_kill(g, next(night_kills, None), killer="erin")
        if g.side is None:
            lynch(g, next(lynches), voter="erin")
    assert g.side == "lovers"
    assert g.winners == ["dave", "niaj"]
    assert g.alive("dave") and g.alive("niaj")


def test_cas_d08_mixed_lovers_never_share_their_faction_victory() -> None:
    """CAS-D08 (5), CAS-D25: the Demon Lover lynched takes the Good Lover with him; when the
    Forces of Good win, neither member of the mixed pair is a winner."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS dave niaj")
    lynch(g, "dave")
    assert not g.alive("niaj")
    lynch(g, "erin")
    lynch(g, "frank")
    assert g.side == "good"
    assert "niaj" not in g.winners and "dave" not in g.winners and "alice" in g.winners


def test_cas_d08_same_faction_lovers_have_no_victory_of_their_own() -> None:
    """CAS-D08 (4): two good Lovers win with the Forces of Good."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS alice bob")
    lynch(g, "dave")
    lynch(g, "erin")
    lynch(g, "frank")
    assert g.side == "good" and {"alice", "bob"} <= set(g.winners)


def test_cas_d08_last_two_option() -> None:
    """CAS-D08 alternative ``last_two``: while both mixed Lovers live the game goes on past
    CAS-102; they win when they are the last two alive."""
    g = Game(mixed_lovers_victory="last_two")
    state = g.state
    alive = {"dave", "niaj", "erin"}
    seats = {p: replace(s, alive=p in alive) for p, s in state.seats.items()}
    state = replace(state, seats=seats, lovers=(PlayerId("dave"), PlayerId("niaj")))
    assert check_victory(state) == []  # one Force of Good left, but the mixed pair lives
    seats = {p: replace(s, alive=p in {"dave", "niaj"}) for p, s in state.seats.items()}
    (ended, _) = check_victory(replace(state, seats=seats))
    assert isinstance(ended, GameEnded) and ended.side == "lovers"


def test_cas_d23_no_demon_alive_good_wins_even_with_one_good_left() -> None:
    """CAS-D23: no Demon alive -> the Forces of Good win, even with at most one Force of Good
    alive; nobody alive -> the Forces of Good (``everyone_dead`` = good) or a draw."""
    g = Game()
    seats = {p: replace(s, alive=p == "alice") for p, s in g.state.seats.items()}
    (ended, _) = check_victory(replace(g.state, seats=seats))
    assert isinstance(ended, GameEnded) and ended.side == "good"
    nobody = {p: replace(s, alive=False) for p, s in g.state.seats.items()}
    (ended, _) = check_victory(replace(g.state, seats=nobody))
    assert isinstance(ended, GameEnded) and ended.side == "good"
    draw = Game(everyone_dead="draw")
    (ended, _) = check_victory(replace(draw.state, seats=nobody))
    assert isinstance(ended, GameEnded) and ended.side is None and ended.winners == ()


def test_cas_100_750_d26_victory_message_full_reveal() -> None:
    """CAS-100, CAS-750, CAS-D26: the winning side, the winners, each final card and initial
    card if different, the Lovers, Penny's player and the 2 leftover cards."""
    g = Game()
    g.do("ivan", "TAKE DEMON")
    g.deadline()
    g.do("carol", "LOVERS alice bob")
    g.until("W1")
    g.do("mallory", "SWAP olivia")
    for target in ("dave", "erin", "frank", "ivan"):
        lynch(g, target)
    assert g.side == "good"
    (victory,) = notices(g.last, "victory")
    p = victory.params
    assert victory.public and p["side"] == "good"
    assert p["lovers"] == ["alice", "bob"] and p["penny"] == "peggy"
    assert p["leftover"] == ["innocent", "leo"]
    reveal = {r["name"]: r for r in p["reveal"]}
    assert reveal["ivan"] == {"name": "ivan", "role": "demon", "dealt": "leo", "alive": False}
    assert reveal["mallory"]["role"] == "innocent" and reveal["olivia"]["role"] == "cole"
    assert set(reveal) == set(NAMES)


def test_cas_d26_reveal_all_at_end_false() -> None:
    """CAS-D26 config: ``reveal_all_at_end`` false publishes only side and winners."""
    g = Game(reveal_all_at_end=False)
    for target in ("dave", "erin", "frank"):
        lynch(g, target)
    (victory,) = notices(g.last, "victory")
    assert victory.params["reveal"] == [] and victory.params["leftover"] == []
