"""One fetched mail under its own guard (requirement 10): a mail too large to read, a mail
already applied, a held mail; a mail whose handling raises is shunted (kept, counted,
quarantined at ``max_failures``). The policy itself is :mod:`pbem.daemon.intake.steps`."""

from __future__ import annotations

import logging
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.adapters.imap import Fetched
from pbem.adapters.store import DaemonStore
from pbem.daemon.config import Config
from pbem.daemon.crashloop import CrashLoop
from pbem.daemon.inflight import COMMIT, DONE
from pbem.daemon.intake.inbound import Inbound, headers_of, ledger_info, recipients_and_sender
from pbem.daemon.intake.steps import CHAIN
from pbem.daemon.limits import SenderLimits
from pbem.daemon.message import (
    content_key,
    safe_subject,
)
from pbem.daemon.outbox import OutboxRow
from pbem.daemon.oversize import too_big_reply
from pbem.daemon.ports import Disposition, FaultHook
from pbem.daemon.replies import Replies
from pbem.daemon.routing import Router
from pbem.daemon.shuntcopy import keep_copy, read_copy
from pbem.daemon.unheard import note_unheard
from pbem.daemon.work import group_commit

if TYPE_CHECKING:
    from pbem.daemon.intake.parts import IntakeParts

log = logging.getLogger(__name__)


