"""``pbem admin`` requests in the daemon (in process): applied once, through the one writer,
and a paused game's deadline is neither armed nor resolved."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from pbem.core.events import Paused
from pbem.daemon.operator.admin import AdminCommand
from pbem.daemon.operator.spool import submit
from pbem.daemon.status import gather, render
from tests.support.inproc_daemon import world_with_lupus_g1
from tests.support.mailstack import LIST


def test_an_admin_request_is_applied_once_and_a_paused_deadline_never_fires(
    tmp_path: Path,
) -> None:
    w = world_with_lupus_g1(tmp_path)
    svc = w.start()
    try:
        game = svc.games["g1"]
        (key, due), *_ = svc.deadlines.effective(game).items()
        left = due - w.now
        req = submit(w.cfg.data_dir, AdminCommand.now("g1", ["PAUSE"]))
        text = req.read_text()
        assert svc.operator.apply_requests() == 1 and not req.exists()
        assert svc.deadlines.effective(game) == {}  # nothing armed while paused
        assert "paused by the game master" in render(gather(w.cfg, w.now))
        # the same request again (a crash between its commit and its removal): applied once
        req.write_text(text)
        assert svc.operator.apply_requests() == 1
        assert sum(isinstance(e, Paused) for e in game.table.events) == 1  # type: ignore[attr-defined]
        # the deadline passes while paused: it is not resolved
        w.now = due + timedelta(hours=5)
        assert not svc.deadlines.resolve("g1", key)
        submit(w.cfg.data_dir, AdminCommand.now("g1", ["RESUME"]))
        assert svc.operator.apply_requests() == 1
        assert svc.deadlines.effective(game)[key] - w.now == left  # the time left, restored
        # the reply went to the daemon's admins (the game names none)
        rows = [r for r in game.store.head.table("outbox").all() if "admin@" in str(r["rcpts"])]
        assert len(rows) == 2
    finally:
        w.close()


def test_an_admin_remove_request_removes_the_seat_through_the_daemon(tmp_path: Path) -> None:
    """``pbem admin g1 RETIRER p4 raison``: applied by the one writer, announced on the list,
    the seat dead in the stored log (docs/seats.md)."""
    from pbem.core.events import SeatRemoved
    from pbem.core.ids import PlayerId

    w = world_with_lupus_g1(tmp_path)
    svc = w.start()
    try:
        game = svc.games["g1"]
        submit(w.cfg.data_dir, AdminCommand.now("g1", ["RETIRER p4 away"]))
        assert svc.operator.apply_requests() == 1
        table = game.table  # type: ignore[attr-defined]
        assert [e for e in table.events if isinstance(e, SeatRemoved)] == [
            SeatRemoved(PlayerId("p4"), "away", "admin@example.test")
        ]
        assert not next(p for p in table.summary()["players"] if p["name"] == "p4")["alive"]
        rows = game.store.outbox()  # the rows not sent yet, their mails as text
        posts = [r for r in rows if r["kind"] == "public" and LIST in str(r["rcpts"])]
        assert sum("p4 leaves the game" in r["raw"] for r in posts) == 1
    finally:
        w.close()


def test_status_lists_a_running_games_bench(tmp_path: Path) -> None:
    """``pbem status`` names a running game's bench (its volunteer substitutes, docs/seats.md),
    as it does a lobby's: who the game master may seat with ``REMPLACER`` / ``seat replace``."""
    w = world_with_lupus_g1(tmp_path, bench=[{"name": "Zoé Martin", "email": "zoe@example.test"}])
    try:
        data = gather(w.cfg, w.now)
        (game,) = data["games"]
        assert game["bench"] == [{"name": "Zoé Martin", "address": "zoe@example.test"}]
        assert "  bench: Zoé Martin <zoe@example.test>" in render(data)
    finally:
        w.close()


def test_a_request_bound_to_a_step_is_dropped_once_the_game_moved_on(tmp_path: Path) -> None:
    """Issue 21 item 16: the mail demo's CLORE, decided once every bot was idle in a step,
    closed the NEXT step when a deadline ended that one first (« Jour 3 : premier tour du
    vote » opened and closed empty 0.1 s later). Bound to the event count it was decided at,
    it is dropped when the game has moved on, applied when it has not."""
    w = world_with_lupus_g1(tmp_path)
    svc = w.start()
    try:
        game = svc.games["g1"]
        seen = int(game.store.meta["seq"])
        (key, due), *_ = svc.deadlines.effective(game).items()
        submit(w.cfg.data_dir, AdminCommand.now("g1", ["CLOSE"], expect_events=seen))
        w.now = due  # the step's deadline comes first: the next step opens
        assert svc.deadlines.resolve("g1", key)
        moved = int(game.store.meta["seq"])
        assert moved > seen
        assert svc.operator.apply_requests() == 1
        assert int(game.store.meta["seq"]) == moved  # dropped: the new step stays open
        submit(w.cfg.data_dir, AdminCommand.now("g1", ["CLOSE"], expect_events=moved))
        assert svc.operator.apply_requests() == 1
        assert int(game.store.meta["seq"]) > moved  # bound to the step in play: applied
    finally:
        w.close()
