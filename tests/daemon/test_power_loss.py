"""F7 (power loss) and requirement 3 without FUSE: the store's real file operations, cut at
every point, against what a disk with its cache cleared could hold (RELIABILITY §7.4 F7).

``tests/support/lazyfs.py`` records the ``os`` calls of a realistic workload (service start-up, a game
created, commits with events + outbox rows + ledger keys through several segment compactions,
daemon commits, outbox deletions, a failed game creation, a restart that cleans stale temps,
group commits over daemon.json and two games as ``Writer.handle_batch`` makes them).
For every operation of that log, a power cut there may leave many disks (unsynced data lost,
torn or flushed; each unsynced directory change there or not). Each one is written to a fresh
directory and opened as ``Service.open`` does. F1's criterion must hold: the state is readable
and equals the state after the last store call that returned, or, for the call in flight, the
one after it; never an older one (a returned commit is never lost: the directory fsync) and
never anything else (no half state, so no lost and no duplicate application). The state is
compared file by file (daemon.json, each game): a group commit writes its files one after the
other, so a cut inside it may leave some new and some old; each mail's ledger key lives in the
same file as its effects, and nothing is MOVEd before the group returns, so that is safe.

Negative controls: the same checker fails a store without the directory fsync, and a store
without the file fsync, so the model has teeth.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.store import (
    DaemonStore,
    DirLock,
    GameStore,
    atomic_file,
    clean_stale_game_dirs,
    directories,
    list_games,
)
from pbem.adapters.store import lock as store_lock
from tests.support.lazyfs import ERROR, Recorder, Report, check, crash_states, record

SEG = 8  # small segments: the workload goes through several compactions


def recover(base: Path) -> dict[str, str]:
    """Open a disk as ``Service.open`` does and return its logical state, one component per
    state file a commit writes atomically (daemon.json, each game's head with its segments),
    as canonical text; segments are layout, not state: compaction does not change the state."""
    root = base / "data"
    if not root.is_dir():  # the data directory never reached the disk: an empty daemon
        return {"daemon": json.dumps({})}
    clean_stale_game_dirs(root)
    daemon = DaemonStore(root)
    out = {"daemon": json.dumps(daemon.db.storage.read() or {}, sort_keys=True)}
    for d in list_games(root):
        gs = GameStore(d, segment_size=SEG)
        meta = gs.meta
        meta.pop("segments")
        game = {
            "meta": meta,
            "events": gs.events(),
            "ledger": sorted(gs.ledger_keys()),
            "outbox": gs.outbox(),
            "deadlines": gs.deadline_states(),
        }
        out[f"game {d.name}"] = json.dumps(game, sort_keys=True)
    return out


def _boom(point: str) -> None:
    raise OSError(28, f"injected at {point}")


def workload(base: Path, rec: Recorder, commits: int) -> None:
    """What the daemon does to its data directory, one store call per step."""
    root = base / "data"
    with rec.step("start-up: mkdir the data dir, lock, clean, load daemon.json"):
        root.mkdir(parents=True, exist_ok=True)  # as Service.open
        lock = DirLock(root)
        clean_stale_game_dirs(root)
        daemon = DaemonStore(root)
    with rec.step("daemon: store UIDVALIDITY"):
        daemon.set_uidvalidity("INBOX", 7)
    with rec.step("create game g1"):
        g1 = GameStore.create(
            root, "g1", {"game": "x"}, [{"e": 0}], [{"message_id": "<g1-0>"}], segment_size=SEG
        )
    for i in range(1, commits + 1):
        with rec.step(f"g1 commit {i}"):
            g1.commit(
                events=[{"e": i, "cmd": "VOTE"}, {"e": i, "echo": True}],
                outbox=[{"message_id": f"<g1-{i}>", "to": f"p{i % 5}@example.org"}],
                ledger_key=f"g1-k{i}",
                ledger_info={"at": f"2026-11-29T21:{i:02d}:00"},
                deadline={"key": "phase", "state": "open", "n": i} if i % 5 == 0 else None,
            )
        if i % 4 == 0:
            with rec.step(f"g1 outbox row sent {i}"):
                g1.outbox_done(f"<g1-{i - 2}>")
        if i % 7 == 3:
            with rec.step(f"daemon commit {i}"):
                daemon.commit(
                    ledger_key=f"d-k{i}",
                    ledger_info={"at": f"2026-11-29T21:{i:02d}:30"},
                    outbox=[{"message_id": f"<d-{i}>"}],
                )
        if i == 5:
            with (
                rec.step("create game g2 fails half-way (leaves a temp dir)"),
                pytest.raises(OSError),
            ):
                GameStore.create(root, "g2", {"game": "y"}, [], [], fault=_boom)
            with rec.step("a temp file left by an earlier crash"):
                fd = os.open(root / ".tmp-daemon.json.crashed", os.O_CREAT | os.O_WRONLY, 0o600)
                os.write(fd, b'{"format":1,"sha')
                os.close(fd)
        if i == 8:
            with rec.step("restart: relock, clean stale temps, reload"):
                lock.release()
                lock = DirLock(root)
                clean_stale_game_dirs(root)
                daemon = DaemonStore(root)
                g1 = GameStore(root / "games" / "g1", segment_size=SEG)
        if i == 10:
            with rec.step("create game g2"):
                g2 = GameStore.create(root, "g2", {"game": "y"}, [], [], segment_size=SEG)
            with rec.step("g2 commit"):
                g2.commit(events=[{"e": "j"}], ledger_key="g2-k1", outbox=[{"message_id": "<g2>"}])
        if i in (13, 22):
            # as Writer.handle_batch: several mails, one durable write per touched file
            with rec.step(f"group commit {i}"), contextlib.ExitStack() as stack:
                stack.enter_context(daemon.db.group())
                for gs in (g1, g2):
                    stack.enter_context(gs.head.group())
                for part in "ab":
                    g1.commit(events=[{"e": f"{i}{part}"}] * 3, ledger_key=f"g1-k{i}{part}")
                    g2.commit(events=[{"e": f"{i}{part}"}], ledger_key=f"g2-k{i}{part}")
                daemon.commit(ledger_key=f"d-k{i}g", outbox=[{"message_id": f"<d-{i}g>"}])
    with rec.step("daemon outbox row sent"):
        daemon.outbox_done("<d-3>")
    lock.release()
    assert g1.meta["segments"] >= commits // 5, "the workload goes through compactions"


def run(tmp_path: Path, commits: int, max_violations: int | None = None) -> tuple[Report, float]:
    base = tmp_path / "disk"
    base.mkdir()
    t0 = time.monotonic()
    with record(base) as rec:
        workload(base, rec, commits)
    # the disks to open are many and small: on a tmpfs when there is one (CI containers have)
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(
        prefix="pbem-f7-", dir=shm if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path
    ) as scratch:
        report = check(rec, recover, Path(scratch), max_violations=max_violations)
    return report, time.monotonic() - t0


def summary(report: Report) -> str:
    lines = [
        f"{report.steps} steps, {report.cuts} cut points, {report.states} disks checked "
        f"({report.distinct} distinct; subsets sampled at {report.sampled} cuts), "
        f"{len(report.violations)} violations"
    ]
    for v in report.violations[:5]:
        lines.append(
            f"  cut after op {v.cut} {v.op[:3]} in {v.step!r}: {v.state}\n"
            f"    {v.component}{' (an older state: a returned commit lost)' if v.older else ''}:"
            f" got {v.got[:300]}"
        )
    return "\n".join(lines)


def test_power_loss_at_every_cut_point_keeps_the_last_commit(tmp_path: Path) -> None:
    """F7 / requirement 3: no power cut loses a returned commit or leaves anything else than
    the last returned state or the one in flight."""
    report, seconds = run(tmp_path, commits=30)
    print(f"F7: {summary(report)} in {seconds:.1f} s")
    assert report.cuts > 200 and report.states > report.cuts
    assert report.sampled == 0, "every subset of unsynced directory changes was tried"
    assert not report.violations, summary(report)


def _broken_atomic_write(monkeypatch: pytest.MonkeyPatch, name: str, value: Any) -> None:
    """Run the real ``atomic_write`` with ``<name>`` = ``value`` in its module
    (:mod:`pbem.adapters.store.atomic_file`, where nothing else uses those names)."""
    monkeypatch.setattr(atomic_file, name, value)


def test_negative_control_without_directory_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F7 negative control: an atomic_write without its directory fsync lets a power cut take
    a returned commit away (the disk shows an older state), and the checker says so."""
    _broken_atomic_write(monkeypatch, "fsync_dir", lambda directory: None)
    report, _ = run(tmp_path, commits=10, max_violations=20)
    print(f"no directory fsync: {summary(report)}")
    assert report.violations, "the checker must catch a missing directory fsync"
    assert any(v.older for v in report.violations), summary(report)


class _NoFileFsync:
    """``os`` for the store, except that ``fsync`` of a regular file does nothing."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    @staticmethod
    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.fsync(fd)


def test_negative_control_without_file_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F7 negative control: an atomic_write without its file fsync lets a power cut leave an
    unreadable (empty or torn) file behind a rename that did reach the disk."""
    _broken_atomic_write(monkeypatch, "os", _NoFileFsync())
    report, _ = run(tmp_path, commits=10, max_violations=20)
    print(f"no file fsync: {summary(report)}")
    assert report.violations, "the checker must catch a missing file fsync"
    assert any(v.component == ERROR for v in report.violations), summary(report)


def test_the_model_follows_the_power_loss_rules(tmp_path: Path) -> None:
    """F7: the model itself, on a tiny script: an unsynced entry may be missing, an fsynced
    file's data is kept, unsynced data is lost, torn or flushed, a directory fsync settles."""

    def disks(rec: Recorder) -> set[tuple[tuple[str, bytes | None], ...]]:
        return {tuple(t.items()) for _, t in crash_states(rec.model, random.Random(0))}

    with record(tmp_path) as rec:
        os.mkdir(tmp_path / "d")
        fd = os.open(tmp_path / "d" / "f", os.O_CREAT | os.O_WRONLY, 0o600)
        os.write(fd, b"abcd")
        os.fsync(fd)
        # neither d (in the base) nor f (in d) is durable: each may be missing
        assert disks(rec) == {(), (("d", None),), (("d", None), ("d/f", b"abcd"))}
        directories.fsync_dir(tmp_path / "d")
        directories.fsync_dir(tmp_path)
        assert disks(rec) == {(("d", None), ("d/f", b"abcd"))}
        os.write(fd, b"efgh")  # not fsynced: lost, torn (a prefix) or flushed
        assert {dict(t)["d/f"] for t in disks(rec)} == {b"abcd", b"abcdef", b"abcdefgh"}
        os.close(fd)
        os.replace(tmp_path / "d" / "f", tmp_path / "d" / "g")  # not fsynced: either name
        names = {tuple(sorted(dict(t))) for t in disks(rec)}
        assert names == {("d", "d/f"), ("d", "d/g")}


def test_dirlock_parent_fsync_is_best_effort(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F7 fix: DirLock fsyncs the data directory's parent, but a parent it may not open
    (systemd's /var/lib/private under DynamicUser) does not stop the daemon."""
    real = directories.fsync_dir
    data = tmp_path / "data"
    data.mkdir()

    def fsync_dir(directory: Path) -> None:
        if directory == tmp_path:
            raise PermissionError(13, "Permission denied", str(directory))
        real(directory)

    monkeypatch.setattr(store_lock, "fsync_dir", fsync_dir)
    DirLock(data).release()
