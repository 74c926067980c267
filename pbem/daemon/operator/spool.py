"""One spool protocol for every operator request (the daemon is the single writer of the store).

The CLI :func:`submit` s a request: one small file, written under a dot name and renamed into
place (:func:`pbem.adapters.spool.write_request`), in the request's spool directory under the
data directory. The daemon's one-second ticker :func:`drain` s each spool, oldest name first:
a request whose retry could kill the process again is consumed before it is applied (a crash
loop must not bring it back at every start-up), any other after (applying twice is harmless)."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

from pbem.adapters.spool import write_request

if TYPE_CHECKING:
    from pbem.daemon.operator.parts import OperatorParts

log = logging.getLogger(__name__)


class Request(ABC):
    """An operator's request: where it waits, how it is written and read, what it does."""

    spool: ClassVar[str]
    """Its spool directory, under the data directory."""
    consume_first: ClassVar[bool] = False
    """Removed before it is applied (a retry that may kill the process), else after."""

    @abstractmethod
    def file_name(self) -> str:
        """The request file's name (a request of the same name replaces it)."""

    @abstractmethod
    def text(self) -> str:
        """The request file's content."""

    @classmethod
    @abstractmethod
    def read(cls, name: str, text: str) -> Self:
        """The request in a file (raises ValueError, KeyError or TypeError if unreadable)."""

    @abstractmethod
    def apply(self, svc: OperatorParts) -> None:
        """Act on it, in the running daemon (on the writer, one request at a time)."""


@dataclass(frozen=True)
class Retry(Request, ABC):
    """A retry named by what it retries (a shunted mail's key, a game's id): one file of that
    name holding the time it was asked, consumed before it is applied (a retry that kills the
    process again must not come back at every start-up; the operator can ask again)."""

    target: str
    consume_first = True

    def file_name(self) -> str:
        """The retried thing's name (a request for it again replaces the file)."""
        return self.target

    def text(self) -> str:
        """When it was asked."""
        return datetime.now(UTC).isoformat()

    @classmethod
    def read(cls, name: str, text: str) -> Self:
        """The retry of the thing the file is named after."""
        return cls(name)


def submit(data_dir: Path, request: Request) -> Path:
    """Drop ``request`` for the running daemon (the CLI's side); the request file's path."""
    return write_request(data_dir / request.spool, request.file_name(), request.text())


def drain(svc: OperatorParts, kind: type[Request]) -> int:
    """Apply every request of ``kind`` waiting in its spool (the daemon's side); returns the
    number of files taken."""
    files = svc.requests.pending(svc.root / kind.spool)
    for path in files:
        text = _text(path)  # read before a request consumed first is removed
        if kind.consume_first and not svc.requests.consume(path):
            continue  # gone already, or reported as stuck: not acted on
        try:
            request = kind.read(path.name, text)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("%s request %s unreadable: %s: dropped", kind.spool, path.name, exc)
        else:
            request.apply(svc)
        if not kind.consume_first:
            svc.requests.consume(path)
    return len(files)


def _text(path: Path) -> str:
    """A request file's text; empty if it cannot be read (a request that needs its text is
    then dropped as unreadable, one named by its file still acts)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
