"""tinydb over an atomic, self-checking file: transactions and group commits.

tinydb rewrites its whole file on every write; :class:`AtomicStorage` makes that write one
:func:`~pbem.adapters.store.atomic_file.atomic_write`, buffers the writes of a transaction (or of
a group of transactions) into one, and rolls back on an exception. Only the writer cleans stale
temp files; read-only users (``pbem status``) never touch the directory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from tinydb import Query, TinyDB
from tinydb.storages import Storage
from tinydb.table import Table

from pbem.adapters.store.atomic_file import (
    FaultHook,
    StoreError,
    atomic_write,
    clean_stale_temps,
    no_fault,
    read_file,
)
from pbem.adapters.store.directories import make_dirs

Tables = dict[str, dict[str, Any]]
"""A tinydb file's data: table name -> document id -> document."""

#: Tables that a commit inside a group only inserts into or removes from (never updates a
#: document in place): their snapshot can share the documents.
APPEND_TABLES = frozenset({"events", "ledger", "outbox"})


def _snapshot(data: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    """A copy deep enough for a rollback, in O(small tables).

    A table dict is changed in place only by the write that copied it since the last snapshot
    (:class:`CopyOnWriteTable`), so keeping the old table objects suffices for inserts and
    removals. Only ``update``/``upsert`` change a document in place (``dict.update``), which
    commits do on the small tables (meta, deadlines, shunt, folders): their documents are copied.
    """
    if data is None:
        return None
    return {
        t: docs if t in APPEND_TABLES else {k: dict(d) for k, d in docs.items()}
        for t, docs in data.items()
    }


class _IntKeyed:
    """A table's stored dict (string ids, as JSON has them) seen by tinydb's updaters with
    integer ids: what ``Table._update_table`` gets by rebuilding the whole dict twice."""

    __slots__ = ("raw",)

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def __contains__(self, doc_id: object) -> bool:
        return str(doc_id) in self.raw

    def __getitem__(self, doc_id: int) -> Any:
        return self.raw[str(doc_id)]

    def __setitem__(self, doc_id: int, doc: Any) -> None:
        self.raw[str(doc_id)] = doc

    def __delitem__(self, doc_id: int) -> None:
        del self.raw[str(doc_id)]

    def __len__(self) -> int:
        return len(self.raw)

    def __iter__(self) -> Iterator[int]:
        return iter(self.keys())

    def keys(self) -> list[int]:
        """The ids, as integers."""
        return [int(k) for k in self.raw]

    def items(self) -> list[tuple[int, Any]]:
        """The (integer id, document) pairs."""
        return [(int(k), v) for k, v in self.raw.items()]

    def pop(self, doc_id: int, *default: Any) -> Any:
        """Remove and return the document with integer id ``doc_id`` (or the default)."""
        return self.raw.pop(str(doc_id), *default)

    def clear(self) -> None:
        """Remove every document."""
        self.raw.clear()


class CopyOnWriteTable(Table):
    """A tinydb table whose writes change its dict in place, copied (shallow, once) only
    when a rollback snapshot may still hold it (:meth:`AtomicStorage.owned`).

    tinydb's own ``_update_table`` rebuilds the table twice per write (ids to int and back):
    O(table) Python work for each insert, which made a commit's cost grow with the pending
    outbox and the head's ledger (issue 23). The stored dict keeps the same keys in the same
    order, so the file written is byte-identical.
    """

    def _update_table(self, updater: Callable[[dict[int, Any]], None]) -> None:
        tables, raw = self._writable()
        updater(_IntKeyed(raw))  # type: ignore[arg-type]
        self._written(tables, raw)

    def _writable(self) -> tuple[Tables, dict[str, Any]]:
        """The stored tables, and this table's dict as a write may change it in place."""
        storage = self._storage
        tables = storage.read()
        if tables is None:
            tables = {}
        raw = tables.get(self.name)
        if raw is None or not (isinstance(storage, AtomicStorage) and storage.owned(raw)):
            raw = dict(raw) if raw is not None else {}
        return tables, raw

    def _written(self, tables: Tables, raw: dict[str, Any]) -> None:
        """The changed table stored (at the transaction's end), and known as changed."""
        storage = self._storage
        tables[self.name] = raw
        storage.write(tables)
        if isinstance(storage, AtomicStorage):
            storage.own(raw)
        self.clear_cache()

    def append(self, docs: Iterable[Mapping[str, Any]]) -> None:
        """``insert_multiple`` of plain documents (not tinydb ``Document`` objects, which carry
        their own ids), stored as tinydb stores them (the same ids, each a ``dict`` copy),
        without its closures and per-document type checks: a commit appends to three tables
        for every mail (issue 23)."""
        storage = self._storage
        tables = storage.read()
        if tables is None:
            tables = {}
        found: dict[str, Any] | None = tables.get(self.name)
        copied = found is None or not (
            isinstance(storage, AtomicStorage) and storage.appendable(found)
        )
        raw = found if found is not None and not copied else dict(found or {})
        next_id: Callable[[], int] = self._get_next_id  # tinydb's, untyped
        for doc in docs:
            raw[str(next_id())] = dict(doc)
        tables[self.name] = raw
        storage.write(tables)
        if copied and isinstance(storage, AtomicStorage):
            storage.own(raw)  # not one appended in place: the snapshot still shares it
        self.clear_cache()

    def update_doc(self, doc_id: int, fields: Mapping[str, Any]) -> None:
        """``update(fields, doc_ids=[doc_id])`` (``KeyError`` if there is no such document),
        without building tinydb's updater for one document."""
        tables, raw = self._writable()
        raw[str(doc_id)].update(fields)
        self._written(tables, raw)


class AtomicStorage(Storage):
    """A tinydb storage that writes atomically, and buffers writes inside a transaction.

    Outside :meth:`transaction` every tinydb write is one atomic file replace. Inside, tinydb's
    writes only update the in-memory copy, and the transaction's exit writes once; an exception
    discards the buffer (rollback). Unlike CachingMiddleware nothing is ever acknowledged before
    it is on disk.
    """

    def __init__(
        self,
        path: str | Path,
        fault: FaultHook = no_fault,
        readonly: bool = False,
        data: Tables | Callable[[], Tables] | None = None,
        clean: bool = True,
    ) -> None:
        super().__init__()
        # a Path as it is: ``Path(path)`` parses every part again (each game's head, issue 23)
        self.path = path if isinstance(path, Path) else Path(path)
        self.fault = fault
        self.readonly = readonly
        # ``data``: a file just written in a new directory; not ``clean``: the caller cleans
        if not readonly and data is None and clean:
            # only the writer cleans: a reader must never remove the writer's in-flight temp
            make_dirs(self.path.parent)
            clean_stale_temps(self.path.parent)
        # ``data`` as a function: what a file just written holds, read when first asked (a
        # game created and never read again by this process decodes nothing, issue 23)
        self._unread = data if callable(data) else None
        self._data: Tables | None = None if callable(data) else data
        if data is None and self.path.exists():
            loaded = read_file(self.path)
            if not isinstance(loaded, dict):
                raise StoreError(f"{self.path}: not a tinydb document")
            self._data = loaded
        self._in_tx = False
        self._dirty = False
        self._group = False
        self._group_dirty = False
        self._after_group: list[Callable[[], None]] = []
        self._before_write: list[Callable[[], None]] = []
        self._owned: dict[int, dict[str, Any]] = {}
        self._lengths: dict[int, tuple[dict[str, Any], int]] = {}

    def owned(self, table: dict[str, Any]) -> bool:
        """Whether ``table`` (a stored table dict) was made by a write since the last
        rollback snapshot, so that a write may change it in place (:class:`CopyOnWriteTable`)."""
        return self._owned.get(id(table)) is table

    def appendable(self, table: dict[str, Any]) -> bool:
        """Whether a write may append to ``table`` in place (only append: a removal or an
        update copies it first): :meth:`owned`, or an append table whose length the group
        transaction's snapshot noted (its rollback removes what was appended since)."""
        noted = self._lengths.get(id(table))
        return self._owned.get(id(table)) is table or (noted is not None and noted[0] is table)

    def own(self, table: dict[str, Any]) -> None:
        """Mark ``table`` as made by a write since the last snapshot (see :meth:`owned`)."""
        self._owned[id(table)] = table

    def _set_data(self, data: dict[str, dict[str, Any]] | None) -> None:
        """The in-memory copy replaced (a rollback, a reload): no table is owned any more."""
        self._data, self._unread = data, None
        self._owned = {}

    def _read_now(self) -> None:
        """The data given as a function (a file just written) made now."""
        if self._unread is not None:
            self._data, self._unread = self._unread(), None

    def when_durable(self, action: Callable[[], None]) -> None:
        """Run ``action`` once what was committed so far is on disk: now, or inside
        :meth:`group` after the group's write (never if that write fails)."""
        if self._group:
            self._after_group.append(action)
        else:
            action()

    @property
    def in_group(self) -> bool:
        """Whether a :meth:`group` is open: its transactions are written at its end."""
        return self._group

    def before_group_write(self, action: Callable[[], None]) -> None:
        """Inside :meth:`group`: run ``action`` (once, however often it is given) when the
        group's body is done, before its write; a transaction it runs lands in that write."""
        if action not in self._before_write:
            self._before_write.append(action)

    def read(self) -> dict[str, dict[str, Any]] | None:
        """The stored tables (the live dict, not a copy), decoded on first read."""
        # no copy: tinydb rebuilds the tables it writes, and a rollback reloads from disk, so
        # handing out the live dict is safe and keeps reads O(1) instead of O(file size)
        if self._unread is not None:
            self._read_now()
        return self._data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        """Keep ``data``; write the file atomically now, or at the transaction's end."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only")
        self._data, self._unread = data, None
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
        self._read_now()  # a rollback's snapshot is taken of the data itself
        self._in_tx = True
        self._dirty = False
        snapshot = None
        if self._group:
            snapshot = _snapshot(self._data)
            self._owned = {}  # the snapshot shares the table dicts: copy them before a change
            # but an append table may be appended to in place (:meth:`appendable`): a rollback
            # drops what was appended (issue 23: no copy of the head's events, ledger and
            # pending outbox for each mail of a group)
            self._lengths = {
                id(docs): (docs, len(docs))
                for t, docs in (self._data or {}).items()
                if t in APPEND_TABLES
            }
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
                for docs, n in self._lengths.values():
                    while len(docs) > n:  # appended in place: the newest go first
                        docs.popitem()
                self._set_data(snapshot)
            else:
                # the disk holds the last commit: reload it (rare path: no snapshot per commit)
                self._set_data(read_file(self.path) if self.path.exists() else None)
            raise
        finally:
            self._in_tx = False
            self._dirty = False
            self._lengths = {}

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
        self._before_write = []
        try:
            yield
            while self._before_write:
                self._before_write.pop(0)()
            if self._group_dirty:
                assert self._data is not None
                atomic_write(self.path, self._data, self.fault)
        except BaseException:
            self._set_data(read_file(self.path) if self.path.exists() else None)
            raise
        finally:
            self._group = False
            self._group_dirty = False
            self._before_write = []
            after, self._after_group = self._after_group, []
        for action in after:  # reached only once the group's write is done
            action()


class _DB(TinyDB):
    table_class = CopyOnWriteTable


class AtomicDB:
    """A TinyDB over :class:`AtomicStorage` with an explicit transaction."""

    def __init__(
        self,
        path: Path,
        fault: FaultHook = no_fault,
        readonly: bool = False,
        data: Tables | Callable[[], Tables] | None = None,
        clean: bool = True,
    ) -> None:
        """``data``: what the file holds, when the caller just wrote it (not read back), or
        how to make it when first read;
        ``clean=False``: the caller removed the directory's stale temp files itself."""
        self.path = path
        self.fault = fault
        self.db = _DB(
            path, storage=AtomicStorage, fault=fault, readonly=readonly, data=data, clean=clean
        )
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
        """The tinydb table ``name``."""
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
        """Update the document of ``table`` matching every ``match`` field, or insert ``doc``."""
        q = Query()
        cond = None
        for k, v in match.items():
            c = q[k] == v
            cond = c if cond is None else (cond & c)
        assert cond is not None
        self.table(table).upsert(dict(doc), cond)

    def remove(self, table: str, **match: Any) -> None:
        """Remove the documents of ``table`` matching every ``match`` field."""
        q = Query()
        cond = None
        for k, v in match.items():
            c = q[k] == v
            cond = c if cond is None else (cond & c)
        assert cond is not None
        self.table(table).remove(cond)
