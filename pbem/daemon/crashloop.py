# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""Crash-loop containment (RELIABILITY §7.2, :mod:`pbem.daemon.inflight`): blame the mail that
killed the process, hold it, tell its sender, retry it once the daemon is stable."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pbem.adapters.imap import Fetched
from pbem.daemon.held import held_sender
from pbem.daemon.inflight import (
    COMMIT,
    DONE,
    InflightFile,
    Marker,
    blame,
    boot_id,
    count_crash,
    due_for_retry,
    record,
)
from pbem.daemon.message import safe_subject
from pbem.daemon.outbox import OutboxRow, make_row
from pbem.mail.envelope import build
from pbem.mail.html import alternative

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class CrashLoopMixin:
    """The service's part for crash loops (a mixin of :class:`~pbem.daemon.service.Service`)."""

    # assigned here, declared on the service: the same types
    marker: Marker | None
    inflight: InflightFile | None
    _attempt: str | None

    def recover_inflight(self: Service) -> None:
        """Blame the mail in hand when the process died (see :mod:`pbem.daemon.inflight`): count one
        failure if its previous death was in the run right before (quarantine, admin alert at
        ``max_failures``), or make suspects. At most two writes at start-up: the blame
        (idempotent: the row remembers the batch), the cleared record with this run's number."""
        self.boot = boot_id()
        self.marker = Marker(self.root / "inflight.pos")
        self.inflight = InflightFile(self.root / "inflight.json", self.fault)
        for row in self.daemon.shunt_rows():
            if self.knows(row["key"]):  # applied, but the group's write of daemon.json was cut
                self.daemon.remove_shunt(row["key"])
        rec = self.inflight.read() or {}
        self.run = int(rec.get("run", 0)) + 1
        now = self.clock()
        if not rec.get("keys"):
            self.suspects = dict(rec.get("suspects", {}))
            self.inflight.write(record("", self.boot, [], self.suspects, now.isoformat(), self.run))
            return
        cutoff = (now - timedelta(days=self.cfg.ledger_retention_days)).isoformat()
        suspects = {
            k: at
            for k, at in dict(rec.get("suspects", {})).items()
            if not self.knows(k) and at >= cutoff
        }

        def finished(key: str) -> bool:
            return self.knows(key) or (self.daemon.shunt_row(key) or {}).get("attempt") == rec["id"]

        culprit, new = blame(rec, self.marker.read(), self.boot, finished)
        if (
            culprit is not None
            and (self.daemon.shunt_row(culprit) or {}).get("blamed") == rec["id"]
        ):
            culprit = None  # counted already: we died between that commit and clearing the file
        for k in new:
            suspects.setdefault(k, now.isoformat())
        if culprit is not None:
            suspects.pop(culprit, None)
            self._blame_crash(culprit, str(rec["id"]), int(rec.get("run", 0)), now)
        elif new:
            log.warning(
                "%d mail(s) were in hand when the daemon %s: handled one per batch",
                len(new),
                "went down with the machine" if rec.get("boot") != self.boot else "died",
            )
        self.suspects = suspects
        self.inflight.write(record("", self.boot, [], suspects, now.isoformat(), self.run))

    def _blame_crash(self: Service, key: str, batch: str, died_in_run: int, now: datetime) -> None:
        """One death on the record of the mail in hand (pbem.daemon.inflight, "Poison or bystander")."""
        row = self.daemon.shunt_row(key) or {}
        n = count_crash(row, died_in_run, self.cfg.max_failures)
        error = (
            f"the daemon process died while handling this mail (crash {n.crashes}; "
            "a segfault, abort, stack overflow or OOM kill: see the journal)"
        )
        if n.retry_died:
            log.error(
                "held mail %s killed the daemon again when retried (%d/%d automatic retries): "
                "still held",
                key[:12],
                n.retries,
                self.cfg.quarantine_retries,
            )
        else:
            log.error(
                "mail %s killed the daemon: failure %d/%d in consecutive runs%s",
                key[:12],
                n.failures,
                self.cfg.max_failures,
                ", quarantined" if n.held else "",
            )
        self.daemon.commit(
            shunt={
                **row,
                "key": key,
                "status": "quarantined" if n.held else "failing",
                "failures": n.failures,
                "crashes": n.crashes,
                "auto_retries": n.retries,
                "crash_run": died_in_run,
                "error": error,
                "traceback": row.get("traceback", ""),
                "at": now.isoformat(),
                "attempt": None,
                "blamed": batch,  # counted once, even if we die before the file is cleared
            },
            outbox=self.replies.admin_alert(
                f"quarantine:{key}",
                now,
                "daemon/alert_quarantine",
                {
                    "failures": n.failures,
                    "crashes": n.crashes,
                    "error": "",
                    "key": key,
                    "short": key[:12],
                    **self._retry_params(),
                },
            )
            if n.newly_held
            else [],
        )

    def _retry_params(self: Service, crashes: int = 1) -> dict[str, Any]:
        """What the held texts say of the automatic retries (mail held after deaths only)."""
        retries = self.cfg.quarantine_retries if crashes else 0
        return {"retries": retries, "wait": self.cfg.quarantine_retry_seconds}

    def _held_notice(
        self: Service, key: str, raw: bytes, row: Mapping[str, Any], now: datetime
    ) -> tuple[list[OutboxRow], bool]:
        """The notice telling a held mail's sender (a registered player, :mod:`pbem.daemon.held`),
        French then English, and whether there is one. Its key makes one Message-ID per held
        mail: a redone commit is one notice."""
        players = {a for g in self.games.values() for a in g.table.player_emails.values()}
        who = held_sender(raw, players, self.our_addresses)
        if who is None:
            return [], False
        received = row.get("internaldate") or row.get("at") or now.isoformat()
        crashes = int(row.get("crashes", 0))
        subject, body = self.replies.bilingual(
            "daemon/held",
            {
                "subject": who.subject,
                "received": received,
                "crashes": crashes,
                "failures": int(row.get("failures", 0)),
                **self._retry_params(crashes),
            },
        )
        mid, out = build(
            key=f"held:{key}",
            id_key=self.id_key,
            sender=self.cfg.moderator,
            to=(who.address,),
            subject=subject,
            body=body,
            html=alternative(subject, body, enabled=self.cfg.html_mail),
            date=now,
            auto="auto-replied",
            in_reply_to=who.message_id,
        )
        notice = make_row(
            message_id=mid,
            raw=out,
            rcpts=[who.address],
            mail_from=self.cfg.bounce,
            now=now,
            kind="notice",  # stands alone, never in a digest
        )
        return [notice], True

    def _tell_held(self: Service, key: str, raw: bytes, row: dict[str, Any]) -> None:
        """Tell the sender of a mail held at start-up (after deaths), once."""
        notice, told = self._held_notice(key, raw, row, self.clock())
        self.daemon.commit(outbox=notice, shunt={**row, "told": told})
        self.sender.wake()

    def _keep_crash_copy(
        self: Service, key: str, f: Fetched, row: dict[str, Any]
    ) -> dict[str, Any]:
        """A mail blamed for a crash at start-up is seen again: keep its bytes and headers for
        ``pbem shunt show|retry`` (the blame itself was written at start-up)."""
        assert f.raw is not None
        shunt_dir = self.root / "shunt"
        shunt_dir.mkdir(exist_ok=True)
        eml = shunt_dir / f"{key}.eml"
        if not eml.exists():
            eml.write_bytes(f.raw)
        row = {
            **row,
            "uid": f.uid,
            "internaldate": f.internaldate.isoformat(),
            "subject": safe_subject(f.raw),
        }
        self.daemon.commit(shunt=row)
        return row

    def held_due(self: Service) -> list[str]:
        """Held mail to retry automatically now (cheap: the ticker asks every second)."""
        uptime = self.monotonic() - self.opened_at
        if self.cfg.quarantine_retries <= 0 or uptime < self.cfg.quarantine_retry_seconds:
            return []
        return [
            k
            for k in due_for_retry(
                self.daemon.shunt_rows(),
                uptime,
                self.cfg.quarantine_retry_seconds,
                self.cfg.quarantine_retries,
            )
            if (self.root / "shunt" / f"{k}.eml").exists() and not self.knows(k)
        ]

    def retry_held(self: Service) -> int:
        """Retry the held mails that are due, each alone in its own in-flight batch, so that a
        death names it (and holds it again at start-up, :meth:`_blame_crash`). Applied: it
        leaves the shunt. Raised: still held, one retry spent. Returns the number applied."""
        applied = 0
        for key in self.held_due():
            row = self.daemon.shunt_row(key)
            if row is None or self.stopping:
                continue
            raw = (self.root / "shunt" / f"{key}.eml").read_bytes()
            attempt = self._announce([key])
            assert attempt is not None
            try:
                with self._group():
                    if self.marker is not None:
                        self.marker.set(attempt, key)
                    try:
                        self._apply_mail(key, None, raw, self.clock())
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
                    if self.marker is not None:
                        self.marker.set(attempt, COMMIT)
            finally:
                self._attempt = None
            if self.marker is not None:
                self.marker.set(attempt, DONE)
        self.sender.wake()
        return applied
