# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""The queue of work items and its single writer: every state write runs here, one item at a
time, with no ``await`` inside a transaction (requirement 3)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pbem.adapters.imap import Fetched
from pbem.adapters.store import StoreError
from pbem.daemon.diskfull import is_disk_full
from pbem.daemon.inflight import COMMIT, DONE
from pbem.daemon.message import content_key
from pbem.daemon.ports import Disposition, MailTime
from pbem.daemon.work import Batch, Call, Deadline, Reminder, Stop, Work, WorkItem, group_commit

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)


class QueueMixin:
    """The service's part for the queue (a mixin of :class:`~pbem.daemon.service.Service`)."""

    # assigned here, declared on the service: the same types
    disk_full: BaseException | None

    def submit_nowait(self: Service, work: Work) -> asyncio.Future[Any]:
        """Queue ``work`` for the single writer; the future holds its result."""
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self.stopping:
            fut.cancel()  # no new work after SIGTERM: the awaiting loop unwinds
            return fut
        self.queue.put_nowait(WorkItem(work, fut))
        return fut

    async def submit(self: Service, work: Work) -> Any:
        """Queue ``work`` and wait for its result."""
        return await self.submit_nowait(work)

    def handle_batch(
        self: Service, batch: Sequence[Fetched], now: MailTime = None
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
        self: Service, run: Sequence[tuple[Fetched, str | None]], now: MailTime
    ) -> dict[int, Disposition]:
        keys = [k for _f, k in run if k is not None and not self.knows(k)]
        attempt = self.crashloop.announce(keys)
        marker = self.crashloop.marker
        try:
            with group_commit(self.daemon, self.games.values()):
                out: dict[int, Disposition] = {}
                for f, key in run:
                    if attempt is not None and marker is not None and key is not None:
                        marker.set(attempt, key)
                    out[f.uid] = self.intake.handle_fetched(f, now(f) if callable(now) else now)
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

    def run_item(self: Service, item: WorkItem) -> Any:
        """Run one work item synchronously on the loop (the single writer)."""
        match item.work:
            case Batch(mails, now):
                return self.handle_batch(mails, now)
            case Deadline(game_id, key, now, armed):
                if armed is not None and not self.deadlines.still_armed(game_id, key, armed):
                    return False  # a stale timer: the instance it was armed for moved
                if now is None and self.deadlines_held():
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
                if self.deadlines_held():
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

    async def worker(self: Service) -> None:
        """Take items one at a time; on stop, finish the item in hand and leave the rest."""
        try:
            await self._work()
        finally:
            while not self.queue.empty():  # left undone: their submitters unwind
                self.queue.get_nowait().future.cancel()

    async def _work(self: Service) -> None:
        while True:
            item = await self.queue.get()
            if isinstance(item.work, Stop):
                break
            if self.stopping:  # queued before the stop: left for the next run
                item.future.cancel()
                continue
            try:
                result = self.run_item(item)
            except (StoreError, OSError) as exc:
                # a durable write failed (disk full...): memory may be ahead of the disk, so
                # stop taking work; nothing unwritten was acknowledged (requirement 2). A full
                # disk is waited out by ``serve`` (pbem.daemon.diskfull), which then starts afresh.
                self._write_failed(exc)
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
            self.sender.wake()  # whatever the item committed may have queued mail

    def _write_failed(self: Service, exc: BaseException) -> None:
        """A state write failed (the writer, or the sender removing a sent row): stop."""
        if is_disk_full(exc):
            self.disk_full = self.disk_full or exc
            log.critical("disk full: %s; pausing until space returns", exc)
        else:
            log.critical("state write failed: %s; stopping", exc)
        self.request_stop()

    def request_stop(self: Service) -> None:
        """SIGTERM: stop taking new items; the one in hand is finished (it runs synchronously)."""
        if self.stopping:
            return
        self.queue.put_nowait(WorkItem(Stop(), asyncio.get_running_loop().create_future()))
        self.stopping = True
        if self.mailbox is not None:
            self.mailbox.interrupt.set()
        sender = getattr(self, "sender", None)  # not made yet if the stop came during open()
        if sender is not None:
            sender.stop()
