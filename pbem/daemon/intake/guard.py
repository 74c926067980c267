# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""One fetched mail under its own guard (requirement 10): a mail too large to read, a mail
already applied, a held mail; a mail whose handling raises is shunted (kept, counted,
quarantined at ``max_failures``). The policy itself is :mod:`pbem.daemon.intake.steps`."""

from __future__ import annotations

import logging
import traceback
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.adapters.imap import Fetched
from pbem.daemon.intake.inbound import Inbound, headers_of, ledger_info, recipients_and_sender
from pbem.daemon.intake.steps import CHAIN
from pbem.daemon.message import (
    content_key,
    safe_subject,
)
from pbem.daemon.outbox import OutboxRow
from pbem.daemon.oversize import too_big_reply
from pbem.daemon.ports import Disposition

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class IntakeMixin:
    """The service's part for fetched mail (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def handle_fetched(self: Service, f: Fetched, now: datetime | None = None) -> Disposition:
        """One inbound mail under its own guard (requirement 10). Never raises."""
        if f.raw is None:
            return self._oversize(f)
        key = content_key(f.raw)
        if self.knows(key):
            self.stats["duplicate"] += 1
            return "processed"  # committed before a crash; only the MOVE was missing
        row = self.daemon.shunt_row(key)
        if row is not None and row.get("crashes") and "subject" not in row:
            row = self._keep_crash_copy(key, f, row)
        if row is not None and row.get("status") == "quarantined" and "told" not in row:
            self._tell_held(key, f.raw, row)  # held at start-up, without its bytes at hand
        if row is not None and row.get("status") == "quarantined":
            return "quarantine"
        when = now or self.clock()
        if f.text_only:  # over the size cap: its text parts only (issue 10 item 5)
            log.info("UID %d: %d bytes: read without its attachments", f.uid, f.size)
        try:
            self._apply_mail(key, f, f.raw, when)
            self.stats["processed"] += 1
            if row is not None:  # it had failed before: a transient error, now applied
                self.daemon.remove_shunt(key)
            return "processed"
        except Exception as exc:
            return self._shunt(key, f, f.raw, exc, row)

    def _oversize(self: Service, f: Fetched) -> Disposition:
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
                outbox=[*alert, *self._too_big_reply(f, now)],
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
            self.sender.wake()
        self.stats["oversize"] += 1
        return "quarantine"

    def _too_big_reply(self: Service, f: Fetched, now: datetime) -> list[OutboxRow]:
        """The sender of a mail too large to read is told so (issue 10 item 5), rate-limited."""
        reply = too_big_reply(
            f.header or b"",
            size=f.size,
            cap=min(self.cfg.imap.text_max_size, self.cfg.imap.max_size),
            moderator=self.cfg.moderator,
            our_addresses=self.our_addresses,
            texts=self.replies.bilingual,
            now=now,
            id_key=self.id_key,
            html=self.cfg.html_mail,
        )
        if reply is None or not self.limits.allow(reply[0], now, error=True):
            return []
        return [reply[1]]

    def _shunt(
        self: Service,
        key: str,
        f: Fetched | None,
        raw: bytes,
        exc: BaseException,
        row: dict[str, Any] | None,
    ) -> Disposition:
        """Roll back (the transaction already did), count, keep the bytes; quarantine at N."""
        now = self.clock()
        failures = int((row or {}).get("failures", 0)) + 1
        shunt_dir = self.root / "shunt"
        shunt_dir.mkdir(exist_ok=True)
        eml = shunt_dir / f"{key}.eml"
        if not eml.exists():
            eml.write_bytes(raw)
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
                    **self._retry_params(0),
                },
                appendix=tb,
            )
            if not told:
                when = f.internaldate.isoformat() if f else (row or {}).get("internaldate")
                notice, told["told"] = self._held_notice(
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
                "attempt": self._attempt,
                **told,
            },
        )
        self.stats["shunted"] += 1
        self.sender.wake()
        return "quarantine" if quarantined else "keep"

    def _apply_mail(self: Service, key: str, f: Fetched | None, raw: bytes, now: datetime) -> None:
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
            if step.check(self, mail):
                return
