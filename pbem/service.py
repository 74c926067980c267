"""The one coordinator: a queue of work items (mail, deadlines, shunt retries) and one writer.

Everything that writes state runs synchronously on the asyncio loop thread, one work item at a
time, with no ``await`` inside a transaction, so there is exactly one writer (requirement 3) and
a SIGTERM handled by the loop always falls between two items ("finish the item in hand").
Blocking IMAP calls run in a worker thread that never touches the store; SMTP runs in the
:class:`~pbem.outbox.OutboxSender` task beside the queue, so sending never blocks processing.

Per inbound mail (RELIABILITY §3.4): key = sha256(raw); skip if in a ledger; else route, check,
call the pure ``Table.receive``, and commit its events + outbox rows + the ledger key in ONE
atomic write; only then ``UID MOVE`` to Processed (requirements 1, 2).

A mail that kills the process instead of raising is caught by the in-flight record written
before each batch (:mod:`pbem.inflight`): at start-up it is blamed and, after ``max_failures``
deaths in consecutive runs, quarantined like a mail that raised, then retried alone once the
daemon has been stable (an outside kill must not hold a good mail for good). The rate-limit
windows ride along with the outbox writes (:mod:`pbem.limits`) and are reloaded at
:meth:`Service.open`.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses
from pathlib import Path
from typing import Any, Literal, Protocol

from pbem.adapters.dns import DnsResolver
from pbem.adapters.idkey import message_id_key
from pbem.adapters.imap import Fetched, ImapDown, ImapSettings
from pbem.adapters.spool import RequestSpool
from pbem.adapters.store import (
    DaemonStore,
    DirLock,
    GameStore,
    StoreError,
    clean_stale_game_dirs,
    list_games,
)
from pbem.archive_mail import archive_rows
from pbem.auth import AuthVerdict, check_sender
from pbem.clockwatch import ClockJump, ClockWatch
from pbem.config import Config
from pbem.confirmations import lapsed, lapsed_mark, other_lines, phase_of
from pbem.core.errors import MailError
from pbem.dedup import copy_keys
from pbem.desk.requests import admin_requests
from pbem.diskfull import is_disk_full
from pbem.held import held_sender
from pbem.inflight import (
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
from pbem.limits import GlobalCap, SenderLimits, Windows, limit_note, merge_windows
from pbem.listgate import CONFIRM_REQUESTS, PosterLimits, stop_reason
from pbem.mail.address import is_mailable
from pbem.mail.bounce import Bounce, Failure, parse_bounce, verp_address, verp_token
from pbem.mail.dkim import Resolver
from pbem.mail.envelope import OutgoingLike, build, build_outgoing
from pbem.mail.inbound import automatic_reason, parse_bytes, parse_once_policy
from pbem.mail.listpost import Attribution, attribute, rewrite_from
from pbem.mail.relay import list_id_for, relay_copy
from pbem.mail.render import bilingual, shared_renderer
from pbem.mail.scrub import without_codes
from pbem.outbox import OutboxSender, SenderPolicy, Transport, make_row
from pbem.oversize import too_big_reply

log = logging.getLogger(__name__)

SHUNT_RETRY_SPOOL = "shunt/retry"
DEADLINE_RETRY_SPOOL = "deadlines/retry"
REACHABLE_SPOOL = "reachable"
ADMIN_SPOOL = "admin"
REQUEST_SPOOLS = (SHUNT_RETRY_SPOOL, DEADLINE_RETRY_SPOOL, REACHABLE_SPOOL, ADMIN_SPOOL)
"""Where the CLI drops its requests to the running daemon (the single writer of the store)."""


def request_files(spool: Path) -> list[Path]:
    """The requests waiting in ``spool``, oldest name first; a dot file is one the CLI is still
    writing (it renames it into place when whole)."""
    return RequestSpool().pending(spool)


"""Under the data directory: ``pbem reachable`` requests, one JSON file each
(``{"game": ..., "player": ...}``), consumed by the daemon."""

Channel = Literal["private", "list"]
Disposition = Literal["processed", "quarantine", "keep"]


# ---- the engine contract, structurally (pbem/engine.py satisfies it) ------------------------


class StepLike(Protocol):
    @property
    def events(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def outgoing(self) -> Sequence[OutgoingLike]: ...


class TableLike(Protocol):
    game_id: str

    @property
    def finished(self) -> bool: ...
    @property
    def player_emails(self) -> Mapping[str, str]: ...
    @property
    def player_langs(self) -> Mapping[str, str]: ...
    def receive(
        self,
        msg: EmailMessage,
        *,
        channel: Channel,
        now: datetime,
        relay: bool = False,
        confirm: Literal["ask", "apply"] | None = None,
        strong: bool = True,
        admins: Sequence[str] = (),
    ) -> Any: ...
    def release(self, msg: EmailMessage, now: datetime) -> Any: ...
    def deadlines(self) -> Mapping[str, datetime]: ...
    def on_deadline(self, key: str, now: datetime) -> Any: ...
    def apply(self, step: Any) -> None: ...


class Engine(Protocol):
    def new(self, setup: Mapping[str, Any], now: datetime) -> tuple[Any, Any]: ...
    def load(self, setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Any: ...


class Mailbox(Protocol):
    """The inbound mailbox: :class:`pbem.adapters.imap.Mailbox`, or the local Maildir of
    :mod:`pbem.adapters.maildir` (the embedded demo). Blocking; run in a worker thread."""

    s: ImapSettings
    uidvalidity: int
    interrupt: threading.Event

    @property
    def connected(self) -> bool: ...
    def connect(self) -> None: ...
    def pending_uids(self) -> list[int]: ...
    def fetch(self, uids: Sequence[int]) -> list[Fetched]: ...
    def move(self, uids: Sequence[int], name: str) -> None: ...
    def wait(self, max_seconds: float) -> bool: ...
    def close(self) -> None: ...


class Scheduler(Protocol):
    """The part of APScheduler's AsyncIOScheduler we use (pbem/adapters/scheduler.py)."""

    def arm(self, job_id: str, when: datetime, callback: Callable[[], Awaitable[None]]) -> None: ...
    def disarm_prefix(self, prefix: str, keep: set[str]) -> None: ...


FaultHook = Callable[[str], None]
MailTime = datetime | Callable[[Fetched], datetime] | None


def _no_fault(point: str) -> None:
    """Default: no fault injection."""


@dataclass
class Game:
    """A loaded game: its files, its in-memory table and its ledger keys."""

    store: GameStore
    table: TableLike
    keys: set[str]

    @property
    def id(self) -> str:
        return self.store.game_id


@dataclass
class WorkItem:
    kind: str
    args: tuple[Any, ...]
    future: asyncio.Future[Any]


def game_list_address(cfg: Config, setup: Mapping[str, Any]) -> str:
    """The game's list: its own (setup ``list``), else the configured one."""
    return str(setup.get("list") or cfg.list_address or "")


def list_members(setup: Mapping[str, Any], player_emails: Mapping[str, str]) -> list[str]:
    """Who a relayed post or a public result reaches when the daemon is the list: every
    player, dead or alive (the dead may read), and the game's administrators."""
    admins = [str(a) for a in setup.get("admins", [])]
    return sorted({*player_emails.values(), *admins})


