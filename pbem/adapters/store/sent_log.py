"""A game's sent outbox rows, recorded by an append instead of a rewrite of its head.

Removing a sent row from the head rewrote the whole head (its events, its pending mails) for
every mail sent: about 7 ms of CPU each in a by-mail demo, more than a commit. Instead, the sender
appends one line per sent row to ``sent-<gen>.log`` beside the head, and fsyncs it: the row is
marked sent once that returns, exactly when its removal from the head was durable before (a
crash before it: the mail is sent again with its Message-ID, as before). A line also carries the
rate-limit windows that changed with the send (:mod:`.limit_windows`), as the head write did.

The next write of the head takes the log in (its rows removed, its windows stored, in the same
atomic write as the commit that triggered it) and names the next generation in its ``sent_log``
table; the taken log is then removed. Only the log of the generation the head names counts: a
log left behind by a crash after the head took it in is stale, and removed when the game is
opened. A store without a ``sent_log`` table (written before this module) is generation 0 with
no log. Each line is ``{"sent": <Message-ID>, "limits": {...}}``; a last line cut short by a
power loss is not one (its append never returned).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.adapters.store.directories import fsync_dir, share_like_parent

TABLE = "sent_log"
"""The head's table holding the current generation (doc 1, ``{"gen": n}``)."""
_NAME = re.compile(r"sent-(\d+)\.log")


def log_path(game_dir: Path, gen: int) -> Path:
    """The file of generation ``gen``."""
    return game_dir / f"sent-{gen:06d}.log"


@dataclass
class SentLog:
    """The rows sent since the head last took the log in, and the windows sent with them."""

    game_dir: Path
    gen: int
    sent: dict[str, None] = field(default_factory=dict)
    """Message-IDs, in the order sent (a dict as an ordered set)."""
    limits: dict[str, list[float]] = field(default_factory=dict)
    """Per window name, the newest copy a line carried."""
    exists: bool = False
    """Whether the file is there (even with no complete line): the head has to take it in
    before anything is appended, or a line could follow one a crash cut short."""

    @property
    def path(self) -> Path:
        """The sent log's file, of generation ``gen``."""
        return log_path(self.game_dir, self.gen)

    @classmethod
    def load(cls, game_dir: Path, gen: int) -> SentLog:
        """The log of generation ``gen`` as its complete lines say (none: an empty log)."""
        log = cls(game_dir, gen)
        try:
            raw = log.path.read_bytes()
        except FileNotFoundError:
            return log
        log.exists = True
        for line in raw.split(b"\n")[:-1]:  # the part after the last newline was never synced
            with contextlib.suppress(ValueError):
                log._take(json.loads(line))
        return log

    def _take(self, record: Any) -> None:
        if not isinstance(record, dict) or not isinstance(record.get("sent"), str):
            return
        self.sent[record["sent"]] = None
        for name, times in dict(record.get("limits") or {}).items():
            self.limits[str(name)] = [float(t) for t in times]

    def append(self, message_id: str, limits: Mapping[str, list[float]] | None) -> None:
        """Record a sent row durably: one appended line, fsynced (and the file's entry in its
        directory, when this line made the file)."""
        record: dict[str, Any] = {"sent": message_id}
        if limits:
            record["limits"] = {k: list(v) for k, v in limits.items()}
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        created = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            if created:
                share_like_parent(fd, self.game_dir)
            size = os.fstat(fd).st_size
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except OSError:
                # a full disk may leave part of the line: cut it, or the next line would follow
                # it and be lost with it (the writer's next open would also take it in)
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.game_dir)
        self.exists = True
        self._take(record)

    def remove_file(self) -> None:
        """Remove this generation's file once the head has taken it in (not made durable: a
        file that comes back after a power loss is stale and removed at the next open)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def remove_stale_logs(game_dir: Path, gen: int, names: Iterable[str] | None = None) -> int:
    """Remove the logs of other generations than ``gen`` (taken in by the head already);
    ``names``: the directory's listing, if the caller has it."""
    n = 0
    for name in os.listdir(game_dir) if names is None else names:
        m = _NAME.fullmatch(name)
        path = game_dir / name
        if m is not None and int(m.group(1)) != gen:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                n += 1
    return n
