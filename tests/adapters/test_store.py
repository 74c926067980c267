"""The atomic store: transactions, rollback, segments, and kill -9 in a write loop (requirement 3)."""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import socket
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.store import (
    AtomicDB,
    DaemonStore,
    GameStore,
    StoreError,
    atomic_write,
    clean_stale_game_dirs,
    encode_envelope,
    list_games,
    read_file,
)
from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    send,
    wait_for,
    write_config,
)
from tests.support.mailstack import ADMIN, MODERATOR, MailStack


def test_transaction_is_one_write_and_rolls_back(tmp_path: Path) -> None:
    db = AtomicDB(tmp_path / "x.json")
    with db.transaction():
        db.table("a").insert({"n": 1})
        db.table("b").insert({"n": 2})
    assert read_file(tmp_path / "x.json")["a"]["1"] == {"n": 1}
    with pytest.raises(RuntimeError), db.transaction():
        db.table("a").insert({"n": 3})
        raise RuntimeError("boom")
    assert [d["n"] for d in db.table("a").all()] == [1]
    reopened = AtomicDB(tmp_path / "x.json")
    assert [d["n"] for d in reopened.table("a").all()] == [1]
    with db.transaction():
        db.table("a").insert({"n": 4})
    assert [d["n"] for d in AtomicDB(tmp_path / "x.json").table("a").all()] == [1, 4]


def test_checksum_and_bak(tmp_path: Path) -> None:
    p = tmp_path / "f.json"
    atomic_write(p, {"v": 1})
    atomic_write(p, {"v": 2})
    assert read_file(p.with_name("f.json.bak")) == {"v": 1}
    raw = p.read_bytes().replace(b'"v":2', b'"v":3')
    p.write_bytes(raw)
    with pytest.raises(StoreError, match="checksum"):
        read_file(p)


def test_stale_temp_removed(tmp_path: Path) -> None:
    (tmp_path / ".tmp-head.json.abc").write_text("half")
    AtomicDB(tmp_path / "head.json")
    assert not list(tmp_path.glob(".tmp-*"))


def test_game_store_segments(tmp_path: Path) -> None:
    gs = GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 0}], [], segment_size=10)
    gs = GameStore(tmp_path / "games" / "g1", segment_size=10)
    for i in range(1, 35):
        gs.commit(events=[{"e": i}], ledger_key=f"k{i}", outbox=[{"message_id": f"<{i}>"}])
    assert gs.meta["segments"] == 3
    assert [e["e"] for e in gs.events()] == list(range(35))
    assert gs.ledger_keys() == {f"k{i}" for i in range(1, 35)}
    assert len(gs.outbox()) == 34
    gs.outbox_done("<3>")
    assert len(GameStore(tmp_path / "games" / "g1").outbox()) == 33
    assert len(GameStore(tmp_path / "games" / "g1").head.table("events").all()) < 10


def test_daemon_store(tmp_path: Path) -> None:
    ds = DaemonStore(tmp_path)
    assert ds.uidvalidity("INBOX") is None
    ds.set_uidvalidity("INBOX", 7)
    ds.commit(ledger_key="k", ledger_info={"at": "2020-01-01"}, outbox=[{"message_id": "<a>"}])
    ds2 = DaemonStore(tmp_path)
    assert ds2.uidvalidity("INBOX") == 7
    assert ds2.ledger_keys() == {"k"}
    assert ds2.prune_ledger("2021") == 1


def _writer(directory: Path, wfd: int) -> None:
    """Child: commit forever, reporting each committed counter on the pipe."""
    gs = GameStore(directory, segment_size=16)
    i = len(gs.events())
    while True:
        gs.commit(events=[{"i": i}], ledger_key=f"k{i}", outbox=[{"message_id": f"<{i}>"}])
        os.write(wfd, f"{i}\n".encode())
        i += 1


STORE_KILLS = int(os.environ.get("PBEM_STORE_KILLS", "50"))
"""kill -9 trials of the store's write loop: 50 in ``make test``, 300 in ``make soak``
(``PBEM_STORE_KILLS``). Each kill lands at a random moment of a loop of commits (a commit every
millisecond or two, a segment compaction every 16), and each trial forks the test process:
in a busy xdist worker that fork is most of the cost."""


