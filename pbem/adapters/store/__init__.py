"""Durable state: tinydb over an atomic, self-checking storage (RELIABILITY §4.5, requirement 3).

Layout of a data directory::

    daemon.json                 the daemon's own file (:mod:`.daemon`): UIDVALIDITY per folder,
                                ledger of mail that reached no game, shunt table, outbox of
                                non-game mail, heartbeat, rate limits
    inflight.json, inflight.pos the batch in hand and the mail in hand (``pbem.daemon.inflight``)
    games/<game_id>/            one game (:mod:`.game`): ``head.json``, closed segments, the
                                bytes of held list posts (:mod:`.held_bodies`), the marks of
                                its sent mail (:mod:`.sent_log`)
    .lock                       the writer's ``flock`` (:mod:`.lock`)

Each concern is one module of this package: :mod:`.atomic_file` (the self-checking envelope and
its atomic, durable replace), :mod:`.directories` (directories made durably, access shared like
the parent), :mod:`.atomic_db` (tinydb transactions and group commits over one atomic file),
:mod:`.limit_windows` (rate-limit windows kept beside the outbox), :mod:`.game`,
:mod:`.held_bodies`, :mod:`.sent_log` (a sent row marked by an append, not a head rewrite),
:mod:`.daemon` and :mod:`.lock`. The names below are the package's public
interface; import them from ``pbem.adapters.store``.

A single writer (the daemon's asyncio loop) is enforced by an ``flock`` on the data directory;
read-only users (``pbem status``) take no lock. Stale temp files are removed when a file is
opened by the writer.
"""

from pbem.adapters.store.atomic_db import AtomicDB, AtomicStorage
from pbem.adapters.store.atomic_file import (
    FORMAT_VERSION,
    TMP_PREFIX,
    FaultHook,
    StoreError,
    atomic_write,
    clean_stale_temps,
    decode_envelope,
    encode_envelope,
    read_file,
)
from pbem.adapters.store.daemon import DaemonStore
from pbem.adapters.store.directories import fsync_dir, make_dirs, share_like_parent
from pbem.adapters.store.game import (
    SEGMENT_SIZE,
    GameStore,
    clean_stale_game_dirs,
    games_stamp,
    list_games,
)
from pbem.adapters.store.held_bodies import HELD_DIR
from pbem.adapters.store.limit_windows import LimitsHook, prune_windows
from pbem.adapters.store.lock import DirLock

__all__ = [
    "FORMAT_VERSION",
    "HELD_DIR",
    "SEGMENT_SIZE",
    "TMP_PREFIX",
    "AtomicDB",
    "AtomicStorage",
    "DaemonStore",
    "DirLock",
    "FaultHook",
    "GameStore",
    "LimitsHook",
    "StoreError",
    "atomic_write",
    "clean_stale_game_dirs",
    "clean_stale_temps",
    "decode_envelope",
    "encode_envelope",
    "fsync_dir",
    "games_stamp",
    "list_games",
    "make_dirs",
    "prune_windows",
    "read_file",
    "share_like_parent",
]
