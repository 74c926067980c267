"""Crash-loop containment (RELIABILITY §7.2, :mod:`pbem.daemon.inflight`): blame the mail that
killed the process, hold it, tell its sender, retry it once the daemon is stable."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pbem.adapters.imap import Fetched
from pbem.adapters.store import DaemonStore
from pbem.daemon.config import Config
from pbem.daemon.held import held_sender
from pbem.daemon.inflight import (
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
from pbem.daemon.ports import FaultHook, Game
from pbem.daemon.replies import Replies
from pbem.daemon.shuntcopy import copy_path, keep_copy
from pbem.daemon.unheard import note_unheard

log = logging.getLogger(__name__)


@dataclass
class CrashLoop:
    """The in-flight record and what it blames. Reads the configuration, the games and both
    clocks; writes the in-flight files under ``root`` and the shunt rows of the daemon's store;
    ``knows`` says whether a mail was applied; mails through ``replies``; ``fault`` is the
    tests' hook, ``wake`` tells the sender new rows wait.

    Its state: this boot and run, the batch in hand (:attr:`attempt`) and its position
    (:attr:`marker`), the suspects of a death not yet pinned on one mail, and when the daemon
    opened (held mail is retried once it has been up long enough)."""

    cfg: Config
    root: Path
    daemon: DaemonStore
    games: Mapping[str, Game]
    clock: Callable[[], datetime]
    monotonic: Callable[[], float]
    knows: Callable[[str], bool]
    our_addresses: set[str]
    replies: Replies
    fault: FaultHook
    wake: Callable[[], None]
    boot: str = ""
    run: int = 0  # this process's start-up number (consecutive deaths, pbem.daemon.inflight)
    marker: Marker | None = None
    inflight: InflightFile | None = None
    #: suspects {key: since}, handled one per batch
    suspects: dict[str, str] = field(default_factory=dict)
    attempt: str | None = None
    opened_at: float = 0.0  # monotonic: the uptime before held mail is retried

    def recover(self) -> None:
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
            self.blame(culprit, str(rec["id"]), int(rec.get("run", 0)), now)
        elif new:
            log.warning(
                "%d mail(s) were in hand when the daemon %s: handled one per batch",
                len(new),
                "went down with the machine" if rec.get("boot") != self.boot else "died",
            )
        self.suspects = suspects
        self.inflight.write(record("", self.boot, [], suspects, now.isoformat(), self.run))

    def close(self) -> None:
        """Let go of the position marker (the next start-up reads it)."""
        if self.marker is not None:
            self.marker.close()
            self.marker = None

    def blame(self, key: str, batch: str, died_in_run: int, now: datetime) -> None:
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
                    **self.retry_params(),
                },
            )
            if n.newly_held
            else [],
        )

    def retry_params(self, crashes: int = 1) -> dict[str, Any]:
        """What the held texts say of the automatic retries (mail held after deaths only)."""
        retries = self.cfg.quarantine_retries if crashes else 0
        return {"retries": retries, "wait": self.cfg.quarantine_retry_seconds}

    def held_notice(
        self, key: str, raw: bytes, row: Mapping[str, Any], now: datetime
    ) -> tuple[list[OutboxRow], bool]:
        """The notice telling a held mail's sender (a registered player, :mod:`pbem.daemon.held`),
        French then English, and whether there is one. Its key makes one Message-ID per held
        mail: a redone commit is one notice."""
        players = {a for g in self.games.values() for a in g.table.player_emails.values()}
        who = held_sender(raw, players, self.our_addresses)
        if who is None:
            return [], False
        note_unheard(self.games, who.address, "held", now)  # issue 25: forgiven
        received = row.get("internaldate") or row.get("at") or now.isoformat()
        crashes = int(row.get("crashes", 0))
        subject, body = self.replies.bilingual(
            "daemon/held",
            {
                "subject": who.subject,
                "received": received,
                "crashes": crashes,
                "failures": int(row.get("failures", 0)),
                **self.retry_params(crashes),
            },
        )
        mid, out = self.replies.daemon_mail(
            f"held:{key}",
            (who.address,),
            subject,
            body,
            now,
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

    def tell_held(self, key: str, raw: bytes, row: dict[str, Any]) -> None:
        """Tell the sender of a mail held at start-up (after deaths), once."""
        notice, told = self.held_notice(key, raw, row, self.clock())
        self.daemon.commit(outbox=notice, shunt={**row, "told": told})
        self.wake()

    def keep_crash_copy(self, key: str, f: Fetched, row: dict[str, Any]) -> dict[str, Any]:
        """A mail blamed for a crash at start-up is seen again: keep its bytes and headers for
        ``pbem shunt show|retry`` (the blame itself was written at start-up)."""
        assert f.raw is not None
        keep_copy(self.root, key, f.raw)
        row = {
            **row,
            "uid": f.uid,
            "internaldate": f.internaldate.isoformat(),
            "subject": safe_subject(f.raw),
        }
        self.daemon.commit(shunt=row)
        return row

    def held_due(self) -> list[str]:
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
            if copy_path(self.root, k).exists() and not self.knows(k)
        ]

    def announce(self, keys: Sequence[str]) -> str | None:
        """The in-flight record of a batch about to be handled (None: nothing to handle)."""
        attempt = uuid.uuid4().hex[:16] if keys else None
        if attempt is not None and self.inflight is not None:
            rec = record(
                attempt, self.boot, keys, self.suspects, self.clock().isoformat(), self.run
            )
            self.inflight.write(rec)  # durable before anything is handled
        self.attempt = attempt
        return attempt