@pytest.mark.slow(5)
def test_kill9_trials_always_readable_at_last_commit(tmp_path: Path) -> None:
    GameStore.create(tmp_path, "g", {"game": "x"}, [], [])
    directory = tmp_path / "games" / "g"
    rng = random.Random(42)
    trials = STORE_KILLS
    for _ in range(trials):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            os.close(r)
            try:
                _writer(directory, w)
            finally:
                os._exit(1)
        os.close(w)
        # the kill lands mid-loop, after the writer's first commit, however busy the machine
        first = os.read(r, 1 << 20)
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        reported = (first + os.read(r, 1 << 20)).decode().split()
        os.close(r)
        gs = GameStore(directory, segment_size=16)
        events = [e["i"] for e in gs.events()]
        assert events == list(range(len(events))), "a gap or a duplicate"
        if reported:
            last = int(reported[-1])
            # everything acknowledged is there; at most the one in flight beyond it
            assert last + 1 <= len(events) <= last + 2
        assert gs.ledger_keys() == {f"k{i}" for i in events}
        json.dumps(gs.outbox())
    assert len(GameStore(directory).events()) >= trials  # every kill landed mid-loop


def test_group_commit_one_write_and_per_member_rollback(tmp_path: Path) -> None:
    db = AtomicDB(tmp_path / "g.json")
    writes = []
    db.storage.fault = lambda point: writes.append(point)
    with db.group():
        with db.transaction():
            db.table("t").insert({"n": 1})
        with pytest.raises(RuntimeError), db.transaction():
            db.table("t").insert({"n": 2})
            raise RuntimeError("poison")
        with db.transaction():
            db.table("t").insert({"n": 3})
        assert not (tmp_path / "g.json").exists(), "nothing durable before the group ends"
    assert writes == ["mid_state_write"], "one write for the group"
    assert [d["n"] for d in AtomicDB(tmp_path / "g.json").table("t").all()] == [1, 3]
    with pytest.raises(KeyError), db.group():
        with db.transaction():
            db.table("t").insert({"n": 4})
        raise KeyError("the group fails")
    assert [d["n"] for d in db.table("t").all()] == [1, 3], "a failed group is dropped whole"


def test_group_rollback_restores_documents_updated_in_place(tmp_path: Path) -> None:
    db = AtomicDB(tmp_path / "m.json")
    with db.transaction():
        db.table("meta").insert({"seq": 1})
        db.table("events").insert({"e": 1})
    with db.group():
        with pytest.raises(RuntimeError), db.transaction():
            db.table("meta").update({"seq": 99}, doc_ids=[1])
            db.table("events").insert({"e": 2})
            raise RuntimeError("poison")
        with db.transaction():
            db.table("events").insert({"e": 3})
    fresh = AtomicDB(tmp_path / "m.json")
    assert fresh.table("meta").get(doc_id=1) == {"seq": 1}
    assert [d["e"] for d in fresh.table("events").all()] == [1, 3]


def test_a_write_changes_its_table_in_place_once_copied(tmp_path: Path) -> None:
    """Issue 23: tinydb rebuilt a whole table on each write, so a commit cost O(pending outbox
    + head ledger); a table is now copied once per rollback snapshot, then changed in place."""
    db = AtomicDB(tmp_path / "c.json")
    with db.transaction():
        db.table("t").insert({"n": 1})
        first = db.storage.read()["t"]  # type: ignore[index]
        db.table("t").insert({"n": 2})
        assert db.storage.read()["t"] is first  # type: ignore[index]
    with db.group(), db.transaction():
        db.table("t").insert({"n": 3})
        assert db.storage.read()["t"] is not first, "the snapshot's dict is left alone"  # type: ignore[index]
    assert [d["n"] for d in AtomicDB(tmp_path / "c.json").table("t").all()] == [1, 2, 3]


