"""A local Maildir as the daemon's inbound mailbox (the embedded demo: nothing to install).

Same contract as :class:`pbem.adapters.imap.ImapMailbox`: ``pending_uids`` lists ``new/`` and
``cur/``, ``fetch`` reads sizes first and bodies under the cap, ``move`` is an atomic
``rename`` into the target folder's ``cur/`` (after the commit, like ``UID MOVE``), ``wait``
polls. UIDs are assigned per session to file names; the UIDVALIDITY is the inbox's inode, so a
re-created Maildir is noticed like a changed IMAP UIDVALIDITY. Also :func:`deliver`, the
tmp-then-rename delivery an MTA does.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pbem.adapters.imap import Fetched, ImapSettings


def ensure(path: Path) -> Path:
    for sub in ("tmp", "new", "cur"):
        (path / sub).mkdir(parents=True, exist_ok=True)
    return path


_counter = iter(range(1, 1 << 62))


def deliver(maildir: Path, raw: bytes) -> Path:
    """Write one message the Maildir way: into ``tmp/``, fsync, rename into ``new/``."""
    ensure(maildir)
    name = f"{time.time_ns()}.P{os.getpid()}Q{next(_counter)}.{socket.gethostname()}"
    tmp = maildir / "tmp" / name
    with open(tmp, "wb") as f:
        f.write(raw)
        f.flush()
        os.fsync(f.fileno())
    final = maildir / "new" / name
    os.rename(tmp, final)
    return final


class MaildirMailbox:
    """The moderator's Maildir; folders are ``.Name`` sub-Maildirs (Maildir++)."""

    def __init__(self, root: Path, settings: ImapSettings) -> None:
        self.root = root
        self.s = settings
        self.uidvalidity = 0
        self.interrupt = threading.Event()
        self._connected = False
        self._uids: dict[str, int] = {}
        self._paths: dict[int, Path] = {}
        self._next = 1

    @property
    def connected(self) -> bool:
        return self._connected

    def connect(self) -> None:
        ensure(self.root)
        for name in (self.s.processed, self.s.quarantine):
            ensure(self.folder(name))
        self.uidvalidity = os.stat(self.root).st_ino & 0xFFFFFFFF
        self._connected = True

    def folder(self, name: str) -> Path:
        return self.root / ("." + ".".join(p for p in name.split("/") if p))

    def close(self) -> None:
        self._connected = False

    def pending_uids(self) -> list[int]:
        files = []
        for sub in ("new", "cur"):
            for p in (self.root / sub).iterdir():
                if p.is_file():
                    files.append(p)
        files.sort(key=lambda p: (p.stat().st_mtime_ns, p.name))
        out = []
        for p in files:
            key = p.name.split(":", 1)[0]
            uid = self._uids.get(key)
            if uid is None:
                uid = self._uids[key] = self._next
                self._next += 1
            self._paths[uid] = p
            out.append(uid)
        return out

    def fetch(self, uids: Sequence[int]) -> list[Fetched]:
        out = []
        for uid in uids:
            path = self._paths.get(uid)
            if path is None:
                continue
            try:
                st = path.stat()
                raw = path.read_bytes() if st.st_size <= self.s.max_size else None
            except FileNotFoundError:
                continue
            date = datetime.fromtimestamp(st.st_mtime, UTC)
            out.append(Fetched(uid, self.uidvalidity, st.st_size, date, raw))
        return out

    def move(self, uids: Sequence[int], name: str) -> None:
        dest = self.folder(name) / "cur"
        for uid in uids:
            path = self._paths.pop(uid, None)
            if path is not None and path.exists():
                os.rename(path, dest / path.name)

    def wait(self, max_seconds: float) -> bool:
        end = time.monotonic() + min(max_seconds, self.s.poll_interval)
        new = self.root / "new"
        while not self.interrupt.is_set() and time.monotonic() < end:
            if any(new.iterdir()):
                self.interrupt.clear()
                return True
            time.sleep(0.1)
        self.interrupt.clear()
        return False
