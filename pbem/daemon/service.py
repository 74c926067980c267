"""The one coordinator: a queue of work items (mail, deadlines, shunt retries) and one writer.

Everything that writes state runs synchronously on the asyncio loop thread, one work item at a
time, with no ``await`` inside a transaction, so there is exactly one writer (requirement 3) and
a SIGTERM handled by the loop always falls between two items ("finish the item in hand").
Blocking IMAP calls run in a worker thread that never touches the store; SMTP runs in the
:class:`~pbem.daemon.outbox.OutboxSender` task beside the queue, so sending never blocks processing.

Per inbound mail (RELIABILITY §3.4): key = sha256(raw); skip if in a ledger; else route, check,
call the pure ``Table.receive``, and commit its events + outbox rows + the ledger key in ONE
atomic write; only then ``UID MOVE`` to Processed (requirements 1, 2).

A mail that kills the process instead of raising is caught by the in-flight record written
before each batch (:mod:`pbem.daemon.inflight`): at start-up it is blamed and, after ``max_failures``
deaths in consecutive runs, quarantined like a mail that raised, then retried alone once the
daemon has been stable (an outside kill must not hold a good mail for good). The rate-limit
windows ride along with the outbox writes (:mod:`pbem.daemon.limits`) and are reloaded at
:meth:`Service.open`."""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.adapters.dns import DnsResolver
from pbem.adapters.idkey import message_id_key
from pbem.adapters.spool import RequestSpool
from pbem.adapters.store import (
    DaemonStore,
    DirLock,
    GameStore,
    clean_stale_game_dirs,
    games_stamp,
    list_games,
)
from pbem.daemon.bounces import Bounces, load_verp_key
from pbem.daemon.clock import ClockJumps
from pbem.daemon.clockwatch import ClockWatch
from pbem.daemon.config import Config
from pbem.daemon.confirm import Confirmations
from pbem.daemon.crashloop import CrashLoop
from pbem.daemon.deadlines import Deadlines
from pbem.daemon.digests import Digests
from pbem.daemon.diskfull import is_disk_full
from pbem.daemon.gamelist import relaying
from pbem.daemon.imap_loop import ImapLoop
from pbem.daemon.intake.guard import Intake
from pbem.daemon.limits import GlobalCap, SenderLimits, Windows, merge_windows
from pbem.daemon.listgate import CONFIRM_REQUESTS, PosterLimits
from pbem.daemon.outbox import OutboxSender, SenderPolicy, Transport
from pbem.daemon.ports import (
    Engine,
    FaultHook,
    Game,
    Scheduler,
    no_fault,
)
from pbem.daemon.queue import WorkQueue, Writer
from pbem.daemon.relay import Relay
from pbem.daemon.replies import Replies
from pbem.daemon.requests import OperatorRequests
from pbem.daemon.routing import Router
from pbem.mail.render import Renderer, shared_renderer

if TYPE_CHECKING:  # dkimpy: imported on a DKIM check only (start-up cost)
    from pbem.mail.dkim import Resolver

log = logging.getLogger(__name__)


