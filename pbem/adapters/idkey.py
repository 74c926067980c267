"""The daemon's Message-ID key: made once, kept in the data directory (``message-id.key``).

Every Message-ID pbem writes is a keyed hash of the mail's stable key under this secret
(:func:`pbem.mail.envelope.message_id`), so a player who knows the game, the event numbers and
the names cannot recompute which private mail went to whom (issue 10 item 13), while a mail
rebuilt after a crash or a replay keeps its Message-ID (requirement 9): the key never changes.

It lives in its own file rather than in ``daemon.json`` because ``pbem new-game`` writes the
opening mails (with their Message-IDs) in another process than the daemon, the single writer
of ``daemon.json``. Whoever needs it first creates it, without a race: the bytes are written
and fsynced under a temporary name, then hard-linked to the final name, which fails if another
process got there first (its key is then read and used).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

from pbem.adapters.store import fsync_dir, make_dirs, share_like_parent

KEY_FILE = "message-id.key"
_KEY_BYTES = 32


def _read(path: Path) -> bytes | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != _KEY_BYTES:
        # never guess a new key silently: every Message-ID, and every thread, would change
        raise OSError(f"{path}: not a pbem Message-ID key ({_KEY_BYTES * 2} hex digits)")
    return key


def existing_key(data_dir: Path) -> bytes | None:
    """The key if it has been made, never creating it (for an alert sent while the disk is
    full)."""
    return _read(data_dir / KEY_FILE)


def message_id_key(data_dir: Path) -> bytes:
    """The data directory's Message-ID key, created durably on first use, with the access of
    the state it sits in (the service user's, and its admin group's: never others')."""
    path = data_dir / KEY_FILE
    key = _read(path)
    if key is not None:
        return key
    make_dirs(data_dir)
    fresh = secrets.token_bytes(_KEY_BYTES)
    # not the store's ".tmp-" prefix: the daemon's start-up clean-up must not take it away
    fd, tmp = tempfile.mkstemp(prefix=f".{KEY_FILE}.", dir=data_dir)
    try:
        # an operator's `sudo pbem new-game` may make it: the service user must read it
        share_like_parent(fd, data_dir)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(fresh.hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileExistsError):  # another process made it first: use its key
            os.link(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    fsync_dir(data_dir)
    key = _read(path)
    assert key is not None
    return key
