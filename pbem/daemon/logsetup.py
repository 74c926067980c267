"""``pbem serve``'s logging, the way journald expects it (sd-daemon(3)).

Under systemd, standard error is a stream to the journal, which stamps each line itself and reads
a ``<N>`` prefix as the line's syslog priority (``SyslogLevelPrefix=``, on by default). So there
the lines carry no time stamp and start with their priority (``<3>`` for an error), and every
line of a multi-line record (a traceback) carries it. Elsewhere (a terminal, a file) lines keep
their time stamp and level name.

systemd says it is the journal by setting ``JOURNAL_STREAM`` to the ``device:inode`` of the
stream; it is checked against standard error, so a child whose standard error was redirected
elsewhere does not take the journal format by inheritance.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

FORMATS = ("auto", "journal", "plain")
PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: logging level -> syslog priority (RFC 5424): err 3, warning 4, notice 5, info 6, debug 7.
PRIORITIES = ((logging.CRITICAL, 2), (logging.ERROR, 3), (logging.WARNING, 4), (logging.INFO, 6))


def priority(levelno: int) -> int:
    """The syslog priority of a logging level (:data:`PRIORITIES`; below INFO: debug, 7)."""
    for level, prio in PRIORITIES:
        if levelno >= level:
            return prio
    return 7


class JournalFormatter(logging.Formatter):
    """``<prio>name: message``, the prefix on every line, no time stamp."""

    def __init__(self) -> None:
        super().__init__("%(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """The record formatted, each line prefixed with its ``<priority>`` for the journal."""
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def journal_stream(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Whether ``stream`` is the journal stream systemd named in ``$JOURNAL_STREAM``."""
    value = (os.environ if environ is None else environ).get("JOURNAL_STREAM", "")
    dev, _, ino = value.partition(":")
    if not (dev.isdigit() and ino.isdigit()):
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return st.st_dev == int(dev) and st.st_ino == int(ino)


def setup(verbosity: int = 0, fmt: str = "auto", stream: TextIO | None = None) -> str:
    """Configure the root logger; ``verbosity`` 1 is debug, -1 warnings and errors only.
    Returns the format chosen (``journal`` or ``plain``)."""
    stream = stream or sys.stderr
    if fmt == "auto":
        fmt = "journal" if journal_stream(stream) else "plain"
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter() if fmt == "journal" else logging.Formatter(PLAIN))
    level = {1: logging.DEBUG, -1: logging.WARNING}.get(verbosity, logging.INFO)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return fmt