def test_create_writes_the_head_once_and_never_reads_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (1,000 games created): the new head is written in its new directory without
    a temp file, and the returned store holds what a reader of the file gets."""
    from pbem.adapters.store import atomic_file

    def no_read(path: Path) -> Any:
        raise AssertionError(f"read back: {path}")

    setup = {"game": "x", "players": [{"name": "Ann", "t": (1, 2)}]}
    with monkeypatch.context() as m:
        m.setattr(atomic_file, "read_file", no_read)
        m.setattr("pbem.adapters.store.atomic_db.read_file", no_read)
        m.setattr("pbem.adapters.store.game.read_file", no_read)
        made = GameStore.create(tmp_path, "g1", setup, [{"e": 1}], [{"message_id": "<m>"}])
    assert sorted(p.name for p in (tmp_path / "games" / "g1").iterdir()) == ["head.json"]
    opened = GameStore(tmp_path / "games" / "g1")
    assert made.head.storage.read() == opened.head.storage.read()
    assert made.setup["players"][0]["t"] == [1, 2]  # JSON types, as read
    made.commit(events=[{"e": 2}], ledger_key="k")
    assert GameStore(tmp_path / "games" / "g1").events() == [{"e": 1}, {"e": 2}]


def test_a_new_head_is_the_same_bytes_whatever_mapping_holds_its_events(tmp_path: Path) -> None:
    """The engine's encoded events (dicts) are written as they are, without a copy each
    (issue 23); any other mapping gives the same head."""
    from types import MappingProxyType

    from pbem.adapters.store.atomic_db import AtomicStorage

    events = [{"type": "E", "n": i, "to": ["Ann"]} for i in range(3)]
    GameStore.create(tmp_path / "a", "g", {"game": "x"}, events, [])
    GameStore.create(tmp_path / "b", "g", {"game": "x"}, [MappingProxyType(e) for e in events], [])
    head = tmp_path / "a" / "games" / "g" / "head.json"
    assert head.read_bytes() == (tmp_path / "b" / "games" / "g" / "head.json").read_bytes()
    assert AtomicStorage(head, readonly=True).path is head  # kept, not parsed again


def test_the_state_encoder_writes_what_json_dumps_writes_and_still_refuses_a_loop() -> None:
    """The encoder is made once and skips the loop check (issue 23): the same text as
    ``json.dumps`` for every kind of value a state holds, and a value holding itself still
    raises instead of being written."""
    from pbem.adapters.store.atomic_file import compact_json

    value: dict[str, Any] = {
        "é": ["Zoé", "l'Ours", '\n\t"\\', "\u2028", "🐺"],
        "n": [0, -1, 2**70, 0.1, 1e16, -0.0, 64800.0, True, False, None],
        "nested": {"1": {"a": [], "b": {}}, "t": (1, "x")},
    }
    plain = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert compact_json(value) == plain
    assert encode_envelope(value).endswith(b'"data":' + plain.encode() + b"}\n")
    loop: list[Any] = []
    loop.append(loop)
    for encode in (compact_json, encode_envelope):
        with pytest.raises((ValueError, RecursionError)):
            encode({"x": loop})


def test_a_new_heads_data_and_both_directory_entries_are_fsynced_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (1,000 games created, F7): the three fsyncs a new game needs (its head's
    bytes, the head's entry in the game's directory, that directory's entry in ``games``)
    overlap, one journal commit for all: the file's fsync here waits for both directories'
    to begin, which it never would if they ran one after the other. All are done before the
    rename into place, which is not waited for (the daemon's start finishes it)."""
    games = tmp_path / "games"
    games.mkdir()
    real_fsync, real_replace = os.fsync, os.replace
    lock = threading.Lock()
    both_begun = threading.Event()
    log: list[Any] = []

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            with lock:
                log.append(st.st_ino)
                if len(log) == 2:
                    both_begun.set()
        else:
            overlapped = both_begun.wait(timeout=20)  # a guard, not a measure
            log.append("file" if overlapped else "file alone")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        log.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 1}], [])
    inodes = {games.stat().st_ino, (games / "g1").stat().st_ino}
    assert set(log[:2]) == inodes and log[2:] == ["file", "rename"]
    assert GameStore(tmp_path / "games" / "g1").events() == [{"e": 1}]


