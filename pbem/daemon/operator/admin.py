"""``pbem admin GAME COMMAND...``: the game master's commands from the shell.

The running daemon applies the request as if the game's administrator had mailed it: the same
commands (:mod:`pbem.desk`), the same reply, mailed to the game's admins (or the daemon's when
the game names none). A request is applied once: its name is a ledger key of the game,
committed with its effects."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Self

from pbem.daemon.operator.spool import Request

if TYPE_CHECKING:
    from pbem.daemon.operator.parts import OperatorParts

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AdminCommand(Request):
    """Desk command ``lines`` (one each) for ``game``, named ``name`` in its spool."""

    game: str
    lines: tuple[str, ...]
    at: datetime
    name: str
    expect_events: int | None = None
    """Apply only if the game still has exactly this many events: a request meant for the
    step in play (the mail demo's ``CLORE`` once every bot is idle) must not close the next
    one when a deadline or an early close ended that step first (issue 21 item 16)."""
    spool = "admin"
    # consumed after the commit: the ledger key makes a second pass a no-op

    @classmethod
    def now(cls, game: str, lines: Sequence[str], expect_events: int | None = None) -> AdminCommand:
        """The request made now (its file is named by the time: one per request)."""
        at = datetime.now(UTC)
        name = f"{at:%Y%m%dT%H%M%S%f}-{os.getpid()}.json"
        return cls(game, tuple(lines), at, name, expect_events)

    def file_name(self) -> str:
        """The name it was made with (the time it was asked, the asking process)."""
        return self.name

    def text(self) -> str:
        """The request as JSON: the game, the lines, when, the event count expected if any."""
        data: dict[str, object] = {
            "game": self.game,
            "lines": list(self.lines),
            "at": self.at.isoformat(),
        }
        if self.expect_events is not None:
            data["expect_events"] = self.expect_events
        return json.dumps(data)

    @classmethod
    def read(cls, name: str, text: str) -> Self:
        """The request in a file written by :meth:`text`."""
        data = json.loads(text)
        at = data.get("at")
        when = datetime.fromisoformat(at) if isinstance(at, str) else datetime.now(UTC)
        expect = data.get("expect_events")
        lines = tuple(str(line) for line in data["lines"])
        return cls(
            str(data["game"]), lines, when, name, int(expect) if expect is not None else None
        )

    def apply(self, svc: OperatorParts) -> None:
        """Run the lines as the game's first administrator, once, committed with their replies, and
        answer a waiting command; an unknown game, a game moved on or no administrator: dropped."""
        key = f"admin:{self.name}"
        game = svc.games.get(self.game)
        if game is None:
            log.warning("admin request for unknown game %s ignored", self.game)
            self.answer(svc, False, f"no game {self.game} in the running daemon")
            return
        if key in game.keys:
            return
        if self.expect_events is not None and int(game.store.meta["seq"]) != self.expect_events:
            log.info(
                "game %s: admin request %s dropped: the game moved on (%s events, not %s)",
                self.game,
                self.name,
                game.store.meta["seq"],
                self.expect_events,
            )
            return
        admins = [str(a) for a in game.store.setup.get("admins", [])] or list(svc.cfg.admins)
        if not admins:
            log.warning("game %s: admin request ignored: no administrator to answer", self.game)
            self.answer(svc, False, "no administrator to answer: set [moderator] admins")
            return
        now = svc.clock()
        lines = list(self.lines)
        reply_key = hashlib.sha256(key.encode()).hexdigest()[:16]
        step = game.table.admin_lines(lines, admins[0], now, reply_key, reply_to=admins)
        rows = svc.replies.rows(game, step, now, error=False)
        game.store.commit(
            events=step.events,
            outbox=rows,
            ledger_key=key,
            ledger_info={"at": now.isoformat(), "why": "admin-request", "lines": lines[:20]},
        )
        game.keys.add(key)
        game.table.apply(step)
        svc.relay_list.release_held(game, now)
        svc.deadlines.rearm(game)
        svc.sender.wake()
        log.info("game %s: admin request %s applied (%d events)", self.game, key, len(step.events))
        to_admins = {a.lower() for a in admins}
        reply = "\n\n".join(
            o.body for o in step.outgoing if not o.public and to_admins & {t.lower() for t in o.to}
        )
        self.answer(svc, bool(step.events), reply)

    def answer(self, svc: OperatorParts, applied: bool, reply: str) -> None:
        """Tell a ``--wait``ing command what became of the request (the mail says it too)."""
        from pbem.adapters.answers import answer

        answer(svc.root, self.name, {"game": self.game, "applied": applied, "reply": reply})
