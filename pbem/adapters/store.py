"""Durable state: tinydb over an atomic, self-checking storage (RELIABILITY §4.5, requirement 3).

Layout of a data directory::

    daemon.json                 the daemon's own file: UIDVALIDITY per folder, ledger of mail that
                                reached no game, shunt table, outbox of non-game mail, heartbeat,
                                rate limits
    inflight.json, inflight.pos the batch in hand and the mail in hand (``pbem.daemon.inflight``)
    games/<game_id>/head.json   a game's small mutable head: setup, recent events, the ledger keys
                                of the mail that produced them, pending outbox rows, deadline states
    games/<game_id>/seg-000001.json ...   closed, immutable segments of older events + ledger keys
    games/<game_id>/held/<key>.eml   the bytes of a held list post (relay mode, confirmations),
                                referenced by its entry in the head and removed with it: a post
                                with a photo no longer weighs on every commit of the head

Why segments: tinydb rewrites the whole file on every write, so a single file per game would make
the commit cost grow with the history (RELIABILITY §0.1: 44 ms at 10k docs). A commit writes only
the head, which is bounded by ``SEGMENT_SIZE`` events; when the head is full its events move to a
new segment (written once, never changed).

Why the ledger key and the outbox rows of a game mail live in that game's head: one inbound mail
is then ONE ``os.replace`` (its events, its replies and its "processed" mark), which is what makes
exactly-once hold at every kill point (requirements 1 and 2).

Every file is a JSON envelope ``{"format": 1, "sha256": ..., "data": ...}`` written by
:func:`atomic_write`: mkstemp in the same directory, one ``write``, ``fsync``, the previous
generation hard-linked to ``.bak``, ``os.replace``, directory ``fsync``. Who may read and write
a new file or directory follows the directory it is made in (:func:`share_like_parent`): the
owner always, the group when that directory is group-writable (the service user and the
``pbem-admin`` operators of ``docs/install-debian.md``), others never. A directory the store
creates (the data directory, ``games/``) is fsynced into its parent (:func:`make_dirs`;
``DirLock`` also fsyncs the data directory's parent, whoever made it), or a power loss could
drop it with everything committed inside (F7, ``tests/daemon/test_power_loss.py``). Stale temp
files are removed when a file is opened. A single writer (the daemon's asyncio loop) is enforced by an
``flock`` on the data directory; read-only users (``pbem status``) take no lock.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tinydb import Query, TinyDB
from tinydb.storages import Storage
from tinydb.table import Document

from pbem.core.errors import PbemError

FORMAT_VERSION = 1
SEGMENT_SIZE = 256
TMP_PREFIX = ".tmp-"
HELD_DIR = "held"
"""Under a game's directory: the bytes of its held list posts, one file each."""
_SAFE_NAME = re.compile(r"[0-9A-Za-z_-]{1,128}")

FaultHook = Callable[[str], None]
#: returns the rate-limit windows changed since its last call (``pbem.daemon.limits``)
LimitsHook = Callable[[], Mapping[str, list[float]]]


def _no_fault(point: str) -> None:
    """Default fault hook: does nothing (tests inject kill -9 at named points)."""


class StoreError(PbemError):
    """A state file cannot be used (corrupt, wrong format, locked by another writer)."""