def test_a_creation_opens_and_stats_only_what_it_must(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (1,000 games created): once ``games`` exists, a creation opens its new head
    and, once each for their fsyncs, its new directory and ``games`` (the new directory,
    made with the right access, needs no descriptor to be checked), and never asks whether
    ``games`` is a directory; the first game of a state directory makes ``games`` itself."""
    GameStore.create(tmp_path, "g0", {"game": "x"}, [], [])  # the first: makes ``games``
    opened: list[str] = []
    checked: list[Path] = []
    stated: list[str] = []
    real_open, real_is_dir, real_stat, real_lstat = os.open, Path.is_dir, os.stat, os.lstat

    def open_(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(Path(path).name)
        return real_open(path, *args, **kwargs)

    def is_dir(self: Path) -> bool:
        checked.append(self)
        return real_is_dir(self)

    def stat_(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        stated.append(Path(path).name)
        return real_stat(path, *args, **kwargs)

    def lstat_(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        stated.append("l:" + Path(path).name)
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(Path, "is_dir", is_dir)
    monkeypatch.setattr(os, "stat", stat_)
    monkeypatch.setattr(os, "lstat", lstat_)
    GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 1}], [])
    assert sorted(opened) == [".creating-g1", "games", "head.json"] and checked == []
    # whether the game exists, then ``games`` and the new directory for their access: the
    # head made in that directory is shared like it without a stat of it again
    assert stated == ["g1", "games", "l:.creating-g1"]
    monkeypatch.undo()
    assert GameStore(tmp_path / "games" / "g1").events() == [{"e": 1}]
    assert stat.S_IMODE((tmp_path / "games" / "g1").stat().st_mode) == 0o700


def test_a_creation_turns_each_of_its_paths_into_a_string_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (1,000 games created): the system calls of a creation are given strings,
    ``games`` and the game's final path each made once, not a new Path turned into its
    string again at each call; the game is as it was (readable, its access kept)."""
    import pathlib

    GameStore.create(tmp_path, "g0", {"game": "x"}, [], [])
    made: list[str] = []
    real = pathlib.PurePath.__str__

    def as_string(self: pathlib.PurePath) -> str:
        made.append(real(self))
        return made[-1]

    monkeypatch.setattr(pathlib.PurePath, "__str__", as_string)
    GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 1}], [])
    monkeypatch.undo()
    games = tmp_path / "games"
    assert made == [str(games), str(games / "g1")]
    assert GameStore(games / "g1").events() == [{"e": 1}]
    assert stat.S_IMODE((games / "g1").stat().st_mode) == 0o700
    assert sorted(p.name for p in games.iterdir()) == ["g0", "g1"]


def test_a_directorys_failed_fsync_is_raised_once_every_fsync_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F7: a creation returns only once its file and every directory are durable; a
    directory whose fsync fails fails the creation, after the others' fsyncs end (no answer
    left behind for the next creation, which waits for its own)."""
    from pbem.adapters.store.directories import fsync_with_directories

    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT, 0o600)
    bad = tmp_path / "bad"
    bad.mkdir()
    real_fsync = os.fsync
    synced: list[int] = []

    def fsync(n: int) -> None:
        ino = os.fstat(n).st_ino
        if ino == bad.stat().st_ino:
            raise OSError(errno.EIO, "a disk error")
        real_fsync(n)
        synced.append(ino)

    monkeypatch.setattr(os, "fsync", fsync)
    try:
        with pytest.raises(FileNotFoundError):  # not even opened: nothing handed over
            fsync_with_directories(fd, (tmp_path / "gone", tmp_path))
        with pytest.raises(OSError, match="a disk error"):
            fsync_with_directories(fd, (bad, tmp_path))
        assert sorted(synced) == sorted([os.fstat(fd).st_ino, tmp_path.stat().st_ino])
        synced.clear()
        fsync_with_directories(fd, (tmp_path, tmp_path.parent))
        inodes = {tmp_path.stat().st_ino, tmp_path.parent.stat().st_ino, os.fstat(fd).st_ino}
        assert sorted(synced) == sorted(inodes)
    finally:
        os.close(fd)


def _cut_creation(root: Path, game_id: str, where: str) -> None:
    """Create ``game_id`` in a child killed at ``where``: before its head is written
    (``"head"``), or once its head is durable, before its rename into place (``"rename"``)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child dies where it is told
        signal.alarm(20)

        def die(point: str) -> None:
            if where == "head" and point == "mid_state_write":
                os._exit(0)

        real_replace = os.replace

        def replace(src: Any, dst: Any) -> None:
            if where == "rename":
                os._exit(0)
            real_replace(src, dst)

        os.replace = replace
        try:
            GameStore.create(root, game_id, {"game": "x"}, [{"e": 1}], [], fault=die)
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_creation_cut_once_its_head_is_durable_is_finished_when_the_daemon_starts(
    tmp_path: Path,
) -> None:
    """F7 (issue 23): a creation's rename into place is not waited for, so a game whose
    creation returned may be found under its creation name after a crash: the daemon's start
    (``clean_stale_game_dirs``) renames it into place, head unchanged; the loaders skip it
    until then, and creating the same game again says it exists."""
    _cut_creation(tmp_path, "g1", "rename")
    creating = tmp_path / "games" / ".creating-g1"
    head = (creating / "head.json").read_bytes()
    assert list_games(tmp_path) == []
    clean_stale_game_dirs(tmp_path)
    assert [p.name for p in list_games(tmp_path)] == ["g1"] and not creating.exists()
    assert (tmp_path / "games" / "g1" / "head.json").read_bytes() == head
    assert GameStore(tmp_path / "games" / "g1").events() == [{"e": 1}]
    _cut_creation(tmp_path, "g2", "rename")
    with pytest.raises(StoreError, match="already exists"):
        GameStore.create(tmp_path, "g2", {"game": "x"}, [], [])
    assert GameStore(tmp_path / "games" / "g2").events() == [{"e": 1}]


