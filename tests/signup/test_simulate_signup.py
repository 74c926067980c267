"""`pbem simulate` opens sign-ups too (issue 13): a transcript whose setup has a ``signup``
section takes joins, leaves and the bench by mail, and starts at the deadline or when full;
one transcript per game goes from sign-ups to the start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.tools.simulate import simulate
from tests.signup.helpers import lobby_setup, names

TRANSCRIPT = Path(__file__).parents[1] / "transcripts" / "signup-lupus.jsonl"


def _run(lines: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    out = list(simulate(lines))
    return [o["mail"] for o in out if "mail" in o], out[-1]["state"]


def test_the_sign_up_transcript_starts_at_the_deadline_lup_010() -> None:
    """LUP-010: 9 seated of 8 to 11 at the deadline is a count the rules accept."""
    mails, state = _run(TRANSCRIPT.read_text(encoding="utf-8").splitlines())
    assert state["status"] == "running" and len(state["players"]) == 9
    assert "Jean Pierre" in [p["name"] for p in state["players"]]
    refusals = [m["body"] for m in mails if m["to"] == ["jean@example.org"]]
    assert "commencent de la même façon" in refusals[0]  # « Jean » after « Jean Pierre »
    assert any("banc" in m["subject"] for m in mails if m["to"] == ["hugo@example.org"])
    assert any(
        "mot de commande VOTE" in m["body"] for m in mails if m["to"] == ["ivan@example.org"]
    )


@pytest.mark.parametrize(
    ("game", "seats", "rule"),
    [
        ("lupus-in-tabula", 8, "LUP-010"),
        ("loup-garou", 16, "LG-002"),
        ("chasse-aux-sorcieres", 14, "CAS-002"),
        ("dracula", 13, "DRA-005"),
    ],
)
def test_a_transcript_per_game_from_sign_ups_to_the_start(game: str, seats: int, rule: str) -> None:
    """LUP-010, LG-002, CAS-002, DRA-005: the count each game is played by fills the seats;
    the game starts when full, with the role cards of its own opening."""
    lines = [json.dumps({"setup": lobby_setup(game=game, seats=(seats, seats))})]
    for i, name in enumerate(names(seats)):
        mail = {"from": f"v{i}@example.org", "to": "moderator", "body": f"INSCRIPTION {name}"}
        lines.append(json.dumps({"mail": mail}))
    mails, state = _run(lines)
    assert state["status"] == "running", rule
    assert [p["name"] for p in state["players"]] == names(seats)
    assert all(any(m["to"] == [f"v{i}@example.org"] for m in mails) for i in range(seats))


def test_a_transcript_without_enough_volunteers_asks_the_game_master() -> None:
    lines = [json.dumps({"setup": lobby_setup(seats=(8, 8))})]
    lines.append(json.dumps({"mail": {"from": "a@example.org", "body": "INSCRIPTION Anne"}}))
    lines.append(json.dumps({"deadline": True}))
    lines.append(json.dumps({"mail": {"from": "gm@example.org", "body": "ANNULER PARTIE"}}))
    mails, state = _run(lines)
    assert any(m["to"] == ["gm@example.org"] and "décision" in m["subject"] for m in mails)
    assert state["status"] == "cancelled" and state["players"][0]["name"] == "Anne"


@pytest.mark.parametrize(
    ("signup", "error"),
    [({"seats": "x"}, "'signup' must be"), ({"seats": [20, 24]}, "Dracula")],
)
def test_a_bad_sign_up_setup_is_one_clear_error(signup: dict[str, Any], error: str) -> None:
    from pbem.core.errors import SetupError

    setup = {**lobby_setup(game="dracula"), "signup": signup}
    with pytest.raises(SetupError, match=error):
        list(simulate([json.dumps({"setup": setup})]))