def _payload(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


_ENVELOPE = re.compile(rb'\A\{"format":(\d+),"sha256":"([0-9a-f]{64})","data":')


def encode_envelope(data: Any) -> bytes:
    """The on-disk bytes: format version + sha256 of the payload bytes + the payload."""
    payload = _payload(data)
    digest = hashlib.sha256(payload).hexdigest()
    return (
        b'{"format":%d,"sha256":"%s","data":' % (FORMAT_VERSION, digest.encode()) + payload + b"}\n"
    )


def decode_envelope(raw: bytes, path: Path) -> Any:
    """Verify the checksum over the payload bytes as written, then parse; a
    :class:`StoreError` names the file and its ``.bak``."""
    m = _ENVELOPE.match(raw)
    if m is None or not raw.endswith(b"}\n"):
        raise StoreError(
            f"{path}: unreadable (not a pbem state file, or cut short); "
            f"previous generation: {path}.bak"
        )
    fmt = int(m.group(1))
    if fmt != FORMAT_VERSION:
        raise StoreError(f"{path}: format {fmt}, this pbem reads format {FORMAT_VERSION}")
    payload = raw[m.end() : -2]
    if hashlib.sha256(payload).hexdigest() != m.group(2).decode():
        raise StoreError(f"{path}: checksum mismatch; previous generation: {path}.bak")
    try:
        return json.loads(payload)
    except ValueError as exc:
        raise StoreError(f"{path}: unreadable ({exc}); previous generation: {path}.bak") from exc


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a rename in it survives a power loss (F7)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tree_owner(directory: Path, st: os.stat_result) -> int:
    """The owner of the highest directory above ``directory`` still writable by its group (or
    of ``directory``): the state directory, even when an admin made the directories between."""
    owner = st.st_uid
    path = os.path.abspath(directory)
    while (up := os.path.dirname(path)) != path:
        up_st = os.stat(up)
        if not (up_st.st_mode & stat.S_IWGRP and up_st.st_gid == st.st_gid):
            break
        owner, path = up_st.st_uid, up
    return owner


def share_like_parent(target: int | Path, parent: Path, directory: bool = False) -> None:
    """Give a file (an open descriptor) or a directory (a path) just made in ``parent`` the
    access the state is shared with: read and write for its owner; for the group too, and
    setgid on a directory, when ``parent`` is group-writable; nothing for others, whatever the
    umask (the daemon's state holds players' addresses and hashed secrets).

    Run as root (an operator's ``sudo pbem new-game``), the new entry is given the owner of the
    state directory (the top of the group-writable tree ``parent`` is in) and
    ``parent``'s group, so the service user owns what root made for it; run by a member of
    ``parent``'s group, it gets that group, so the service can read, replace and remove it.
    A path is opened without following a symbolic link and changed through its descriptor: root
    never gives away a file someone swapped in meanwhile.
    """
    if isinstance(target, int):
        _share_fd(target, parent, directory)
        return
    fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        _share_fd(fd, parent, directory)
    finally:
        os.close(fd)


def _share_fd(fd: int, parent: Path, directory: bool) -> None:
    st = os.stat(parent)
    shared = bool(st.st_mode & stat.S_IWGRP)
    modes = {(True, True): 0o2770, (True, False): 0o700, (False, True): 0o660}
    mode = modes.get((directory, shared), 0o600)
    mine = os.fstat(fd)
    uid, gid = -1, -1
    if os.geteuid() == 0:
        owner = _tree_owner(parent, st) if shared else st.st_uid
        uid = owner if mine.st_uid != owner else -1
    if shared and mine.st_gid != st.st_gid:
        gid = st.st_gid
    if uid != -1 or gid != -1:
        # a non-member cannot give a file to a group: the owner's access still holds
        with contextlib.suppress(PermissionError):
            os.fchown(fd, uid, gid)
    if stat.S_IMODE(mine.st_mode) != mode or uid != -1 or gid != -1:
        os.fchmod(fd, mode)  # after chown, which drops a setgid bit


def make_dirs(directory: Path) -> None:
    """``mkdir -p``, durably: each directory created is fsynced into its parent (F7), or a
    power loss could take it, with every file already committed in it, away. Each is shared
    like its parent (:func:`share_like_parent`)."""
    if directory.is_dir():
        return
    make_dirs(directory.parent)
    try:
        directory.mkdir()
    except FileExistsError:
        if directory.is_dir():
            return
        raise
    share_like_parent(directory, directory.parent, directory=True)
    fsync_dir(directory.parent)


def atomic_write(
    path: Path, data: Any, fault: FaultHook = _no_fault, keep_bak: bool = True
) -> None:
    """Replace ``path`` with the envelope of ``data`` so that a reader sees old or new, never half.

    On ENOSPC the temp file is removed and the old generation stays intact (RELIABILITY §0.1).
    """
    blob = encode_envelope(data)
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX + path.name + ".", dir=path.parent)
    try:
        try:
            share_like_parent(fd, path.parent)
            view = memoryview(blob)
            while view:  # one write() in practice; loop only for short writes
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)
        fault("mid_state_write")
        if keep_bak and path.exists():
            bak_tmp = path.with_name(path.name + ".bak-tmp")
            with contextlib.suppress(FileNotFoundError):
                os.unlink(bak_tmp)
            os.link(path, bak_tmp)
            os.replace(bak_tmp, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def read_file(path: Path) -> Any:
    """Read and verify one envelope file."""
    return decode_envelope(path.read_bytes(), path)


def clean_stale_temps(directory: Path) -> int:
    """Remove temp files left by a crash between mkstemp and os.replace."""
    n = 0
    for p in directory.glob(TMP_PREFIX + "*"):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
            n += 1
    return n


#: Tables that a commit inside a group only inserts into or removes from (never updates a
#: document in place): their snapshot can share the documents.
APPEND_TABLES = frozenset({"events", "ledger", "outbox"})


def _snapshot(data: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    """A copy deep enough for a rollback, in O(small tables).

    tinydb never mutates a table dict it has read: every write builds a new one
    (``Table._update_table``), so keeping the old table objects suffices for inserts and
    removals. Only ``update``/``upsert`` change a document in place (``dict.update``), which
    commits do on the small tables (meta, deadlines, shunt, folders): their documents are copied.
    """
    if data is None:
        return None
    return {
        t: docs if t in APPEND_TABLES else {k: dict(d) for k, d in docs.items()}
        for t, docs in data.items()
    }


MAX_WINDOW_SPAN = timedelta(days=1)
"""The longest span of any rate-limit window (:mod:`pbem.daemon.limits`: an hour, a day): a
stored window whose newest timestamp is older than this is dead."""


def prune_windows(windows: Mapping[str, Sequence[float]], now: datetime) -> dict[str, list[float]]:
    """Drop windows whose newest timestamp is older than :data:`MAX_WINDOW_SPAN`."""
    cutoff = (now - MAX_WINDOW_SPAN).timestamp()
    return {k: list(v) for k, v in windows.items() if v and max(v) > cutoff}


def write_limits(db: AtomicDB, hook: LimitsHook | None) -> None:
    """Inside a transaction: store the rate-limit windows changed since the last write (one
    document, ``limits`` table, doc 1), dropping windows dead for a day at most once an hour.
    A no-op without changes, so a write that allowed no reply costs nothing more."""
    changes = hook() if hook is not None else None
    if not changes:
        return
    table = db.table("limits")
    doc = table.get(doc_id=1)
    windows = dict(doc["windows"]) if doc is not None else {}
    windows.update(changes)
    newest = max((v[-1] for v in changes.values() if v), default=0.0)
    pruned = float(doc.get("pruned", 0.0)) if doc is not None else 0.0
    if newest - pruned > 3600:
        windows = prune_windows(windows, datetime.fromtimestamp(newest, UTC))
        pruned = newest
    if doc is None:
        table.insert(Document({"windows": windows, "pruned": pruned}, doc_id=1))
    else:
        table.update({"windows": windows, "pruned": pruned}, doc_ids=[1])


def read_limits(db: AtomicDB) -> dict[str, list[float]]:
    doc = db.table("limits").get(doc_id=1)
    return dict(doc["windows"]) if doc is not None else {}


class AtomicStorage(Storage):
    """A tinydb storage that writes atomically, and buffers writes inside a transaction.

    Outside :meth:`transaction` every tinydb write is one atomic file replace. Inside, tinydb's
    writes only update the in-memory copy, and the transaction's exit writes once; an exception
    discards the buffer (rollback). Unlike CachingMiddleware nothing is ever acknowledged before
    it is on disk.
    """

    def __init__(
        self, path: str | Path, fault: FaultHook = _no_fault, readonly: bool = False
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.fault = fault
        self.readonly = readonly
        if not readonly:
            # only the writer cleans: a reader must never remove the writer's in-flight temp
            make_dirs(self.path.parent)
            clean_stale_temps(self.path.parent)
        self._data: dict[str, dict[str, Any]] | None = None
        if self.path.exists():
            loaded = read_file(self.path)
            if not isinstance(loaded, dict):
                raise StoreError(f"{self.path}: not a tinydb document")
            self._data = loaded
        self._in_tx = False
        self._dirty = False
        self._group = False
        self._group_dirty = False
        self._after_group: list[Callable[[], None]] = []

    def when_durable(self, action: Callable[[], None]) -> None:
        """Run ``action`` once what was committed so far is on disk: now, or inside
        :meth:`group` after the group's write (never if that write fails)."""
        if self._group:
            self._after_group.append(action)
        else:
            action()

    def read(self) -> dict[str, dict[str, Any]] | None:
        # no copy: tinydb rebuilds the tables it writes, and a rollback reloads from disk, so
        # handing out the live dict is safe and keeps reads O(1) instead of O(file size)
        return self._data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only")
        self._data = data
        if self._in_tx:
            self._dirty = True
        else:
            atomic_write(self.path, data, self.fault)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Group tinydb writes into one atomic file replace; roll back on exception.

        Inside :meth:`group` the write is deferred to the group's end, and a failing transaction
        is rolled back to a snapshot taken at its start (the earlier members of the group stay).
        """
        if self._in_tx:
            raise StoreError("nested transaction")
        self._in_tx = True
        self._dirty = False
        snapshot = _snapshot(self._data) if self._group else None
        try:
            yield
            if self._dirty:
                assert self._data is not None
                if self._group:
                    self._group_dirty = True
                else:
                    atomic_write(self.path, self._data, self.fault)
        except BaseException:
            if self._group:
                self._data = snapshot
            else:
                # the disk holds the last commit: reload it (rare path: no snapshot per commit)
                self._data = read_file(self.path) if self.path.exists() else None
            raise
        finally:
            self._in_tx = False
            self._dirty = False

    @contextlib.contextmanager
    def group(self) -> Iterator[None]:
        """Group commit: the transactions inside become durable together, in ONE atomic write
        at the end (one fsync for a batch of mails). Each mail's events, outbox rows and ledger
        key still land in the same write, so exactly-once holds; nothing is acknowledged (no
        IMAP MOVE) before the group is on disk."""
        if self._group or self._in_tx:
            raise StoreError("nested group")
        self._group = True
        self._group_dirty = False
        self._after_group = []
        try:
            yield
            if self._group_dirty:
                assert self._data is not None
                atomic_write(self.path, self._data, self.fault)
        except BaseException:
            self._data = read_file(self.path) if self.path.exists() else None
            raise
        finally:
            self._group = False
            self._group_dirty = False
            after, self._after_group = self._after_group, []
        for action in after:  # reached only once the group's write is done
            action()


class AtomicDB:
    """A TinyDB over :class:`AtomicStorage` with an explicit transaction."""

    def __init__(self, path: Path, fault: FaultHook = _no_fault, readonly: bool = False) -> None:
        self.path = path
        self.fault = fault
        self.db = TinyDB(path, storage=AtomicStorage, fault=fault, readonly=readonly)
        storage = self.db.storage
        assert isinstance(storage, AtomicStorage)
        self.storage = storage

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic write for everything done inside; on error, memory matches the disk again."""
        try:
            with self.storage.transaction():
                yield
        except BaseException:
            # drop tinydb's caches (query results, next ids) so they follow the restored data
            self._reset_caches()
            raise

    @contextlib.contextmanager
    def group(self) -> Iterator[None]:
        """See :meth:`AtomicStorage.group`."""
        try:
            with self.storage.group():
                yield
        except BaseException:
            self._reset_caches()
            raise

    def _reset_caches(self) -> None:
        self.db.clear_cache()
        for name in list(self.db.tables()):
            self.db.table(name)._next_id = None

    def table(self, name: str) -> Any:
        return self.db.table(name)

    def get_one(self, table: str, **match: Any) -> dict[str, Any] | None:
        """The first document of ``table`` whose fields equal ``match``."""
        q = Query()
        cond = None
        for k, v in match.items():
            c = q[k] == v
            cond = c if cond is None else (cond & c)
        if cond is None:
            docs = self.table(table).all()
            return dict(docs[0]) if docs else None
        doc = self.table(table).get(cond)
        return dict(doc) if doc is not None else None

    def upsert(self, table: str, doc: Mapping[str, Any], **match: Any) -> None:
        q = Query()
        cond = None
        for k, v in match.items():
            c = q[k] == v
            cond = c if cond is None else (cond & c)
        assert cond is not None
        self.table(table).upsert(dict(doc), cond)

    def remove(self, table: str, **match: Any) -> None:
        q = Query()
        cond = None
        for k, v in match.items():
            c = q[k] == v
            cond = c if cond is None else (cond & c)
        assert cond is not None
        self.table(table).remove(cond)


class DirLock:
    """An exclusive flock on the data directory: one writer per data directory (requirement 3)."""

    def __init__(self, directory: Path) -> None:
        make_dirs(directory)
        # the caller may have made the directory itself (Service.open does): make its entry
        # durable before anything is committed in it. Best effort: a directory made by someone
        # else (systemd's StateDirectory, under /var/lib/private) may sit in a parent we
        # cannot open, and then it is not ours to make durable
        try:
            fsync_dir(directory.resolve().parent)
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EINVAL):
                raise
        self.path = directory / ".lock"
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self.fd)
            raise StoreError(f"{directory} is in use by another pbem writer") from exc

    def release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)


