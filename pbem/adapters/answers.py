"""The daemon's answer to an operator's request, handed to the command that waits for it
(``pbem admin --wait``, ``pbem seat replace --wait``; issue 21, item 9).

The command makes a named pipe ``answers/<request name>`` under the data directory before it
queues the request, and waits on it with :func:`select.poll` (no polling loop: the kernel wakes
it when the daemon writes, or at the timeout). The daemon, having applied the request, opens the
pipe without blocking and writes one JSON line (under ``PIPE_BUF``: one write, never mixed): if
nobody waits (no pipe, or the command gave up) there is nothing to do. A pipe has no content
on disk, so nothing is left to clean but its name, which the waiting command removes.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import stat
import time
from pathlib import Path
from typing import Any

from pbem.adapters.store.directories import make_dirs, share_like_parent

DIR = "answers"
LIMIT = 4000
"""Bytes of an answer at most (a pipe's write of up to PIPE_BUF, 4096 on Linux, is atomic)."""


def listen(data_dir: Path, name: str) -> tuple[Path, int]:
    """Make the pipe for request ``name`` and open it for reading (the command's side)."""
    directory = data_dir / DIR
    make_dirs(directory)
    path = directory / name
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    os.mkfifo(path, 0o600)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        share_like_parent(fd, directory)  # the service user, in the group, writes to it
    except OSError:
        os.close(fd)
        path.unlink()
        raise
    return path, fd


def wait(path: Path, fd: int, timeout: float) -> dict[str, Any] | None:
    """The answer written into the pipe within ``timeout`` seconds, or None; the pipe goes."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while (left := deadline - time.monotonic()) > 0:
            # Linux reports no hang-up on a pipe that never had a writer: this sleeps until
            # the daemon writes, or the timeout
            if not poller.poll(left * 1000):
                break
            data = os.read(fd, LIMIT + 1)
            if not data:
                break  # the writer closed: the answer is whole
            chunks.append(data)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
    try:
        answer = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def answer(data_dir: Path, name: str, content: dict[str, Any]) -> bool:
    """Hand ``content`` to the command waiting for request ``name``, if one waits (the
    daemon's side). Never blocks, never raises: the answer is a courtesy, the mail is the
    record. True when a waiting command was given it."""
    blob = json.dumps(content, ensure_ascii=False).encode("utf-8")
    if len(blob) > LIMIT:
        short = {**content, "reply": str(content.get("reply", ""))[: LIMIT // 2] + "..."}
        blob = json.dumps(short, ensure_ascii=False).encode("utf-8")[:LIMIT]
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(data_dir / DIR / name, flags)
    except OSError:  # no pipe (nobody asked to wait), or no reader any more (ENXIO)
        return False
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return False  # only ever a pipe: never write into a file put in its place
        return os.write(fd, blob) == len(blob)
    except OSError:
        return False
    finally:
        os.close(fd)
