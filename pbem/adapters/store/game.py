"""One game's files: a bounded head plus immutable segments (flat commit cost).

Layout of a game directory ``games/<game_id>/``::

    head.json                   the game's small mutable head: setup, recent events, the ledger
                                keys of the mail that produced them, pending outbox rows,
                                deadline states, held list posts' entries, bounce records
    seg-000001.json ...         closed, immutable segments of older events + ledger keys
    held/<key>.eml              the bytes of a held list post (:mod:`.held_bodies`)
    sent-000003.log             the outbox rows sent since the head's last write, one line each
                                (:mod:`.sent_log`): marking a row sent does not rewrite the head

Why segments: tinydb rewrites the whole file on every write, so a single file per game would make
the commit cost grow with the history (RELIABILITY §0.1: 44 ms at 10k docs). A commit writes only
the head, which is bounded by ``SEGMENT_SIZE`` events; when the head is full its events move to a
new segment (written once, never changed).

Why the ledger key and the outbox rows of a game mail live in that game's head: one inbound mail
is then ONE ``os.replace`` (its events, its replies and its "processed" mark), which is what makes
exactly-once hold at every kill point (requirements 1 and 2).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tinydb import Query
from tinydb.table import Document

from pbem.adapters.store.atomic_db import AtomicDB, Tables
from pbem.adapters.store.atomic_file import (
    ENVELOPE_BYTES,
    TMP_PREFIX,
    FaultHook,
    Packed,
    StoreError,
    atomic_write,
    clean_stale_temps,
    compact_json,
    encode_envelope,
    no_fault,
    read_file,
    unpacked,
)
from pbem.adapters.store.directories import (
    fsync_dir,
    make_dirs,
    share_like_parent,
    write_new_file,
)
from pbem.adapters.store.held_bodies import (
    HELD_DIR,
    clean_held_bodies,
    remove_held_bodies,
    write_held_body,
)
from pbem.adapters.store.limit_windows import LimitsHook, read_limits, write_limits
from pbem.adapters.store.sent_log import TABLE as SENT_LOG
from pbem.adapters.store.sent_log import SentLog, remove_stale_logs

SEGMENT_SIZE = 256

CREATING_PREFIX = ".creating-"
"""A game being created is ``games/.creating-<game_id>`` until renamed to its id: the loaders
skip it (:func:`list_games`); one cut short is finished or removed when the daemon starts
(:func:`clean_stale_game_dirs`)."""


class GameStore:
    """One game's files: a bounded head plus immutable segments (flat commit cost)."""

    def __init__(
        self,
        directory: Path,
        fault: FaultHook = no_fault,
        segment_size: int = SEGMENT_SIZE,
        readonly: bool = False,
        _fresh: Callable[[], Tables] | None = None,
    ) -> None:
        self.dir = directory
        self.fault = fault
        self.segment_size = segment_size
        # one listing for every clean-up of the opening (10,000 games at start-up, issue 23)
        names = None if readonly or _fresh is not None else set(os.listdir(directory))
        if names is not None:
            clean_stale_temps(directory, names)
        self.head = AtomicDB(directory / "head.json", fault, readonly, data=_fresh, clean=False)
        self._game_id: str | None = None
        #: set by the service: rate-limit hits ride along with the outbox writes
        self.limits_hook: LimitsHook | None = None
        #: the windows the hook gave the commits of the open group, stored before its write
        self._limits_due: dict[str, list[float]] = {}
        if _fresh is not None:  # just made by create(): no log, no held body, no stale file
            self._sent = SentLog(directory, 0)
            return
        self._sent = SentLog.load(directory, self._sent_gen())
        if names is not None:
            if HELD_DIR in names:
                referenced = {str(d.get("body")) for d in self.head.table("held").all()}
                clean_held_bodies(self.dir, referenced)
            remove_stale_logs(directory, self._sent.gen, names)
            if self._sent.exists:  # the last run's sent rows: taken in before any new append
                with self._transaction():
                    pass

    # ---- creation and reading -------------------------------------------------------------

    @classmethod
    def create(
        cls,
        root: Path,
        game_id: str,
        setup: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        outbox: Sequence[Mapping[str, Any]],
        fault: FaultHook = no_fault,
        segment_size: int = SEGMENT_SIZE,
        meta_extra: Mapping[str, Any] | None = None,
    ) -> GameStore:
        """Write a new game under a name the loaders skip, then rename it into place.

        A power loss (F7) never leaves half a game, and a game whose creation returned survives
        it, at the cost of one journal commit instead of three (issue 23): the head is written
        once in ``games/.creating-<id>`` (:data:`CREATING_PREFIX`), then its bytes, its entry in
        that directory and that directory's entry in ``games`` are fsynced at once
        (:func:`fsync_with_directories`; none of them needs another first). The rename to
        ``games/<id>`` that follows is not waited for: while it is not on disk, the daemon's
        start finishes the creation from the verified head (:func:`clean_stale_game_dirs`);
        a head cut short fails its checksum, so that creation never returned, and it is removed.
        The rename is also what the daemon's scan notices (:func:`games_stamp`).
        """
        games = root / "games"
        final = games / game_id
        # the system calls are given strings, each made once: a Path is turned into its
        # string anew by each new Path object (a tenth of the store's own work, issue 23)
        games_path = os.fspath(games)
        final_path = os.fspath(final)
        if os.path.exists(final_path):
            raise StoreError(f"game {game_id} already exists in {games}")
        creating = os.path.join(games_path, CREATING_PREFIX + game_id)
        try:
            try:
                os.mkdir(creating, 0o700)
            except FileNotFoundError:  # the state's first game: ``games`` made first, durably
                make_dirs(games)
                os.mkdir(creating, 0o700)
        except FileExistsError:
            if _finish_creation(Path(creating), final):  # cut after its head was whole
                raise StoreError(f"game {game_id} already exists in {games}") from None
            raise StoreError(
                f"game {game_id}: a creation is under way, or was cut short ({creating}: "
                "the daemon removes it when it starts)"
            ) from None
        try:
            # its status, when the new directory was made as it should be: the head made in
            # it next is shared like it without a stat of it (issue 23)
            made = share_like_parent(creating, games_path, directory=True)
            blob = _new_head(game_id, setup, events, outbox, meta_extra)
            fault("mid_state_write")  # cut before the head is whole: a half game, removed
            write_new_file(
                os.path.join(creating, "head.json"),
                blob,
                exclusive=True,
                durable=True,
                with_dirs=(creating, games_path),
                parent=creating,
                parent_status=made,
            )
            os.replace(creating, final_path)
        except BaseException:
            # the caller is told the game does not exist: nor does it on disk
            shutil.rmtree(creating, ignore_errors=True)
            with contextlib.suppress(OSError):
                fsync_dir(games)
            raise
        # the head as a reader would get it (JSON types), without reading the file back, and
        # only when read: a game created and left to the daemon decodes nothing (issue 23)
        store = cls(final, fault, segment_size, _fresh=lambda: json.loads(blob[ENVELOPE_BYTES:-2]))
        if len(events) >= segment_size:
            store.compact()
        return store

    def _meta(self) -> Mapping[str, Any]:
        """The head's meta document itself (read it, never change it: writes go through
        tinydb), without the copies of :attr:`meta`: a mail reads the setup a dozen times."""
        doc = ((self.head.storage.read() or {}).get("meta") or {}).get("1")
        if doc is None:
            raise StoreError(f"{self.dir}: head has no meta")
        return doc  # type: ignore[no-any-return]

    @property
    def meta(self) -> dict[str, Any]:
        """A copy of the game's meta document (its id, setup, event count, segments, secrets)."""
        return dict(self._meta())

    @property
    def game_id(self) -> str:
        """The game's id (never changes: read once, issue 23)."""
        if self._game_id is None:
            self._game_id = str(self._meta()["game_id"])
        return self._game_id

    def _docs(self, table: str) -> Iterable[dict[str, Any]]:
        """The documents of one of the head's tables as stored, in order (read them, never
        change them), without tinydb's copy of each: read after every mail (issue 23)."""
        return (((self.head.storage.read() or {}).get(table)) or {}).values()

    @property
    def setup(self) -> dict[str, Any]:
        return dict(self._meta()["setup"])

    def _segment_path(self, n: int) -> Path:
        return self.dir / f"seg-{n:06d}.json"

    def events(self) -> list[dict[str, Any]]:
        """The whole event log, in order: closed segments, then the head.

        The head's events are kept packed once read (:class:`Packed`: the engine holds the log
        decoded, the store only writes it back)."""
        out: list[dict[str, Any]] = []
        for n in range(1, self.segments + 1):
            out.extend(self.segment_events(n))
        out.extend(self.head_events())
        return out

    @property
    def segments(self) -> int:
        """How many closed segments the head names (numbered from 1)."""
        return int(self._meta()["segments"])

    def segment_events(self, n: int) -> list[dict[str, Any]]:
        """The events of closed segment ``n``: immutable once written, so a reader that
        follows a live game may keep them (``pbem demo`` does)."""
        events: list[dict[str, Any]] = read_file(self._segment_path(n))["events"]
        return events

    def head_events(self) -> list[dict[str, Any]]:
        """The events still in the head, after every segment's, in order (kept packed once
        read: :class:`Packed`)."""
        raw = self.head.storage.read() or {}
        rows = sorted((raw.get("events") or {}).values(), key=lambda d: d["seq"])
        out: list[dict[str, Any]] = []
        for row in rows:
            event = row["event"]
            if type(event) is Packed:
                out.append(event.value())
            else:
                out.append(event)
                row["event"] = Packed(compact_json(event))  # same JSON: no rollback concern
        return out

    def ledger_keys(self) -> set[str]:
        """Content hashes of every mail this game has committed (segments + head)."""
        keys: set[str] = set()
        for n in range(1, int(self._meta()["segments"]) + 1):
            keys.update(read_file(self._segment_path(n))["ledger"])
        keys.update(d["key"] for d in self.head.table("ledger").all())
        return keys

    def outbox(self) -> list[dict[str, Any]]:
        """The rows still to send: in the head, and not marked sent since (:mod:`.sent_log`)."""
        sent = self._sent_log().sent
        return [
            _unpacked_row(r)
            for r in self.head.table("outbox").all()
            if r.get("message_id") not in sent
        ]

    def deadline_states(self) -> dict[str, dict[str, Any]]:
        """Each deadline's stored record (its state, an extension, an error), by key."""
        return {d["key"]: dict(d) for d in self._docs("deadlines")}

    def held_entries(self) -> list[dict[str, Any]]:
        """The held posts without their bytes (cheap: the head only), oldest first."""
        docs = sorted(self._docs("held"), key=lambda d: d["seq"])
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

    def bounce_states(self) -> dict[str, dict[str, Any]]:
        """Per player, the hard-bounce record (RELIABILITY §2.5): count, window, unreachable."""
        return {d["player"]: dict(d) for d in self._docs("bounces")}

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
        with self._transaction():
            seq = int(self._meta()["seq"])
            # each table's rows in one append (tinydb's insert_multiple, lighter: the ids and
            # rows are the same as one insert each)
            if events:
                rows = [
                    {"seq": seq + i, "event": Packed(compact_json(ev))}
                    for i, ev in enumerate(events, 1)
                ]
                self.head.table("events").append(rows)
                seq += len(rows)
            self.head.table("meta").update_doc(1, {"seq": seq})
            if outbox:
                self.head.table("outbox").append([_packed_row(row) for row in outbox])
            keys = [{"key": ledger_key, **(ledger_info or {})}] if ledger_key is not None else []
            # e.g. a verified DKIM signature: replays are refused
            keys += [{"key": extra, "of": ledger_key} for extra in extra_keys]
            if keys:
                self.head.table("ledger").append(keys)
            if deadline is not None:
                self.head.upsert("deadlines", deadline, key=deadline["key"])
            if hold is not None:
                held = self.head.table("held")
                seq = max((int(d["seq"]) for d in held.all()), default=0) + 1
                entry = {k: v for k, v in hold.items() if k != "raw"}
                if "raw" in hold:  # the bytes apart: the head stays small (issue 10 item 16)
                    raw = str(hold["raw"]).encode("latin-1")
                    entry["body"] = write_held_body(self.dir, str(hold["key"]), raw)
                    entry["size"] = len(raw)
                held.insert({**entry, "seq": seq})
            gone = []
            for key in unhold:
                gone += [d.get("body") for d in self.head.table("held").search(Query().key == key)]
                self.head.remove("held", key=key)
            for record in bounces:
                self.head.upsert("bounces", record, player=record["player"])
            self._limits()
        if any(gone):
            # once the head no longer refers to them (a crash before: orphans, removed at open)
            self.head.storage.when_durable(lambda: remove_held_bodies(self.dir, gone))
        self.compact()

    def _limits(self) -> None:
        """Inside a commit's transaction: the rate-limit windows hit since the last write.

        Outside a group they are stored now. Inside one the hook is still asked now (the hits
        that allowed this commit's rows are this store's, not another game's of the group), but
        they are stored once, just before the group's write (:meth:`_flush_limits`): the same
        atomic write, one tinydb update a group instead of one a mail (issue 23). A member of
        the group rolled back keeps the windows it was given: they are the limiter's, in memory
        as on disk, whole windows (never counts)."""
        storage = self.head.storage
        if not storage.in_group:
            write_limits(self.head, self.limits_hook)
            return
        changes = self.limits_hook() if self.limits_hook is not None else None
        if changes:
            self._limits_due.update(changes)  # a window hit again: its newest copy, first place
            storage.before_group_write(self._flush_limits)

    def _flush_limits(self) -> None:
        """The windows of the group's commits (:meth:`_limits`), stored as its last change."""
        due, self._limits_due = self._limits_due, {}
        if due:
            with self._transaction():
                write_limits(self.head, lambda: due)

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
        n = int(self._meta()["segments"]) + 1
        atomic_write(
            self._segment_path(n),
            {"events": [r["event"] for r in rows], "ledger": [d["key"] for d in ledger]},
            self.fault,
            keep_bak=False,
        )
        with self._transaction():
            self.head.table("events").remove(doc_ids=[r.doc_id for r in rows])
            self.head.table("ledger").remove(doc_ids=[d.doc_id for d in ledger])
            self.head.table("meta").update({"segments": n}, doc_ids=[1])

    def set_secret(self, player: str, hashed: Mapping[str, str]) -> None:
        """Give ``player``'s seat a new secret code (scrypt-hashed): its newcomer's (issue 13)."""
        with self._transaction():
            secrets = dict(self.meta.get("secrets", {}))
            secrets[player] = dict(hashed)
            self.head.table("meta").update({"secrets": secrets}, doc_ids=[1])

    def set_held_window(self, keys: Sequence[str], window: str) -> None:
        """Record the phase (deadline window) in which held posts were last found still held."""
        with self._transaction():
            self.head.table("held").update({"window": window}, Query().key.one_of(list(keys)))

    def set_deadline_state(self, record: Mapping[str, Any]) -> None:
        """Store a deadline's record, replacing the one with its key."""
        with self._transaction():
            self.head.upsert("deadlines", record, key=record["key"])

    def outbox_done(self, message_id: str) -> None:
        """Mark a row sent (the mail is out): one line appended to the sent log and fsynced,
        with the rate-limit windows changed since the last write, instead of a rewrite of the
        head (:mod:`.sent_log`); the head's next write removes the row."""
        changes = self.limits_hook() if self.limits_hook is not None else None
        self._sent_log().append(message_id, changes)

    def outbox_update(self, message_id: str, changes: Mapping[str, Any]) -> None:
        """Change an outbox row (a retry's count or date) in one write with the rate-limit
        windows."""
        with self._transaction():
            q = Query()
            self.head.table("outbox").update(dict(changes), q.message_id == message_id)
            write_limits(self.head, self.limits_hook)

    def limit_windows(self) -> dict[str, list[float]]:
        """The rate-limit windows: the head's copy, updated by what the sent log holds since."""
        windows = read_limits(self.head)
        windows.update(self._sent_log().limits)  # sent after the head's copy was written
        return windows

    # ---- the sent log ---------------------------------------------------------------------

    def _sent_gen(self) -> int:
        doc = self.head.table(SENT_LOG).get(doc_id=1)
        return 0 if doc is None else int(doc["gen"])

    def _sent_log(self) -> SentLog:
        """The log of the generation the head names (in memory, the head may have taken the
        log in, or a failed group may have rolled that back: the head decides)."""
        gen = self._sent_gen()
        if self._sent.gen != gen:
            self._sent = SentLog.load(self.dir, gen)
        return self._sent

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """A head transaction that first takes the sent log in: its rows removed, its windows
        stored (older than the transaction's own), the next generation named, all in the same
        atomic write; the taken file is removed once that write is durable."""
        log = self._sent_log()
        with self.head.transaction():
            if log.exists:
                if log.sent:
                    self.head.table("outbox").remove(Query().message_id.one_of(list(log.sent)))
                if log.limits:
                    write_limits(self.head, lambda: log.limits)
                table = self.head.table(SENT_LOG)
                if table.get(doc_id=1) is None:
                    table.insert(Document({"gen": log.gen + 1}, doc_id=1))
                else:
                    table.update({"gen": log.gen + 1}, doc_ids=[1])
            yield
        if log.exists:
            self.head.storage.when_durable(log.remove_file)


