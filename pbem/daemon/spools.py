"""Where the CLI drops its requests to the running daemon (the single writer of the store): one
spool directory per kind of request under the data directory."""

from __future__ import annotations

from pathlib import Path

from pbem.adapters.spool import RequestSpool

SHUNT_RETRY_SPOOL = "shunt/retry"
"""``pbem shunt retry KEY``: one empty file per shunted mail to apply again."""
DEADLINE_RETRY_SPOOL = "deadlines/retry"
"""``pbem deadline retry GAME``: one file per game whose stalled deadline is opened again."""
REACHABLE_SPOOL = "reachable"
"""``pbem reachable``: one JSON file each (``{"game": ..., "player": ...}``)."""
ADMIN_SPOOL = "admin"
"""``pbem admin``: the desk's commands, one file each (:mod:`pbem.desk.requests`)."""
REQUEST_SPOOLS = (SHUNT_RETRY_SPOOL, DEADLINE_RETRY_SPOOL, REACHABLE_SPOOL, ADMIN_SPOOL)


def request_files(spool: Path) -> list[Path]:
    """The requests waiting in ``spool``, oldest name first; a dot file is one the CLI is still
    writing (it renames it into place when whole)."""
    return RequestSpool().pending(spool)
