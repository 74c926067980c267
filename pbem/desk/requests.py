"""``pbem admin GAME COMMAND...``: the game master's commands from the shell.

The daemon is the single writer of the store, so the CLI drops a request file in the
``admin/`` spool (:func:`pbem.adapters.spool.write_request`) and the daemon's one-second
request ticker applies it as if the game's administrator had mailed it: the same commands,
the same reply, mailed to the game's admins (or the daemon's when the game names none). A
request is applied once: its name is a ledger key of the game, committed with its effects.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbem.adapters.spool import write_request

log = logging.getLogger(__name__)


def write_admin_request(spool: Path, game: str, lines: Sequence[str]) -> Path:
    """Queue ``lines`` (one desk command each) for ``game``; the request file's path."""
    now = datetime.now(UTC)
    name = f"{now:%Y%m%dT%H%M%S%f}-{os.getpid()}.json"
    body = {"game": game, "lines": list(lines), "at": now.isoformat()}
    return write_request(spool, name, json.dumps(body))


def admin_requests(service: Any, spool: Path) -> int:
    """Apply every queued ``pbem admin`` request (``service`` is the running
    :class:`pbem.daemon.service.Service`); returns the number consumed."""
    requests = service.requests.pending(spool)
    for req in requests:
        try:
            data = json.loads(req.read_text(encoding="utf-8"))
            game_id, lines = str(data["game"]), [str(line) for line in data["lines"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("admin request %s unreadable: %s: dropped", req.name, exc)
            service.requests.consume(req)
            continue
        _apply(service, f"admin:{req.name}", game_id, lines)
        # consumed after the commit: the ledger key makes a second pass a no-op
        service.requests.consume(req)
    return len(requests)


def _apply(service: Any, key: str, game_id: str, lines: list[str]) -> None:
    game = service.games.get(game_id)
    if game is None:
        log.warning("admin request for unknown game %s ignored", game_id)
        return
    if key in game.keys:
        return
    admins = [str(a) for a in game.store.setup.get("admins", [])] or list(service.cfg.admins)
    if not admins:
        log.warning("game %s: admin request ignored: no administrator to answer", game_id)
        return
    now = service.clock()
    reply_key = hashlib.sha256(key.encode()).hexdigest()[:16]
    step = game.table.admin_lines(lines, admins[0], now, reply_key, reply_to=admins)
    rows = service._rows(game, step, now, error=False)
    game.store.commit(
        events=step.events,
        outbox=rows,
        ledger_key=key,
        ledger_info={"at": now.isoformat(), "why": "admin-request", "lines": lines[:20]},
    )
    game.keys.add(key)
    game.table.apply(step)
    service.release_held(game, now)
    service.rearm(game)
    service.sender.wake()
    log.info("game %s: admin request %s applied (%d events)", game_id, key, len(step.events))
