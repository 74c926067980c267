"""The IMAP side: connect, fetch, settle (move to Processed or the shunt), the start-up drain and
the loop that waits in IDLE. Blocking calls run in a worker thread that never touches the store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem.adapters.imap import Fetched, ImapDown
from pbem.adapters.store import DaemonStore
from pbem.daemon.clock import ClockJumps
from pbem.daemon.config import Config
from pbem.daemon.deadlines import Deadlines
from pbem.daemon.ports import Disposition, FaultHook, Mailbox, MailTime
from pbem.daemon.replies import Replies
from pbem.daemon.work import Batch, Call, Deadline, Work

log = logging.getLogger(__name__)


@dataclass
class ImapLoop:
    """The IMAP loop. Reads the configuration and the clock; connects with ``connect`` (a new
    mailbox each time); the single writer (``submit``) applies what it fetches, resolves the
    fallen ``deadlines`` in order with it, loads new games (``load_games``); a clock jump seen
    by ``clock_jumps`` is handled here; UIDVALIDITY, the last time seen and the ledger are in
    the daemon's store (``daemon``, ``daemon_keys``), an admin alert goes through ``replies``;
    ``on_alive`` is told after each round-trip; ``fault`` is the tests' hook, ``wake`` tells
    the sender new rows wait; ``sleep`` and ``stopping`` come from the work queue.

    :attr:`mailbox` is the connection in use (its wait is interrupted by a stop, a fallen
    deadline or a clock jump)."""

    cfg: Config
    clock: Callable[[], datetime]
    daemon: DaemonStore
    daemon_keys: set[str]
    submit: Callable[[Work], Awaitable[Any]]
    deadlines: Deadlines
    clock_jumps: ClockJumps
    replies: Replies
    load_games: Callable[[], None]
    on_alive: Callable[[], None]
    fault: FaultHook
    wake: Callable[[], None]
    sleep: Callable[[float], Awaitable[None]]
    stopping: Callable[[], bool]
    mailbox: Mailbox | None = None

    def interrupt(self) -> None:
        """The mailbox's wait (IDLE or the poll's sleep) ends now."""
        if self.mailbox is not None:
            self.mailbox.interrupt.set()

    async def connect(self, mk: Callable[[], Mailbox]) -> Mailbox:
        """Connect with capped exponential backoff (F3): never a busy loop."""
        delay = 0.5
        while not self.stopping():
            box = mk()
            self.mailbox = box
            try:
                await asyncio.to_thread(box.connect)
                self.check_uidvalidity(box)
                return box
            except ImapDown as exc:
                log.warning("IMAP unavailable (%s); retrying in %.1f s", exc, delay)
                await self.sleep(delay)
                delay = min(delay * 2, 60.0)
        raise asyncio.CancelledError

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
                outbox=self.replies.admin_alert(
                    f"uidvalidity:{stored}:{box.uidvalidity}",
                    self.clock(),
                    "daemon/alert_uidvalidity",
                    {"inbox": box.s.inbox, "old": stored, "new": box.uidvalidity},
                )
            )
        if stored != box.uidvalidity:
            self.daemon.set_uidvalidity(box.s.inbox, box.uidvalidity)
            self.wake()

    async def fetch_pending(self, box: Mailbox) -> list[Fetched]:
        """Every mail not yet dealt with in the mailbox, fetched in batches (off the event loop)."""
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
        if down > timedelta(hours=self.cfg.outage_threshold_hours) and self.deadlines.passed(now):
            await self.submit(
                Call(lambda: self.deadlines.extend_for_outage(now, down, clock_jump=clock_jump))
            )
        done: dict[int, Disposition] = {}
        i = 0
        while not self.stopping():
            dls = self.deadlines.passed(now)
            nxt = fetched[i] if i < len(fetched) else None
            if dls and (nxt is None or dls[0][0] <= nxt.internaldate):
                when, gid, key = dls[0]
                ok = await self.submit(Deadline(gid, key, when))
                if not ok and (when, gid, key) in self.deadlines.passed(now):
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
            done.update(await self.submit(Batch(batch, lambda f: min(f.internaldate, now))))
        await self.settle(box, done)
        self.heartbeat()
        # forget non-game ledger keys past the retention (RELIABILITY §3.4 step 8); a game's
        # keys live (segmented) with the game
        cutoff = self.clock() - timedelta(days=self.cfg.ledger_retention_days)
        if any(d.get("at", "") < cutoff.isoformat() for d in self.daemon.db.table("ledger").all()):
            self.daemon.prune_ledger(cutoff.isoformat())
            self.daemon_keys.clear()  # the same set the intake steps add to
            self.daemon_keys.update(self.daemon.ledger_keys())

    def heartbeat(self) -> None:
        """Record when the mailbox was last seen (``last_seen``)."""
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
        while not self.stopping():
            if due and (i == len(fetched) or due[0][0] < fetched[i].internaldate):
                when, game_id, key = due.pop(0)
                self.deadlines.undue(game_id, key)
                # the mail just applied may have moved it (the game master's EXTEND)
                await self.submit(Deadline(game_id, key, armed=when))
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
            done.update(await self.submit(Batch(batch, at)))
        return done

    async def run(self, mk: Callable[[], Mailbox], max_wait: float) -> None:
        """Fetch, process, move, wait; reconnect with backoff on any drop (F3)."""
        self.deadlines.fetch_first = True
        log.info("start-up drain done: watching the mailbox")
        try:
            await self._imap_loop(mk, max_wait)
        finally:
            self.deadlines.fetch_first = False

    async def _imap_loop(self, mk: Callable[[], Mailbox], max_wait: float) -> None:
        box = self.mailbox
        last_beat = 0.0
        loop = asyncio.get_running_loop()
        while not self.stopping():
            try:
                if box is None or not box.connected:
                    box = await self.connect(mk)
                self.clock_jumps.note()
                if self.clock_jumps.pending is not None:
                    await self.handle_clock_jump(box)
                await self.submit(Call(self.load_games))
                due = self.deadlines.due_now()  # taken BEFORE the fetch, which then sees their mail
                fetched = await self.fetch_pending(box)
                done = await self.apply_in_order(fetched, due)
                await self.settle(box, done)
                if loop.time() - last_beat > self.cfg.heartbeat_seconds:
                    await self.submit(Call(self.heartbeat))
                    last_beat = loop.time()
                if self.stopping():
                    break
                if fetched and any(d != "keep" for d in done.values()):
                    continue  # more may have arrived meanwhile
                await asyncio.to_thread(box.wait, max_wait)
                self.on_alive()
            except ImapDown as exc:
                log.warning("IMAP dropped: %s", exc)
                box = None
                await self.sleep(0.5)

    async def handle_clock_jump(self, box: Mailbox) -> None:
        """The start-up outage policy, for a jump seen while running: alert the admins; a forward
        jump longer than ``outage_threshold_hours`` is an outage (passed deadlines extended, the
        players told); a shorter one drains the mailbox, then resolves passed deadlines in order.
        A backward jump only rearms: resolution is a compare-and-set keyed by the deadline
        instance, so nothing already resolved is resolved again."""
        jump = self.clock_jumps.pending
        if jump is None:
            return
        self.clock_jumps.pending = None
        self.clock_jumps.hold = True
        try:
            await self.submit(Call(lambda: self.clock_jumps.alert(jump)))
            if jump.forward:
                await self.drain_at_startup(box, down=jump.skew, clock_jump=True)
            await self.submit(Call(self.deadlines.rearm_all))
        except BaseException:
            # IMAP dropped (or a stop) half-way: the jump stays pending, and scheduler-fired
            # deadlines held, until it is handled in full after the reconnection
            later = self.clock_jumps.pending
            self.clock_jumps.pending = jump if later is None else jump.then(later)
            raise
        finally:
            self.clock_jumps.hold = False
