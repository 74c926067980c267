"""Forgiveness the player did not ask for (issue 25 item 2): a phase whose close the daemon
could not have heard a seat in (``Unheard``: his mail bounced, was held in a crash loop, was
too large, failed DKIM, waits for his confirmation; the daemon was down) or that the game
master's pause covered is not counted against the idle seat, and ``pbem verify`` agrees."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from pbem.core.events import Unheard
from pbem.core.idle import idle_streaks
from pbem.record.export import game_record
from pbem.record.replay import verify_record
from tests.desk.desk_game import DeskGame
from tests.support.game_by_mail import address


def silent_for(g: DeskGame, closes: int) -> None:
    for _ in range(closes):
        g.deadline()


def warned(g: DeskGame, name: str) -> bool:
    return any(m.to == (address(name),) and "joué depuis" in m.subject for m in g.sent)


def unheard(g: DeskGame, seat: str, cause: str) -> None:
    """What the daemon writes (pbem/daemon/unheard.py) when it could not hear ``seat``."""
    g.table.apply(g.table.step([Unheard(seat, cause, g.now)]))


@pytest.mark.parametrize("cause", ["bounce", "held", "oversize", "dkim", "confirmation"])
def test_a_phase_the_daemon_could_not_hear_a_seat_in_is_not_counted(cause: str) -> None:
    """p1, a Lupus wolf awaited the first night (LUP-200) and in the round-1 vote (LUP-400),
    silent: warned at the vote (idle_warn_after 2; the debate awaits nobody); his mail lost
    during the vote, that phase does not count."""
    control = DeskGame("lupus-in-tabula", lang="fr")
    g = DeskGame("lupus-in-tabula", lang="fr")
    for game in (control, g):
        silent_for(game, 2)  # the night, the debate
    unheard(g, "p1", cause)
    for game in (control, g):
        silent_for(game, 1)  # the round-1 vote
    assert idle_streaks(control.table.events)["p1"] == 2 and warned(control, "p1")
    assert idle_streaks(g.table.events)["p1"] == 1 and not warned(g, "p1")
    assert idle_streaks(g.table.events)["p4"] == 1  # only the unheard seat is forgiven


def test_an_outage_across_the_deadline_forgives_every_seat() -> None:
    g = DeskGame("loup-garou", lang="fr")
    silent_for(g, 1)
    before = idle_streaks(g.table.events)
    unheard(g, "", "outage")
    silent_for(g, 1)
    assert idle_streaks(g.table.events) == before


def test_a_pause_over_the_deadline_forgives_the_phase() -> None:
    g = DeskGame("lupus-in-tabula", lang="fr")
    silent_for(g, 2)
    (_, due) = g.earliest()
    g.admin("PAUSE")
    g.now = due + timedelta(hours=1)  # the deadline passed while paused: it did not fire
    g.admin("REPRISE")
    silent_for(g, 1)
    assert idle_streaks(g.table.events)["p1"] == 1
    short = DeskGame("lupus-in-tabula", lang="fr")  # a pause over before the deadline: counted
    silent_for(short, 2)
    short.admin("PAUSE")
    short.advance(60)
    short.admin("REPRISE")
    silent_for(short, 1)
    assert idle_streaks(short.table.events)["p1"] == 2


def test_verify_replays_the_forgiven_and_absent_closes_alike() -> None:
    g = DeskGame("lupus-in-tabula", lang="en")
    g.mail("p2", "ABSENT from 06/01 to 07/01")
    silent_for(g, 1)
    unheard(g, "p1", "bounce")
    silent_for(g, 2)
    record = json.loads(json.dumps(game_record(g.table), ensure_ascii=False))
    verdict = verify_record(record)
    assert verdict.failure is None, verdict.failure


def test_verify_replays_a_close_whose_next_deadline_an_absence_moved() -> None:
    g = DeskGame("lupus-in-tabula", lang="en", options={"absence_mode": "extend"})
    g.mail("p1", "ABSENT on 08/01")  # round 1's vote ends Thursday 8 January, 00:00
    moved_in_a_close = len(g.table.events)
    silent_for(g, 3)
    assert any(type(e).__name__ == "DeadlineMoved" for e in g.table.events[moved_in_a_close:])
    record = json.loads(json.dumps(game_record(g.table), ensure_ascii=False))
    verdict = verify_record(record)
    assert verdict.failure is None, verdict.failure
