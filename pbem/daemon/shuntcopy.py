"""The bytes of a shunted or held mail, kept under ``shunt/<key>.eml`` for ``pbem shunt
show|retry`` and the automatic retry of a held mail (issue 16).

A mail is moved out of the inbox once its shunt row is committed, so this copy may be the only
one the daemon reads again: it is written whole or not at all, durably, before that commit (a
kill between a file's creation and its write once left an empty copy, which the retry applied as
zero bytes and the player's command was lost, F1). Its key is the sha256 of its bytes
(:func:`pbem.daemon.message.content_key`): a copy that does not match is written again, and
never applied.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pbem.adapters.store.atomic_file import replace_bytes
from pbem.adapters.store.directories import make_dirs
from pbem.daemon.message import content_key

log = logging.getLogger(__name__)


def copy_path(root: Path, key: str) -> Path:
    """Where the copy of the mail ``key`` lies under the data directory ``root``."""
    return root / "shunt" / f"{key}.eml"


def keep_copy(root: Path, key: str, raw: bytes) -> None:
    """Keep ``raw``, the mail ``key``, whole: a copy already holding these very bytes stays;
    any other (none, or one cut short) is replaced atomically and durably."""
    path = copy_path(root, key)
    make_dirs(path.parent)  # a player's mail: the state's access, never others (issue 21)
    try:
        if path.read_bytes() == raw:
            return
    except FileNotFoundError:
        pass
    replace_bytes(path, raw)


def read_copy(root: Path, key: str) -> bytes | None:
    """The bytes of the mail ``key``; None when there is no copy, or one that is not that
    mail's bytes (logged: it stays held, for the game master to see)."""
    try:
        raw = copy_path(root, key).read_bytes()
    except FileNotFoundError:
        return None
    if content_key(raw) != key:
        log.error("held mail %s: its copy is not the mail's bytes; left held", key[:12])
        return None
    return raw