def list_headers(cfg: Config, setup: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What a list adds to what it distributes, when the daemon is the list; else nothing."""
    if cfg.list_mode != "relay":
        return ()
    address = game_list_address(cfg, setup)
    return (
        ("List-Id", list_id_for(address, cfg.list_id)),
        ("List-Post", f"<mailto:{address}>"),
    )


def content_key(raw: bytes) -> str:
    """The exactly-once key: sha256 of the raw bytes (never the UID, never the Message-ID)."""
    return hashlib.sha256(raw).hexdigest()


def parse(raw: bytes) -> EmailMessage:
    """Parse with the modern policy, each header parsed once (hostile input may raise: the
    caller shunts)."""
    msg = email.message_from_bytes(raw, policy=parse_once_policy())
    assert isinstance(msg, EmailMessage)
    return msg


def _addresses(msg: Message, *headers: str) -> list[str]:
    vals: list[str] = []
    for h in headers:
        for v in msg.get_all(h, []):
            try:
                vals.append(str(v))
            except Exception:  # a header the policy cannot render: ignore it
                continue
    return [a.lower() for _, a in getaddresses(vals) if a]


_TAG = re.compile(r"\[([A-Za-z0-9_.-]{1,64})\]")
_CONFIRM = re.compile(r"CONFIRM-([0-9a-f]{16})\b", re.IGNORECASE)


def _visible_text(msg: EmailMessage) -> str:
    """Subject and text parts, quoted lines included (a plain reply quotes the request)."""
    out = [str(msg.get("Subject", "") or "")]
    with contextlib.suppress(Exception):
        for part in msg.walk():
            if part.get_content_maintype() == "text" and not part.is_multipart():
                out.append(str(part.get_content())[:100_000])
    return "\n".join(out)


@dataclass
class Service:
    """The coordinator. ``engine`` is the Table class; ``scheduler`` arms deadline jobs."""

    cfg: Config
    engine: Engine
    transport: Transport
    scheduler: Scheduler
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    fault: FaultHook = _no_fault
    on_alive: Callable[[], None] = field(default=lambda: None)
    games: dict[str, Game] = field(default_factory=dict)
    queue: asyncio.Queue[WorkItem] = field(default_factory=asyncio.Queue)
    stopping: bool = False
    limits: SenderLimits = field(init=False)
    daemon: DaemonStore = field(init=False)
    sender: OutboxSender = field(init=False)
    lock: DirLock | None = None
    mailbox: Mailbox | None = None
    daemon_keys: set[str] = field(default_factory=set)
    stats: dict[str, int] = field(default_factory=dict)
    resolver: Resolver = field(default_factory=DnsResolver)  # DKIM keys for auth "dkim_verify"
    # clock-jump detection (F14): the monotonic clock is injectable like the wall clock
    monotonic: Callable[[], float] = field(default=time.monotonic)
    clockwatch: ClockWatch = field(default_factory=ClockWatch)
    clock_jump: ClockJump | None = None  # detected, not handled yet
    clock_hold: bool = False  # a jump is being handled: scheduler-fired deadlines wait
    clock_alerted: set[str] = field(default_factory=set)
    cap: GlobalCap = field(init=False)
    #: relayed chat: per-poster limits and its share of the outbound cap (pbem.listgate)
    posters: PosterLimits = field(init=False)
    confirm_requests: PosterLimits = field(init=False)
    chat_cap: GlobalCap = field(init=False)
    #: crash-loop containment (pbem.inflight): suspects {key: since}, handled one per batch
    suspects: dict[str, str] = field(default_factory=dict)
    boot: str = ""
    marker: Marker | None = None
    inflight: InflightFile | None = None
    #: the operator's request files: consumed here, reported once if they cannot be removed
    requests: RequestSpool = field(default_factory=RequestSpool)
    run: int = 0  # this process's start-up number (consecutive deaths, pbem.inflight)
    opened_at: float = 0.0  # monotonic: the uptime before held mail is retried
    _attempt: str | None = None
    #: a state write failed for want of space (pbem.diskfull): the daemon waits for room
    disk_full: BaseException | None = None
    #: scheduler-fired deadlines the IMAP loop resolves after fetching (issue 10 item 4)
    #: (game id, key) → the timer resolving it anyway if the mailbox cannot be read
    due: dict[tuple[str, str], asyncio.TimerHandle] = field(default_factory=dict)
    imap_looping: bool = False
    #: the Message-ID key (pbem.adapters.idkey): ids carry no guessable information
    id_key: bytes = field(init=False, default=b"")

    def __post_init__(self) -> None:
        self.limits = SenderLimits(
            self.cfg.errors_per_hour,
            self.cfg.autos_per_day,
            self.cfg.reply_burst,
            self.cfg.replies_per_hour,
        )
        self.cap = GlobalCap(self.cfg.outbound_cap_per_hour)
        lim = self.cfg.list_limits
        self.posters = PosterLimits(lim.posts_per_hour)
        self.confirm_requests = PosterLimits(
            self.cfg.auth.confirm_requests_per_hour, prefix=CONFIRM_REQUESTS
        )
        share = max(1, int(self.cfg.outbound_cap_per_hour * lim.relay_share))
        self.chat_cap = GlobalCap(share, name="cap:relay")
        self.texts = shared_renderer(self.cfg.timezone)  # the daemon's own player-facing texts

    # ---- opening ------------------------------------------------------------------------

    @property
    def root(self) -> Path:
        return self.cfg.data_dir

    @property
    def our_addresses(self) -> set[str]:
        mod = self.cfg.moderator.lower()
        return {mod, self.cfg.bounce.lower()}

    @property
    def relay(self) -> bool:
        """The daemon distributes the list itself (``[list] mode = relay``)."""
        return self.cfg.list_mode == "relay"

    def list_address(self, game: Game) -> str:
        return game_list_address(self.cfg, game.store.setup)

    def list_members(self, game: Game) -> list[str]:
        return list_members(game.store.setup, game.table.player_emails)

    def list_headers(self, game: Game) -> tuple[tuple[str, str], ...]:
        return list_headers(self.cfg, game.store.setup)

    def open(self) -> None:
        """Take the writer lock, load the daemon file and every game, recover half deadlines."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.lock = DirLock(self.root)
        clean_stale_game_dirs(self.root)
        self.daemon = DaemonStore(self.root, self.fault)
        self.daemon.limits_hook = self._limit_changes
        self.daemon_keys = self.daemon.ledger_keys()
        self.verp_key = self._load_verp_key()
        self.id_key = message_id_key(self.root)
        self.sender = OutboxSender(
            transport=self.transport,
            stores=self._outbox_stores,
            alert_store=self.daemon,
            clock=self.clock,
            moderator=self.cfg.moderator,
            admins=self.cfg.admins,
            bounce_address=self.cfg.bounce,
            policy=SenderPolicy(base=timedelta(seconds=self.cfg.retry_base_seconds)),
            cap=self.cap,
            fault=self.fault,
            verp=self._verp_sender if self.cfg.verp else None,
            coalesce=self.cfg.coalesce_replies,
            texts=self._bilingual,
            on_error=lambda exc: self._write_failed(exc) if is_disk_full(exc) else None,
            id_key=self.id_key,
            chat_cap=self.chat_cap if self.relay else None,
        )
        self.scan_games()
        self.restore_limits()
        self.recover_inflight()
        self.opened_at = self.monotonic()

    def close(self) -> None:
        if self.marker is not None:
            self.marker.close()
            self.marker = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    # ---- rate limits that survive a restart (pbem.limits) --------------------------------

    def _limit_changes(self) -> Windows:
        """The stores' hook: the windows hit since the last store write, written with it (the
        reply rows they allowed, or the sent row's removal for the global cap)."""
        return {
            **self.limits.changes(),
            **self.cap.changes(),
            **self.posters.changes(),
            **self.confirm_requests.changes(),
            **self.chat_cap.changes(),
        }

    def restore_limits(self) -> None:
        copies = [
            self.daemon.limit_windows(),
            *(g.store.limit_windows() for g in self.games.values()),
        ]
        merged = merge_windows(copies)
        now = self.clock()
        self.limits.restore(merged, now)
        self.cap.restore(merged, now)
        self.posters.restore(merged, now)
        self.confirm_requests.restore(merged, now)
        self.chat_cap.restore(merged, now)

    # ---- crash-loop containment (pbem.inflight) -------------------------------------------

    def recover_inflight(self) -> None:
        """Blame the mail in hand when the process died (see :mod:`pbem.inflight`): count one
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

    def _blame_crash(self, key: str, batch: str, died_in_run: int, now: datetime) -> None:
        """One death on the record of the mail in hand (pbem.inflight, "Poison or bystander")."""
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
            outbox=self._admin_alert(
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

    def _retry_params(self, crashes: int = 1) -> dict[str, Any]:
        """What the held texts say of the automatic retries (mail held after deaths only)."""
        retries = self.cfg.quarantine_retries if crashes else 0
        return {"retries": retries, "wait": self.cfg.quarantine_retry_seconds}

    def _held_notice(
        self, key: str, raw: bytes, row: Mapping[str, Any], now: datetime
    ) -> tuple[list[dict[str, Any]], bool]:
        """The notice telling a held mail's sender (a registered player, :mod:`pbem.held`),
        French then English, and whether there is one. Its key makes one Message-ID per held
        mail: a redone commit is one notice."""
        players = {a for g in self.games.values() for a in g.table.player_emails.values()}
        who = held_sender(raw, players, self.our_addresses)
        if who is None:
            return [], False
        received = row.get("internaldate") or row.get("at") or now.isoformat()
        crashes = int(row.get("crashes", 0))
        subject, body = self._bilingual(
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

    def _tell_held(self, key: str, raw: bytes, row: dict[str, Any]) -> None:
        """Tell the sender of a mail held at start-up (after deaths), once."""
        notice, told = self._held_notice(key, raw, row, self.clock())
        self.daemon.commit(outbox=notice, shunt={**row, "told": told})
        self.sender.wake()

    def _outbox_stores(self) -> list[Any]:
        return [self.daemon, *(g.store for g in self.games.values())]

    def scan_games(self) -> list[str]:
        """Load games created since the last scan (``pbem new-game`` renames a dir into place)."""
        added = []
        for d in list_games(self.root):
            if d.name in self.games:
                continue
            store = GameStore(d, self.fault)
            store.limits_hook = self._limit_changes
            table = self.engine.load(store.setup, store.events())
            game = Game(store, table, store.ledger_keys())
            self.games[game.id] = game
            added.append(game.id)
            log.info("game %s loaded (%d ledger keys)", game.id, len(game.keys))
            # a crash between a deadline's commit and the release of the posts it reopened
            self.release_held(game, self.clock())
        return added

    def knows(self, key: str) -> bool:
        return key in self.daemon_keys or any(key in g.keys for g in self.games.values())

    # ---- deadlines ----------------------------------------------------------------------

    @staticmethod
    def instance_id(key: str, when: datetime) -> str:
        """One deadline instance: engines reuse keys (every night is ``night``), so the CAS
        record is keyed by the key AND the engine's due time."""
        return f"{key}@{when.isoformat()}"

    def effective_deadlines(self, game: Game) -> dict[str, datetime]:
        """The engine's pending deadlines, with outage extensions applied (§5.4)."""
        states = game.store.deadline_states()
        out = {}
        for key, when in game.table.deadlines().items():
            st = states.get(self.instance_id(key, when), {})
            if st.get("state") == "stalled":
                continue  # paused until an admin's `pbem deadline retry`
            ext = st.get("extended_to")
            out[key] = datetime.fromisoformat(ext) if ext else when
        return out

    def rearm(self, game: Game) -> None:
        """Rebuild this game's in-memory jobs from its state (requirement 11)."""
        pending = self.effective_deadlines(game)
        ids = set()
        now = self.clock()
        for key, when in pending.items():
            job_id = f"{game.id}:{key}"
            ids.add(job_id)
            self.scheduler.arm(job_id, when, self._deadline_callback(game.id, key))
            for hours in self.cfg.reminders_hours:
                at = when - timedelta(hours=hours)
                if at > now:  # a reminder whose time passed (an outage) is not sent late
                    rid = f"{game.id}:{key}:remind:{hours}"
                    ids.add(rid)
                    self.scheduler.arm(rid, at, self._remind_callback(game.id, key, hours))
        self.scheduler.disarm_prefix(f"{game.id}:", ids)

    def _remind_callback(
        self, game_id: str, key: str, hours: float
    ) -> Callable[[], Awaitable[None]]:
        async def fire() -> None:
            self.submit_nowait("remind", game_id, key, hours)

        return fire

    def send_reminders(self, game_id: str, key: str, hours: float) -> int:
        """Remind the players who have not acted (``Table.awaiting``), once per deadline
        instance and lead time: the ``reminded`` list is committed with the mails."""
        game = self.games.get(game_id)
        if game is None or game.table.finished:
            return 0
        due = game.table.deadlines().get(key)
        awaiting = getattr(game.table, "awaiting", None)
        if due is None or awaiting is None:
            return 0
        rid = self.instance_id(key, due)
        state = game.store.deadline_states().get(rid, {"deadline": key})
        if hours in state.get("reminded", []):
            return 0
        now = self.clock()
        when = self.effective_deadlines(game).get(key, due)
        left = max(0.0, (when - now).total_seconds() / 3600)
        rows = []
        emails = game.table.player_emails
        for name in sorted(awaiting()):
            to = emails.get(str(name))
            if not to:
                continue
            lang = game.table.player_langs.get(str(name), self.cfg.language)
            subject, body = self.texts.mail(
                "daemon/reminder",
                lang,
                {
                    "game": game_id,
                    "name": name,
                    "deadline": when.isoformat(),
                    "hours_left": f"{left:.1f}",
                },
            )
            mid, raw = build(
                key=f"remind:{game_id}:{rid}:{hours}:{name}",
                sender=self.cfg.moderator,
                to=(to,),
                subject=subject,
                body=body,
                date=now,
                id_key=self.id_key,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=raw,
                    rcpts=[to],
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="reminder",
                    game=game_id,
                )
            )
        reminded = [*state.get("reminded", []), hours]
        game.store.commit(outbox=rows, deadline={**state, "key": rid, "reminded": reminded})
        log.info("game %s: %d reminder(s) for %s", game_id, len(rows), key)
        return len(rows)

    def _deadline_callback(self, game_id: str, key: str) -> Callable[[], Awaitable[None]]:
        # a coroutine function: AsyncIOScheduler runs it on the loop (a plain function would run
        # in a thread pool, off the single writer's thread)
        async def fire() -> None:
            self.deadline_due(game_id, key)

        return fire

    def deadline_due(self, game_id: str, key: str) -> None:
        """A deadline's time has come. The mail that reached the server before it must be applied
        first (issue 10 item 4: orders delivered seconds before a deadline were refused): the
        IMAP loop is woken to fetch, then resolves it in order (:meth:`apply_in_order`). Without
        a running loop, or if the mailbox cannot be read within ``deadline_fetch_wait_seconds``
        (the server is down), it is resolved without."""
        if not self.imap_looping:
            self.submit_nowait("deadline", game_id, key, None)
            return
        self.undue(game_id, key)
        wait = self.cfg.deadline_fetch_wait_seconds
        loop = asyncio.get_running_loop()
        self.due[game_id, key] = loop.call_later(wait, self._deadline_unfetched, game_id, key)
        if self.mailbox is not None:
            self.mailbox.interrupt.set()

    def undue(self, game_id: str, key: str) -> None:
        """The loop took this deadline (or it needs nothing more): its fallback is cancelled."""
        timer = self.due.pop((game_id, key), None)
        if timer is not None:
            timer.cancel()

    def _deadline_unfetched(self, game_id: str, key: str) -> None:
        self.due.pop((game_id, key), None)
        log.warning("deadline %s:%s: mailbox not read in time; resolved without", game_id, key)
        self.submit_nowait("deadline", game_id, key, None)

    def due_deadlines(self) -> list[tuple[datetime, str, str]]:
        """The scheduler-fired deadlines waiting for the IMAP loop, by due time."""
        out = []
        now = self.clock()
        for game_id, key in sorted(self.due):
            game = self.games.get(game_id)
            when = self.effective_deadlines(game).get(key) if game is not None else None
            if when is None or when > now:
                # resolved meanwhile, stalled, or extended (a clock jump): rearmed if pending
                self.undue(game_id, key)
                continue
            out.append((when, game_id, key))
        return sorted(out)

    def resolve_deadline(self, game_id: str, key: str, now: datetime | None = None) -> bool:
        """Compare-and-set open → resolving → resolved; False if nothing was (left) to do."""
        game = self.games.get(game_id)
        if game is None or game.table.finished:
            return False
        due = game.table.deadlines().get(key)
        if due is None:
            return False  # resolved already, or the phase moved on (a stale timer)
        rid = self.instance_id(key, due)
        state = game.store.deadline_states().get(rid, {"deadline": key})
        if state.get("state") in ("resolved", "stalled"):
            return False
        attempts = int(state.get("attempts", 0))
        if state.get("state") == "resolving" and attempts >= self.cfg.max_failures:
            self._stall_deadline(game, rid, state)
            return False
        if state.get("state") == "resolving" and state.get("now"):
            now = datetime.fromisoformat(state["now"])  # redo from the recorded inputs (§5.4)
        if now is None:
            now = self.clock()
        # the attempt is counted BEFORE the rules run: a resolution that kills the process
        # leaves its count behind, so a restart loop ends in a stall instead of going on forever
        game.store.set_deadline_state(
            {
                **state,
                "key": rid,
                "state": "resolving",
                "now": now.isoformat(),
                "attempts": attempts + 1,
            }
        )
        self.fault("mid_resolve")
        step = game.table.on_deadline(key, now)
        rows = self._rows(game, step, now, error=False)
        game.store.commit(
            events=step.events,
            outbox=rows,
            deadline={**state, "key": rid, "state": "resolved", "now": now.isoformat()},
        )
        self.fault("after_resolve")
        game.table.apply(step)
        self.release_held(game, now)
        self.rearm(game)
        self.sender.wake()
        log.info("game %s: deadline %s resolved (%d events)", game_id, key, len(step.events))
        return True

    def _stall_deadline(self, game: Game, rid: str, state: Mapping[str, Any]) -> None:
        """A deadline whose resolution failed ``max_failures`` times (it raised, or the process
        died in it: requirement 10 for deadlines): the game is paused there, nothing else is.

        It is no longer armed nor counted as passed (other games and the start-up drain go on),
        the players are told the game is paused, the admins get the error and the way out
        (``pbem deadline retry``). The game's mail is still read: orders keep counting."""
        now = self.clock()
        key = str(state.get("deadline", rid.split("@")[0]))
        error = str(state.get("error") or "the daemon process died while resolving it")
        log.error(
            "game %s: deadline %s failed %d times: stalled (%s)",
            game.id,
            key,
            int(state.get("attempts", 0)),
            error,
        )
        alert = self._admin_alert(
            f"stalled:{game.id}:{rid}",
            now,
            "daemon/alert_stalled",
            {
                "game": game.id,
                "deadline": rid,
                "attempts": state.get("attempts"),
                "error": state.get("error") or "",
            },
            appendix=str(state.get("traceback", "")),
        )
        subject, body = self._bilingual("daemon/stalled", {"game": game.id})
        game.store.commit(
            outbox=[*alert, self._public_row(game, f"paused:{game.id}:{rid}", subject, body, now)],
            deadline={**state, "key": rid, "state": "stalled", "stalled_at": now.isoformat()},
        )
        self.sender.wake()

    def deadline_failed(self, game_id: str, key: str, exc: BaseException) -> None:
        """A resolution raised: its error is kept for the stall alert, and it is tried again in
        a minute (not at once: a bug would spin), up to ``max_failures`` attempts."""
        game = self.games.get(game_id)
        due = game.table.deadlines().get(key) if game is not None else None
        if game is None or due is None:
            return
        rid = self.instance_id(key, due)
        state = game.store.deadline_states().get(rid)
        if state is None or state.get("state") != "resolving":
            return
        tb = "".join(traceback.format_exception(exc))[-4000:]
        game.store.set_deadline_state({**state, "error": repr(exc)[:500], "traceback": tb})
        retry_at = self.clock() + timedelta(seconds=self.cfg.deadline_retry_seconds)
        self.scheduler.arm(f"{game_id}:{key}", retry_at, self._deadline_callback(game_id, key))

    def retry_stalled(self) -> int:
        """``pbem deadline retry GAME`` (a spool file: the daemon is the single writer): the
        game's stalled deadlines are opened again with a fresh count, then rearmed."""
        requests = self.requests.pending(self.root / DEADLINE_RETRY_SPOOL)
        for req in requests:
            # consumed first: a retry that kills the process again is counted anew
            if not self.requests.consume(req):
                continue
            game = self.games.get(req.name)
            if game is None:
                log.warning("deadline retry for unknown game %s ignored", req.name)
                continue
            for rid, st in game.store.deadline_states().items():
                if st.get("state") == "stalled":
                    game.store.set_deadline_state(
                        {**st, "key": rid, "state": "open", "attempts": 0, "now": None}
                    )
                    log.info("game %s: stalled deadline %s opened again", game.id, rid)
            self.rearm(game)
        return len(requests)

    def _public_row(
        self, game: Game, key: str, subject: str, body: str, now: datetime
    ) -> dict[str, Any]:
        """A daemon notice to the game's public thread (the list, or every player)."""
        to = self._announce_recipients(game)
        mid, raw = build(
            key=key,
            sender=self.cfg.moderator,
            to=to,
            subject=subject,
            body=body,
            date=now,
            id_key=self.id_key,
            public=True,
            extra=self.list_headers(game),
        )
        return make_row(
            message_id=mid,
            raw=raw,
            rcpts=self.list_members(game) if self.relay else to,
            mail_from=self.cfg.bounce,
            now=now,
            kind="public",
            game=game.id,
        )

    def recover_resolving(self) -> None:
        """A kill between ``resolving`` and ``resolved``: redo it with the recorded ``now`` (F2).

        A redo that raises is counted like any failed resolution (it stalls its game at
        ``max_failures``): one game's bug must not keep the daemon from starting."""
        for game in list(self.games.values()):
            for rid, st in game.store.deadline_states().items():
                if st.get("state") == "resolving":
                    log.warning(
                        "game %s: deadline %s was resolving at a crash: redoing", game.id, rid
                    )
                    key = str(st.get("deadline", rid.split("@")[0]))
                    try:
                        self.resolve_deadline(game.id, key)
                    except Exception as exc:
                        log.exception("game %s: deadline %s failed again", game.id, key)
                        self.deadline_failed(game.id, key, exc)

    def passed_deadlines(self, now: datetime) -> list[tuple[datetime, str, str]]:
        out = []
        for game in self.games.values():
            if game.table.finished:
                continue
            for key, when in self.effective_deadlines(game).items():
                if when <= now:
                    out.append((when, game.id, key))
        return sorted(out)

    def extend_for_outage(self, now: datetime, down: timedelta, *, clock_jump: bool = False) -> int:
        """A long outage: push passed deadlines to now + grace and tell the players (njudge).

        ``clock_jump``: ``down`` is a forward jump of the wall clock in a running daemon, not an
        outage; the players' mail then says so (the game master was never unreachable)."""
        grace = timedelta(hours=self.cfg.outage_grace_hours)
        n = 0
        for when, game_id, key in self.passed_deadlines(now):
            game = self.games[game_id]
            new = now + grace
            rid = self.instance_id(key, game.table.deadlines()[key])
            state = game.store.deadline_states().get(rid, {"deadline": key})
            hours = round(down.total_seconds() / 3600, 1)
            subject, body = self._bilingual(
                "daemon/extended_clock" if clock_jump else "daemon/extended",
                {
                    "game": game_id,
                    "hours_jump" if clock_jump else "hours_down": hours,
                    "passed": when.isoformat(),
                    "deadline": new.isoformat(),
                },
            )
            row = self._public_row(
                game, f"extend:{game_id}:{key}:{new.isoformat()}", subject, body, now
            )
            game.store.commit(
                outbox=[row],
                deadline={**state, "key": rid, "state": "open", "extended_to": new.isoformat()},
            )
            log.warning(
                "game %s: deadline %s extended to %s after %s",
                game_id,
                key,
                new,
                "a clock jump" if clock_jump else "an outage",
            )
            n += 1
        self.sender.wake()
        return n

    def _announce_recipients(self, game: Game) -> tuple[str, ...]:
        lst = self.list_address(game)
        if lst:
            return (lst,)
        return tuple(sorted(set(game.table.player_emails.values())))

    # ---- mail ---------------------------------------------------------------------------

    def handle_fetched(self, f: Fetched, now: datetime | None = None) -> Disposition:
        """One inbound mail under its own guard (requirement 10). Never raises."""
        if f.raw is None:
            return self._oversize(f)
        key = content_key(f.raw)
        if self.knows(key):
            self._count("duplicate")
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
            self._count("processed")
            if row is not None:  # it had failed before: a transient error, now applied
                self.daemon.remove_shunt(key)
            return "processed"
        except Exception as exc:
            return self._shunt(key, f, f.raw, exc, row)

    def _keep_crash_copy(self, key: str, f: Fetched, row: dict[str, Any]) -> dict[str, Any]:
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
            "subject": _safe_subject(f.raw),
        }
        self.daemon.commit(shunt=row)
        return row

    def _count(self, what: str) -> None:
        self.stats[what] = self.stats.get(what, 0) + 1

    def _oversize(self, f: Fetched) -> Disposition:
        key = f"oversize:{f.uidvalidity}:{f.uid}:{f.size}:{f.internaldate.isoformat()}"
        if self.daemon.shunt_row(key) is None:
            now = self.clock()
            alert = self._admin_alert(
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
        self._count("oversize")
        return "quarantine"

    def _too_big_reply(self, f: Fetched, now: datetime) -> list[dict[str, Any]]:
        """The sender of a mail too large to read is told so (issue 10 item 5), rate-limited."""
        reply = too_big_reply(
            f.header or b"",
            size=f.size,
            cap=min(self.cfg.imap.text_max_size, self.cfg.imap.max_size),
            moderator=self.cfg.moderator,
            our_addresses=self.our_addresses,
            texts=self._bilingual,
            now=now,
            id_key=self.id_key,
        )
        if reply is None or not self.limits.allow(reply[0], now, error=True):
            return []
        return [reply[1]]

    def _shunt(
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
        shunt_dir = self.root / "shunt"
        shunt_dir.mkdir(exist_ok=True)
        eml = shunt_dir / f"{key}.eml"
        if not eml.exists():
            eml.write_bytes(raw)
        quarantined = failures >= self.cfg.max_failures
        tb = "".join(traceback.format_exception(exc))[-4000:]
        log.error("mail %s failed (%d/%d): %s", key[:12], failures, self.cfg.max_failures, exc)
        alert: list[dict[str, Any]] = []
        told = {"told": bool(row["told"])} if row and "told" in row else {}
        if quarantined:
            alert = self._admin_alert(
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
                "subject": _safe_subject(raw),
                "crashes": int((row or {}).get("crashes", 0)),
                # this batch's id: the failure is on record, the mail is not in flight any more
                "attempt": self._attempt,
                **told,
            },
        )
        self._count("shunted")
        self.sender.wake()
        return "quarantine" if quarantined else "keep"

    def _admin_alert(
        self,
        key: str,
        now: datetime,
        template: str,
        params: Mapping[str, Any],
        appendix: str = "",
        to: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """An alert to the admins (none when there are none): ``template`` rendered French then
        English, like the daemon's other mails; ``appendix`` (a traceback: the same in every
        language) follows both. ``key`` makes its Message-ID, so a redone alert is one mail.
        ``to``: other recipients than the daemon's admins (a game's own game masters too)."""
        admins = tuple(to) if to is not None else self.cfg.admins
        if not admins:
            return []
        subject, body = self._bilingual(template, params)
        if appendix:
            body += f"\n-----\n\n{appendix.rstrip()}\n"
        mid, raw = build(
            key=key,
            sender=self.cfg.moderator,
            to=admins,
            subject=subject,
            body=body,
            date=now,
            id_key=self.id_key,
        )
        return [
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=list(admins),
                mail_from=self.cfg.bounce,
                now=now,
                kind="alert",
                bypass_cap=True,
            )
        ]

    def _apply_mail(self, key: str, f: Fetched | None, raw: bytes, now: datetime) -> None:
        # headers only, compat32: cheap string reads for hygiene and routing; the full modern
        # parse is done only for mail that reaches a game's engine
        head = BytesHeaderParser(policy=compat32).parsebytes(raw)
        msg = head
        info = {
            "at": now.isoformat(),
            "uid": f.uid if f else None,
            "uidvalidity": f.uidvalidity if f else None,
            "message_id": str(msg.get("Message-ID", ""))[:200],
        }
        self.fault("after_fetch_parse")
        # each address header parsed once per mail (hygiene, channel and routing all read them)
        rcpts = _addresses(msg, "To", "Cc")
        sender = (_addresses(msg, "From") or [""])[0]
        channel = self._channel(msg, rcpts)
        # RFC 3834 / loop hygiene (pbem.mail.inbound); a MailError (unreadable headers) is
        # a poison mail: shunted, then quarantined
        reason = automatic_reason(msg, our_addresses=self.our_addresses)
        if reason == "bulk" and channel == "list" and not self.relay:
            # Majordomo and others stamp every post `Precedence: bulk`: a post recognised as
            # our game's list's is read (issue 10 item 3); RFC 3834 governs what we answer
            reason = None
        if reason == "bounce" and self._handle_bounce(key, raw, info, now):
            return  # counted against a player (RELIABILITY §2.5); never parsed nor answered
        if reason is not None:
            # never parsed, never answered (RFC 3834, requirement 8); own list echoes land here
            log.info("mail %s ignored: %s", key[:12], reason)
            self._count("automatic")
            self.daemon.commit(ledger_key=key, ledger_info={**info, "why": reason})
            self.daemon_keys.add(key)
            return
        munged = self._list_rewrite(msg, channel)
        if munged is not None and munged.author is not None:
            # the list put its own address in From (DMARC): the post is the author's
            sender, raw = munged.author, rewrite_from(raw, munged.author)
        game = self.route(msg, rcpts, sender)
        if game is not None:
            msg = parse(raw)
        if game is None:
            rows = self._no_game_reply(msg, sender, now)
            self.daemon.commit(outbox=rows, ledger_key=key, ledger_info={**info, "why": "no-game"})
            self.daemon_keys.add(key)
            self.sender.wake()
            return
        assert isinstance(msg, EmailMessage)
        verdict = check_sender(
            msg,
            game.table.player_emails,
            self.cfg.auth,
            game.store.meta.get("secrets", {}),
            # a relayed list post reaches us directly, not through a list that breaks DKIM: it
            # is authenticated like private mail, so a public vote is as safe as a private
            # command and its SECRET line is removed before anyone sees it (requirement 6)
            channel="private" if self.relay else channel,
            raw=raw,
            resolver=self.resolver,
            now=now,
            # the daemon's game masters may steer every game (the desk): authenticated alike
            admins=[*game.store.setup.get("admins", []), *self.cfg.admins],
            admin_secrets=self._admin_secrets(game),
        )
        if not verdict.ok:
            rows = (
                self._admin_refused(game, msg, verdict, now)
                if verdict.admin
                else self._auth_notice(game, msg, verdict, now)
            )
            game.store.commit(outbox=rows, ledger_key=key, ledger_info={**info, "why": "auth"})
            game.keys.add(key)
            self.sender.wake()
            return
        copies = tuple(sorted({*verdict.replay_keys, *copy_keys(msg, sender)}))
        if any(k in game.keys for k in copies):
            # another copy of a mail already applied (the list's copy of a post Cc'd to us, a
            # reply-all, a redelivery): applied once, never an older order over a newer one
            log.info(
                "game %s: mail %s is another copy of a mail applied: ignored", game.id, key[:12]
            )
            game.store.commit(ledger_key=key, ledger_info={**info, "why": "copy"})
            game.keys.add(key)
            return
        if any(k in game.keys for k in verdict.replay_keys):
            # the same DKIM signature seen before: a captured mail re-sent (new trace
            # headers, so a new content key); applied once (requirement 5, RELIABILITY §1.6)
            log.warning("game %s: mail %s replays a signed mail: ignored", game.id, key[:12])
            game.store.commit(ledger_key=key, ledger_info={**info, "why": "replay"})
            game.keys.add(key)
            return
        if (
            channel == "list"
            and self.relay
            and verdict.registered is not None
            and self._stop_post(game, key, info, msg, raw, verdict.registered, now)
        ):
            return  # not relayed nor read: a private mail in it, too long, too many
        if channel == "private" and verdict.registered:
            pending = self._pending_confirmation(game, msg, verdict.registered)
            if pending is not None:
                self._confirm(
                    game,
                    key,
                    info,
                    pending,
                    now,
                    strong=verdict.strong,
                    keys=copies,
                    mail=verdict.message or msg,
                )
                return
        ask = (
            channel == "list"
            and not self.relay
            and verdict.registered is not None
            and self.cfg.auth.confirm_list_votes
        )
        step = game.table.receive(
            verdict.message or msg,
            channel=channel,
            now=now,
            relay=self.relay,
            confirm="ask" if ask else None,
            strong=verdict.strong,
            admins=self.cfg.admins,
        )
        rows = self._rows(game, step, now, error=not step.events)
        notice_keys: tuple[str, ...] = ()
        if munged is not None and verdict.registered is None and not verdict.admin:
            notice_keys, notices = self._unattributed(game, munged, msg, now)
            rows += notices
        hold = None
        deferred: tuple[str, ...] = tuple(getattr(step, "deferred", ()))
        if ask and deferred and verdict.registered is not None:
            if self.confirm_requests.allow(game.id, verdict.registered, now):
                hold, request = self._confirmation_request(game, key, msg, raw, deferred, now)
                rows.append(request)
            else:  # a flood of posts in his name (forged, most likely): nothing more mailed
                log.warning(
                    "game %s: confirmation requests to %s over the hourly limit: post %s "
                    "not counted",
                    game.id,
                    verdict.registered,
                    key[:12],
                )
        if channel == "list" and self.relay:
            post = getattr(step, "post", None)
            # the post as received, cleaned of every code wherever it shows (relay_copy),
            # not only of the text part's SECRET line (issue 10 item 10)
            sent = _without_codes(raw) if self._codes_in_use else raw
            if post == "relay" and sent is not None:
                rows.append(self._relay_row(game, key, msg, sent, now))
            elif post == "hold" and sent is not None:
                hold = {"key": key, "raw": sent.decode("latin-1"), "at": now.isoformat()}
        game.store.commit(
            events=step.events,
            outbox=rows,
            ledger_key=key,
            ledger_info=info,
            # its phase: a confirmation lapses with it (release_held)
            hold=hold if hold is None else {"window": self._bounce_window(game), **hold},
            extra_keys=(*copies, *notice_keys),
        )
        self.fault("after_state")
        game.keys.add(key)
        game.keys.update((*copies, *notice_keys))
        game.table.apply(step)
        self._bounce_clear(game, verdict.registered if step.events else None, now)
        if step.events:
            self.release_held(game, now)
        self.rearm(game)
        self.sender.wake()

    # ---- public votes confirmed through the registered address (requirement 6) ---------

    def _confirmation_request(
        self, game: Game, key: str, msg: Message, raw: bytes, lines: Sequence[str], now: datetime
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The pending post (kept with the game) and the mail asking its confirmation, sent
        to the REGISTERED address: a forger never sees the token."""
        sender = (_addresses(msg, "From") or [""])[0]
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        name = names[sender]
        to = game.table.player_emails[name]
        token = secrets.token_hex(8)
        subject, body = self.texts.mail(
            "daemon/confirm_vote",
            game.table.player_langs.get(name, self.cfg.language),
            {
                "game": game.id,
                "token": token,
                "lines": list(lines),
                "secret": "secret" in self.cfg.auth.methods,
            },
        )
        mid_in = str(msg.get("Message-ID", "") or "") or None
        mid, mail = build(
            key=f"confirm:{game.id}:{key}",
            sender=self.cfg.moderator,
            to=(to,),
            subject=subject,
            body=body,
            date=now,
            id_key=self.id_key,
            auto="auto-replied",
            in_reply_to=mid_in,
        )
        pending = {
            "key": key,
            "kind": "confirm",
            "token": token,
            "player": to.lower(),
            "raw": raw.decode("latin-1"),
            "at": now.isoformat(),
            "phase": phase_of(game.table.deadlines()),  # it lapses with its phase
        }
        row = make_row(
            message_id=mid,
            raw=mail,
            rcpts=[to],
            mail_from=self.cfg.bounce,
            now=now,
            kind="confirm",  # its Subject carries the token: never in a digest
            game=game.id,
        )
        return pending, row

    def _pending_confirmation(
        self, game: Game, msg: EmailMessage, registered: str
    ) -> dict[str, Any] | None:
        """The pending list post this private mail confirms: its token, from its poster."""
        tokens = set(_CONFIRM.findall(_visible_text(msg)))
        if not tokens:
            return None
        for held in game.store.held():
            if (
                held.get("kind") == "confirm"
                and held.get("token") in tokens
                and held.get("player") == registered.lower()
            ):
                return held
        for token in tokens:  # its phase ended before the confirmation came: lapsed
            if lapsed_mark(token, registered) in game.keys:
                return {"key": "", "token": token, "player": registered.lower(), "phase": ""}
        return None

    def _confirm(
        self,
        game: Game,
        key: str,
        info: Mapping[str, Any],
        pending: dict[str, Any],
        now: datetime,
        *,
        strong: bool,
        keys: Sequence[str] = (),
        mail: EmailMessage | None = None,
    ) -> None:
        """Run the confirmed post's commands now, in one commit with the confirmation's ledger
        key, unless its phase is over (issue 10 item 11: it lapses with its phase, and the
        player is told why). The confirming mail's other lines are answered as a private mail
        (:func:`pbem.confirmations.other_lines`), after the confirmed commands."""
        steps: list[Any] = []
        rows: list[dict[str, Any]] = []
        if lapsed(pending, phase_of(game.table.deadlines())):
            log.info("game %s: confirmation of %s lapsed with its phase", game.id, pending["key"])
            rows += self._confirm_lapsed(game, pending, mail, now)
        else:
            post = parse(str(pending["raw"]).encode("latin-1"))
            steps.append(
                game.table.receive(post, channel="list", now=now, confirm="apply", strong=strong)
            )
            rows += self._rows(game, steps[0], now, error=not steps[0].events)
        rest = other_lines(mail) if mail is not None else None
        applied = 0
        try:
            if rest is not None:
                for step in steps:  # the rest reads the state after the confirmed commands
                    game.table.apply(step)
                    applied += 1
                step = game.table.receive(rest, channel="private", now=now, strong=strong)
                rows += self._rows(game, step, now, error=not step.events)
                steps.append(step)
            game.store.commit(
                events=[e for step in steps for e in step.events],
                outbox=rows,
                ledger_key=key,
                ledger_info={**info, "why": "confirmation"},
                unhold=[str(pending["key"])] if pending["key"] else [],
                extra_keys=keys,
            )
        except BaseException:
            if applied:  # not committed: the table goes back to what the store holds
                game.table = self.engine.load(game.store.setup, game.store.events())
            raise
        self.fault("after_state")
        game.keys.add(key)
        game.keys.update(keys)
        for step in steps[applied:]:
            game.table.apply(step)
        if any(step.events for step in steps):
            self._bounce_clear(game, str(pending["player"]), now)
        self.rearm(game)
        self.sender.wake()

    def _confirm_lapsed(
        self, game: Game, pending: Mapping[str, Any], msg: EmailMessage | None, now: datetime
    ) -> list[dict[str, Any]]:
        """The player confirmed a post whose phase is over: nothing counts, and he is told."""
        to = str(pending["player"])
        if not self.limits.take(to, now)[0]:
            return []
        subject, body = self.texts.mail(
            "daemon/confirm_lapsed",
            self._lang(game, to),
            {"game": game.id, "at": pending.get("at") or ""},
        )
        mid_in = str(msg.get("Message-ID", "") or "") or None if msg is not None else None
        mid, raw = build(
            key=f"lapsed:{game.id}:{pending['token']}",
            sender=self.cfg.moderator,
            to=(to,),
            subject=subject,
            body=body,
            date=now,
            auto="auto-replied",
            in_reply_to=mid_in,
            id_key=self.id_key,
        )
        return [
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=[to],
                mail_from=self.cfg.bounce,
                now=now,
                kind="reply",
                game=game.id,
            )
        ]

    # ---- the list, when the daemon relays it itself ------------------------------------

    def _relay_row(
        self, game: Game, key: str, msg: Message, raw: bytes, now: datetime
    ) -> dict[str, Any]:
        """The outbox row that distributes one accepted list post to the list's members."""
        sender = (_addresses(msg, "From") or [""])[0]
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        poster = names.get(sender) or "MJ"  # otherwise a game administrator
        address = self.list_address(game)
        mid, copy = relay_copy(
            raw,
            key=key,
            poster=str(poster),
            game_tag=game.id,
            list_address=address,
            list_id=list_id_for(address, self.cfg.list_id),
            moderator=self.cfg.moderator,
            date=now,
            id_key=self.id_key,
            strip_codes=self._codes_in_use,
        )
        return make_row(
            message_id=mid,
            raw=copy,
            rcpts=self.list_members(game),
            mail_from=self.cfg.bounce,
            now=now,
            kind="relay",
            game=game.id,
        )

    def _stop_post(
        self,
        game: Game,
        key: str,
        info: Mapping[str, Any],
        msg: EmailMessage,
        raw: bytes,
        registered: str,
        now: datetime,
    ) -> bool:
        """A player's list post that must not reach the members (:mod:`pbem.listgate`): it
        carries one of pbem's private mails (issue 10 item 15: the game master is alerted),
        it is over the length caps, or its poster is past his hourly limit (item 16). Such a
        post is neither relayed nor read; its poster is told why. True if it was stopped
        (then committed with its ledger key)."""
        lists = {self.list_address(game), self.cfg.list_address or ""} - {""}
        stop = stop_reason(
            msg,
            raw,
            limits=self.cfg.list_limits,
            posters=self.posters,
            game=game.id,
            poster=registered,
            now=now,
            id_key=self.id_key,
            ours=self.our_addresses,
            lists=lists,
        )
        if stop is None:
            return False
        reason, params = stop
        log.warning("game %s: list post %s not relayed: %s", game.id, key[:12], reason)
        rows = []
        # a poster past his limit hears it within the error budget; the other reasons are
        # rarer and must be heard (the daily budget still bounds them)
        if self.limits.allow(registered, now, error=reason == "too_many"):
            names = {a.lower(): n for n, a in game.table.player_emails.items()}
            name = names.get(registered.lower(), "")
            lang = game.table.player_langs.get(name, self.cfg.language)
            subject, body = self.texts.mail(
                "daemon/post_not_relayed", lang, {"game": game.id, "reason": reason, **params}
            )
            mid_in = str(msg.get("Message-ID", "") or "") or None
            mid, mail = build(
                key=f"stopped:{game.id}:{key}",
                sender=self.cfg.moderator,
                to=(registered,),
                subject=subject,
                body=body,
                date=now,
                id_key=self.id_key,
                auto="auto-replied",
                in_reply_to=mid_in,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=mail,
                    rcpts=[registered],
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="notice",
                    game=game.id,
                )
            )
        masters = [str(a) for a in game.store.setup.get("admins", [])] or list(self.cfg.admins)
        if reason == "private_mail" and masters:
            names = {a.lower(): n for n, a in game.table.player_emails.items()}
            subject, body = self._bilingual(
                "daemon/alert_private_post",
                {
                    "game": game.id,
                    "poster": names.get(registered.lower(), registered),
                    "how": params["how"],
                    "subject": " ".join(str(msg.get("Subject", "") or "").split())[:200],
                },
            )
            mid, mail = build(
                key=f"private-post:{game.id}:{key}",
                sender=self.cfg.moderator,
                to=tuple(masters),
                subject=subject,
                body=body,
                date=now,
                id_key=self.id_key,
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=mail,
                    rcpts=masters,
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="alert",
                    game=game.id,
                    bypass_cap=True,
                )
            )
        game.store.commit(outbox=rows, ledger_key=key, ledger_info={**info, "why": reason})
        self.fault("after_state")
        game.keys.add(key)
        self.sender.wake()
        return True

    @property
    def _codes_in_use(self) -> bool:
        """Players or game masters may write a SECRET line: no relayed copy may carry it
        (issue 10 item 10)."""
        auth = self.cfg.auth
        # game masters write one too: their admin code (issue 10 item 9)
        return auth.admin_secret or "secret" in (*auth.methods, *(auth.final_methods or ()))

    def release_held(self, game: Game, now: datetime) -> int:
        """Relay the held posts whose senders may post again (the list reopened), drop those
        of players who may no longer post, in arrival order; one commit. Returns the number
        released or dropped. First, a pending confirmation from a phase that has ended lapses
        (a late vote would be refused anyway): held posts never outlive their phase."""
        window = self._bounce_window(game)
        ended = [
            h
            for h in game.store.held_entries()
            if h.get("kind") == "confirm" and h.get("window", window) != window
        ]
        if ended:
            # a mark per token stays in the ledger: a confirmation arriving later is refused
            # with the reason (issue 10 item 11), not taken for an unrelated mail
            marks = [lapsed_mark(str(h.get("token")), str(h.get("player"))) for h in ended]
            game.store.commit(unhold=[str(h["key"]) for h in ended], extra_keys=marks)
            game.keys.update(marks)
            log.info("game %s: %d pending confirmation(s) lapsed", game.id, len(ended))
        if not self.relay:
            return 0
        rows: list[dict[str, Any]] = []
        done: list[str] = []
        still: list[str] = []
        for held in game.store.held_entries():
            if held.get("kind") == "confirm":
                continue  # waits for its poster's confirmation, not for the list
            if held.get("window") == window:
                continue  # the phase it was held in goes on: the list has not reopened
            raw = game.store.held_raw(held)
            try:
                msg = parse(raw)
                step = game.table.release(msg, now)
                if step.post == "hold":
                    still.append(str(held["key"]))
                    continue
                if step.post == "relay":
                    rows.append(self._relay_row(game, str(held["key"]), msg, raw, now))
                else:
                    rows += self._rows(game, step, now, error=False)
            except Exception:  # it was parsed once already; a bug must not block the game
                log.exception("game %s: held post %s could not be released", game.id, held["key"])
                continue
            done.append(str(held["key"]))
        if still:  # asked again only when this phase ends, not after every mail
            game.store.set_held_window(still, window)
        if done:
            game.store.commit(outbox=rows, unhold=done)
            log.info("game %s: %d held post(s) released", game.id, len(done))
            self.sender.wake()
        return len(done)

    def _list_addresses(self) -> set[str]:
        lists = {str(g.store.setup.get("list", "")).lower() for g in self.games.values()}
        if self.cfg.list_address:
            lists.add(self.cfg.list_address.lower())
        lists.discard("")
        return lists

    def _list_rewrite(self, msg: Message, channel: Channel) -> Attribution | None:
        """A post of an external list whose From the list rewrote for DMARC, and its author
        (:mod:`pbem.mail.listpost`); None for any other mail. A relayed list's posts reach us
        directly, never rewritten."""
        if channel != "list" or self.relay:
            return None
        players = {a.lower() for g in self.games.values() for a in g.table.player_emails.values()}
        return attribute(msg, self._list_addresses(), players, self.our_addresses)

    def _unattributed(
        self, game: Game, munged: Attribution, msg: Message, now: datetime
    ) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
        """A rewritten list post attributed to no player: the game master is told once per
        sender (the ledger key, committed with the post, remembers it across restarts)."""
        who = (munged.author or munged.label).lower()
        mark = "unattributed:" + hashlib.sha256(f"{game.id}\n{who}".encode()).hexdigest()
        if mark in game.keys:
            return (), []
        log.warning("game %s: list post from %r attributed to no player", game.id, who)
        shown = msg.get("X-Pbem-List-From") or msg.get("From", "")
        post = {"shown": str(shown).strip(), "subject": str(msg.get("Subject", "") or "")}
        admins = tuple(sorted({*self.cfg.admins, *map(str, game.store.setup.get("admins", []))}))
        alert = self._admin_alert(
            mark,
            now,
            "daemon/alert_unattributed",
            {"game": game.id, "author": munged.author or "", **post},
            to=admins,
        )
        return (mark,), alert

    def _channel(self, msg: Message, rcpts: Sequence[str] | None = None) -> Channel:
        list_id = str(msg.get("List-Id", "") or "").lower()
        if self.cfg.list_id and self.cfg.list_id.lower() in list_id:
            return "list"
        lists = {g.store.setup.get("list", "").lower() for g in self.games.values()}
        lists.discard("")
        if self.cfg.list_address:
            lists.add(self.cfg.list_address.lower())
        if list_id and any(a.replace("@", ".") in list_id for a in lists):
            return "list"
        if lists & set(_addresses(msg, "To", "Cc") if rcpts is None else rcpts):
            return "list"
        return "private"

    def route(
        self, msg: Message, rcpts: Sequence[str] | None = None, sender: str | None = None
    ) -> Game | None:
        """Plus-address, then the list address of exactly one game, then a ``[tag]`` in the
        Subject, then the sender's only active game. ``rcpts`` (To and Cc) and ``sender``
        are the mail's, when already read."""
        local, _, domain = self.cfg.moderator.lower().partition("@")
        to_cc = _addresses(msg, "To", "Cc") if rcpts is None else list(rcpts)
        for addr in to_cc + _addresses(msg, "Delivered-To", "X-Original-To"):
            a_local, _, a_domain = addr.partition("@")
            if a_domain == domain and a_local.startswith(local + "+"):
                tag = a_local[len(local) + 1 :]
                for gid, g in self.games.items():
                    if gid.lower() == tag:
                        return g
        listed = [
            g for g in self.games.values() if str(g.store.setup.get("list", "")).lower() in to_cc
        ]
        if len(listed) == 1:  # a game with a list of its own (several games may share one)
            return listed[0]
        subject = str(msg.get("Subject", "") or "")
        for tag in _TAG.findall(subject):
            for gid, g in self.games.items():
                if gid.lower() == tag.lower():
                    return g
        if sender is None:
            sender = (_addresses(msg, "From") or [""])[0]
        mine = [
            g
            for g in self.games.values()
            if not g.table.finished
            and sender in {e.lower() for e in g.table.player_emails.values()}
        ]
        return mine[0] if len(mine) == 1 else None

    def _rows(self, game: Game, step: Any, now: datetime, *, error: bool) -> list[dict[str, Any]]:
        """Outbox rows for a step; per-sender limits on private automatic replies (§2.5)."""
        rows = []
        members = self._members(game)
        for seq, out in enumerate(step.outgoing):
            if not out.public and out.auto == "auto-replied":
                rcpts, resume = [], None
                for r in out.to:
                    if error and r.lower() in members:  # a game member: a burst, then a pace
                        ok, when = self.limits.take(r, now)
                    else:
                        ok, when = self.limits.allow(r, now, error=error), None
                    if ok:
                        rcpts.append(r)
                        resume = resume or when
                if not rcpts:
                    log.warning("reply %s suppressed by the per-sender limits", out.key)
                    self._count("rate_limited")
                    continue
                if resume is not None:  # this reply spends the last one: say so in it
                    out = limit_note(out, self.texts, self._lang(game, rcpts[0]), resume)
            elif out.public and self.relay:
                rcpts = self.list_members(game)  # the daemon is the list: to every member
            else:
                rcpts = list(out.to)
            mid, raw = build_outgoing(
                out,
                sender=self.cfg.moderator,
                date=now,
                id_key=self.id_key,
                extra=self.list_headers(game) if out.public else (),
            )
            rows.append(
                make_row(
                    message_id=mid,
                    raw=raw,
                    rcpts=rcpts,
                    mail_from=self.cfg.bounce,
                    now=now,
                    kind="public" if out.public else "reply",
                    game=game.id,
                    seq=seq,
                )
            )
        # the game ends with this step: everyone gets its archive (issue 14)
        rows += archive_rows(
            game.table,
            step,
            sender=self.cfg.moderator,
            mail_from=self.cfg.bounce,
            now=now,
            first_seq=len(step.outgoing),
            id_key=self.id_key,
        )
        return rows

    def _members(self, game: Game) -> set[str]:
        """Who a game answers by the members' reply budget: its players and game masters."""
        admins = [*self.cfg.admins, *map(str, game.store.setup.get("admins", []))]
        return {a.lower() for a in (*game.table.player_emails.values(), *admins)}

    def _lang(self, game: Game, address: str) -> str:
        names = {a.lower(): n for n, a in game.table.player_emails.items()}
        return game.table.player_langs.get(names.get(address.lower(), ""), self.cfg.language)

    def _bilingual(self, template: str, params: Mapping[str, Any]) -> tuple[str, str]:
        """A daemon text for several readers: French first, then English."""
        return bilingual(self.texts, template, params)

    def _no_game_reply(self, msg: Message, sender: str, now: datetime) -> list[dict[str, Any]]:
        """An error reply for mail that reaches no game: null envelope sender, rate-limited.

        A sender without a domain gets nothing (there is no address to answer); a player is
        told his own running games; a stranger what ``[daemon] strangers`` says (issue 10,
        item 20: by default no list of the games and their addresses)."""
        if not is_mailable(sender):
            return []
        active = sorted(g.id for g in self.games.values() if not g.table.finished)
        mine = [
            gid
            for gid in active
            if sender in {e.lower() for e in self.games[gid].table.player_emails.values()}
        ]
        if not mine and self.cfg.strangers == "silent":
            return []
        if not self.limits.allow(sender, now, error=True):
            return []
        shown = mine or (active if self.cfg.strangers == "games" else [])
        local, _, domain = self.cfg.moderator.partition("@")
        games = [{"id": gid, "address": f"{local}+{gid}@{domain}"} for gid in shown]
        _, body = self._bilingual("daemon/no_game", {"games": games, "player": bool(mine)})
        mid_in = str(msg.get("Message-ID", "") or "") or None
        mid, raw = build(
            key=f"nogame:{mid_in}:{sender}:{now.isoformat()}",
            sender=self.cfg.moderator,
            to=(sender,),
            subject="Re: " + str(msg.get("Subject", "") or ""),
            body=body,
            date=now,
            id_key=self.id_key,
            auto="auto-replied",
            in_reply_to=mid_in,
        )
        return [
            make_row(message_id=mid, raw=raw, rcpts=[sender], mail_from="", now=now, kind="reply")
        ]

    def _admin_secrets(self, game: Game) -> list[Mapping[str, str]]:
        """The admin codes a game master's mail may carry: the game's, the daemon's."""
        own = game.store.meta.get("admin_secret")
        return [c for c in (own, self.cfg.auth.admin_secret_hash) if c]

    def _admin_refused(
        self, game: Game, msg: EmailMessage, verdict: AuthVerdict, now: datetime
    ) -> list[dict[str, Any]]:
        """Mail claiming a game master's address failed the admin layers (issue 10 item 9):
        refused, nothing answered to the From, the real game masters alerted (a bucket of
        their own per game: a flood of forgeries is not a flood of alerts)."""
        mid_in = str(msg.get("Message-ID", "") or "")
        log.warning(
            "game %s: mail from a game master's address refused: %s", game.id, verdict.reason
        )
        if not self.limits.take(f"admin-alerts@{game.id}", now, notice=True)[0]:
            return []
        admins = tuple(sorted({*self.cfg.admins, *map(str, game.store.setup.get("admins", []))}))
        return self._admin_alert(
            f"admin-refused:{game.id}:{mid_in}:{now.isoformat()}",
            now,
            "daemon/alert_admin_refused",
            {
                "game": game.id,
                "reason": verdict.reason,
                "sender": str(msg.get("From", "")),
                "subject": str(msg.get("Subject", "")),
                "received": " | ".join(str(v) for v in msg.get_all("Received", [])[:2]),
            },
            to=admins,
        )

    def _auth_notice(
        self, game: Game, msg: EmailMessage, verdict: AuthVerdict, now: datetime
    ) -> list[dict[str, Any]]:
        """A rejected command: notice to the REGISTERED address, never Reply-To (requirement 7)."""
        to = verdict.registered
        # a bucket of its own: forged mail never spends the real player's replies
        if not to or not self.limits.take(to, now, notice=True)[0]:
            return []
        mid_in = str(msg.get("Message-ID", "") or "") or None
        names = {mail.lower(): name for name, mail in game.table.player_emails.items()}
        lang = game.table.player_langs.get(names.get(to.lower(), ""), self.cfg.language)
        subject, body = self.texts.mail(
            "daemon/auth_rejected",
            lang,
            {
                "game": game.id,
                "reason": verdict.reason,
                "sender": str(msg.get("From", "")),
                "subject": str(msg.get("Subject", "")),
            },
        )
        mid, raw = build(
            key=f"auth:{game.id}:{mid_in}:{now.isoformat()}",
            sender=self.cfg.moderator,
            to=(to,),
            subject=subject,
            body=body,
            date=now,
            id_key=self.id_key,
            auto="auto-replied",
            in_reply_to=mid_in,
        )
        return [
            make_row(
                message_id=mid,
                raw=raw,
                rcpts=[to],
                mail_from=self.cfg.bounce,
                now=now,
                kind="notice",  # a forgery warning stands alone, never in a digest
                game=game.id,
            )
        ]

    # ---- bounces (RELIABILITY §2.4 VERP, §2.5 hard-bounce counting) ---------------------

    def _load_verp_key(self) -> bytes:
        """The HMAC key of VERP tokens, made once and kept in the daemon file. It is no player
        secret: it only stops a third party from forging a token for a chosen player."""
        key = self.daemon.get_meta("verp_key")
        if not isinstance(key, str):
            key = secrets.token_hex(32)
            self.daemon.set_meta("verp_key", key)
        return bytes.fromhex(key)

    def _verp_sender(self, row: Mapping[str, Any], rcpt: str) -> str | None:
        """The VERP envelope sender for a registered player of the row's game, else None."""
        game = self.games.get(str(row.get("game") or ""))
        if game is None or row.get("kind") == "alert":
            return None
        if rcpt.lower() not in {a.lower() for a in game.table.player_emails.values()}:
            return None
        return verp_address(self.cfg.bounce, verp_token(self.verp_key, game.id, rcpt))

    def _bounce_window(self, game: Game) -> str:
        """The counting window: the game's current deadline instances ("within a phase")."""
        deadlines = game.table.deadlines()
        return ",".join(sorted(self.instance_id(k, when) for k, when in deadlines.items()))

    def _bounce_matches(self, report: Bounce) -> list[tuple[Game, str, str, Failure]]:
        """(game, player, registered address, failure): by VERP token, else by the failed
        addresses among active games' registered addresses."""
        active = [g for g in self.games.values() if not g.table.finished]
        if report.token is not None:
            worst = sorted(report.failures, key=lambda f: (not f.hard, not f.address))
            for g in active:
                for name, addr in g.table.player_emails.items():
                    token = verp_token(self.verp_key, g.id, addr)
                    if worst and hmac.compare_digest(token, report.token):
                        return [(g, name, addr.lower(), worst[0])]
        out = []
        for f in report.failures:
            for g in active:
                for name, addr in g.table.player_emails.items():
                    if f.address and f.address == addr.lower():
                        out.append((g, name, f.address, f))
        return out

    def _handle_bounce(self, key: str, raw: bytes, info: Mapping[str, Any], now: datetime) -> bool:
        """Count a hard bounce against its player (RELIABILITY §2.5), committed with the mail's
        ledger key in the game's store; at ``hard_bounces`` within one deadline window, flag the
        player unreachable and alert the admins, once. No game action (no auto-CD), no reply,
        no command parsing. False when nothing was counted (a soft bounce, a delay, no player or
        several games): the caller then ledgers it as an ignored automatic mail."""
        try:
            report = parse_bounce(parse_bytes(raw), bounce_address=self.cfg.bounce)
        except MailError as exc:
            log.warning("bounce %s unreadable: %s", key[:12], exc)
            return False
        matches = self._bounce_matches(report)
        for game, name, _addr, f in matches:
            if not f.hard:
                log.info(
                    "bounce %s: %s %s for %s (%s): logged only",
                    key[:12],
                    f.action,
                    f.status or "?",
                    name,
                    game.id,
                )
        matches = [m for m in matches if m[3].hard]
        games = {m[0].id for m in matches}
        if len(games) != 1:
            if report.hard:
                addrs = ", ".join(sorted({f.address or "?" for f in report.hard}))
                why = "several games (turn [smtp] verp on)" if games else "no player"
                log.warning("bounce %s: hard failure for %s matches %s", key[:12], addrs, why)
            return False
        game = matches[0][0]
        window = self._bounce_window(game)
        states = game.store.bounce_states()
        records: dict[str, dict[str, Any]] = {}
        alerts: list[dict[str, Any]] = []
        for _, name, addr, f in matches:
            if name in records:
                continue  # one count per player and bounce
            rec = dict(states.get(name) or {"player": name, "unreachable": False})
            count = int(rec.get("count", 0)) + 1 if rec.get("window") == window else 1
            rec.update(address=addr, window=window, count=count, last_at=now.isoformat())
            rec["last_status"] = f.status or f.action
            log.warning(
                "bounce %s: hard (%s) for %s <%s> in %s: %d/%d",
                key[:12],
                rec["last_status"],
                name,
                addr,
                game.id,
                count,
                self.cfg.hard_bounces,
            )
            if count >= self.cfg.hard_bounces and not rec.get("unreachable"):
                rec.update(unreachable=True, flagged_at=now.isoformat())
                alerts += self._admin_alert(
                    f"unreachable:{game.id}:{name}:{key}",
                    now,
                    "daemon/alert_unreachable",
                    {
                        "game": game.id,
                        "player": name,
                        "address": addr,
                        "count": count,
                        "last_status": rec["last_status"],
                        "diagnostic": f.diagnostic or "",
                    },
                )
            records[name] = rec
        game.store.commit(
            outbox=alerts,
            ledger_key=key,
            ledger_info={**info, "why": "bounce"},
            bounces=list(records.values()),
        )
        game.keys.add(key)
        self._count("bounce")
        self.sender.wake()
        return True

    def _bounce_clear(self, game: Game, address: str | None, now: datetime) -> None:
        """An accepted command from a player: their address works, so the count and the
        unreachable flag are cleared (a write only when there was something to clear)."""
        if not address:
            return
        for name, rec in game.store.bounce_states().items():
            if rec.get("address") == address.lower() and (
                rec.get("count") or rec.get("unreachable")
            ):
                rec.update(count=0, unreachable=False, cleared_at=now.isoformat())
                game.store.commit(bounces=[rec])
                log.info(
                    "game %s: %s's mail is accepted again: bounce count cleared", game.id, name
                )

    def reachable_requests(self) -> int:
        """Act on ``pbem reachable GAME PLAYER`` (request files in ``reachable/``, one writer):
        clear the player's hard-bounce count and unreachable flag, committed in the game's
        store. A request for a game or player the daemon does not know is logged and dropped.
        Returns the number of requests consumed."""
        requests = self.requests.pending(self.root / REACHABLE_SPOOL)
        for req in requests:
            try:
                data = json.loads(req.read_text(encoding="utf-8"))
                self._mark_reachable(str(data["game"]), str(data["player"]), self.clock())
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("reachable request %s unreadable: %s: dropped", req.name, exc)
            # consumed after the commit: clearing is idempotent, so a crash in between only
            # clears twice
            self.requests.consume(req)
        return len(requests)

    def _mark_reachable(self, game_id: str, player: str, now: datetime) -> None:
        game = self.games.get(game_id)
        if game is None or player not in game.table.player_emails:
            log.warning("reachable request: no player %r in game %r: ignored", player, game_id)
            return
        rec = game.store.bounce_states().get(player)
        if rec is None or not (rec.get("count") or rec.get("unreachable")):
            log.info("game %s: %s marked reachable: no bounce to clear", game_id, player)
            return
        was = "unreachable" if rec.get("unreachable") else f"{rec.get('count')} hard bounce(s)"
        rec.update(count=0, unreachable=False, cleared_at=now.isoformat(), cleared_by="operator")
        game.store.commit(bounces=[rec])
        log.warning(
            "game %s: %s marked reachable by the operator (was %s): bounce count cleared",
            game_id,
            player,
            was,
        )

    # ---- shunt retries (requested by `pbem shunt retry`, a spool file: one writer) ------

    def retry_requests(self) -> int:
        requests = self.requests.pending(self.root / SHUNT_RETRY_SPOOL)
        for req in requests:
            key = req.name
            eml = self.root / "shunt" / f"{key}.eml"
            row = self.daemon.shunt_row(key)
            # consumed BEFORE the retry: a retried mail that kills the process again must not
            # come back at every start-up (a crash loop); the admin can ask again
            if not self.requests.consume(req):
                continue
            if row is not None and eml.exists() and not self.knows(key):
                raw = eml.read_bytes()
                try:
                    self._apply_mail(key, None, raw, self.clock())
                    self.daemon.remove_shunt(key)
                    log.info("shunted mail %s retried: applied", key[:12])
                except Exception as exc:
                    self._shunt(key, None, raw, exc, {**row, "failures": 0})
        self.sender.wake()
        return len(requests)

    # ---- the queue ----------------------------------------------------------------------

    def submit_nowait(self, kind: str, *args: Any) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self.stopping:
            fut.cancel()  # no new work after SIGTERM: the awaiting loop unwinds
            return fut
        self.queue.put_nowait(WorkItem(kind, args, fut))
        return fut

    async def submit(self, kind: str, *args: Any) -> Any:
        return await self.submit_nowait(kind, *args)

    def handle_batch(
        self, batch: Sequence[Fetched], now: MailTime = None
    ) -> dict[int, Disposition]:
        """A batch of mails with one durable write per touched file (group commit).

        Each mail is still its own transaction (a poison mail is rolled back alone); the group
        makes them durable together before any MOVE. A failure of the group write itself
        propagates: memory is then ahead of the disk, so the daemon must stop (and restart).

        Crash-loop containment (:mod:`pbem.inflight`): the batch is split, in order, into runs;
        a suspect or a mail with a failure on record is a run of its own. Each run is announced
        by one durable in-flight record before it is handled.

        ``now``: the time a mail counts at (default: the clock), or a function of the mail
        (the start-up drain counts each mail at its arrival, §5.4).
        """
        shunted = self.daemon.shunt_status()
        out: dict[int, Disposition] = {}
        run: list[tuple[Fetched, str | None]] = []
        for f in batch:
            # the key of a mail that will be handled (not oversize, not quarantined)
            key = content_key(f.raw) if f.raw is not None else None
            if key is not None and shunted.get(key) == "quarantined":
                key = None
            if key is not None and (key in self.suspects or key in shunted):
                if run:
                    out.update(self._handle_run(run, now))
                out.update(self._handle_run([(f, key)], now))
                run = []
            else:
                run.append((f, key))
        if run:
            out.update(self._handle_run(run, now))
        return out

    def _handle_run(
        self, run: Sequence[tuple[Fetched, str | None]], now: MailTime
    ) -> dict[int, Disposition]:
        keys = [k for _f, k in run if k is not None and not self.knows(k)]
        attempt = self._announce(keys)
        marker = self.marker
        try:
            with self._group():
                out: dict[int, Disposition] = {}
                for f, key in run:
                    if attempt is not None and marker is not None and key is not None:
                        marker.set(attempt, key)
                    out[f.uid] = self.handle_fetched(f, now(f) if callable(now) else now)
                    if key is not None:
                        self.suspects.pop(key, None)
                if attempt is not None and marker is not None:
                    marker.set(attempt, COMMIT)
        finally:
            self._attempt = None
        if attempt is not None and marker is not None:
            marker.set(attempt, DONE)
        self.fault("after_group")
        return out

    def _announce(self, keys: Sequence[str]) -> str | None:
        """The in-flight record of a batch about to be handled (None: nothing to handle)."""
        attempt = uuid.uuid4().hex[:16] if keys else None
        if attempt is not None and self.inflight is not None:
            rec = record(
                attempt, self.boot, keys, self.suspects, self.clock().isoformat(), self.run
            )
            self.inflight.write(rec)  # durable before anything is handled
        self._attempt = attempt
        return attempt

    @contextlib.contextmanager
    def _group(self) -> Iterator[None]:
        """One durable write per touched file at the end (group commit)."""
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.daemon.db.group())
            for g in self.games.values():
                stack.enter_context(g.store.head.group())
            yield

    # ---- held mail retried once the daemon is stable (pbem.inflight) ----------------------

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
            if (self.root / "shunt" / f"{k}.eml").exists() and not self.knows(k)
        ]

    def retry_held(self) -> int:
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

    def run_item(self, item: WorkItem) -> Any:
        """Run one work item synchronously on the loop (the single writer)."""
        if item.kind == "mail":
            f, now = item.args
            return self.handle_batch([f], now)[f.uid]
        if item.kind == "batch":
            return self.handle_batch(*item.args)
        if item.kind == "deadline":
            game_id, key, now = item.args
            if now is None and self.deadlines_held():
                log.warning("deadline %s:%s held: a clock jump is being handled", game_id, key)
                return False  # the jump handler resolves or extends it, then rearms
            try:
                return self.resolve_deadline(game_id, key, now)
            except Exception as exc:
                log.exception("deadline %s:%s failed; it stays open and is retried", game_id, key)
                self.deadline_failed(game_id, key, exc)
                return False
        if item.kind == "remind":
            if self.deadlines_held():
                return 0  # a reminder whose time passed in a jump is not sent late (as rearm)
            try:
                return self.send_reminders(*item.args)
            except Exception:
                log.exception("reminders %s failed", item.args)
                return 0
        if item.kind == "call":
            return item.args[0]()
        raise ValueError(item.kind)

    async def worker(self) -> None:
        """Take items one at a time; on stop, finish the item in hand and leave the rest."""
        try:
            await self._work()
        finally:
            while not self.queue.empty():  # left undone: their submitters unwind
                self.queue.get_nowait().future.cancel()

    async def _work(self) -> None:
        while True:
            item = await self.queue.get()
            if item.kind == "stop":
                break
            if self.stopping:  # queued before the stop: left for the next run
                item.future.cancel()
                continue
            try:
                result = self.run_item(item)
            except (StoreError, OSError) as exc:
                # a durable write failed (disk full...): memory may be ahead of the disk, so
                # stop taking work; nothing unwritten was acknowledged (requirement 2). A full
                # disk is waited out by ``serve`` (pbem.diskfull), which then starts afresh.
                self._write_failed(exc)
                if not item.future.done():
                    err = exc if isinstance(exc, StoreError) else StoreError(str(exc))
                    item.future.set_exception(err)
                break
            except Exception as exc:  # run_item guards mail; this is a bug: log, go on
                log.exception("work item %s failed", item.kind)
                if not item.future.done():
                    item.future.set_exception(exc)
                continue
            if not item.future.done():
                item.future.set_result(result)
            self.sender.wake()  # whatever the item committed may have queued mail

    def _write_failed(self, exc: BaseException) -> None:
        """A state write failed (the writer, or the sender removing a sent row): stop."""
        if is_disk_full(exc):
            self.disk_full = self.disk_full or exc
            log.critical("disk full: %s; pausing until space returns", exc)
        else:
            log.critical("state write failed: %s; stopping", exc)
        self.request_stop()

    def request_stop(self) -> None:
        """SIGTERM: stop taking new items; the one in hand is finished (it runs synchronously)."""
        if self.stopping:
            return
        self.queue.put_nowait(WorkItem("stop", (), asyncio.get_running_loop().create_future()))
        self.stopping = True
        if self.mailbox is not None:
            self.mailbox.interrupt.set()
        sender = getattr(self, "sender", None)  # not made yet if the stop came during open()
        if sender is not None:
            sender.stop()

    # ---- IMAP ---------------------------------------------------------------------------

    async def connect_imap(self, mk: Callable[[], Mailbox]) -> Mailbox:
        """Connect with capped exponential backoff (F3): never a busy loop."""
        delay = 0.5
        while not self.stopping:
            box = mk()
            self.mailbox = box
            try:
                await asyncio.to_thread(box.connect)
                self.check_uidvalidity(box)
                return box
            except ImapDown as exc:
                log.warning("IMAP unavailable (%s); retrying in %.1f s", exc, delay)
                await self._sleep(delay)
                delay = min(delay * 2, 60.0)
        raise asyncio.CancelledError

    async def _sleep(self, seconds: float) -> None:
        end = asyncio.get_running_loop().time() + seconds
        while not self.stopping and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(min(0.2, end - asyncio.get_running_loop().time()))

    def check_uidvalidity(self, box: Mailbox) -> None:
        """A changed UIDVALIDITY: loud log, admin alert, full rescan deduplicated by content (F4)."""
        stored = self.daemon.uidvalidity(box.s.inbox)
        if stored is not None and stored != box.uidvalidity:
            log.critical(
                "UIDVALIDITY of %s changed %d -> %d: full rescan, dedup by content hash",
                box.s.inbox,
                stored,
                box.uidvalidity,
            )
            self.daemon.commit(
                outbox=self._admin_alert(
                    f"uidvalidity:{stored}:{box.uidvalidity}",
                    self.clock(),
                    "daemon/alert_uidvalidity",
                    {"inbox": box.s.inbox, "old": stored, "new": box.uidvalidity},
                )
            )
        if stored != box.uidvalidity:
            self.daemon.set_uidvalidity(box.s.inbox, box.uidvalidity)
            self.sender.wake()

    async def fetch_pending(self, box: Mailbox) -> list[Fetched]:
        uids = await asyncio.to_thread(box.pending_uids)
        self.on_alive()
        out: list[Fetched] = []
        for i in range(0, len(uids), box.s.batch):
            out.extend(await asyncio.to_thread(box.fetch, uids[i : i + box.s.batch]))
        return out

    async def settle(self, box: Mailbox, done: Mapping[int, Disposition]) -> None:
        """MOVE after commit: Processed or Quarantine; 'keep' stays for the next attempt."""
        proc = [u for u, d in done.items() if d == "processed"]
        quar = [u for u, d in done.items() if d == "quarantine"]
        await asyncio.to_thread(box.move, proc, box.s.processed)
        await asyncio.to_thread(box.move, quar, box.s.quarantine)
        if proc or quar:
            self.fault("after_move")

    async def drain_at_startup(
        self, box: Mailbox, down: timedelta | None = None, *, clock_jump: bool = False
    ) -> None:
        """Outage policy (§5.4, requirement 11): drain the mailbox first, interleaving passed
        deadlines by time: mail that arrived before a deadline counts with ``now = INTERNALDATE``;
        or, after a long outage, extend the passed deadlines and tell the players.

        ``down`` is the outage length (default: since the stored ``last_seen``); a forward clock
        jump in a running daemon passes its size and ``clock_jump`` (:meth:`handle_clock_jump`):
        the players' extension mail then names the jump, not an outage."""
        now = self.clock()
        if down is None:
            last = self.daemon.get_meta("last_seen")
            down = now - datetime.fromisoformat(last) if last else timedelta(0)
        fetched = sorted(await self.fetch_pending(box), key=lambda f: (f.internaldate, f.uid))
        if down > timedelta(hours=self.cfg.outage_threshold_hours) and self.passed_deadlines(now):
            await self.submit(
                "call", lambda: self.extend_for_outage(now, down, clock_jump=clock_jump)
            )
        done: dict[int, Disposition] = {}
        i = 0
        while not self.stopping:
            dls = self.passed_deadlines(now)
            nxt = fetched[i] if i < len(fetched) else None
            if dls and (nxt is None or dls[0][0] <= nxt.internaldate):
                when, gid, key = dls[0]
                ok = await self.submit("deadline", gid, key, when)
                if not ok and (when, gid, key) in self.passed_deadlines(now):
                    # could not resolve (a bug): do not spin; it is retried later, and stalls
                    # its game after max_failures (then it is no longer "passed")
                    log.error("startup: deadline %s:%s not resolved", gid, key)
                    break
                continue
            if nxt is None:
                break
            # the mails before the next passed deadline, group-committed like the main loop's
            batch: list[Fetched] = []
            while i < len(fetched) and len(batch) < self.cfg.group_commit:
                f = fetched[i]
                if dls and dls[0][0] <= f.internaldate:
                    break
                batch.append(f)
                i += 1
            self.fault("after_fetch")
            done.update(await self.submit("batch", batch, lambda f: min(f.internaldate, now)))
        await self.settle(box, done)
        self.heartbeat()
        # forget non-game ledger keys past the retention (RELIABILITY §3.4 step 8); a game's
        # keys live (segmented) with the game
        cutoff = self.clock() - timedelta(days=self.cfg.ledger_retention_days)
        if any(d.get("at", "") < cutoff.isoformat() for d in self.daemon.db.table("ledger").all()):
            self.daemon.prune_ledger(cutoff.isoformat())
            self.daemon_keys = self.daemon.ledger_keys()

    def heartbeat(self) -> None:
        self.daemon.set_meta("last_seen", self.clock().isoformat())

    async def apply_in_order(
        self, fetched: Sequence[Fetched], due: list[tuple[datetime, str, str]]
    ) -> dict[int, Disposition]:
        """Apply fetched mail in group-committed batches; each due deadline is resolved after
        the mail that reached the server at or before it (INTERNALDATE, which then counts as
        its time, as in the start-up drain) and before the rest."""
        if due:
            fetched = sorted(fetched, key=lambda f: (f.internaldate, f.uid))
        now = self.clock()
        done: dict[int, Disposition] = {}
        i = 0
        while not self.stopping:
            if due and (i == len(fetched) or due[0][0] < fetched[i].internaldate):
                _when, game_id, key = due.pop(0)
                self.undue(game_id, key)
                await self.submit("deadline", game_id, key, None)
                continue
            if i == len(fetched):
                break
            limit = due[0][0] if due else None
            batch: list[Fetched] = []
            while i < len(fetched) and len(batch) < self.cfg.group_commit:
                if limit is not None and fetched[i].internaldate > limit:
                    break
                batch.append(fetched[i])
                i += 1
            self.fault("after_fetch")
            at: MailTime = None if limit is None else (lambda f: min(f.internaldate, now))
            done.update(await self.submit("batch", batch, at))
        return done

    async def imap_loop(self, mk: Callable[[], Mailbox], max_wait: float) -> None:
        """Fetch, process, move, wait; reconnect with backoff on any drop (F3)."""
        self.imap_looping = True
        try:
            await self._imap_loop(mk, max_wait)
        finally:
            self.imap_looping = False

    async def _imap_loop(self, mk: Callable[[], Mailbox], max_wait: float) -> None:
        box = self.mailbox
        last_beat = 0.0
        loop = asyncio.get_running_loop()
        while not self.stopping:
            try:
                if box is None or not box.connected:
                    box = await self.connect_imap(mk)
                self.note_clock()
                if self.clock_jump is not None:
                    await self.handle_clock_jump(box)
                await self.submit("call", self.scan_games_and_rearm)
                due = self.due_deadlines()  # taken BEFORE the fetch, which then sees their mail
                fetched = await self.fetch_pending(box)
                done = await self.apply_in_order(fetched, due)
                await self.settle(box, done)
                if loop.time() - last_beat > self.cfg.heartbeat_seconds:
                    await self.submit("call", self.heartbeat)
                    last_beat = loop.time()
                if self.stopping:
                    break
                if fetched and any(d != "keep" for d in done.values()):
                    continue  # more may have arrived meanwhile
                await asyncio.to_thread(box.wait, max_wait)
                self.on_alive()
            except ImapDown as exc:
                log.warning("IMAP dropped: %s", exc)
                box = None
                await self._sleep(0.5)

    # ---- clock jumps (F14): the outage policy, applied while running ----------------------

    def note_clock(self) -> ClockJump | None:
        """Feed the watch one (monotonic, wall) pair. A jump is logged and kept pending for the
        IMAP loop, whose wait it interrupts."""
        jump = self.clockwatch.observe(self.monotonic(), self.clock())
        if jump is None:
            return None
        log.critical("clock jump: %s", jump.describe())
        self.clock_jump = jump if self.clock_jump is None else self.clock_jump.then(jump)
        if self.mailbox is not None:
            self.mailbox.interrupt.set()
        return jump

    def deadlines_held(self) -> bool:
        """True while a jump is pending or handled: a scheduler-fired deadline then waits (the
        scheduler reads the wall clock: after a forward jump it fires every deadline at once,
        before the mailbox is drained)."""
        self.note_clock()
        return self.clock_hold or self.clock_jump is not None

    def requests_pending(self) -> bool:
        """Whether a CLI request file waits in a spool (three directory listings)."""
        return any(self.requests.pending(self.root / rel) for rel in REQUEST_SPOOLS)

    def operator_requests(self) -> int:
        """Act on every request the CLI dropped: ``pbem shunt retry``, ``pbem deadline retry``,
        ``pbem reachable``. Returns the number consumed."""
        return (
            self.retry_requests()
            + self.retry_stalled()
            + self.reachable_requests()
            + admin_requests(self, self.root / ADMIN_SPOOL)
        )

    def new_games_pending(self) -> bool:
        """Whether ``pbem new-game`` has put a game in place that is not loaded yet (one
        directory listing)."""
        return any(d.name not in self.games for d in list_games(self.root))

    async def watch_requests(self, period: float = 1.0) -> None:
        """A cheap ticker (``serve`` runs it beside the loop): an operator's request, and a game
        an operator created, are acted on within a second, even while the IMAP loop sits in
        IDLE (up to ``idle_renew``)."""
        while not self.stopping:
            for pending, work in (
                (self.requests_pending, self.operator_requests),
                (self.new_games_pending, self.scan_games_and_rearm),
                # held mail, once the daemon has been up long enough (pbem.inflight)
                (self.held_due, self.retry_held),
            ):
                if not pending():
                    continue
                try:
                    await self.submit("call", work)
                except asyncio.CancelledError:
                    return  # stopping
                except Exception:  # a request file we cannot consume: say so, keep ticking
                    log.exception("an operator request, a new game or a held mail failed")
            await self._sleep(period)

    async def watch_clock(self, period: float = 1.0) -> None:
        """A cheap ticker (``serve`` runs it beside the loop): jumps are seen within a second
        even while the IMAP loop sits in a long IDLE."""
        while not self.stopping:
            self.note_clock()
            await self._sleep(period)

    async def handle_clock_jump(self, box: Mailbox) -> None:
        """The start-up outage policy, for a jump seen while running: alert the admins; a forward
        jump longer than ``outage_threshold_hours`` is an outage (passed deadlines extended, the
        players told); a shorter one drains the mailbox, then resolves passed deadlines in order.
        A backward jump only rearms: resolution is a compare-and-set keyed by the deadline
        instance, so nothing already resolved is resolved again."""
        jump = self.clock_jump
        if jump is None:
            return
        self.clock_jump = None
        self.clock_hold = True
        try:
            await self.submit("call", lambda: self._clock_alert(jump))
            if jump.forward:
                await self.drain_at_startup(box, down=jump.skew, clock_jump=True)
            await self.submit("call", self.rearm_all)
        except BaseException:
            # IMAP dropped (or a stop) half-way: the jump stays pending, and scheduler-fired
            # deadlines held, until it is handled in full after the reconnection
            later = self.clock_jump
            self.clock_jump = jump if later is None else jump.then(later)
            raise
        finally:
            self.clock_hold = False

    def _clock_alert(self, jump: ClockJump) -> None:
        key = f"clockjump:{jump.before.isoformat()}:{jump.after.isoformat()}"
        if key in self.clock_alerted:
            return  # a retry after an IMAP drop
        self.clock_alerted.add(key)
        if not jump.forward:
            policy = "backward"
        elif jump.skew > timedelta(hours=self.cfg.outage_threshold_hours):
            policy = "outage"
        else:
            policy = "drain"
        self.daemon.commit(
            outbox=self._admin_alert(
                key,
                self.clock(),
                "daemon/alert_clock_jump",
                {
                    "forward": jump.forward,
                    "skew": abs(jump.skew.total_seconds()),
                    "before": jump.before.isoformat(),
                    "after": jump.after.isoformat(),
                    "elapsed": jump.elapsed.total_seconds(),
                    "policy": policy,
                    "threshold": self.cfg.outage_threshold_hours,
                    "grace": self.cfg.outage_grace_hours,
                },
            )
        )
        self.sender.wake()

    def rearm_all(self) -> None:
        for game in list(self.games.values()):
            self.rearm(game)

    def scan_games_and_rearm(self) -> None:
        for gid in self.scan_games():
            self.rearm(self.games[gid])
            self.sender.wake()


def _without_codes(raw: bytes) -> bytes | None:
    """A list post without its secret codes (:mod:`pbem.mail.scrub`); None if it cannot be
    rebuilt (then it is not relayed: better silent than leaking a code)."""
    try:
        return without_codes(raw)
    except Exception:
        log.warning("a list post could not be cleaned of its codes: not relayed")
        return None


def _safe_subject(raw: bytes) -> str:
    with contextlib.suppress(Exception):
        head = raw.split(b"\n\n", 1)[0][:8192]
        m = email.message_from_bytes(head)
        return str(m.get("Subject", ""))[:200]
    return ""
