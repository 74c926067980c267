"""The operator's requests to the running daemon: one small file each, in a spool directory
under the data directory (``pbem shunt retry``, ``pbem deadline retry``, ``pbem reachable``).

The daemon is the single writer of its store, so an operator command never writes it: it drops
a request, which the daemon acts on and removes. The operator may be root or a member of the
state's group, the daemon the service user (``docs/install-debian.md``), so:

- a request is written under a dot name and renamed into place (the daemon never reads half a
  request), with the access of the spool it is in (:func:`pbem.adapters.store.share_like_parent`:
  root's request is given to the spool's owner, an admin's to its group);
- a request the daemon cannot remove (a spool made by hand, or by an older pbem, that the service
  user may not write) is reported once and then left alone until it changes, instead of being
  acted on again every second forever.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from pbem.adapters.store import fsync_dir, make_dirs, share_like_parent

log = logging.getLogger(__name__)


def write_request(spool: Path, name: str, text: str) -> Path:
    """Drop the request ``name`` (replacing an older one of that name) into ``spool``."""
    make_dirs(spool)
    final = spool / name
    tmp = spool / f".{name}.{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # left by a killed command of the same pid
    # a new file, never an existing one nor a symbolic link's target (root writes here too)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            share_like_parent(fd, spool)
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(spool)
    return final


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


@dataclass
class RequestSpool:
    """The daemon's view of the spools: what waits, and consuming (removing) a request."""

    stuck: dict[Path, tuple[int, int] | None] = field(default_factory=dict)
    """Requests that could not be removed, with the identity (inode, mtime) they had then: left
    alone while they stay the same file."""

    def pending(self, spool: Path) -> list[Path]:
        """The requests waiting in ``spool``, oldest name first; a dot file is one the CLI is
        still writing, a stuck request one that was reported already."""
        with contextlib.suppress(OSError):
            return sorted(
                p
                for p in spool.iterdir()
                if not p.name.startswith(".")
                and not (p in self.stuck and self.stuck[p] == _identity(p))
            )
        return []

    def consume(self, request: Path) -> bool:
        """Remove ``request``; False if it is gone already or cannot be removed (then reported
        once, with what to do, and ignored until the file changes)."""
        identity = _identity(request)
        try:
            request.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            self.stuck[request] = identity
            log.error(
                "operator request %s cannot be removed by the service (%s): not acted on, "
                "ignored until it changes; give its spool to the service user, or to its group "
                "with group write (docs/install-debian.md)",
                request,
                exc.strerror,
            )
            return False
        self.stuck.pop(request, None)
        return True
