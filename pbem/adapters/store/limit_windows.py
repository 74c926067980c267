"""The rate-limit windows a store keeps beside its outbox (:mod:`pbem.daemon.limits`).

A store write that carries outbox changes also carries the windows changed since the previous
write, in the store's ``limits`` table (one document, doc 1), so a reply row and the limit hit
that allowed it land in the same atomic write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from tinydb.table import Document

if TYPE_CHECKING:
    from pbem.adapters.store.atomic_db import AtomicDB

#: returns the rate-limit windows changed since its last call (``pbem.daemon.limits``)
LimitsHook = Callable[[], Mapping[str, list[float]]]


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
    """The rate-limit windows stored in ``db`` (window name -> its times), or none."""
    doc = db.table("limits").get(doc_id=1)
    return dict(doc["windows"]) if doc is not None else {}
