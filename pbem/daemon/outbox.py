"""The transactional outbox and its sender task (requirement 9).

Rows are written by the service in the same atomic write as the events that caused them; this
task only sends and then removes or reschedules them. It runs beside command processing, so a
slow or dead SMTP server never holds up a commit ("sending never blocks processing").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from pbem.adapters.servers import SendResult
from pbem.core.frozen import quick_init
from pbem.daemon.limits import GlobalCap
from pbem.mail.envelope import TEST_ID_KEY, build, digest
from pbem.mail.html import alternative
from pbem.mail.render import bilingual, shared_renderer

log = logging.getLogger(__name__)


class OutboxStore(Protocol):
    """What the sender needs of a store (GameStore and DaemonStore both fit)."""

    def outbox(self) -> list[dict[str, Any]]: ...
    def outbox_done(self, message_id: str) -> None: ...
    def outbox_update(self, message_id: str, changes: dict[str, Any]) -> None: ...


class AlertStore(OutboxStore, Protocol):
    """The daemon's store: dead letters and admin alerts are committed there."""

    def commit(self, *, outbox: Sequence[Mapping[str, Any]] = ()) -> None: ...


class Transport(Protocol):
    """What the sender needs of an SMTP client."""

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult: ...


@quick_init  # a row or more for every mail received (issue 23)
@dataclass(frozen=True)
class OutboxRow(Mapping[str, Any]):
    """One mail waiting in an outbox. The stores keep it as a JSON document (it reads as a
    mapping of its fields); ``raw`` is the mail as latin-1 text (a lossless byte round-trip)."""

    message_id: str
    raw: str
    rcpts: tuple[str, ...]
    mail_from: str
    created: str
    next_try: str
    kind: str
    game: str | None = None
    bypass_cap: bool = False
    seq: int = 0
    """The engine's order within one step: results read in the order written."""
    attempts: int = 0
    status: str = "pending"
    last_error: str = ""
    thread: str = ""
    """The player's thread a private mail is filed in (pbem.mail.threads); only replies of one
    thread are coalesced into a digest. Stored only when set."""

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> OutboxRow:
        """The row a store kept."""
        return cls(
            message_id=str(record["message_id"]),
            raw=str(record["raw"]),
            rcpts=tuple(str(r) for r in record["rcpts"]),
            mail_from=str(record.get("mail_from") or ""),
            created=str(record["created"]),
            next_try=str(record.get("next_try") or record["created"]),
            kind=str(record.get("kind") or ""),
            game=record.get("game"),
            bypass_cap=bool(record.get("bypass_cap")),
            seq=int(record.get("seq") or 0),
            attempts=int(record.get("attempts") or 0),
            status=str(record.get("status") or "pending"),
            last_error=str(record.get("last_error") or ""),
            thread=str(record.get("thread") or ""),
        )

    def __getitem__(self, name: str) -> Any:
        # dict(row) reads every key (a store's commit, issue 23): no tuple of keys made for each
        if name not in _ROW_KEYS and (name != "thread" or not self.thread):
            raise KeyError(name)
        value = getattr(self, name)
        return list(value) if name == "rcpts" else value  # JSON has lists, not tuples

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def _keys(self) -> tuple[str, ...]:
        return (*_ROW_FIELDS, "thread") if self.thread else _ROW_FIELDS


# a stored row's keys, in the order the stores have always written them
_ROW_FIELDS = (
    "message_id",
    "raw",
    "rcpts",
    "mail_from",
    "created",
    "next_try",
    "attempts",
    "status",
    "kind",
    "game",
    "bypass_cap",
    "seq",
    "last_error",
)
_ROW_KEYS = frozenset(_ROW_FIELDS)


def make_row(
    *,
    message_id: str,
    raw: bytes,
    rcpts: Sequence[str],
    mail_from: str,
    now: datetime,
    kind: str,
    game: str | None = None,
    bypass_cap: bool = False,
    seq: int = 0,
    thread: str = "",
) -> OutboxRow:
    """A new outbox row, due now; ``thread``: the player's thread of a private mail."""
    stamp = now.isoformat()
    return OutboxRow(
        message_id=message_id,
        raw=raw.decode("latin-1"),
        rcpts=tuple(rcpts),
        mail_from=mail_from,
        created=stamp,
        next_try=stamp,
        kind=kind,
        game=game,
        bypass_cap=bypass_cap,
        seq=seq,
        thread=thread,
    )