class GameStore:
    """One game's files: a bounded head plus immutable segments (flat commit cost)."""

    def __init__(
        self,
        directory: Path,
        fault: FaultHook = _no_fault,
        segment_size: int = SEGMENT_SIZE,
        readonly: bool = False,
    ) -> None:
        self.dir = directory
        self.fault = fault
        self.segment_size = segment_size
        self.head = AtomicDB(directory / "head.json", fault, readonly)
        #: set by the service: rate-limit hits ride along with the outbox writes
        self.limits_hook: LimitsHook | None = None
        if not readonly:
            self._clean_held_bodies()

    # ---- creation and reading -------------------------------------------------------------

    @classmethod
    def create(
        cls,
        root: Path,
        game_id: str,
        setup: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        outbox: Sequence[Mapping[str, Any]],
        fault: FaultHook = _no_fault,
        segment_size: int = SEGMENT_SIZE,
        meta_extra: Mapping[str, Any] | None = None,
    ) -> GameStore:
        """Write a new game in a hidden directory, then rename it into place (atomic creation)."""
        games = root / "games"
        make_dirs(games)
        final = games / game_id
        if final.exists():
            raise StoreError(f"game {game_id} already exists in {games}")
        tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX + game_id + ".", dir=games))
        share_like_parent(tmp, games, directory=True)
        data = {
            "meta": {
                "1": {
                    **(meta_extra or {}),
                    "game_id": game_id,
                    "setup": dict(setup),
                    "segments": 0,
                    "seq": 0,
                }
            },
            "events": {},
            "ledger": {},
            "outbox": {str(i + 1): dict(r) for i, r in enumerate(outbox)},
            "deadlines": {},
        }
        for i, ev in enumerate(events):
            data["events"][str(i + 1)] = {"seq": i + 1, "event": dict(ev)}
        data["meta"]["1"]["seq"] = len(events)
        atomic_write(tmp / "head.json", data, fault, keep_bak=False)
        os.replace(tmp, final)
        fsync_dir(games)
        store = cls(final, fault, segment_size)
        store.compact()
        return store

    @property
    def meta(self) -> dict[str, Any]:
        doc = self.head.table("meta").get(doc_id=1)
        if doc is None:
            raise StoreError(f"{self.dir}: head has no meta")
        return dict(doc)

    @property
    def game_id(self) -> str:
        return str(self.meta["game_id"])

    @property
    def setup(self) -> dict[str, Any]:
        return dict(self.meta["setup"])

    def _segment_path(self, n: int) -> Path:
        return self.dir / f"seg-{n:06d}.json"

    def events(self) -> list[dict[str, Any]]:
        """The whole event log, in order: closed segments, then the head."""
        out: list[dict[str, Any]] = []
        for n in range(1, int(self.meta["segments"]) + 1):
            seg = read_file(self._segment_path(n))
            out.extend(seg["events"])
        rows = sorted(self.head.table("events").all(), key=lambda d: d["seq"])
        out.extend(r["event"] for r in rows)
        return out

    def ledger_keys(self) -> set[str]:
        """Content hashes of every mail this game has committed (segments + head)."""
        keys: set[str] = set()
        for n in range(1, int(self.meta["segments"]) + 1):
            keys.update(read_file(self._segment_path(n))["ledger"])
        keys.update(d["key"] for d in self.head.table("ledger").all())
        return keys

    def outbox(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.head.table("outbox").all()]

    def deadline_states(self) -> dict[str, dict[str, Any]]:
        return {d["key"]: dict(d) for d in self.head.table("deadlines").all()}

    def held_entries(self) -> list[dict[str, Any]]:
        """The held posts without their bytes (cheap: the head only), oldest first."""
        docs = sorted(self.head.table("held").all(), key=lambda d: d["seq"])
        return [{k: v for k, v in d.items() if k != "raw"} for d in docs]

    def held_raw(self, entry: Mapping[str, Any]) -> bytes:
        """The bytes of one held post (an entry of :meth:`held_entries`)."""
        if "body" in entry:
            try:
                return (self.dir / str(entry["body"])).read_bytes()
            except FileNotFoundError as exc:
                raise StoreError(f"{self.dir}: held post {entry['key']}: {exc}") from exc
        doc = self.head.get_one("held", key=entry["key"]) or {}
        return str(doc.get("raw", "")).encode("latin-1")  # written before bodies moved out

    def held(self) -> list[dict[str, Any]]:
        """List posts held until the list reopens (``[list] mode = relay``), or waiting for a
        confirmation, oldest first; each with its ``raw`` bytes (latin-1 text) read back from
        its file under ``held/``."""
        return [
            {**entry, "raw": self.held_raw(entry).decode("latin-1")}
            for entry in self.held_entries()
        ]

    def _held_body(self, key: str) -> Path:
        name = key if _SAFE_NAME.fullmatch(key) else hashlib.sha256(key.encode()).hexdigest()
        return self.dir / HELD_DIR / f"{name}.eml"

    def _write_held_body(self, key: str, raw: bytes) -> str:
        """Write a held post's bytes to their own file, durably, BEFORE the head refers to
        them; returns the path relative to the game directory."""
        path = self._held_body(key)
        make_dirs(path.parent)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX + path.name + ".", dir=path.parent)
        try:
            try:
                view = memoryview(raw)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        fsync_dir(path.parent)
        return str(path.relative_to(self.dir))

    def _clean_held_bodies(self) -> int:
        """Remove body files no held entry refers to (a crash between writing a body and the
        head commit, or between an unhold and the file's removal), and stale temp files."""
        folder = self.dir / HELD_DIR
        if not folder.is_dir():
            return 0
        referenced = {str(d.get("body")) for d in self.head.table("held").all()}
        n = 0
        for path in folder.iterdir():
            if str(path.relative_to(self.dir)) not in referenced:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    n += 1
        return n

    def bounce_states(self) -> dict[str, dict[str, Any]]:
        """Per player, the hard-bounce record (RELIABILITY §2.5): count, window, unreachable."""
        return {d["player"]: dict(d) for d in self.head.table("bounces").all()}

    # ---- the one commit -------------------------------------------------------------------

    def commit(
        self,
        *,
        events: Sequence[Mapping[str, Any]] = (),
        outbox: Sequence[Mapping[str, Any]] = (),
        ledger_key: str | None = None,
        ledger_info: Mapping[str, Any] | None = None,
        deadline: Mapping[str, Any] | None = None,
        hold: Mapping[str, Any] | None = None,
        unhold: Sequence[str] = (),
        bounces: Sequence[Mapping[str, Any]] = (),
        extra_keys: Sequence[str] = (),
    ) -> None:
        """Events + outbox rows + ledger key (+ deadline state, + a held list post added or
        released by key, + players' bounce records) in ONE atomic write."""
        with self.head.transaction():
            meta = self.meta
            seq = int(meta["seq"])
            evt = self.head.table("events")
            for ev in events:
                seq += 1
                evt.insert({"seq": seq, "event": dict(ev)})
            meta["seq"] = seq
            self.head.table("meta").update({"seq": seq}, doc_ids=[1])
            box = self.head.table("outbox")
            for row in outbox:
                box.insert(dict(row))
            if ledger_key is not None:
                self.head.table("ledger").insert({"key": ledger_key, **(ledger_info or {})})
            for extra in extra_keys:  # e.g. a verified DKIM signature: replays are refused
                self.head.table("ledger").insert({"key": extra, "of": ledger_key})
            if deadline is not None:
                self.head.upsert("deadlines", deadline, key=deadline["key"])
            if hold is not None:
                held = self.head.table("held")
                seq = max((int(d["seq"]) for d in held.all()), default=0) + 1
                entry = {k: v for k, v in hold.items() if k != "raw"}
                if "raw" in hold:  # the bytes apart: the head stays small (issue 10 item 16)
                    raw = str(hold["raw"]).encode("latin-1")
                    entry["body"] = self._write_held_body(str(hold["key"]), raw)
                    entry["size"] = len(raw)
                held.insert({**entry, "seq": seq})
            gone = []
            for key in unhold:
                gone += [d.get("body") for d in self.head.table("held").search(Query().key == key)]
                self.head.remove("held", key=key)
            for record in bounces:
                self.head.upsert("bounces", record, player=record["player"])
            write_limits(self.head, self.limits_hook)
        if any(gone):
            # once the head no longer refers to them (a crash before: orphans, removed at open)
            self.head.storage.when_durable(lambda: self._remove_bodies(gone))
        self.compact()

    def _remove_bodies(self, bodies: Sequence[Any]) -> None:
        for body in bodies:
            if body:
                with contextlib.suppress(FileNotFoundError):
                    (self.dir / str(body)).unlink()

    def compact(self) -> None:
        """Move a full head's events and ledger keys to a new immutable segment.

        Two writes, crash-safe in either order: the segment is written first but only counts once
        the head's ``segments`` number includes it; a crash between leaves an unreferenced segment
        that the next compaction overwrites.
        """
        if len(self.head.table("events")) < self.segment_size:
            return  # the usual case, without copying the head's events
        rows = sorted(self.head.table("events").all(), key=lambda d: d["seq"])
        ledger = self.head.table("ledger").all()
        n = int(self.meta["segments"]) + 1
        atomic_write(
            self._segment_path(n),
            {"events": [r["event"] for r in rows], "ledger": [d["key"] for d in ledger]},
            self.fault,
            keep_bak=False,
        )
        with self.head.transaction():
            self.head.table("events").remove(doc_ids=[r.doc_id for r in rows])
            self.head.table("ledger").remove(doc_ids=[d.doc_id for d in ledger])
            self.head.table("meta").update({"segments": n}, doc_ids=[1])

    def set_secret(self, player: str, hashed: Mapping[str, str]) -> None:
        """Give ``player``'s seat a new secret code (scrypt-hashed): its newcomer's (issue 13)."""
        with self.head.transaction():
            secrets = dict(self.meta.get("secrets", {}))
            secrets[player] = dict(hashed)
            self.head.table("meta").update({"secrets": secrets}, doc_ids=[1])

    def set_held_window(self, keys: Sequence[str], window: str) -> None:
        """Record the phase (deadline window) in which held posts were last found still held."""
        with self.head.transaction():
            self.head.table("held").update({"window": window}, Query().key.one_of(list(keys)))

    def set_deadline_state(self, record: Mapping[str, Any]) -> None:
        with self.head.transaction():
            self.head.upsert("deadlines", record, key=record["key"])

    def outbox_done(self, message_id: str) -> None:
        """Remove a sent row (a small head write; the mail is out)."""
        with self.head.transaction():
            self.head.remove("outbox", message_id=message_id)
            write_limits(self.head, self.limits_hook)

    def outbox_update(self, message_id: str, changes: Mapping[str, Any]) -> None:
        with self.head.transaction():
            q = Query()
            self.head.table("outbox").update(dict(changes), q.message_id == message_id)
            write_limits(self.head, self.limits_hook)

    def limit_windows(self) -> dict[str, list[float]]:
        return read_limits(self.head)


