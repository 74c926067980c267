"""The night: order, timing, deaths (LUP-004, LUP-201, LUP-210, LUP-211, LUP-212, LUP-213, LUP-214, LUP-215, LUP-216, LUP-217, LUP-D03, LUP-D04,
LUP-D24, LUP-D27)."""

from __future__ import annotations

import pytest

from tests.lupus.scenario import FULL16, all_text, kill, rejected
from tests.support.game_by_mail import Game, lupus_roles

WOLVES3 = ("p1", "p2", "p3")


def test_game_starts_with_night_one_and_wolves_kill_on_it() -> None:
    """LUP-004, LUP-201, LUP-D03: Night 1 first; the Werewolves already kill on it."""
    g = Game(lupus_roles(8))
    assert (g.phase, g.number) == ("night", 1)
    kill(g, "p6")
    g.deadline()
    assert not g.alive("p6") and (g.phase, g.number) == ("debate", 1)


@pytest.mark.parametrize(
    ("player", "body"),
    [
        ("p13", "SCAN p1"),
        ("p13", "KILL p5"),
        ("p13", "PROTECT p5"),
        ("p13", "NOMINATE p5"),
        ("p6", "SCAN p1"),
        ("p5", "PROTECT p4"),
        ("p9", "KILL p5"),
    ],
)
def test_only_the_called_roles_act_at_night(player: str, body: str) -> None:
    """LUP-210, LUP-305, LUP-331: players without that power are refused; nothing changes."""
    g = Game(FULL16)
    assert "Your role does not have this power" in rejected(g, player, body)


def test_every_role_is_called_at_the_start_of_the_night() -> None:
    """LUP-211, LUP-212, LUP-213, LUP-214, LUP-216: prompts at the start of Night 1 and 2."""
    g = Game(FULL16)
    night1 = {p: g.text_to(p, g.sent) for p in ("p4", "p7", "p1", "p8", "p9", "p5", "p12")}
    assert "SCAN name" in night1["p4"]
    assert "PROTECT name" in night1["p7"]
    assert "the Werewolves are: p1, p2 and p3" in night1["p1"]
    assert "NOMINATE name" in night1["p8"]
    assert "the other Mason is p10" in night1["p9"]
    assert "voice of the dead" not in night1["p5"]  # Medium: nothing on Night 1 (LUP-D10)
    assert "whom do you imitate" not in night1["p12"]  # the Mythomaniac: Night 2 only
    start = len(g.sent)
    g.until("night", 2)
    night2 = g.sent[start:]
    assert "nobody was lynched on Day 1" in g.text_to("p5", night2)
    assert "Night 2: whom do you imitate?" in g.text_to("p12", night2)
    assert "Masons" not in g.text_to("p9", night2)


def test_night_ends_at_its_deadline_not_before() -> None:
    """LUP-215, LUP-216, LUP-D29: every action accepted until T_end; resolved only at T_end."""
    g = Game(lupus_roles(8))
    for p in g.living():
        g.mail(p, "PASS")
    assert g.phase == "night"  # early_close is off
    g.advance(18 * 3600 - 1)
    kill(g, "p5")
    assert g.alive("p5")
    g.deadline()
    assert not g.alive("p5") and g.phase == "debate"


@pytest.mark.parametrize(
    ("orders", "dead"),
    [
        ({}, []),
        ({"p1": "KILL p13", "p2": "KILL p13"}, ["p13"]),
        ({"p1": "KILL p13", "p4": "SCAN p11"}, ["p11", "p13"]),
        ({"p1": "KILL p13", "p4": "SCAN p11", "p7": "PROTECT p13"}, ["p11"]),
        ({"p1": "KILL p11"}, []),
    ],
)
def test_zero_one_or_two_deaths(orders: dict[str, str], dead: list[str]) -> None:
    """LUP-217, LUP-341, LUP-371, LUP-372: the night's deaths at T_end."""
    g = Game(FULL16)
    for player, body in orders.items():
        g.mail(player, body)
    g.deadline()
    assert [p for p in FULL16 if not g.alive(p)] == dead


def test_resolution_order_seer_before_mythomaniac() -> None:
    """LUP-216, LUP-311, LUP-D04: on Night 2 the Seer's step precedes the Mythomaniac's change,
    so a probe of him answers "not a Werewolf"; he is a Werewolf from dawn."""
    g = Game(FULL16)
    g.until("night", 2)
    g.mail("p12", "COPY p1")
    g.mail("p4", "SCAN p12")
    g.deadline()
    assert "p12 is not a Werewolf" in g.text_to("p4")
    assert g.state.seats["p12"].role == "werewolf"


def test_resolution_order_wolves_before_mythomaniac() -> None:
    """LUP-216, LUP-D04, LUP-D14: the Werewolves' attack of Night 2 comes first; he dies
    unchanged even if he designated a Werewolf."""
    g = Game(FULL16)
    g.until("night", 2)
    g.mail("p12", "COPY p1")
    kill(g, "p12", WOLVES3)
    g.deadline()
    assert not g.alive("p12") and g.state.seats["p12"].role == "mythomaniac"
    assert "Your imitation" not in g.text_to("p12")


def test_bodyguard_acts_before_the_wolves() -> None:
    """LUP-212, LUP-216, LUP-340: the protection is in place when the attack comes."""
    g = Game(FULL16)
    g.mail("p7", "PROTECT p13")
    kill(g, "p13", WOLVES3)
    g.deadline()
    assert g.alive("p13")


def test_actions_of_a_player_dying_that_night_take_effect() -> None:
    """LUP-D24, LUP-D06, LUP-D11: the dead Seer's probe still kills the Werehamster (no result
    to him); the dead Owl's nomination stands."""
    g = Game(FULL16)
    g.mail("p4", "SCAN p11")
    g.mail("p8", "NOMINATE p13")
    kill(g, "p4", WOLVES3)
    g.deadline()
    assert not g.alive("p4") and not g.alive("p11")
    assert g.to("p4") == []
    g.until("round1")
    g.post("p14", "VOTE p15")
    g.deadline()
    assert g.state.nominees == ("p13", "p15")


def test_nobody_acts_nothing_happens() -> None:
    """LUP-D27: Seer, Bodyguard, Owl -> nothing; Werewolves -> no victim; voters abstain."""
    g = Game(FULL16)
    g.deadline()
    assert g.living() == list(FULL16)
    assert "The pack chose no victim tonight" in g.text_to("p1")
    assert "Your vision" not in g.text_to("p4")
    assert "Nobody was torn apart tonight" in g.public_text()
    g.until("round1")
    g.deadline()
    assert g.state.nominees == () and "nobody is lynched" in g.public_text()
    assert (g.phase, g.number) == ("night", 2)
    assert "Mythomaniac" not in all_text(g, "p1")
