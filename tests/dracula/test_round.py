"""A round scripted end to end through ``decide``/``on_deadline`` (sections 3–11, 18–20)."""

from __future__ import annotations

from pbem.core.events import Resolved
from pbem.core.outcome import Termination
from tests.dracula.scenario import NAMES, Game


def night1(g: Game) -> None:
    """Day 1, then Night 1: Ana (Dracula) in the boudoir with Bob and Cid bites Bob."""
    g.close("day")
    g.night(
        {
            "Ana": "boudoir",
            "Bob": "boudoir",
            "Cid": "boudoir",
            "Dan": "ballroom",
            "Eve": "dungeons",
        },
        {"Ana": "Bob"},
    )
    g.finish_night()


def test_round_start_roles_and_announcements() -> None:
    """DRA-001, DRA-005, DRA-007, DRA-100: 13 players, one Dracula, 12 humans; AMB-004 notices;
    DRA-006 rounds announced; DRA-340/DRA-341 special objects announced on the floor."""
    g = Game(options={"rounds": 2})
    s = g.state
    assert len(s.order) == 13
    assert [p for p in NAMES if s.seat(p).dracula] == ["Ana"]
    assert all(s.seat(p).side == "human" for p in NAMES[1:])
    assert s.seat("Ana").side == "vampire"
    opening = g.public("opening", since_mark=False)[0]
    assert opening.params["rounds"] == 2
    roles = g.notices("role", since_mark=False)
    assert sorted(p for n in roles for p in n.to) == sorted(NAMES)
    assert all(len(n.to) == 1 for n in roles)
    assert [n.params["dracula"] for n in roles if n.to == ("Ana",)] == [True]
    start = g.public("round_start", since_mark=False)[0]
    assert start.params["round"] == 1
    assert s.floor == {
        "dungeons": ("manual",),
        "torture": ("grimoire",),
        "boudoir": ("paintkit",),
        "ballroom": ("phonograph",),
    }


def test_setup_refuses_other_player_counts() -> None:
    """DRA-005, AMB-010: exactly 13 players."""
    import random

    import pytest

    from pbem.core.errors import SetupError
    from pbem.core.game import GameSpec
    from pbem.games.dracula import Dracula
    from tests.dracula.scenario import NOW, players

    with pytest.raises(SetupError):
        Dracula().setup(GameSpec(players()[:12], {}, "en"), NOW, random.Random(0))


def test_day1_no_vote_nobody_in_sanctuary() -> None:
    """DRA-022, DRA-103: no vote on Day 1 and nobody in the sanctuary on Night 1."""
    g = Game()
    assert g.fails("Bob", "VOTE Cid", "list") == "no_sanctuary_vote"
    g.mark()
    g.close("day")
    dusk = g.public("dusk")[0]
    assert dusk.params["designated"] == []
    assert g.state.designated == ()
    assert g.phase == "rooms"


def test_night1_dracula_chooses_last_and_must_bite() -> None:
    """DRA-083, DRA-101, DRA-102, AMB-020: Dracula gets the counts, picks a non-empty room,
    must bite (the first special case of room choice)."""
    g = Game()
    g.close("day")
    assert g.fails("Ana", "ROOM boudoir") == "dracula_last"
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "ballroom", "Eve": "dungeons"})
    g.mark()
    g.close("rooms")
    counts = g.to("Ana", "dracula_counts")[0].params["counts"]
    assert counts == {"boudoir": 2, "ballroom": 1, "dungeons": 1, "torture": 8}
    assert g.notices("dracula_counts")[0].to == ("Ana",)
    # a room nobody chose is refused: he must bite (AMB-020)
    g2 = Game()
    g2.close("day")
    g2.rooms({}, default="torture")
    g2.close("rooms")
    assert g2.fails("Ana", "ROOM boudoir") == "empty_room"
    g.do("Ana", "ROOM boudoir")
    g.mark()
    g.close("dracula_room")
    prompt = g.to("Ana", "bite_prompt")[0]
    assert prompt.params["status"] == "must"  # DRA-101, DRA-113
    assert sorted(prompt.params["others"]) == ["Bob", "Cid"]  # DRA-110
    assert g.fails("Ana", "BITE NOBODY") == "must_bite_night1"
    assert g.fails("Ana", "BITE Dan") == "not_in_your_room"  # DRA-111


def test_night1_bite_converts_and_notifies() -> None:
    """DRA-104, DRA-117, DRA-140, DRA-141, AMB-060: one human vampirised on Night 1."""
    g = Game()
    g.close("day")
    g.rooms({"Ana": "boudoir", "Bob": "boudoir", "Cid": "boudoir"})
    g.close("rooms")
    g.do("Ana", "ROOM boudoir")
    g.close("dracula_room")
    g.do("Ana", "BITE Bob")
    g.mark()
    g.close("bites")
    g.finish_night()
    assert g.side("Bob") == "vampire"
    assert [p for p in NAMES if g.side(p) == "vampire"] == ["Ana", "Bob"]  # DRA-104
    conv = g.to("Bob", "converted")
    assert conv and conv[0].params["count"] == 1  # DRA-141: how many, not who
    assert "Ana" not in str(conv[0].params)
    assert g.to("Ana", "bite_succeeded")[0].params["target"] == "Bob"
    assert g.state.seat("Ana").credits == ("Bob",)
    morning = g.public("morning")[0]
    assert morning.params["vampirised"] == 1  # DRA-181
    assert {p["name"]: p["position"] for p in morning.params["positions"]}["Bob"] == "boudoir"
    trace = [e for e in g.log if isinstance(e, Resolved)]
    assert trace and trace[-1].trace[0]["kind"] == "bite"