@dataclass
class SenderPolicy:
    """Backoff: ``base * 2**attempts`` capped at ``cap``; give up (dead) after ``give_up``."""

    base: timedelta = timedelta(seconds=60)
    cap: timedelta = timedelta(hours=1)
    give_up: timedelta = timedelta(days=3)

    def next_delay(self, attempts: int) -> timedelta:
        """The wait before the next try after ``attempts`` failed ones: doubling from ``base``, at
        most ``cap``."""
        delay: timedelta = self.base * (2 ** min(attempts, 30))
        return min(self.cap, delay)


@dataclass
class SendOutage:
    """Sending has failed since ``since`` (first error ``detail``), ``deferred`` times."""

    since: datetime
    detail: str
    deferred: int = 0


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


@dataclass
class OutboxSender:
    """Drains every store's outbox over one transport; wakes on :meth:`wake` or when a row is due."""

    transport: Transport
    stores: Callable[[], Sequence[OutboxStore]]
    alert_store: AlertStore
    clock: Callable[[], datetime]
    moderator: str
    admins: Sequence[str]
    bounce_address: str
    policy: SenderPolicy = field(default_factory=SenderPolicy)
    cap: GlobalCap = field(default_factory=GlobalCap)
    sent_count: int = 0
    fault: Callable[[str], None] = field(default=lambda point: None)
    verp: Callable[[OutboxRow, str], str | None] | None = None
    """VERP (RELIABILITY §2.4): the envelope sender for one recipient of a row, or None for the
    row's own ``mail_from``. When it gives one, the row is sent once per recipient (same bytes,
    same Message-ID), each with its own envelope."""
    texts: Callable[[str, Mapping[str, Any]], tuple[str, str]] = field(
        default=lambda template, params: bilingual(shared_renderer(), template, params)
    )
    """(subject, body) of an admin alert from its template: the service passes its own
    (French then English, in the configured timezone)."""
    coalesce: bool = True
    """Private replies to one player of one game that are due together go out as one digest
    (RELIABILITY §2.5): no delay is added, but a burst, or the backlog of an SMTP outage,
    reaches a player as one mail rather than dozens."""
    on_error: Callable[[BaseException], None] | None = None
    """Told of a failed drain (a sent row whose removal could not be written: disk full)."""
    chat_cap: GlobalCap | None = None
    """Relayed chat's own hourly cap (its share of :attr:`cap`): the rest of the global cap
    is kept for results, prompts and replies (issue 10 item 16)."""
    id_key: bytes = TEST_ID_KEY
    """The daemon's Message-ID key (:func:`pbem.mail.envelope.message_id`) for the digests and
    alerts this task writes itself."""
    html_mail: bool = True
    """``[smtp] html``: its alerts have an HTML alternative after their text part (issue 15)."""
    _event: asyncio.Event = field(default_factory=asyncio.Event)
    _stopping: bool = False
    _alarm_raised: bool = False
    _outage: SendOutage | None = None
    """The sending failures since the last send that went through (one warning each)."""

    def wake(self) -> None:
        """Wake the sender: there is mail to send now."""
        self._event.set()

    def stop(self) -> None:
        """Ask the sender to stop, and wake it so that it does."""
        self._stopping = True
        self._event.set()

    def _due(self, now: datetime) -> tuple[list[tuple[OutboxStore, OutboxRow]], datetime | None]:
        due: list[tuple[OutboxStore, OutboxRow]] = []
        nxt: datetime | None = None
        for st in self.stores():
            for record in st.outbox():
                row = OutboxRow.from_record(record)
                if row.status != "pending":
                    continue
                t = datetime.fromisoformat(row.next_try)
                if t <= now:
                    due.append((st, row))
                elif nxt is None or t < nxt:
                    nxt = t
        due.sort(
            key=lambda p: (
                not p[1].bypass_cap,
                # relayed chat after everything else: results, prompts and replies first, so a
                # flood of posts never holds the game up (issue 10 item 16)
                p[1].kind == "relay",
                p[1].created,
                p[1].seq,
                p[1].message_id,
            )
        )
        return due, nxt

    def _groups(
        self, due: Sequence[tuple[OutboxStore, OutboxRow]]
    ) -> list[list[tuple[OutboxStore, OutboxRow]]]:
        """Due rows in order, the private replies to one address of one game grouped."""
        groups: list[list[tuple[OutboxStore, OutboxRow]]] = []
        by_key: dict[tuple[int, str, str, str], list[tuple[OutboxStore, OutboxRow]]] = {}
        for st, row in due:
            coalescible = (
                self.coalesce
                and row.kind == "reply"
                and row.mail_from  # not the null-sender replies to strangers
                and len(row.rcpts) == 1
            )
            if not coalescible:
                groups.append([(st, row)])
                continue
            # one digest per thread: a digest keeps its parts' Subject, so a role card and the
            # night's prompt queued together stay in their own threads (issue 15)
            key = (id(st), str(row.game), row.rcpts[0].lower(), row.thread)
            if key in by_key:
                by_key[key].append((st, row))
            else:
                by_key[key] = [(st, row)]
                groups.append(by_key[key])
        return groups

    def _digest_row(self, rows: Sequence[OutboxRow]) -> OutboxRow:
        mids = [r.message_id for r in rows]
        mid, raw = digest(
            [r.raw.encode("latin-1") for r in rows],
            message_ids=mids,
            sender=self.moderator,
            to=rows[0].rcpts[0],
            date=self.clock(),
            id_key=self.id_key,
        )
        return replace(rows[-1], message_id=mid, raw=raw.decode("latin-1"))

    async def drain_once(self) -> datetime | None:
        """Send every due row once; return when the next row is due (None: nothing pending)."""
        now = self.clock()
        due, nxt = self._due(now)
        for group in self._groups(due):
            if self._stopping:
                break
            first = group[0][1]
            chat = self.chat_cap if first.kind == "relay" else None
            if chat is not None and not chat.window.allowed(self.clock()):
                # relayed chat has used its share of the hour: it waits, the rest goes on
                # (nothing else is behind it: it is sorted last)
                log.warning("relayed chat is at its share of the outbound cap: it waits")
                retry_at = self.clock() + timedelta(minutes=1)
                return retry_at if nxt is None else min(nxt, retry_at)
            if not first.bypass_cap and not self.cap.try_send(self.clock()):
                self._raise_alarm()
                retry_at = self.clock() + timedelta(minutes=1)
                return retry_at if nxt is None else min(nxt, retry_at)
            if chat is not None:
                chat.try_send(self.clock())
            if len(group) == 1:
                res = await self._send(first)
            else:
                res = await self._send(self._digest_row([row for _st, row in group]))
                log.info("%d replies to %s sent as one digest", len(group), first.rcpts[0])
            if res.sent:
                self.fault("after_send")  # sent but not yet removed: a crash here resends
            for st, row in group:
                self._settle(st, row, res)
        return nxt if not due else self.clock()

    async def _send(self, row: OutboxRow) -> SendResult:
        """One SMTP transaction for the row; with VERP, one per recipient, results merged."""
        raw = row.raw.encode("latin-1")
        rcpts = list(row.rcpts)
        envelopes = [self.verp(row, r) for r in rcpts] if self.verp and row.mail_from else []
        if not any(envelopes):
            return await self.transport.send(row.mail_from, rcpts, raw)
        total = SendResult()
        details = []
        for rcpt, sender in zip(rcpts, envelopes, strict=True):
            res = await self.transport.send(sender or row.mail_from, [rcpt], raw)
            total.sent.extend(res.sent)
            total.retry.extend(res.retry)
            total.dead.extend(res.dead)
            if res.detail:
                details.append(res.detail)
        total.detail = "; ".join(details)
        return total

    def _settle(self, st: OutboxStore, row: OutboxRow, res: SendResult) -> None:
        mid = row.message_id
        now = self.clock()
        if res.sent:
            self.sent_count += 1
        self._track_outage(res, now)
        if res.dead:
            log.error("outbox %s: permanent failure for %s: %s", mid, res.dead, res.detail)
            self._dead_letter(row, res.dead, res.detail)
        if not res.retry:
            st.outbox_done(mid)
            return
        attempts = row.attempts + 1
        if now - datetime.fromisoformat(row.created) > self.policy.give_up:
            log.error("outbox %s: giving up after %d attempts: %s", mid, attempts, res.detail)
            self._dead_letter(row, res.retry, "gave up: " + res.detail)
            st.outbox_done(mid)
            return
        # one warning per outage (_track_outage), not a line per queued mail per retry
        log.debug("outbox %s: will retry (%d): %s", mid, attempts, res.detail)
        st.outbox_update(
            mid,
            {
                "rcpts": res.retry,
                "attempts": attempts,
                "next_try": (now + self.policy.next_delay(attempts - 1)).isoformat(),
                "last_error": res.detail[:500],
            },
        )

    def _track_outage(self, res: SendResult, now: datetime) -> None:
        """An SMTP outage is told twice, whatever the number of mails waiting: when the first
        send fails (a warning) and when one goes through again (with the count of deferred
        sends and the outage's length); the sends in between are counted (issue 21, item 14)."""
        if res.retry and not res.sent:
            if self._outage is None:
                self._outage = SendOutage(now, res.detail)
                log.warning(
                    "SMTP: sending fails (%s): mail waits in the outbox and is retried; "
                    "one line when it works again",
                    res.detail,
                )
            self._outage.deferred += 1
        elif res.sent and self._outage is not None:
            outage, self._outage = self._outage, None
            log.warning(
                "SMTP: sending works again after %s: %d send(s) deferred meanwhile",
                _span(now - outage.since),
                outage.deferred,
            )

    def _dead_letter(self, row: OutboxRow, rcpts: Sequence[str], detail: str) -> None:
        """Keep the failed copy (status dead) and tell the admins, unless it was an alert."""
        now = self.clock()
        dead = replace(
            row,
            message_id=row.message_id + "#dead:" + ",".join(rcpts),
            rcpts=tuple(rcpts),
            status="dead",
            last_error=detail[:500],
        )
        rows = [dead]
        if row.kind != "alert" and self.admins:
            rows.append(
                self._alert_row(
                    f"dead:{dead.message_id}",
                    now,
                    self.texts(
                        "daemon/alert_dead_letter",
                        {
                            "message_id": row.message_id,
                            "rcpts": list(rcpts),
                            "game": row.game or "-",
                            "kind": row.kind,
                            "error": detail,
                        },
                    ),
                )
            )
        self.alert_store.commit(outbox=rows)

    def _alert_row(self, key: str, now: datetime, text: tuple[str, str]) -> OutboxRow:
        mid, raw = build(
            key=key,
            sender=self.moderator,
            to=tuple(self.admins),
            subject=text[0],
            body=text[1],
            html=alternative(text[0], text[1], enabled=self.html_mail),
            date=now,
            auto="auto-generated",
            id_key=self.id_key,
        )
        return make_row(
            message_id=mid,
            raw=raw,
            rcpts=self.admins,
            mail_from=self.bounce_address,
            now=now,
            kind="alert",
            bypass_cap=True,
        )

    def _raise_alarm(self) -> None:
        if self._alarm_raised:
            return
        self._alarm_raised = True
        log.critical("global outbound cap reached (%d/hour): sending paused", self.cap.per_hour)
        if self.admins:
            now = self.clock()
            self.alert_store.commit(
                outbox=[
                    self._alert_row(
                        f"cap:{now.isoformat()}",
                        now,
                        self.texts("daemon/alert_cap", {"per_hour": self.cap.per_hour}),
                    )
                ]
            )

    async def run(self) -> None:
        """The sender task: drain, then sleep until woken or until the next row is due."""
        while not self._stopping:
            self._event.clear()
            try:
                nxt = await self.drain_once()
            except Exception as exc:  # never let the sender die: log, back off, go on
                log.exception("outbox sender failed; retrying in 5 s")
                nxt = self.clock() + timedelta(seconds=5)
                if self.on_error is not None:
                    self.on_error(exc)
            if self._stopping:
                break
            timeout = 60.0
            if nxt is not None:
                timeout = max(0.0, min(60.0, (nxt - self.clock()).total_seconds()))
            if timeout == 0.0:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), timeout)
            if self.cap.window.allowed(self.clock()):
                self._alarm_raised = False