class DaemonStore:
    """The daemon's own file (``daemon.json``): folder state, non-game ledger, shunt, outbox."""

    def __init__(self, root: Path, fault: FaultHook = _no_fault, readonly: bool = False) -> None:
        self.root = root
        self.db = AtomicDB(root / "daemon.json", fault, readonly)
        self.limits_hook: LimitsHook | None = None

    def uidvalidity(self, folder: str) -> int | None:
        doc = self.db.get_one("folders", name=folder)
        return None if doc is None else int(doc["uidvalidity"])

    def set_uidvalidity(self, folder: str, value: int) -> None:
        with self.db.transaction():
            self.db.upsert("folders", {"name": folder, "uidvalidity": value}, name=folder)

    def ledger_keys(self) -> set[str]:
        return {d["key"] for d in self.db.table("ledger").all()}

    def commit(
        self,
        *,
        outbox: Sequence[Mapping[str, Any]] = (),
        ledger_key: str | None = None,
        ledger_info: Mapping[str, Any] | None = None,
        shunt: Mapping[str, Any] | None = None,
    ) -> None:
        """A non-game mail's ledger key and replies (or a shunt change) in one atomic write."""
        with self.db.transaction():
            for row in outbox:
                self.db.table("outbox").insert(dict(row))
            if ledger_key is not None:
                self.db.table("ledger").insert({"key": ledger_key, **(ledger_info or {})})
            if shunt is not None:
                self.db.upsert("shunt", shunt, key=shunt["key"])
            write_limits(self.db, self.limits_hook)

    def prune_ledger(self, older_than_iso: str) -> int:
        """Forget non-game keys older than the retention (RELIABILITY §3.4 step 8)."""
        q = Query()
        with self.db.transaction():
            removed = self.db.table("ledger").remove(q.at < older_than_iso)
        return len(removed)

    def shunt_rows(self) -> list[dict[str, Any]]:
        return [dict(d) for d in self.db.table("shunt").all()]

    def shunt_status(self) -> dict[str, str]:
        """Key -> status (``failing``: still retried, ``quarantined``) of every shunted mail."""
        return {d["key"]: str(d.get("status")) for d in self.db.table("shunt").all()}

    def shunt_row(self, key: str) -> dict[str, Any] | None:
        return self.db.get_one("shunt", key=key)

    def remove_shunt(self, key: str) -> None:
        with self.db.transaction():
            self.db.remove("shunt", key=key)

    def outbox(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.table("outbox").all()]

    def outbox_done(self, message_id: str) -> None:
        with self.db.transaction():
            self.db.remove("outbox", message_id=message_id)
            write_limits(self.db, self.limits_hook)

    def outbox_update(self, message_id: str, changes: Mapping[str, Any]) -> None:
        q = Query()
        with self.db.transaction():
            self.db.table("outbox").update(dict(changes), q.message_id == message_id)
            write_limits(self.db, self.limits_hook)

    def limit_windows(self) -> dict[str, list[float]]:
        return read_limits(self.db)

    def get_meta(self, name: str) -> Any:
        doc = self.db.get_one("meta", name=name)
        return None if doc is None else doc["value"]

    def set_meta(self, name: str, value: Any) -> None:
        with self.db.transaction():
            self.db.upsert("meta", {"name": name, "value": value}, name=name)


def list_games(root: Path) -> list[Path]:
    """Game directories under ``root/games`` (hidden temp directories excluded, removed if stale)."""
    games = root / "games"
    if not games.is_dir():
        return []
    out = []
    for p in sorted(games.iterdir()):
        if p.name.startswith(TMP_PREFIX):
            continue
        if (p / "head.json").exists():
            out.append(p)
    return out


def clean_stale_game_dirs(root: Path) -> None:
    """Remove half-created game directories (a crash inside :meth:`GameStore.create`)."""
    games = root / "games"
    if games.is_dir():
        for p in games.glob(TMP_PREFIX + "*"):
            shutil.rmtree(p, ignore_errors=True)
