"""One writer per data directory: an exclusive ``flock`` (requirement 3)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

from pbem.adapters.store.atomic_file import StoreError
from pbem.adapters.store.directories import fsync_dir, make_dirs


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
        """Unlock and close the lock file (an error doing so is ignored)."""
        with contextlib.suppress(OSError):
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