def test_a_creation_cut_before_its_head_is_whole_is_removed_when_the_daemon_starts(
    tmp_path: Path,
) -> None:
    """F7: a creation cut before its head was written (or with a head cut short: its checksum
    fails) never returned: the daemon's start removes it, and the game can be created."""
    _cut_creation(tmp_path, "g1", "head")
    creating = tmp_path / "games" / ".creating-g1"
    assert creating.is_dir() and list_games(tmp_path) == []
    with pytest.raises(StoreError, match="cut short"):
        GameStore.create(tmp_path, "g1", {"game": "x"}, [], [])
    (creating / "head.json").write_bytes(b'{"format":1,"sha256":"')  # a head cut short
    (tmp_path / "games" / ".tmp-g0.abc123").mkdir()  # a creation cut by an earlier pbem
    clean_stale_game_dirs(tmp_path)
    assert os.listdir(tmp_path / "games") == []
    GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 2}], [])
    assert GameStore(tmp_path / "games" / "g1").events() == [{"e": 2}]


def test_a_failed_creation_leaves_nothing(tmp_path: Path) -> None:
    """A creation that raises (the caller is told the game does not exist) leaves no
    directory behind, and the game can be created again."""

    def boom(point: str) -> None:
        raise OSError(28, "no space left")

    with pytest.raises(OSError):
        GameStore.create(tmp_path, "g1", {"game": "x"}, [], [], fault=boom)
    assert os.listdir(tmp_path / "games") == []
    GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 1}], [])
    assert GameStore(tmp_path / "games" / "g1").events() == [{"e": 1}]


