"""``pbem simulate`` transcripts where players go idle (they simply send nothing): warned
after ``idle_warn_after`` phases, then removed with their game's death consequences, or
offered to the bench (docs/seats.md). Each game's consequence cites the rule it rests on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.desk.desk_game import ADMIN
from tests.idle.transcripts import idle_transcript, run, setup_line
from tests.support.game_by_mail import address

REMOVE = {"on_idle": "remove"}
OFFERED = {
    "lupus-in-tabula": "p1",
    "loup-garou": "alice",
    "chasse-aux-sorcieres": "dave",
    "dracula": "ana",
}


def warnings_to(mails: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [m for m in mails if m["to"] == [address(name)] and "pas joué depuis" in m["subject"]]


def removals(mails: list[dict[str, Any]]) -> list[str]:
    return [m["body"] for m in mails if m["public"] and "quitte la partie" in m["subject"]]


def seat(state: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in state["players"] if p["name"] == name)


def check_warned_then_removed(mails: list[dict[str, Any]], name: str) -> None:
    """The idle seat is warned once (2 phases), then removed (3), warning first."""
    (warning,) = warnings_to(mails, name)
    assert "lors des 2 dernières phases" in warning["body"]
    announced = [b for b in removals(mails) if b.startswith(f"{name} a été retirée")]
    assert announced, removals(mails)
    assert "pour inactivité" in announced[0]  # « retirée »: the player said "f"
    assert mails.index(warning) < next(
        i for i, m in enumerate(mails) if m["public"] and m["body"] == announced[0]
    )


def test_lupus_idle_wolves_are_warned_then_removed_and_the_village_wins_at_once() -> None:
    """LUP-110: with both wolves removed, the Villagers win on the removal itself."""
    idle = ("p1", "p2")
    lines = idle_transcript(setup_line("lupus-in-tabula", idle=idle, options=REMOVE), idle, 12)
    mails, state = run(lines)
    for name in idle:
        check_warned_then_removed(mails, name)
        assert not seat(state, name)["alive"]
    assert state["status"] == "finished"
    assert set(state["winners"]) == {f"p{i}" for i in range(3, 9)}


def test_loupgarou_idle_wolves_are_removed_and_the_village_wins_at_once() -> None:
    """LG-110, LG-114 (b): the victory is checked right after the removal."""
    idle = ("alice", "bob")  # the two Loups-garous of the fixed deal
    lines = idle_transcript(setup_line("loup-garou", idle=idle, options=REMOVE), idle, 14)
    mails, state = run(lines)
    for name in idle:
        check_warned_then_removed(mails, name)
    assert state["status"] == "finished"
    assert all(seat(state, w)["team"] != "wolves" for w in state["winners"])


def test_chasse_idle_demons_are_warned_then_removed_as_dead_seats() -> None:
    """CAS-234, CAS-101: the removed are dead for the rules; the game goes on without them."""
    idle = ("dave", "erin", "frank")
    lines = idle_transcript(setup_line("chasse-aux-sorcieres", idle=idle, options=REMOVE), idle, 16)
    mails, state = run(lines)
    for name in idle:
        check_warned_then_removed(mails, name)
        assert not seat(state, name)["alive"]
    assert "Son rôle : " in removals(mails)[0]  # removal_reveal: on by default


def test_dracula_idle_human_is_removed_but_dracula_is_left_to_the_game_master() -> None:
    """DRA-325: Dracula never leaves a round; the game master is asked to replace him."""
    idle = ("ana", "bob")  # ana holds Dracula
    lines = idle_transcript(setup_line("dracula", idle=idle, options=REMOVE), idle, 20)
    mails, state = run(lines)
    check_warned_then_removed(mails, "bob")
    assert not seat(state, "bob")["alive"]
    assert seat(state, "ana")["alive"]
    asked = [m for m in mails if m["to"] == [ADMIN] and "ana ne joue plus" in m["subject"]]
    assert asked and "tient Dracula" in asked[0]["body"]
    assert "REMPLACER ana par nom" in asked[0]["body"]


@pytest.mark.parametrize(
    "game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula"]
)
def test_idle_seat_is_offered_to_the_bench_naming_the_volunteers(game: str) -> None:
    """on_idle = "offer" (the default): the game masters get the bench and the command."""
    idle = (OFFERED[game],)
    setup = setup_line(game, idle=idle, bench=("zoe", "yann"))
    mails, state = run(idle_transcript(setup, idle, 10))
    (offer,) = [m for m in mails if m["to"] == [ADMIN] and f"{idle[0]} ne joue" in m["subject"]]
    assert "Volontaires sur le banc : zoe et yann." in offer["body"]
    assert f"REMPLACER {idle[0]} par nom" in offer["body"]
    assert seat(state, idle[0])["alive"]  # an offer removes nobody
    assert removals(mails) == []


def test_with_an_empty_bench_the_offer_asks_the_game_master() -> None:
    idle = ("p1",)
    mails, _ = run(idle_transcript(setup_line("lupus-in-tabula", idle=idle), idle, 8))
    (asked,) = [m for m in mails if m["to"] == [ADMIN] and "p1 ne joue" in m["subject"]]
    assert "personne n'attend sur le banc" in asked["body"]
    assert "RETIRER p1 [raison]" in asked["body"]


def test_shipped_lupus_idle_transcript() -> None:
    """tests/transcripts/lupus-idle.jsonl: erin (villager, "f") goes silent; LUP-103: a removal
    shows no card in Lupus; the game master removes gina with a reason."""
    lines = (Path(__file__).parents[1] / "transcripts" / "lupus-idle.jsonl").read_text()
    mails, state = run(lines.splitlines())
    (warning,) = warnings_to(mails, "erin")
    assert "Rien n'est attendu de vous pour l'instant" in warning["body"]  # a villager's night
    assert removals(mails) == [
        "erin a été retirée de la partie pour inactivité.\n",
        "gina a été retirée de la partie par le meneur (raison : partie en vacances).\n",
    ]
    assert not seat(state, "erin")["alive"] and not seat(state, "gina")["alive"]
    assert state["status"] == "running"


@pytest.mark.parametrize(
    "game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula"]
)
def test_idle_seat_warned_then_replaced_from_the_bench_plays_on(game: str) -> None:
    """Issue 13's "idle player warned, then replaced from the bench": the warning, the offer
    naming the bench, the game master's ``REMPLACER <seat> par <bench name>``; the volunteer
    takes the seat (its role and history kept: docs/seats.md) and gets the hand-over packet,
    and the old address is refused from then on."""
    idle = (OFFERED[game],)
    name = idle[0]
    setup = setup_line(game, idle=idle, bench=("zoe", "yann"))
    for deadlines in range(3, 11):  # up to the first close that makes the offer
        lines = idle_transcript(setup, idle, deadlines)
        mails, before = run(lines)
        if any(m["to"] == [ADMIN] and f"{name} ne joue" in m["subject"] for m in mails):
            break
    (warning,) = warnings_to(mails, name)
    offer = next(m for m in mails if m["to"] == [ADMIN] and f"{name} ne joue" in m["subject"])
    assert mails.index(warning) < mails.index(offer)
    assert before["status"] == "running" and seat(before, name)["alive"]
    role = seat(before, name)["role"]
    admin = json.dumps(
        {"mail": {"from": ADMIN, "to": "moderator", "body": f"REMPLACER {name} par zoe"}}
    )
    late = json.dumps({"mail": {"from": address(name), "to": "moderator", "body": "AIDE"}})
    after, state = run([*lines, admin, late])
    new = after[len(mails) :]
    assert "✓ REMPLACER" in next(m for m in new if m["to"] == [ADMIN])["body"]
    assert any(m["public"] and f"zoe remplace {name}" in m["subject"] for m in new)
    packet = next(m for m in new if m["to"] == [address("zoe")])
    assert "dossier" in packet["subject"]
    assert warning["subject"] in packet["body"]  # the seat's private history, the warning too
    held = seat(state, "zoe")
    assert held["role"] == role and held["alive"]
    refused = [m for m in new if m["to"] == [address(name)]][-1]
    assert "ne joue plus dans cette partie" in refused["body"]
