"""Marking an outbox row sent by an append to the game's sent log, not a rewrite of its head
(issue 11: the head rewrite per sent mail was the store's largest cost in a by-mail demo)."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.store import DaemonStore, GameStore, sent_log
from pbem.adapters.store.sent_log import log_path

FIXTURE = Path(__file__).parent.parent / "fixtures" / "store" / "before-sent-log"


def row(n: int) -> dict[str, Any]:
    return {"message_id": f"<r{n}@pbem.test>", "raw": "x" * 2000, "rcpts": ["a@example.org"]}


def new_game(tmp_path: Path) -> GameStore:
    gs = GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 0}], [row(0)])
    gs.commit(events=[{"e": 1}], outbox=[row(1), row(2)], ledger_key="k1")
    return gs


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["message_id"] for r in rows]


def test_marking_a_row_sent_appends_one_line_and_leaves_the_head_unchanged(
    tmp_path: Path,
) -> None:
    gs = new_game(tmp_path)
    head = gs.dir / "head.json"
    before = head.read_bytes(), head.stat().st_ino
    gs.limits_hook = lambda: {"cap": [100.0, 101.0]}
    gs.outbox_done("<r1@pbem.test>")
    assert (head.read_bytes(), head.stat().st_ino) == before, "the head is not rewritten"
    assert log_path(gs.dir, 0).read_bytes().count(b"\n") == 1
    assert ids(gs.outbox()) == ["<r0@pbem.test>", "<r2@pbem.test>"]
    assert gs.limit_windows() == {"cap": [100.0, 101.0]}
    for reopened in (GameStore(gs.dir, readonly=True), GameStore(gs.dir)):
        # durable: a reader sees it, and so does the next writer, which takes the log in
        assert ids(reopened.outbox()) == ["<r0@pbem.test>", "<r2@pbem.test>"]
        assert reopened.limit_windows() == {"cap": [100.0, 101.0]}
    assert not log_path(gs.dir, 0).exists(), "taken in by the writer that opened it"
    assert "<r1@pbem.test>" not in str(head.read_bytes())


def test_the_next_commit_takes_the_sent_log_in_with_its_own_write(tmp_path: Path) -> None:
    gs = new_game(tmp_path)
    gs.outbox_done("<r0@pbem.test>")
    gs.outbox_done("<r2@pbem.test>")
    with gs.head.group():  # as the daemon's batch: removed once the group's write is durable
        gs.commit(events=[{"e": 2}], outbox=[row(3)], ledger_key="k2")
        assert log_path(gs.dir, 0).exists()
    assert not log_path(gs.dir, 0).exists()
    rows = [d["message_id"] for d in gs.head.table("outbox").all()]
    assert rows == ["<r1@pbem.test>", "<r3@pbem.test>"]
    gs.outbox_done("<r3@pbem.test>")  # the next generation's log
    assert log_path(gs.dir, 1).exists()
    assert ids(GameStore(gs.dir, readonly=True).outbox()) == ["<r1@pbem.test>"]


def test_a_line_cut_short_by_a_power_loss_is_not_a_mark_and_nothing_is_appended_after_it(
    tmp_path: Path,
) -> None:
    gs = new_game(tmp_path)
    gs.outbox_done("<r0@pbem.test>")
    with log_path(gs.dir, 0).open("ab") as f:  # an append whose fsync never returned
        f.write(b'{"sent":"<r1@pbem.te')
    assert ids(GameStore(gs.dir, readonly=True).outbox()) == ["<r1@pbem.test>", "<r2@pbem.test>"]
    reopened = GameStore(gs.dir)  # the writer takes the whole file in before any append
    assert not log_path(gs.dir, 0).exists()
    reopened.outbox_done("<r2@pbem.test>")
    assert log_path(gs.dir, 1).read_bytes() == b'{"sent":"<r2@pbem.test>"}\n'
    assert ids(GameStore(gs.dir).outbox()) == ["<r1@pbem.test>"]  # sent again: at least once


def test_a_log_the_head_took_in_before_a_crash_is_stale_and_never_applied_again(
    tmp_path: Path,
) -> None:
    gs = new_game(tmp_path)
    gs.limits_hook = lambda: {"cap": [100.0]}
    gs.outbox_done("<r0@pbem.test>")
    taken = log_path(gs.dir, 0).read_bytes()
    gs.limits_hook = lambda: {"cap": [100.0, 200.0]}
    gs.commit(events=[{"e": 2}], outbox=[row(0)], ledger_key="k2")  # the same id, a new row
    log_path(gs.dir, 0).write_bytes(taken)  # a crash before the taken file was removed
    reopened = GameStore(gs.dir)
    assert not log_path(gs.dir, 0).exists()
    assert reopened.limit_windows() == {"cap": [100.0, 200.0]}, "the newer window stays"
    assert "<r0@pbem.test>" in ids(reopened.outbox())


def test_a_store_written_before_the_sent_log_loads_and_marks_rows_sent(tmp_path: Path) -> None:
    """The fixture was written by the store of the previous version (no sent log: sent rows
    removed by a head rewrite), with a closed segment, a deadline, a retried row and limits."""
    root = tmp_path / "data"
    shutil.copytree(FIXTURE, root)
    daemon = DaemonStore(root)
    assert daemon.uidvalidity("INBOX") == 7
    assert ids(daemon.outbox()) == ["<d-1@pbem.test>"]
    assert daemon.ledger_keys() == {"d-k1"}
    gs = GameStore(root / "games" / "g1")
    assert gs.game_id == "g1" and gs.meta["segments"] == 1
    assert [e.get("n") for e in gs.events()] == [None, 1, 2, 3, 4, 5, 6]
    assert gs.ledger_keys() == {f"g1-k{i}" for i in range(1, 7)}
    pending = ["<g1-1@pbem.test>", "<g1-3@pbem.test>", "<g1-4@pbem.test>"]
    assert ids(gs.outbox()) == [*pending, "<g1-5@pbem.test>", "<g1-6@pbem.test>"]
    assert gs.outbox()[1]["attempts"] == 1
    assert gs.deadline_states() == {"day:1": {"key": "day:1", "state": "open"}}
    assert gs.limit_windows() == {"cap": [1764450100.0]}
    gs.outbox_done("<g1-5@pbem.test>")
    gs.outbox_done("<g1-6@pbem.test>")
    assert ids(GameStore(root / "games" / "g1", readonly=True).outbox()) == pending
    assert ids(GameStore(root / "games" / "g1").outbox()) == pending


class _DiskFillsMidLine:
    """``os`` for the sent log, whose disk fills after the first half of a line (a short write,
    then ENOSPC): what a real full disk may do to a line across a page boundary."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    @staticmethod
    def write(fd: int, data: Any) -> int:
        if len(data) > 8:
            return os.write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_mark_the_full_disk_cut_leaves_no_partial_line_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gs = new_game(tmp_path)
    gs.outbox_done("<r0@pbem.test>")
    with monkeypatch.context() as m:
        m.setattr(sent_log, "os", _DiskFillsMidLine())
        with pytest.raises(OSError) as err:
            gs.outbox_done("<r1@pbem.test>")
    assert err.value.errno == errno.ENOSPC
    gs.outbox_done("<r2@pbem.test>")  # room again: the next line starts on its own line
    assert log_path(gs.dir, 0).read_bytes().splitlines() == [
        b'{"sent":"<r0@pbem.test>"}',
        b'{"sent":"<r2@pbem.test>"}',
    ]
    assert ids(GameStore(gs.dir, readonly=True).outbox()) == ["<r1@pbem.test>"]