def test_dawn_lone_human_picks_up_everything() -> None:
    """DRA-161, DRA-162, DRA-163, DRA-164, DRA-342: a human alone among humans in a room takes the floor objects,
    whatever the number of vampires; nothing is picked up where two humans are."""
    g = Game()
    g.mark()
    night1(g)
    s = g.state
    assert "phonograph" in s.seat("Dan").hand  # alone in the ballroom
    assert "manual" in s.seat("Eve").hand  # alone in the dungeons
    assert "paintkit" in s.seat("Cid").hand  # only human left with two vampires (DRA-160)
    assert s.floor["torture"] == ("grimoire",)  # eight humans there: no pickup
    assert g.to("Dan", "picked_up")[0].params["objects"] == ["phonograph"]  # DRA-163
    assert not g.to("Hal", "picked_up")  # AMB-078: no "nothing found"


def test_morning_announcement_content() -> None:
    """DRA-180, DRA-181, DRA-182, DRA-183, DRA-188: counts and every position, then Day 2."""
    g = Game()
    g.mark()
    night1(g)
    m = g.public("morning")[0]
    assert m.public and m.params["vampirised"] == 1 and m.params["cursed"] == 0
    assert len(m.params["positions"]) == 13
    assert g.phase == "day" and g.state.number == 2


def test_full_round_ends_in_final_phase_and_scores() -> None:
    """DRA-008, DRA-021, DRA-188, DRA-460, DRA-009, DRA-490: five nights, the final phase,
    the points and a new round with roles dealt anew."""
    g = Game(options={"rounds": 2})
    night1(g)
    seen_days = [g.state.number]
    for _ in range(4):
        g.day()
        g.night({}, default="torture")
        g.finish_night()
        seen_days.append(g.state.number)
    assert seen_days == [2, 3, 4, 5, 5]
    assert g.phase == "final_choice"
    g.mark()
    g.close("final_choice")  # every human flees by default (AMB-064)
    assert g.state.round == 2  # DRA-490: a new round
    end = g.public("round_end")[0]
    humans = [p for p in NAMES if end.params["points"][p] == 1]
    assert len(humans) >= 1
    assert g.phase == "day" and g.state.number == 1
    assert sum(1 for p in NAMES if g.state.seat(p).dracula) == 1


def test_game_ends_after_last_round_with_best_score() -> None:
    """DRA-010, AMB-070: the player with the most points wins; MATCH_END."""
    g = Game(options={"rounds": 1})
    night1(g)
    for _ in range(4):
        g.day()
        g.night({}, default="torture")
        g.finish_night()
    g.mark()
    g.close("final_choice")
    out = g.rules.outcome(g.state)
    assert out is not None and out.termination is Termination.MATCH_END
    best = max(g.state.scores.values())
    assert set(out.winners) == {p for p, v in g.state.scores.items() if v == best}
    assert g.public("game_end")
    assert g.fails("Bob", "VOTE Cid", "list") == "game_over"


def test_five_rooms_in_both_languages() -> None:
    """DRA-011, DRA-081: four ordinary rooms by their French and English keywords; the
    sanctuary is a room of the manor but never a room choice."""
    g = Game()
    g.close("day")
    for player, word, room in (
        ("Bob", "BOUDOIR", "boudoir"),
        ("Cid", "SALLE DE BAL", "ballroom"),
        ("Dan", "géôles", "dungeons"),
        ("Eve", "TORTURE CHAMBER", "torture"),
        ("Fay", "ballroom", "ballroom"),
    ):
        g.do(player, f"ROOM {word}")
        assert g.state.order_of(player, "room").word == room  # type: ignore[union-attr]
    assert g.fails("Gus", "PIECE SANCTUAIRE") == "sanctuary_not_a_room"


def test_day_presence_in_sanctuary_has_no_effect() -> None:
    """DRA-018: by day everybody is in the sanctuary, which is not a sanctuary night."""
    g = Game(options={"fill_empty_seats": "none"})
    night1(g)
    g.close("day")  # Day 2 without votes
    g.night({})
    g.finish_night()
    assert not any(g.state.seat(p).sanctuary_used for p in NAMES)
    g.do("Cid", "VOTE Dan", "list")  # everyone is still eligible
    assert g.state.votes[-1][:2] == ("Cid", "Dan")


def test_no_private_channel_between_players() -> None:
    """DRA-041, DRA-431, AMB-080: the only texts relayed between players are the listed
    mechanisms (painting, waltz and its reply, Dracula's telepathy)."""
    from pbem.core.commands import Text
    from pbem.games.dracula.rules import COMMANDS

    relays = {c.verb for c in COMMANDS if any(isinstance(a, Text) for a in c.args)}
    assert relays == {"paint", "dance", "reply", "telepathy"}


def test_dracula_is_told_the_telepathy_code_ban() -> None:
    """DRA-423, AMB-072: the ban on recognition codes is quoted in Dracula's role notice."""
    from pbem.mail.render import Renderer

    g = Game()
    role = next(n for n in g.notices("role", since_mark=False) if n.to == ("Ana",))
    r = Renderer()
    fr = r.text("dracula/role", "fr", {"game": "Dracula", "name": "Ana", **role.params})
    en = r.text("dracula/role", "en", {"game": "Dracula", "name": "Ana", **role.params})
    assert "interdit" in fr and "codes" in fr
    assert "may not" in en and "codes" in en


def test_day1_may_last_zero() -> None:
    """AMB-005, AMB-076: day1 = 0 starts with Night 1 at once; every round recalls the
    special objects."""
    g = Game(options={"day1": 0, "rounds": 2})
    assert g.state.deadlines["day"] == g.now
    g.close("day")
    assert g.phase == "rooms"
    assert g.public("round_start", since_mark=False)[0].params["round"] == 1