@contextlib.contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """No cyclic collection inside: while the games load, each full one walks every game
    loaded so far (2 s each by 10,000 games, issue 23)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@dataclass
class Service:
    """The coordinator: its lifecycle (open, the writer, the stop, close) and its parts, each
    made once with what it reads and what it calls (:meth:`_make_parts`). ``engine`` is the
    Table class; ``scheduler`` arms deadline jobs."""

    cfg: Config
    engine: Engine
    transport: Transport
    scheduler: Scheduler
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    fault: FaultHook = no_fault
    on_alive: Callable[[], None] = field(default=lambda: None)
    games: dict[str, Game] = field(default_factory=dict)
    #: the single writer's queue and the stop (a stop may come while the service opens)
    work: WorkQueue = field(default_factory=WorkQueue)
    limits: SenderLimits = field(init=False)
    daemon: DaemonStore = field(init=False)
    sender: OutboxSender = field(init=False)
    lock: DirLock | None = None
    #: what :meth:`close` lets go of, collected as the parts are made
    closers: list[Callable[[], None]] = field(default_factory=list)
    daemon_keys: set[str] = field(default_factory=set)
    stats: Counter[str] = field(default_factory=Counter)
    resolver: Resolver = field(default_factory=DnsResolver)  # DKIM keys for auth "dkim_verify"
    # clock-jump detection (F14): the monotonic clock is injectable like the wall clock
    monotonic: Callable[[], float] = field(default=time.monotonic)
    clockwatch: ClockWatch = field(default_factory=ClockWatch)
    cap: GlobalCap = field(init=False)
    #: relayed chat: per-poster limits and its share of the outbound cap (pbem.daemon.listgate)
    posters: PosterLimits = field(init=False)
    confirm_requests: PosterLimits = field(init=False)
    chat_cap: GlobalCap = field(init=False)
    #: the operator's request files: consumed here, reported once if they cannot be removed
    requests: RequestSpool = field(default_factory=RequestSpool)
    #: a state write failed for want of space (pbem.daemon.diskfull): the daemon waits for room
    disk_full: BaseException | None = None
    #: the Message-ID key (pbem.adapters.idkey): ids carry no guessable information
    id_key: bytes = field(init=False, default=b"")
    texts: Renderer = field(init=False)  # the daemon's own player-facing texts
    #: the parts, made at :meth:`open` (they need the stores and the Message-ID key)
    replies: Replies = field(init=False)
    bounces: Bounces = field(init=False)
    router: Router = field(init=False)
    relay_list: Relay = field(init=False)
    deadlines: Deadlines = field(init=False)
    confirmations: Confirmations = field(init=False)
    crashloop: CrashLoop = field(init=False)
    intake: Intake = field(init=False)
    clock_jumps: ClockJumps = field(init=False)
    operator: OperatorRequests = field(init=False)
    imap: ImapLoop = field(init=False)
    writer: Writer = field(init=False)

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
        self.texts = shared_renderer(self.cfg.timezone)
        self._games_stamp: int | None = None
        """The games directory's settled modification time at the last scan for new games."""

    @property
    def root(self) -> Path:
        """The data directory."""
        return self.cfg.data_dir

    @property
    def our_addresses(self) -> set[str]:
        """The daemon's own addresses (moderator, bounce), lower-case: mail from them is an echo."""
        mod = self.cfg.moderator.lower()
        return {mod, self.cfg.bounce.lower()}

    @property
    def relay(self) -> bool:
        """The daemon distributes the list itself (``[list] mode = relay``)."""
        return relaying(self.cfg)

    def open(self) -> None:
        """Take the writer lock, load the daemon file and every game, recover half deadlines."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.lock = DirLock(self.root)
        clean_stale_game_dirs(self.root)
        self.daemon = DaemonStore(self.root, self.fault)
        self.daemon.limits_hook = self._limit_changes
        self.daemon_keys = self.daemon.ledger_keys()
        self.id_key = message_id_key(self.root)
        self._make_parts()
        with no_cyclic_gc():  # settle_heap collects once every game is in
            self.scan_games()
        self.restore_limits()
        self.crashloop.recover()
        self.crashloop.opened_at = self.monotonic()

    def settle_heap(self) -> None:
        """Once every game is loaded and armed: collect the start-up's garbage and freeze what
        is left (the games, the rules, the compiled templates) out of the cyclic collector's
        sight. A full collection otherwise walks every loaded game's objects now and then,
        in the middle of an idle cycle: 136 ms at 1,000 games (issue 23)."""
        for game in self.games.values():  # tinydb's query results: kept per game, not needed
            game.store.head.db.clear_cache()
        gc.collect()
        gc.freeze()

    def _make_parts(self) -> None:
        """Each part, with what it reads and what it calls (in the order they need each other)."""
        ours = self.our_addresses
        work = self.work
        wake = self.wake_sender
        self.replies = Replies(
            self.cfg, self.texts, self.id_key, self.limits, self.games, self.stats
        )
        self.bounces = Bounces(
            self.cfg, self.games, load_verp_key(self.daemon), self.replies, self.stats, wake
        )
        self.router = Router(self.cfg, self.games, self.id_key, ours, self.replies)
        self.relay_list = Relay(
            self.cfg,
            self.id_key,
            ours,
            self.posters,
            self.limits,
            self.replies,
            self.bounces,
            self.fault,
            wake,
        )
        self.digests = Digests(self.cfg, self.games, self.clock, self.replies, wake)
        self.deadlines = Deadlines(
            self.cfg,
            self.games,
            self.clock,
            self.scheduler,
            work.submit_nowait,
            self.replies,
            self.relay_list,
            self.fault,
            wake,
            digests=self.digests,
        )
        self.confirmations = Confirmations(
            self.cfg,
            self.engine,
            self.limits,
            self.replies,
            self.bounces,
            self.deadlines.rearm,
            self.fault,
            wake,
        )
        self.crashloop = CrashLoop(
            self.cfg,
            self.root,
            self.daemon,
            self.games,
            self.clock,
            self.monotonic,
            self.knows,
            ours,
            self.replies,
            self.fault,
            wake,
        )
        self.closers.append(self.crashloop.close)
        self.intake = Intake(
            self.cfg,
            self.root,
            self.daemon,
            self.clock,
            self.knows,
            self.limits,
            ours,
            self.crashloop,
            self.replies,
            self.router,
            self,
            self.stats,
            self.fault,
            wake,
            work.is_stopping,
        )
        self.clock_jumps = ClockJumps(
            self.cfg,
            self.clockwatch,
            self.clock,
            self.monotonic,
            self.daemon,
            self.replies,
            self.interrupt_mailbox,
            work.sleep,
            work.is_stopping,
            wake,
        )
        self.imap = ImapLoop(
            self.cfg,
            self.clock,
            self.daemon,
            self.daemon_keys,
            work.submit,
            self.deadlines,
            self.clock_jumps,
            self.replies,
            self.scan_games_and_rearm,
            self.on_alive,
            self.fault,
            wake,
            work.sleep,
            work.is_stopping,
        )
        self.deadlines.interrupt = self.imap.interrupt  # made before the loop that fetches
        self.operator = OperatorRequests(
            self.root,
            self.requests,
            self.games,
            self,
            work.submit,
            self.scan_games_and_rearm,
            self.crashloop.held_due,
            self.intake.retry_held,
            work.sleep,
            work.is_stopping,
        )
        self.writer = Writer(
            work,
            self.daemon,
            self.games,
            self.intake,
            self.crashloop,
            self.deadlines,
            self.clock_jumps,
            self.write_failed,
            self.fault,
            wake,
        )
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
            verp=self.bounces.verp_sender if self.cfg.verp else None,
            coalesce=self.cfg.coalesce_replies,
            texts=self.replies.bilingual,
            on_error=lambda exc: self.write_failed(exc) if is_disk_full(exc) else None,
            id_key=self.id_key,
            html_mail=self.cfg.html_mail,
            chat_cap=self.chat_cap if self.relay else None,
        )
        work.on_stop += [self.imap.interrupt, self.sender.stop]

    @property
    def stopping(self) -> bool:
        """SIGTERM was handled: no new work is taken."""
        return self.work.stopping

    def request_stop(self) -> None:
        """SIGTERM: stop taking new items; the one in hand is finished (it runs synchronously)."""
        self.work.request_stop()

    async def worker(self) -> None:
        """The single writer: take items one at a time until the stop (needs :meth:`open`)."""
        await self.writer.run()

    def write_failed(self, exc: BaseException) -> None:
        """A state write failed (the writer, or the sender removing a sent row): stop."""
        if is_disk_full(exc):
            self.disk_full = self.disk_full or exc
            log.critical("disk full: %s; pausing until space returns", exc)
        else:
            log.critical("state write failed: %s; stopping", exc)
        self.request_stop()

    def close(self) -> None:
        """Let go of what the parts hold open (the in-flight marker) and of the writer lock
        (``open`` takes them again); safe after an ``open`` that failed half-way."""
        for close in self.closers:
            close()
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def wake_sender(self) -> None:
        """New outbox rows are committed: the sender looks at them now."""
        self.sender.wake()

    def interrupt_mailbox(self) -> None:
        """The IMAP loop's wait (IDLE or the poll's sleep) ends now."""
        self.imap.interrupt()

    def scan_games_and_rearm(self) -> None:
        """Load the games created since the last scan and arm their deadlines."""
        for gid in self.scan_games():
            self.deadlines.rearm(self.games[gid])
            self.sender.wake()

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
        """Load every rate-limit window persisted (the daemon's and each game's, merged) at
        start-up."""
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

    def _outbox_stores(self) -> list[Any]:
        return [self.daemon, *(g.store for g in self.games.values())]

    def scan_games(self) -> list[str]:
        """Load games created since the last scan (``pbem new-game`` renames a dir into place)."""
        stamp = games_stamp(self.root)
        if stamp is not None and stamp == self._games_stamp:
            return []  # the games directory is as the last scan saw it
        added = []
        for d in list_games(self.root, known=self.games):
            store = GameStore(d, self.fault)
            store.limits_hook = self._limit_changes
            table = self.engine.load(store.setup, store.events())
            game = Game(store, table, store.ledger_keys())
            self.games[game.id] = game
            added.append(game.id)
            log.info("game %s loaded (%d ledger keys)", game.id, len(game.keys))
            # a crash between a deadline's commit and the release of the posts it reopened
            self.relay_list.release_held(game, self.clock())
        self._games_stamp = stamp
        return added

    def knows(self, key: str) -> bool:
        """Whether a mail with content key ``key`` was already dealt with, by the daemon or a
        game."""
        return key in self.daemon_keys or any(key in g.keys for g in self.games.values())