def _new_head(
    game_id: str,
    setup: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    outbox: Sequence[Mapping[str, Any]],
    meta_extra: Mapping[str, Any] | None,
) -> bytes:
    """The bytes of a new game's head (:meth:`GameStore.create`)."""
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
    # the events as they are when they are dicts (the engine's encoding): only written here
    data["events"] = {
        str(i): {"seq": i, "event": ev if type(ev) is dict else dict(ev)}
        for i, ev in enumerate(events, 1)
    }
    data["meta"]["1"]["seq"] = len(events)
    return encode_envelope(data)


def _packed_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """An outbox row as the head keeps it: its mail (``raw``, most of the head's bytes while
    rows wait) as its JSON text, made once: every write of the head until the row is sent
    splices that text instead of encoding the mail again (a burst of replies in one group
    commit, an SMTP outage: issue 23). The file is byte-identical (:class:`Packed`)."""
    doc = dict(row)
    raw = doc.get("raw")
    if type(raw) is str:
        doc["raw"] = Packed(compact_json(raw))
    return doc


def _unpacked_row(doc: Mapping[str, Any]) -> dict[str, Any]:
    """An outbox row as a reader gets it (:func:`_packed_row` undone)."""
    row = dict(doc)
    if "raw" in row:
        row["raw"] = unpacked(row["raw"])
    return row


