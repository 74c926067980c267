"""The queue of work items and its single writer: every state write runs here, one item at a
time, with no ``await`` inside a transaction (requirement 3).

:class:`WorkQueue` is the lifecycle (made with the service: a stop may come before it is
open): the queue, the stop and the stop-aware sleep. :class:`Writer` is what the writer does
with each item (made at :meth:`~pbem.daemon.service.Service.open`, with the parts it runs)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.adapters.imap import Fetched
from pbem.adapters.store import DaemonStore, StoreError
from pbem.daemon.clock import ClockJumps
from pbem.daemon.crashloop import CrashLoop
from pbem.daemon.deadlines import Deadlines
from pbem.daemon.inflight import COMMIT, DONE
from pbem.daemon.intake.guard import Intake
from pbem.daemon.message import content_key
from pbem.daemon.ports import Disposition, FaultHook, Game, MailTime
from pbem.daemon.work import Batch, Call, Deadline, Reminder, Stop, Work, WorkItem, group_commit

log = logging.getLogger(__name__)


@dataclass
class WorkQueue:
    """The single writer's queue, and the stop: after SIGTERM no new item is taken, the loops
    that read :attr:`stopping` unwind, and each of the ``on_stop`` hooks runs once (the
    mailbox's wait ends, the sender stops)."""

    queue: asyncio.Queue[WorkItem] = field(default_factory=asyncio.Queue)
    stopping: bool = False
    on_stop: list[Callable[[], None]] = field(default_factory=list)

    def submit_nowait(self, work: Work) -> asyncio.Future[Any]:
        """Queue ``work`` for the single writer; the future holds its result."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self.stopping:
            fut.cancel()  # no new work after SIGTERM: the awaiting loop unwinds
            return fut
        self.queue.put_nowait(WorkItem(work, fut))
        return fut

    async def submit(self, work: Work) -> Any:
        """Queue ``work`` and wait for its result."""
        return await self.submit_nowait(work)

    def request_stop(self) -> None:
        """SIGTERM: stop taking new items; the one in hand is finished (it runs synchronously)."""
        if self.stopping:
            return
        self.queue.put_nowait(WorkItem(Stop(), asyncio.get_running_loop().create_future()))
        self.stopping = True
        for hook in self.on_stop:
            hook()

    def is_stopping(self) -> bool:
        """Whether the stop was asked (for the parts that take it as a callable)."""
        return self.stopping

    async def sleep(self, seconds: float) -> None:
        """Sleep ``seconds``, or less if the stop comes meanwhile."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while not self.stopping and loop.time() < end:
            await asyncio.sleep(min(0.2, end - loop.time()))

    def cancel_left(self) -> None:
        """The items left undone at the stop: their submitters unwind."""
        while not self.queue.empty():
            self.queue.get_nowait().future.cancel()


@dataclass
class Writer:
    """The single writer. Takes the items of ``work``; a batch of mail goes to ``intake`` one
    mail at a time, under ``crashloop``'s in-flight record, with one durable write per touched
    file (the daemon's store, the ``games``'); a deadline or a reminder to ``deadlines``, held
    while ``clock_jumps`` handles a jump. A failed durable write goes to ``write_failed`` (the
    service stops); ``fault`` is the tests' hook, ``wake`` tells the sender new rows wait."""

    work: WorkQueue
    daemon: DaemonStore
    games: Mapping[str, Game]
    intake: Intake
    crashloop: CrashLoop
    deadlines: Deadlines
    clock_jumps: ClockJumps
    write_failed: Callable[[BaseException], None]
    fault: FaultHook
    wake: Callable[[], None]

    def handle_batch(
        self, batch: Sequence[Fetched], now: MailTime = None
    ) -> dict[int, Disposition]:
        """A batch of mails with one durable write per touched file (group commit).

        Each mail is still its own transaction (a poison mail is rolled back alone); the group
        makes them durable together before any MOVE. A failure of the group write itself
        propagates: memory is then ahead of the disk, so the daemon must stop (and restart).

        Crash-loop containment (:mod:`pbem.daemon.inflight`): the batch is split, in order, into runs;
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
            if key is not None and (key in self.crashloop.suspects or key in shunted):
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
        keys = [k for _f, k in run if k is not None and not self.crashloop.knows(k)]
        attempt = self.crashloop.announce(keys)
        marker = self.crashloop.marker
        try:
            with group_commit(self.daemon, self.games.values()):
                out: dict[int, Disposition] = {}
                for f, key in run:
                    if attempt is not None and marker is not None and key is not None:
                        marker.set(attempt, key)
                    when = now(f) if callable(now) else now
                    out[f.uid] = self.intake.handle_fetched(f, when, key)  # its key made once
                    if key is not None:
                        self.crashloop.suspects.pop(key, None)
                if attempt is not None and marker is not None:
                    marker.set(attempt, COMMIT)
        finally:
            self.crashloop.attempt = None
        if attempt is not None and marker is not None:
            marker.set(attempt, DONE)
        self.fault("after_group")
        return out

    def run_item(self, item: WorkItem) -> Any:
        """Run one work item synchronously on the loop (the single writer)."""
        match item.work:
            case Batch(mails, now):
                return self.handle_batch(mails, now)
            case Deadline(game_id, key, now, armed):
                if armed is not None and not self.deadlines.still_armed(game_id, key, armed):
                    return False  # a stale timer: the instance it was armed for moved
                if now is None and self.clock_jumps.deadlines_held():
                    log.warning("deadline %s:%s held: a clock jump is being handled", game_id, key)
                    return False  # the jump handler resolves or extends it, then rearms
                try:
                    return self.deadlines.resolve(game_id, key, now)
                except Exception as exc:
                    log.exception(
                        "deadline %s:%s failed; it stays open and is retried", game_id, key
                    )
                    self.deadlines.failed(game_id, key, exc)
                    return False
            case Reminder(game_id, key, hours):
                if self.clock_jumps.deadlines_held():
                    return 0  # a reminder whose time passed in a jump is not sent late (as rearm)
                try:
                    return self.deadlines.send_reminders(game_id, key, hours)
                except Exception:
                    log.exception("reminders %s:%s (%s h) failed", game_id, key, hours)
                    return 0
            case Call(run):
                return run()
            case Stop():
                raise ValueError("the stop item is the worker's, not run")

    async def run(self) -> None:
        """Take items one at a time; on stop, finish the item in hand and leave the rest."""
        try:
            await self._work()
        finally:
            self.work.cancel_left()

    async def _work(self) -> None:
        while True:
            item = await self.work.queue.get()
            if isinstance(item.work, Stop):
                break
            if self.work.stopping:  # queued before the stop: left for the next run
                item.future.cancel()
                continue
            try:
                result = self.run_item(item)
            except (StoreError, OSError) as exc:
                # a durable write failed (disk full...): memory may be ahead of the disk, so
                # stop taking work; nothing unwritten was acknowledged (requirement 2). A full
                # disk is waited out by ``serve`` (pbem.daemon.diskfull), which then starts afresh.
                self.write_failed(exc)
                if not item.future.done():
                    err = exc if isinstance(exc, StoreError) else StoreError(str(exc))
                    item.future.set_exception(err)
                break
            except Exception as exc:  # run_item guards mail; this is a bug: log, go on
                log.exception("work item %s failed", item.work)
                if not item.future.done():
                    item.future.set_exception(exc)
                continue
            if not item.future.done():
                item.future.set_result(result)
            self.wake()  # whatever the item committed may have queued mail
