"""A local Maildir as the moderator's mailbox: the duck type of :class:`ImapMailbox` (``make demo``).

The service consumes a mailbox the same way whatever it is (pending UIDs, fetch with the size cap
checked first, MOVE after the commit, wait). Here the INBOX is the ``new/`` and ``cur/`` of a
Maildir, the Processed and Quarantine folders are Maildir++ subfolders (``.Processed``), and the
IMAP notions are kept honest:

- UIDs are integers assigned in arrival order (file mtime, then the time and counter the name holds) and kept in a small index
  file beside the folders (``pbem-uids.json``), so a UID never changes and is never reused;
- UIDVALIDITY is chosen once and stored in the same file: deleting the index is a UIDVALIDITY
  change, and the service handles it as one (a rescan deduplicated by content hash);
- INTERNALDATE is the file's mtime (when the delivery agent wrote it);
- waiting is polling the directories with a short sleep (no inotify: nothing to install), which
  :attr:`MaildirMailbox.interrupt` ends at once: a delivery agent in the same process may ring
  it on each delivery and poll seldom (``pbem demo`` does).

Any OS error surfaces as :class:`~pbem.adapters.imap.ImapDown`, so the service's reconnect with
backoff applies unchanged.
"""

from __future__ import annotations

import contextlib
import json
import mailbox
import os
import re
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pbem.adapters.imap import Fetched, ImapDown, ImapSettings

INDEX = "pbem-uids.json"


_NAME = re.compile(r"(\d+)\.M(\d+)P(\d+)(?:Q(\d+))?")


def arrival_key(mtime_ns: int, filename: str) -> tuple[int, tuple[int, ...], str]:
    """The order mail arrived in: the file's mtime, then, for files written within one tick of
    the file system's clock (a few milliseconds: a burst), the time and counter their names
    hold. ``1796552302.M98000P7Q5`` came before ``1796552302.M120000P7Q6``: compared as text,
    the unpadded microseconds put them the other way round."""
    m = _NAME.match(filename)
    numbers = tuple(int(g or 0) for g in m.groups()) if m else ()
    return mtime_ns, numbers, filename


def maildir_key(filename: str) -> str:
    """The stable part of a Maildir file name (the ``:2,FLAGS`` info changes, the key does not)."""
    return filename.split(":", 1)[0]


