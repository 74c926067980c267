"""The shipped odds table where the game master decides (the sign-up post, ``pbem
open-game``) and docs/balance.md's charts (a pure SVG function)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.balance import odds
from pbem.balance.docs import game_series, markdown, svg_chart
from pbem.games import rules_for
from pbem.signup.decks import deck
from tests.signup.helpers import opened, public


def camp(rate: float) -> dict[str, Any]:
    return {"rate": rate, "low": rate - 0.02, "high": rate + 0.02, "wins": 0, "of": 1000}


def fake_table() -> dict[str, Any]:
    cards, aside = deck(rules_for("lupus-in-tabula"), 8, {}, "fr")
    level = {"games": 1000, "rounds": 1000, "days": 5.5}
    entry = {
        "deck": cards,
        "aside": aside,
        "random": {**level, "camps": {"werewolves": camp(0.7), "villagers": camp(0.3)}},
        "informed": {**level, "camps": {"werewolves": camp(0.8), "villagers": camp(0.2)}},
    }
    return {"games_per_setup": 1000, "games": {"lupus-in-tabula": {"8": entry}}}


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    data = fake_table()
    monkeypatch.setattr(odds, "table", lambda: data)
    yield data


def test_odds_only_for_the_table_s_deck_and_default_rules(shipped: dict[str, Any]) -> None:
    cards = shipped["games"]["lupus-in-tabula"]["8"]["deck"]
    found = odds.odds_for("lupus-in-tabula", 8, {"idle_warn_after": 3}, cards)
    assert found == {
        "camps": [{"side": "werewolves", "rate": 70}, {"side": "villagers", "rate": 30}],
        "games": 1000,
    }
    assert odds.odds_for("lupus-in-tabula", 9, {}, None) is None  # not in the table
    assert odds.odds_for("lupus-in-tabula", 8, {"wolves_tie": "no_victim"}, cards) is None
    assert odds.odds_for("lupus-in-tabula", 8, {}, {**cards, "owl": 1}) is None


def test_sign_up_post_shows_the_deck_s_odds_and_sample(shipped: dict[str, Any]) -> None:
    _, step = opened()
    (post,) = public(step)
    assert "chances simulées : loups 70 %, village 30 % (1\u202f000 parties jouées" in post.body


def test_sign_up_post_without_odds_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(odds, "table", lambda: {})
    _, step = opened()
    (post,) = public(step)
    assert "chances" not in post.body


def test_svg_chart_is_well_formed_and_draws_each_line(shipped: dict[str, Any]) -> None:
    series, dashed = game_series(shipped["games"]["lupus-in-tabula"])
    svg = svg_chart("Lupus & co", series, [8], dashed=dashed)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "Lupus & co" in texts and "werewolves (informed)" in texts and "50 %" in texts
    two = svg_chart("t", {"a": [(8, 0.5), (18, 0.25)]}, range(8, 19))
    assert "<polyline" in two and ET.fromstring(two) is not None


def test_docs_tables(shipped: dict[str, Any]) -> None:
    text = markdown(shipped)
    assert "| 8 | 2 × werewolf" in text
    assert "werewolves 70.0 % (68.0–72.0)" in text and "(balance/lupus-in-tabula.svg)" in text