def list_games(root: Path, known: Container[str] = ()) -> list[Path]:
    """Game directories under ``root/games`` (games still being created excluded),
    but those named in ``known``: the daemon's scans for new games skip the loaded ones before
    any ``stat`` (a second's ticker over 1,000 games, issue 23)."""
    games = root / "games"
    try:
        names = sorted(os.listdir(games))
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for name in names:
        if name in known or name.startswith((TMP_PREFIX, CREATING_PREFIX)):
            continue
        p = games / name
        if (p / "head.json").exists():
            out.append(p)
    return out


SETTLED_NS = 2_000_000_000
"""A games directory's modification time this old (2 s) can be trusted: a change after it
lands in a later clock tick, so it shows as another time."""


def games_stamp(root: Path) -> int | None:
    """The modification time of ``root/games`` if it is settled (:data:`SETTLED_NS`), else
    None. ``pbem new-game`` renames each game into place there, so while the stamp taken
    before a scan stays the same no game was added since (issue 23: no listing of 10,000
    games each idle cycle)."""
    try:
        mtime = os.stat(root / "games").st_mtime_ns
    except OSError:
        return None
    return mtime if time.time_ns() - mtime > SETTLED_NS else None


def clean_stale_game_dirs(root: Path) -> None:
    """Finish the creations a crash cut short once their head was whole and durable (the game
    may have been announced), remove the others (:meth:`GameStore.create`): at the daemon's
    start, before any game is loaded."""
    games = root / "games"
    try:
        names = os.listdir(games)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in names:
        if name.startswith(CREATING_PREFIX):
            creating = games / name
            if not _finish_creation(creating, games / name[len(CREATING_PREFIX) :]):
                shutil.rmtree(creating, ignore_errors=True)
        elif name.startswith(TMP_PREFIX):  # a creation cut by a pbem before issue 23's
            shutil.rmtree(games / name, ignore_errors=True)


def _finish_creation(creating: Path, final: Path) -> bool:
    """Rename a creation cut short into place if its head is whole and no game holds its id
    yet, durably (a kill may have left the head in the page cache only); False when it is
    not to be finished."""
    head = creating / "head.json"
    try:
        read_file(head)  # the checksum: whole, or cut short
    except (OSError, StoreError):
        return False
    if final.exists():  # created again since, and that one was announced
        return False
    fd = os.open(head, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(creating)
    os.replace(creating, final)
    fsync_dir(final.parent)
    return True