class MaildirMailbox:
    """The moderator's mailbox as a Maildir at ``root`` (its INBOX is ``root/new`` + ``root/cur``).

    ``settings`` supplies what the service reads of an IMAP configuration: the folder names,
    the batch size, the size cap and the poll interval.
    """

    def __init__(self, root: str | Path, settings: ImapSettings, poll: float = 0.05) -> None:
        self.root = Path(root)
        self.s = settings
        self.poll = poll
        self.client: mailbox.Maildir | None = None
        self.uidvalidity = 0
        self.interrupt = threading.Event()
        self._uids: dict[str, int] = {}
        self._next = 1
        self._paths: dict[int, Path] = {}

    # ---- connection ---------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether the Maildir is open."""
        return self.client is not None

    def connect(self) -> None:
        """Create the Maildir and our folders if missing; load (or start) the UID index."""
        try:
            md = mailbox.Maildir(self.root, create=True)
            for name in (self.s.processed, self.s.quarantine):
                md.add_folder(self._folder_name(name))
            self._load_index()
            self.client = md
        except (OSError, ValueError) as exc:
            self.client = None
            raise ImapDown(f"Maildir {self.root}: {type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        """Drop the Maildir (nothing to log out of)."""
        self.client = None

    @staticmethod
    def _folder_name(name: str) -> str:
        # Maildir++: a nested folder a/b is the directory ".a.b" under the root
        return ".".join(p for p in name.split("/") if p)

    def _folder_path(self, name: str) -> Path:
        return self.root / ("." + self._folder_name(name))

    def _load_index(self) -> None:
        path = self.root / INDEX
        try:
            data = json.loads(path.read_text())
            self.uidvalidity = int(data["uidvalidity"])
            self._next = int(data["next"])
            self._uids = {str(k): int(v) for k, v in data["uids"].items()}
        except FileNotFoundError:
            # a new mailbox, or a lost index: a new UIDVALIDITY tells the service to rescan
            self.uidvalidity = int(time.time())
            self._next = 1
            self._uids = {}
            self._save_index()
        except (ValueError, KeyError, TypeError) as exc:
            raise ImapDown(f"{path}: unreadable UID index ({exc}); delete it to rescan") from exc

    def _save_index(self) -> None:
        """Temp file, fsync, rename: a crash leaves the old index or the new one, never half."""
        path = self.root / INDEX
        tmp = path.with_suffix(".tmp")
        data = {"uidvalidity": self.uidvalidity, "next": self._next, "uids": self._uids}
        with open(tmp, "w") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    def _check(self) -> None:
        if self.client is None:
            raise ImapDown("not connected")

    # ---- reading ------------------------------------------------------------------------

    def _scan(self) -> list[tuple[tuple[int, tuple[int, ...], str], Path]]:
        """INBOX files as (:func:`arrival_key`, path), in arrival order."""
        found = []
        for sub in ("new", "cur"):
            with os.scandir(self.root / sub) as it:
                for entry in it:
                    if entry.name.startswith(".") or not entry.is_file():
                        continue
                    with contextlib.suppress(FileNotFoundError):  # moved meanwhile
                        found.append(
                            (arrival_key(entry.stat().st_mtime_ns, entry.name), Path(entry.path))
                        )
        found.sort()
        return found

    def pending_uids(self) -> list[int]:
        """UIDs of the messages in INBOX, ascending; new arrivals get the next UIDs."""
        self._check()
        try:
            files = self._scan()
            seen: dict[str, int] = {}
            paths: dict[int, Path] = {}
            changed = False
            for _arrival, path in files:
                key = maildir_key(path.name)
                uid = self._uids.get(key)
                if uid is None:
                    uid, self._next = self._next, self._next + 1
                    changed = True
                seen[key] = uid
                paths[uid] = path
            if changed or len(seen) != len(self._uids):
                self._uids = seen  # forget moved messages; ``next`` only grows
                self._save_index()
            self._paths = paths
        except OSError as exc:
            raise ImapDown(f"Maildir {self.root}: {exc}") from exc
        return sorted(paths)

    def fetch(self, uids: Sequence[int]) -> list[Fetched]:
        """Size and arrival time first; the bytes only of those under the cap."""
        self._check()
        out = []
        for uid in uids:
            path = self._paths.get(uid)
            if path is None:
                continue
            try:
                st = path.stat()
                raw = path.read_bytes() if st.st_size <= self.s.max_size else None
            except FileNotFoundError:
                continue  # moved by someone else meanwhile, as an expunge would be
            except OSError as exc:
                raise ImapDown(f"Maildir {path}: {exc}") from exc
            out.append(
                Fetched(
                    uid=uid,
                    uidvalidity=self.uidvalidity,
                    size=st.st_size,
                    internaldate=datetime.fromtimestamp(st.st_mtime, UTC),
                    raw=raw,
                )
            )
        return out

    # ---- acknowledging ------------------------------------------------------------------

    def move(self, uids: Sequence[int], name: str) -> None:
        """Rename our messages into a folder's ``new/`` (atomic, after their commit)."""
        if not uids:
            return
        self._check()
        target = self._folder_path(name) / "new"
        try:
            for uid in uids:
                path = self._paths.pop(uid, None)
                if path is None:
                    continue
                with contextlib.suppress(FileNotFoundError):  # already moved: MOVE is idempotent
                    os.replace(path, target / path.name)
        except OSError as exc:
            raise ImapDown(f"Maildir move to {name}: {exc}") from exc

    # ---- waiting ------------------------------------------------------------------------

    def _has_new(self) -> bool:
        # only arrivals count: a message kept for a retry must not turn polling into a spin
        for sub in ("new", "cur"):
            with os.scandir(self.root / sub) as it:
                for e in it:
                    if not e.name.startswith(".") and maildir_key(e.name) not in self._uids:
                        return True
        return False

    def wait(self, max_seconds: float) -> bool:
        """Poll until new mail arrives, :attr:`interrupt` is set or the time is up.

        Returns True if new mail arrived.
        """
        self._check()
        end = time.monotonic() + min(max_seconds, self.s.poll_interval)
        try:
            while not self.interrupt.is_set():
                if self._has_new():
                    return True
                left = end - time.monotonic()
                if left <= 0:
                    break
                # not a plain sleep: an interrupt (a stop, a deadline, a local delivery agent
                # that rings, as ``pbem demo``'s mail system does) ends the wait at once
                self.interrupt.wait(min(self.poll, left))
        except OSError as exc:
            raise ImapDown(f"Maildir {self.root}: {exc}") from exc
        finally:
            self.interrupt.clear()
        return False