@dataclass
class Intake:
    """Fetched mail under its guard. Reads the configuration and the clock; writes the shunt
    (rows in the daemon's store, bytes under ``root``); ``knows`` says whether a mail was
    applied; the in-flight record and the held mail are ``crashloop``'s; spends the
    per-sender budget and mails through ``replies``; ``router`` tells a mail's channel;
    ``fault`` is the tests' hook, ``wake`` tells the sender new rows wait.

    The policy's steps (:data:`~pbem.daemon.intake.steps.CHAIN`) read the service's parts
    through ``parts``: the one place that sees them all."""

    cfg: Config
    root: Path
    daemon: DaemonStore
    clock: Callable[[], datetime]
    knows: Callable[[str], bool]
    limits: SenderLimits
    our_addresses: set[str]
    crashloop: CrashLoop
    replies: Replies
    router: Router
    parts: IntakeParts
    stats: Counter[str]
    fault: FaultHook
    wake: Callable[[], None]
    stopping: Callable[[], bool]

    def handle_fetched(
        self, f: Fetched, now: datetime | None = None, key: str | None = None
    ) -> Disposition:
        """One inbound mail under its own guard (requirement 10). Never raises. ``key``: its
        content key, when the caller made it already (the writer's batch)."""
        if f.raw is None:
            return self.oversize(f)
        key = key or content_key(f.raw)
        if self.knows(key):
            self.stats["duplicate"] += 1
            return "processed"  # committed before a crash; only the MOVE was missing
        row = self.daemon.shunt_row(key)
        if row is not None and row.get("crashes") and "subject" not in row:
            row = self.crashloop.keep_crash_copy(key, f, row)
        if row is not None and row.get("status") == "quarantined" and "told" not in row:
            self.crashloop.tell_held(key, f.raw, row)  # held at start-up, without its bytes at hand
        if row is not None and row.get("status") == "quarantined":
            return "quarantine"
        when = now or self.clock()
        if f.text_only:  # over the size cap: its text parts only (issue 10 item 5)
            log.info("UID %d: %d bytes: read without its attachments", f.uid, f.size)
        try:
            self.apply_mail(key, f, f.raw, when)
            self.stats["processed"] += 1
            if row is not None:  # it had failed before: a transient error, now applied
                self.daemon.remove_shunt(key)
            return "processed"
        except Exception as exc:
            return self.shunt(key, f, f.raw, exc, row)

    def oversize(self, f: Fetched) -> Disposition:
        """Quarantine a mail over the size cap unread, the game masters alerted and the sender told
        (rate-limited), once per mail."""
        key = f"oversize:{f.uidvalidity}:{f.uid}:{f.size}:{f.internaldate.isoformat()}"
        if self.daemon.shunt_row(key) is None:
            now = self.clock()
            alert = self.replies.admin_alert(
                f"oversize:{key}",
                now,
                "daemon/alert_oversize",
                {
                    "size": f.size,
                    "cap": self.cfg.imap.max_size,
                    "text_cap": min(self.cfg.imap.text_max_size, self.cfg.imap.max_size),
                    "internaldate": f.internaldate.isoformat(),
                    "uid": f.uid,
                },
            )
            self.daemon.commit(
                outbox=[*alert, *self.too_big_reply(f, now)],
                shunt={
                    "key": key,
                    "status": "quarantined",
                    "failures": 0,
                    "uid": f.uid,
                    "error": f"over the size cap ({f.size} > {self.cfg.imap.max_size})",
                    "at": now.isoformat(),
                    "internaldate": f.internaldate.isoformat(),
                },
            )
            log.warning("UID %d: %d bytes over the cap: quarantined", f.uid, f.size)
            self.wake()
        self.stats["oversize"] += 1
        return "quarantine"

    def too_big_reply(self, f: Fetched, now: datetime) -> list[OutboxRow]:
        """The sender of a mail too large to read is told so (issue 10 item 5), rate-limited."""
        reply = too_big_reply(
            f.header or b"",
            size=f.size,
            cap=min(self.cfg.imap.text_max_size, self.cfg.imap.max_size),
            moderator=self.cfg.moderator,
            our_addresses=self.our_addresses,
            texts=self.replies.bilingual,
            now=now,
            id_key=self.replies.id_key,
            html=self.cfg.html_mail,
        )
        if reply is None:
            return []
        note_unheard(self.parts.games, reply[0], "oversize", now)  # issue 25: forgiven
        if not self.limits.allow(reply[0], now, error=True):
            return []
        return [reply[1]]

    def shunt(
        self,
        key: str,
        f: Fetched | None,
        raw: bytes,
        exc: BaseException,
        row: dict[str, Any] | None,
    ) -> Disposition:
        """Roll back (the transaction already did), count, keep the bytes; quarantine at N."""
        now = self.clock()
        failures = int((row or {}).get("failures", 0)) + 1
        keep_copy(self.root, key, raw)
        quarantined = failures >= self.cfg.max_failures
        tb = "".join(traceback.format_exception(exc))[-4000:]
        log.error("mail %s failed (%d/%d): %s", key[:12], failures, self.cfg.max_failures, exc)
        alert: list[OutboxRow] = []
        told = {"told": bool(row["told"])} if row and "told" in row else {}
        if quarantined:
            alert = self.replies.admin_alert(
                f"quarantine:{key}",
                now,
                "daemon/alert_quarantine",
                {
                    "failures": failures,
                    "crashes": 0,
                    "error": f"{type(exc).__name__}: {exc}"[:500],
                    "key": key,
                    "short": key[:12],
                    **self.crashloop.retry_params(0),
                },
                appendix=tb,
            )
            if not told:
                when = f.internaldate.isoformat() if f else (row or {}).get("internaldate")
                notice, told["told"] = self.crashloop.held_notice(
                    key, raw, {"failures": failures, "internaldate": when}, now
                )
                alert += notice
        self.daemon.commit(
            outbox=alert,
            shunt={
                "key": key,
                "status": "quarantined" if quarantined else "failing",
                "failures": failures,
                "uid": f.uid if f else None,
                "internaldate": f.internaldate.isoformat() if f else None,
                "error": f"{type(exc).__name__}: {exc}"[:500],
                "traceback": tb,
                "at": now.isoformat(),
                "subject": safe_subject(raw),
                "crashes": int((row or {}).get("crashes", 0)),
                # this batch's id: the failure is on record, the mail is not in flight any more
                "attempt": self.crashloop.attempt,
                **told,
            },
        )
        self.stats["shunted"] += 1
        self.wake()
        return "quarantine" if quarantined else "keep"

    def apply_mail(self, key: str, f: Fetched | None, raw: bytes, now: datetime) -> None:
        """The inbound policy: the steps of :data:`~pbem.daemon.intake.steps.CHAIN` in order,
        until one deals with the mail (the last, :class:`~pbem.daemon.intake.apply.Apply`,
        always does)."""
        head = headers_of(raw)
        info = ledger_info(head, f, now)
        self.fault("after_fetch_parse")
        rcpts, sender = recipients_and_sender(head)
        mail = Inbound(
            key=key,
            fetched=f,
            raw=raw,
            now=now,
            msg=head,
            info=info,
            rcpts=rcpts,
            sender=sender,
            channel=self.router.channel(head, rcpts),
        )
        for step in CHAIN:
            if step.check(self.parts, mail):
                return

    def retry_held(self) -> int:
        """Retry the held mails that are due, each alone in its own in-flight batch, so that a
        death names it (and holds it again at start-up,
        :meth:`~pbem.daemon.crashloop.CrashLoop.blame`). Applied: it leaves the shunt. Raised:
        still held, one retry spent. Returns the number applied."""
        applied = 0
        for key in self.crashloop.held_due():
            row = self.daemon.shunt_row(key)
            if row is None or self.stopping():
                continue
            raw = read_copy(self.root, key)
            if raw is None:  # no whole copy: left held, never applied short
                continue
            attempt = self.crashloop.announce([key])
            assert attempt is not None
            try:
                with group_commit(self.daemon, self.parts.games.values()):
                    if self.crashloop.marker is not None:
                        self.crashloop.marker.set(attempt, key)
                    try:
                        self.apply_mail(key, None, raw, self.clock())
                        self.daemon.remove_shunt(key)
                        applied += 1
                        log.warning("held mail %s retried automatically: applied", key[:12])
                    except Exception as exc:
                        retries = int(row.get("auto_retries", 0)) + 1
                        log.error(
                            "held mail %s retried automatically (%d/%d): failed again: %s",
                            key[:12],
                            retries,
                            self.cfg.quarantine_retries,
                            exc,
                        )
                        self.daemon.commit(
                            shunt={
                                **row,
                                "auto_retries": retries,
                                "error": f"{type(exc).__name__}: {exc}"[:500],
                                "traceback": "".join(traceback.format_exception(exc))[-4000:],
                                "attempt": attempt,  # finished: not in flight any more
                            }
                        )
                    if self.crashloop.marker is not None:
                        self.crashloop.marker.set(attempt, COMMIT)
            finally:
                self.crashloop.attempt = None
            if self.crashloop.marker is not None:
                self.crashloop.marker.set(attempt, DONE)
        self.wake()
        return applied