def test_a_forked_child_creates_games_with_its_own_fsync_thread(tmp_path: Path) -> None:
    """The worker thread of a creation's directory fsync does not survive a fork: a child
    makes its own (else the child's first creation would wait for it forever; the alarm is
    a guard, not a measure)."""
    GameStore.create(tmp_path, "parent", {"game": "x"}, [], [])  # the parent's thread runs
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports by its exit status
        signal.alarm(20)
        try:
            GameStore.create(tmp_path, "child", {"game": "x"}, [{"e": 1}], [])
        finally:
            os._exit(0 if (tmp_path / "games" / "child" / "head.json").exists() else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert GameStore(tmp_path / "games" / "child").events() == [{"e": 1}]


def test_a_created_head_is_decoded_only_when_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (1,000 games created): ``pbem new-game`` and the bench create a game and leave
    it to the daemon, so the store they get back parses its head only if it is read; a commit
    that fails on such a store rolls back to the head as written."""
    from pbem.adapters.store import game

    decoded: list[int] = []
    real = json.loads

    def counted(text: Any, **kw: Any) -> Any:
        decoded.append(len(text))
        return real(text, **kw)

    monkeypatch.setattr(game.json, "loads", counted)
    made = GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 1}], [])
    assert decoded == []
    assert made.setup == {"game": "x"} and len(decoded) == 1
    again = GameStore.create(tmp_path, "g2", {"game": "x"}, [{"e": 1}], [])
    with again.head.group():  # a failed member rolls back to its snapshot, the group goes on
        with pytest.raises(RuntimeError), again.head.transaction():
            again.head.table("events").insert({"seq": 2, "event": {"e": 2}})
            raise RuntimeError("poison")
        with again.head.transaction():
            again.head.table("events").insert({"seq": 3, "event": {"e": 3}})
    on_disk = GameStore(tmp_path / "games" / "g2").events()
    assert again.events() == on_disk == [{"e": 1}, {"e": 3}]


def test_a_heads_events_are_kept_packed_and_written_as_they_were(tmp_path: Path) -> None:
    """Issue 23 (10,000 games under 500 MB): once read, a head's events are kept as their
    JSON text, not as parsed dicts; the files stay byte for byte what they were."""
    from pbem.adapters.store.atomic_file import Packed, encode_envelope

    evs = [{"type": "A", "n": i, "s": "é\x00packed\x00", "l": [1.5, None]} for i in range(5)]
    store = GameStore.create(tmp_path, "g1", {"game": "x"}, evs[:2], [], segment_size=4)
    before = (tmp_path / "games" / "g1" / "head.json").read_bytes()
    reopened = GameStore(tmp_path / "games" / "g1", segment_size=4)
    assert reopened.events() == evs[:2]
    rows = reopened.head.storage.read()["events"]  # type: ignore[index]
    assert all(type(r["event"]) is Packed for r in rows.values())
    assert reopened.events() == evs[:2]
    reopened.commit(events=evs[2:3], ledger_key="k")
    head = (tmp_path / "games" / "g1" / "head.json").read_bytes()
    store.commit(events=evs[2:3], ledger_key="k")  # the same commit, from parsed events
    assert head == (tmp_path / "games" / "g1" / "head.json").read_bytes() != before
    plain = json.loads(head[head.index(b'"data":') + 7 : -2])
    assert head == encode_envelope(plain), "packed events are written as parsed ones are"
    reopened.commit(events=evs[3:], ledger_key="k2")  # a segment closed, with packed events
    assert GameStore(tmp_path / "games" / "g1", segment_size=4).events() == evs
    # a string equal to the packing mark falls back to writing the values themselves
    atomic_write(tmp_path / "m.json", {"a": Packed('{"b":1}'), "c": "\x00packed\x00"})
    assert read_file(tmp_path / "m.json") == {"a": {"b": 1}, "c": "\x00packed\x00"}


def test_a_waiting_rows_mail_is_encoded_once_however_often_the_head_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (ingest): the rows a commit queues wait in the head until sent, and their
    mails are most of its bytes; each later write of the head (the next mails of a group
    commit, an SMTP outage) splices their JSON text made once instead of encoding them again.
    The files are byte for byte what they were; readers get the mail as text."""
    from pbem.adapters.store import atomic_file

    mail = 'Subject: é\r\n\r\nun "vote" \\ =C3=A9\u2028\x00packed\r\n'
    store = GameStore.create(tmp_path, "g1", {"game": "x"}, [{"e": 0}], [])
    store.commit(events=[{"e": 1}], outbox=[{"message_id": "<m1>", "raw": mail}], ledger_key="k1")
    encoded: list[str] = []
    real = atomic_file.json.dumps

    def dumps(value: Any, **kw: Any) -> str:
        text = real(value, **kw)
        encoded.append(text)
        return text

    monkeypatch.setattr(atomic_file.json, "dumps", dumps)
    for i in range(2, 5):  # three more writes of the head, the first row still waiting
        store.commit(events=[{"e": i}], outbox=[{"message_id": f"<m{i}>", "raw": "x"}])
    assert encoded and not any("=C3=A9" in text for text in encoded), "encoded when queued only"
    monkeypatch.undo()
    head = (tmp_path / "games" / "g1" / "head.json").read_bytes()
    plain = json.loads(head[head.index(b'"data":') + 7 : -2])
    assert head == encode_envelope(plain), "written as the parsed rows are"
    assert store.outbox()[0]["raw"] == mail
    assert GameStore(tmp_path / "games" / "g1").outbox() == store.outbox()
    store.outbox_update("<m1>", {"attempts": 1})
    assert GameStore(tmp_path / "games" / "g1").outbox()[0] == {**store.outbox()[0], "raw": mail}


def test_opening_a_game_lists_its_directory_once_and_cleans_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23 (10,000 games opened at start-up): one listing serves every clean-up."""
    GameStore.create(tmp_path, "g1", {"game": "x"}, [], [])
    game = tmp_path / "games" / "g1"
    (game / ".tmp-head.json.x").write_bytes(b"half")
    (game / "sent-000007.log").write_bytes(b"")
    listed: list[str] = []
    real_listdir, real_scandir = os.listdir, os.scandir

    def listdir(path: Any = ".") -> list[str]:
        listed.append(str(path))
        return real_listdir(path)

    def scandir(path: Any = ".") -> Any:
        listed.append(str(path))
        return real_scandir(path)

    with monkeypatch.context() as m:
        m.setattr(os, "listdir", listdir)
        m.setattr(os, "scandir", scandir)
        GameStore(game)
    assert listed.count(str(game)) == 1
    assert sorted(p.name for p in game.iterdir()) == ["head.json"]


def test_tinydb_operations_store_what_plain_tinydb_stores(tmp_path: Path) -> None:
    from tinydb import Query, TinyDB
    from tinydb.storages import MemoryStorage
    from tinydb.table import Document

    def play(db: Any) -> None:
        t = db.table("t")
        t.insert({"k": "a", "n": 1})
        t.insert_multiple([{"k": "b", "n": 2}, {"k": "c", "n": 3}])
        t.insert(Document({"k": "d", "n": 4}, doc_id=9))
        t.update({"n": 20}, Query().k == "b")
        t.update({"n": 30}, doc_ids=[3])
        t.upsert({"k": "e", "n": 5}, Query().k == "e")
        t.upsert({"k": "a", "n": 10}, Query().k == "a")
        t.remove(Query().n == 4)
        t.remove(doc_ids=[3])
        t.insert({"k": "f", "n": 6})
        db.table("u").insert({"x": 1})
        db.table("u").truncate()
        db.table("u").insert({"x": 2})

    plain = TinyDB(storage=MemoryStorage)
    play(plain)
    ours = AtomicDB(tmp_path / "p.json")
    with ours.transaction():
        play(ours)
    assert json.dumps(read_file(tmp_path / "p.json")) == json.dumps(plain.storage.read())


def test_append_and_update_doc_store_what_insert_multiple_and_update_store(
    tmp_path: Path,
) -> None:
    """Issue 23: a commit's appends skip tinydb's per-call closures and per-document checks;
    the ids, the documents and a group member's rollback are tinydb's."""
    from tinydb import TinyDB
    from tinydb.storages import MemoryStorage
    from tinydb.table import Document

    docs = [{"k": "b", "n": 2}, {"k": "c", "n": 3}]
    plain = TinyDB(storage=MemoryStorage)
    plain.table("t").insert({"k": "a", "n": 1})
    plain.table("t").insert(Document({"k": "d", "n": 4}, doc_id=9))
    plain.table("t").insert_multiple(docs)
    plain.table("t").update({"n": 30}, doc_ids=[10])
    ours = AtomicDB(tmp_path / "a.json")
    with ours.group():
        with ours.transaction():
            ours.table("t").insert({"k": "a", "n": 1})
            ours.table("t").insert(Document({"k": "d", "n": 4}, doc_id=9))
        with ours.transaction():
            ours.table("t").append(docs)
            ours.table("t").update_doc(10, {"n": 30})
        with pytest.raises(KeyError), ours.transaction():
            ours.table("t").append([{"k": "x"}])
            ours.table("t").update_doc(1, {"n": 99})
            ours.table("t").update_doc(99, {"n": 99})  # no such document: tinydb's KeyError
    assert json.dumps(read_file(tmp_path / "a.json")) == json.dumps(plain.storage.read())
    assert docs == [{"k": "b", "n": 2}, {"k": "c", "n": 3}], "each stored as a copy"


def test_a_group_members_appends_go_in_place_and_its_rollback_drops_them(tmp_path: Path) -> None:
    """Issue 23: a mail's commit in a group appends to the head's events, ledger and outbox
    without copying them first; a member rolled back leaves them as they were."""
    db = AtomicDB(tmp_path / "r.json")
    with db.transaction():
        db.table("events").insert_multiple([{"e": 1}, {"e": 2}])
    with db.group():
        events = db.storage.read()["events"]  # type: ignore[index]
        with db.transaction():
            db.table("events").append([{"e": 3}])
            assert db.storage.read()["events"] is events, "appended in place"  # type: ignore[index]
        with pytest.raises(RuntimeError), db.transaction():
            db.table("events").append([{"e": 4}, {"e": 5}])
            db.table("events").remove(doc_ids=[1])  # a removal copies the table first
            db.table("events").append([{"e": 6}])
            raise RuntimeError("poison")
        with pytest.raises(RuntimeError), db.transaction():
            db.table("events").append([{"e": 7}])
            raise RuntimeError("poison")
        assert [d["e"] for d in db.table("events").all()] == [1, 2, 3]
        with db.transaction():
            db.table("events").append([{"e": 8}])
    stored = AtomicDB(tmp_path / "r.json").table("events").all()
    assert [(d.doc_id, d["e"]) for d in stored] == [(1, 1), (2, 2), (3, 3), (4, 8)]


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Any:
    """A real 2 MiB tmpfs (we are root in CI): writes fail with ENOSPC when it is full."""
    import subprocess

    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:  # a container without CAP_SYS_ADMIN: say so rather than fail
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_disk_full_keeps_the_last_commit_and_resumes(tiny_disk: Path) -> None:
    """Requirement 3 / F6: on ENOSPC the failing commit raises, the files stay readable at the
    last commit (nothing half-written), and committing works again once space returns."""
    import errno

    gs = GameStore.create(tiny_disk, "g1", {"game": "x"}, [{"e": 0}], [], segment_size=10_000)
    filler = "x" * 20_000
    committed = 0
    with pytest.raises(OSError) as err:
        for i in range(1, 10_000):
            gs.commit(events=[{"e": i, "pad": filler}], ledger_key=f"k{i}")
            committed = i
    assert err.value.errno == errno.ENOSPC
    assert not list((tiny_disk / "games" / "g1").glob(".tmp-*")), "no temp file left behind"
    reopened = GameStore(tiny_disk / "games" / "g1", segment_size=10_000)
    assert [e["e"] for e in reopened.events()] == list(range(committed + 1))
    assert reopened.ledger_keys() == {f"k{i}" for i in range(1, committed + 1)}
    # space returns: the next commit succeeds on top of the last good one
    for bak in (tiny_disk / "games" / "g1").glob("*.bak"):
        bak.unlink()
    small = GameStore(tiny_disk / "games" / "g1", segment_size=10_000)
    small.commit(events=[{"e": "after"}], ledger_key="after")
    assert GameStore(tiny_disk / "games" / "g1").events()[-1] == {"e": "after"}


def _fill(disk: Path) -> Path:
    """Fill the tmpfs to its last page: the next state write fails with ENOSPC."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (1 << 16, 1 << 12, 1):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
    finally:
        os.close(fd)
    return filler


@pytest.mark.slow(15)
def test_a_full_disk_pauses_the_daemon_alerts_once_and_resumes(
    stack: MailStack, tmp_path: Path, tiny_disk: Path
) -> None:
    """Issue 10 item 17 on a real full tmpfs: the daemon neither exits (under ``Restart=`` that
    was a restart every 5 s) nor loses anything; the admins are told once, straight by SMTP
    (the outbox is on the full disk); the watchdog is fed meanwhile; nothing is fetched nor
    moved; when space returns the waiting mail is applied and the admins told it is over."""
    cfg = write_config(stack, tmp_path)
    data = tiny_disk / "data"
    data.mkdir()  # new-game creates no data directory
    cfg.write_text(cfg.read_text().replace(str(tmp_path / "data"), str(data)))
    new_fake_game(cfg, "g1", ["alice", "bob"])

    def words() -> list[str]:
        return [str(e["word"]) for e in game_state(data, "g1")[0] if e["type"] == "cmd"]

    def alerts(needle: str) -> int:
        return sum(needle in str(m["Subject"]) for m in stack.messages(ADMIN))

    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(0.1)
        got: list[str] = []

        def pings() -> int:
            try:
                while True:
                    got.append(sock.recv(4096).decode())
            except TimeoutError:
                pass
            return sum("WATCHDOG=1" in g for g in got)

        d = Daemon(cfg, NOTIFY_SOCKET=path, WATCHDOG_USEC="4000000").start()
        try:
            send(stack, mail("alice@example.test", "CMD before"))
            wait_for(lambda: words() == ["before"], what="a first order applied", log=d.log)
            # its reply sent (and its row removed): the next write is the writer's
            wait_for(lambda: stack.messages("alice@example.test"), what="a reply", log=d.log)
            wait_for(
                lambda: not GameStore(data / "games" / "g1", readonly=True).outbox(),
                what="the outbox empty",
                log=d.log,
            )
            filler = _fill(tiny_disk)
            send(stack, mail("bob@example.test", "CMD during"))
            wait_for(lambda: alerts("disk full") == 1, what="the admins told", log=d.log)
            assert d.alive(), d.log()
            assert "disk full" in d.log()  # and the journal
            before = pings()
            wait_for(lambda: pings() >= before + 2, what="the watchdog fed while full", log=d.log)
            assert d.alive() and words() == ["before"]
            assert stack.messages(MODERATOR), "the order waits in INBOX, neither read nor moved"
            filler.unlink()  # space returns
            wait_for(lambda: words() == ["before", "during"], what="resumed", log=d.log)
            wait_for(lambda: alerts("space is back") == 1, what="the end told", log=d.log)
            assert alerts("disk full") == 1, "once per episode"
            assert d.alive() and d.runs == 1
            assert d.stop() == 0
        finally:
            d.kill()
