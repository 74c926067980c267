"""The configuration keys of section 22 (CONFIG), each changing what it says."""

from __future__ import annotations

import random

import pytest

from pbem.core.errors import SetupError
from pbem.core.game import GameSpec
from pbem.games.dracula import Dracula
from pbem.games.dracula.events import Moved
from tests.dracula.scenario import NOW, QUIET, Game, advance, designated_night_3, players


def test_unknown_option_is_refused() -> None:
    with pytest.raises(SetupError):
        Dracula().setup(GameSpec(players(), {"rounds": 2, "nope": 1}, "en"), NOW, random.Random(0))


def test_bitten_vampire_count_can_be_withheld() -> None:
    """AMB-060 bitten_vampire_gets_count = false."""
    g = advance(Game(options={**QUIET, "bitten_vampire_gets_count": False}), 3)
    g.convert("Cid")
    g.night({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"}, {"Bob": "Cid", "Cid": "Dan"})
    assert g.to("Cid", "bitten_too", since_mark=False)[0].params["count"] is None


def test_destruction_notice_can_be_off() -> None:
    """AMB-052 notify_destroyed = false."""
    g = advance(Game(options={**QUIET, "notify_destroyed": False}), 3)
    g._apply([Moved(("manual",), "floor:dungeons", "hand:Ana", "test")])
    g._apply([Moved(("stake",), "gone", "floor:dungeons", "test")])
    g.mark()
    g.night(
        {"Ana": "dungeons", "Cid": "dungeons", "Dan": "dungeons", "Bob": "boudoir"},
        {"Ana": "NOBODY"},
    )
    assert g.state.floor["dungeons"] == () and not g.to("Ana", "destroyed")


def test_candle_options() -> None:
    """AMB-046 candle_shows_paint_text = true, candle_shows_curse_targets = false."""
    g = advance(
        Game(
            options={**QUIET, "candle_shows_paint_text": True, "candle_shows_curse_targets": False}
        ),
        3,
    )
    g.give("Cid", "candle", "paintkit", "grimoire")
    g.do("Cid", "CANDLE")
    g.do("Cid", "PAINT Bob ment")
    g.do("Cid", "CURSE Dan")
    g.mark()
    g.night({"Cid": "ballroom", "Dan": "ballroom", "Bob": "dungeons"})
    lines = g.notices("candle_report")[0].params["lines"]
    assert any(line["kind"] == "paint" and line["text"] == "Bob ment" for line in lines)
    assert any(line["kind"] == "curse" and line["targets"] == [] for line in lines)


@pytest.mark.parametrize(
    ("mode", "shown", "total"), [("new", 1, None), ("total", 2, None), ("both", 1, 2)]
)
def test_cursed_count_modes(mode: str, shown: int, total: int | None) -> None:
    """AMB-055 cursed_count = new | total | both; DRA-182: « total » counts the whole round,
    so the morning says « depuis le début de la manche » (en: "since the round began"), not
    « cette nuit » of a count that includes the night before."""
    g = advance(Game(options={**QUIET, "cursed_count": mode}), 2)
    g.give("Cid", "grimoire")
    g.do("Cid", "CURSE Eve")
    g.night({"Bob": "dungeons"})
    g.finish_night()
    g._apply(g.rules.on_post(g.state, "Eve", ["Je suis maudit ! **torture**"], g.now))
    g.day()
    g.do("Cid", "CURSE Dan")
    g.mark()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    m = g.public("morning")[0].params
    assert (m["cursed"], m["cursed_total"]) == (shown, total)
    fr, en = _render("morning", dict(m))
    if mode == "total":
        assert "2 joueurs ont été maudits depuis le début de la manche." in fr
        assert "2 players were cursed since the round began." in en
    else:
        assert "Un joueur a été maudit cette nuit" in fr
        assert "One player was cursed last night" in en


def test_no_dance_in_the_sanctuary_option() -> None:
    """AMB-058 dance_in_sanctuary = false."""
    g = advance(Game(options={**QUIET, "dance_in_sanctuary": False}), 3)
    g.give("Cid", "key", "phonograph")
    g.do("Cid", "KEY")
    g.rooms({"Bob": "dungeons"})
    g.mark()
    g.close("rooms")
    assert not g.to("Cid", "phonograph_prompt")


def test_default_flee_points_and_hidden_flame_targets() -> None:
    """AMB-064 default_flee_points, AMB-069 reveal_flame_targets = false, AMB-067 alternative."""
    g2 = advance(
        Game(
            options={**QUIET, "rounds": 1, "default_flee_points": 0, "reveal_flame_targets": False}
        ),
        5,
    )
    g2.night({"Bob": "dungeons"})
    g2.finish_night()
    for p in ("Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou", "Max"):
        g2.convert(p)
    g2.do("Cid", "FIGHT", "list")
    g2.mark()
    g2.close("final_choice")  # Dan and Eve default to flee: 0 points here
    g2.do("Cid", "FLAME Fay Fay Fay")
    g2.close("flames")
    assert g2.public("final_result")[0].params["designations"] == []
    points = g2.public("round_end")[0].params["points"]
    assert points["Dan"] == points["Eve"] == 0 and points["Fay"] == 0


def test_burned_vampires_may_score() -> None:
    """AMB-067 burned_vampires_score = true: a burned vampire keeps his points."""
    g = advance(Game(options={**QUIET, "rounds": 1, "burned_vampires_score": True}), 5)
    g.night({"Bob": "dungeons"})
    g.finish_night()
    for p in ("Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou", "Max"):
        g.convert(p)
    g.do("Cid", "FIGHT", "list")
    g.close("final_choice")
    g.do("Cid", "FLAME Bob")
    g.mark()
    g.close("flames")
    assert g.public("round_end")[0].params["points"]["Bob"] == 1


def test_missed_bite_none_and_no_self_vote() -> None:
    """AMB-003 missed_bite = none; AMB-011 allow_self_vote = false."""
    g = advance(Game(options={**QUIET, "missed_bite": "none", "allow_self_vote": False}), 3)
    g.night({"Bob": "boudoir", "Cid": "boudoir"})
    g.finish_night()
    assert g.side("Cid") == "human"
    assert g.fails("Cid", "VOTE Cid", "list") == "not_yourself"


@pytest.mark.parametrize(
    ("mode", "second"), [("every_dawn", ["Cid", "Eve"]), ("first_time_per_player", ["Eve"])]
)
def test_paint_repeat(mode: str, second: list[str]) -> None:
    """AMB-057 paint_repeat = every_dawn | first_time_per_player."""
    g = advance(Game(options={**QUIET, "paint_repeat": mode}), 2)
    g.give("Cid", "paintkit")
    g.do("Cid", "PAINT Bob ment")
    g.mark()
    g.night({"Cid": "ballroom", "Dan": "ballroom", "Bob": "dungeons"})
    g.finish_night()
    assert sorted(g.notices("painting")[0].to) == ["Cid", "Dan"]
    g.day()
    g.mark()
    g.night({"Cid": "ballroom", "Eve": "ballroom", "Bob": "dungeons"})
    g.finish_night()
    assert sorted(g.notices("painting")[0].to) == second


def test_paint_repeat_is_validated() -> None:
    with pytest.raises(SetupError):
        Dracula().setup(GameSpec(players(), {"paint_repeat": "never"}, "en"), NOW, random.Random(0))


@pytest.mark.parametrize("mode", ["end_of_night", "immediate"])
def test_curse_notice(mode: str) -> None:
    """AMB-054 curse_notice = end_of_night | immediate (NTF-35 at once, not at ORD-23)."""
    g = advance(Game(options={**QUIET, "curse_notice": mode}), 2)
    g.give("Cid", "grimoire")
    g.mark()
    g.do("Cid", "CURSE Eve")
    told_at_once = [p for n in g.notices("cursed") for p in n.to]
    assert told_at_once == (["Eve"] if mode == "immediate" else [])
    assert not g.state.seat("Eve").cursed  # the curse itself still falls at ORD-23
    g.mark()
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.state.seat("Eve").cursed
    assert [p for n in g.notices("cursed") for p in n.to] == ([] if told_at_once else ["Eve"])


@pytest.mark.parametrize("replies", [1, 3])
def test_dance_replies(replies: int) -> None:
    """AMB-058 dance_replies = N: up to N replies, each delivered at the close (AMB-002)."""
    g = advance(Game(options={**QUIET, "dance_replies": replies}), 3)
    g.give("Bob", "phonograph")
    g.rooms({"Bob": "ballroom", "Cid": "ballroom", "Dan": "ballroom"})
    g.close("rooms")
    g.do("Bob", "DANCE Cid shall we?")
    g.do("Bob", "BITE Dan")
    g.mark()
    g.close("bites")
    assert g.to("Cid", "waltz")[0].params["replies"] == replies
    for i in range(replies):
        assert "Cid" in g.rules.awaiting(g.state)
        g.do("Cid", f"REPLY answer {i}")
    assert g.fails("Cid", "REPLY one too many") == "order_final"
    assert "Cid" not in g.rules.awaiting(g.state)
    assert not g.notices("waltz_reply")  # AMB-002: nothing before the close
    g.close("dance_reply")
    texts = [n.params["text"] for n in g.to("Bob", "waltz_reply")]
    assert texts == [f"answer {i}" for i in range(replies)]


@pytest.mark.parametrize("bad", [0, -1, "2", True])
def test_dance_replies_is_validated(bad: object) -> None:
    """AMB-058: dance_replies is an integer of at least 1."""
    with pytest.raises(SetupError):
        Dracula().setup(GameSpec(players(), {"dance_replies": bad}, "en"), NOW, random.Random(0))


def _render(template: str, params: dict[str, object]) -> tuple[str, str]:
    from pbem.mail.render import Renderer

    r = Renderer()
    full = {"game": "Dracula", "name": "Ana", **params}
    return r.text(f"dracula/{template}", "fr", full), r.text(f"dracula/{template}", "en", full)


def test_amb_046_candle_shows_magnifier() -> None:
    """AMB-046 candle_shows_magnifier = true: the candle report names who used a magnifier
    before entering its room (by default it does not)."""
    for shown in (False, True):
        g = advance(Game(options={**QUIET, "candle_shows_magnifier": shown}), 3)
        g.give("Cid", "candle")
        g.give("Dan", "magnifier")
        g.do("Cid", "CANDLE")
        g.do("Dan", "MAGNIFIER")
        g.rooms({"Cid": "boudoir", "Bob": "dungeons"})
        g.close("rooms")
        g.do("Dan", "ROOM boudoir")
        g.close("magnifier")
        g.mark()
        g.close("bites")
        g.finish_night()
        (report,) = g.notices("candle_report")
        lines = [line for line in report.params["lines"] if line["kind"] == "magnifier"]
        assert [line["actor"] for line in lines] == (["Dan"] if shown else [])
    fr, en = _render("candle_report", dict(report.params))
    assert "Dan a utilisé une loupe avant d'entrer." in fr
    assert "Dan used a magnifying glass before coming in." in en


def test_amb_043_garlic_vampires_see_no_occupants() -> None:
    """AMB-043 garlic_vampires_see_occupants = false: a nauseous vampire is told of his
    nausea only, not who shares his room (the default lists them); he is still livid."""
    g = advance(Game(options={**QUIET, "garlic_vampires_see_occupants": False}), 3)
    g.give("Cid", "garlic")
    g.do("Cid", "GARLIC")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir"})
    g.mark()
    g.close("rooms")
    (prompt,) = g.to("Bob", "bite_prompt")
    assert prompt.params["status"] == "nausea" and prompt.params["others"] == []
    fr, en = _render("bite_prompt", dict(prompt.params))
    assert "Vous êtes dans le boudoir.\n" in fr and "Cid" not in fr and "Dan" not in fr
    assert "Cid" not in en and "nausea" in en
    g.close("bites")
    g.finish_night()
    assert g.public("morning")[0].params["livid"] == ["Bob"]


def test_amb_049_staked_orders_do_not_apply() -> None:
    """AMB-049 staked_orders_apply = false: a vampire staked tonight does not waltz nor curse
    (the default: test_phonograph_in_the_sanctuary_and_staked_dancer)."""
    g = designated_night_3({**QUIET, "staked_orders_apply": False})
    g.give("Bob", "phonograph", "grimoire")
    g.give("Cid", "stake")
    g.do("Cid", "STAKE Bob")
    g.rooms({})
    g.close("rooms")
    g.do("Bob", "DANCE Dan adieu")
    g.do("Bob", "CURSE Eve")
    g.mark()
    g.close("bites")
    g.finish_night()
    assert not g.state.seat("Bob").alive
    assert not g.to("Dan", "waltz") and not g.state.seat("Eve").cursed
