"""``pbem serve``: wires the service to real servers, signals, systemd notify and the watchdog.

sd_notify is the tiny datagram protocol of ``$NOTIFY_SOCKET`` (``READY=1``, ``WATCHDOG=1``,
``STOPPING=1``, ``STATUS=...``), implemented here without a dependency. READY and every
WATCHDOG ping are sent only after a successful IMAP round-trip (requirement 12): a daemon whose
mailbox link is dead stops feeding the watchdog and systemd restarts it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbem import __version__
from pbem.adapters.dns import DnsResolver
from pbem.adapters.imap import ImapDown, ImapMailbox
from pbem.adapters.login import EX_CONFIG, LoginRefused
from pbem.adapters.scheduler import DeadlineScheduler
from pbem.adapters.smtp import SendResult, SmtpClient
from pbem.core.errors import PbemError
from pbem.daemon import heartbeat
from pbem.daemon.config import Config
from pbem.daemon.diskfull import DiskFullEpisode, is_disk_full
from pbem.daemon.engine import load_engine
from pbem.daemon.ports import Engine, FaultHook, Mailbox, no_fault
from pbem.daemon.service import Service, no_cyclic_gc
from pbem.daemon.work import Call

log = logging.getLogger(__name__)


class Notifier:
    """systemd's notify protocol: one datagram per message to ``$NOTIFY_SOCKET``."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path if path is not None else os.environ.get("NOTIFY_SOCKET")
        self.ready = False
        usec = os.environ.get("WATCHDOG_USEC")
        self.watchdog_interval = int(usec) / 1e6 if usec and usec.isdigit() else None
        self._last_ping = 0.0

    def send(self, text: str) -> None:
        """Send ``text`` to systemd's socket (an abstract one if it starts with ``@``); no socket or
        an error: nothing."""
        if not self.path:
            return
        addr = "\0" + self.path[1:] if self.path.startswith("@") else self.path
        with (
            contextlib.suppress(OSError),
            socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s,
        ):
            s.connect(addr)
            s.sendall(text.encode())

    def alive(self) -> None:
        """Called after each successful IMAP round-trip."""
        if not self.ready:
            self.ready = True
            self.send("READY=1\nSTATUS=mailbox reachable")
            log.info("ready")
        now = time.monotonic()
        if self.watchdog_interval and now - self._last_ping >= self.watchdog_interval / 4:
            self._last_ping = now
            self.send("WATCHDOG=1")

    def max_wait(self, default: float) -> float:
        """IDLE must end (and NOOP round-trip) well within the watchdog interval."""
        if self.watchdog_interval:
            return max(1.0, min(default, self.watchdog_interval / 3))
        return default


async def serve(
    cfg: Config,
    engine: Engine | None = None,
    mailbox: Callable[[], Mailbox] | None = None,
    on_service: Callable[[Service], None] | None = None,
    fault: FaultHook = no_fault,
) -> int:
    """Run until SIGTERM/SIGINT (or ``Service.request_stop``); returns the exit status.

    ``mailbox`` makes the inbound mailbox (default: IMAP per the config; the embedded demo
    passes a local Maildir); ``on_service`` receives the service once it is open; ``fault`` is
    called at the service's named fault points (the crash tests install a hook that kills the
    process there: tests/daemon/crash_launcher.py; a no-op in production).

    A full disk (:mod:`pbem.daemon.diskfull`) does not end it: the service stops, the episode is held
    (admins told straight by SMTP, the watchdog fed) until there is room, then a fresh service
    opens the state from disk and goes on.
    """
    mk: Callable[[], Mailbox] = mailbox or (lambda: ImapMailbox(cfg.imap))
    for notice in cfg.notices:
        log.warning("%s", notice)
    loop = asyncio.get_running_loop()
    notifier = Notifier()
    beat = Heartbeat(cfg)
    episode = DiskFullEpisode(cfg)
    current: list[Service] = []

    def stop() -> None:
        episode.stop.set()
        if current:
            current[-1].request_stop()

    # before open(), which may take a while with many games: a SIGTERM meanwhile is queued
    # on the loop and honoured at the first await, instead of killing the process
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    try:
        while True:
            done = await _serve_once(
                cfg, engine, mk, on_service, notifier, beat, episode, current, fault
            )
            if isinstance(done, int):
                return done
            alive = _Liveness(mk, beat.chain(notifier.alive), episode.stop)
            try:
                if episode.stop.is_set() or not await episode.hold(done, alive):
                    return 0
            except LoginRefused as exc:  # the IMAP password changed meanwhile
                return await stop_for_login(cfg, exc)
    finally:
        notifier.send("STOPPING=1")
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        log.info("stopped")


class _Liveness:
    """While the disk is full: an IMAP round-trip (NOOP after a bounded wait) now and then, so
    readiness and the watchdog stay fed; nothing is fetched nor moved."""

    def __init__(
        self, mk: Callable[[], Mailbox], alive: Callable[[], None], stop: asyncio.Event
    ) -> None:
        self.mk = mk
        self.alive = alive
        self.stop = stop
        self.box: Mailbox | None = None

    async def __call__(self, seconds: float) -> None:
        end = asyncio.get_running_loop().time() + seconds
        try:
            if self.box is None or not self.box.connected:
                self.box = self.mk()
                await asyncio.to_thread(self.box.connect)
            waiter = asyncio.create_task(self.stop.wait())
            box = self.box
            waiting = asyncio.create_task(asyncio.to_thread(box.wait, seconds))
            await asyncio.wait({waiter, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if not waiting.done():
                box.interrupt.set()
            waiter.cancel()
            await waiting
            self.alive()
        except ImapDown as exc:
            log.warning("IMAP unavailable while the disk is full: %s", exc)
            self.box = None
        left = end - asyncio.get_running_loop().time()
        if left > 0 and not self.stop.is_set():  # early IMAP activity, or the server down
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), left)
        if self.stop.is_set() and self.box is not None:
            await asyncio.to_thread(self.box.close)


async def _serve_once(
    cfg: Config,
    engine: Engine | None,
    mk: Callable[[], Mailbox],
    on_service: Callable[[Service], None] | None,
    notifier: Notifier,
    beat: Heartbeat,
    episode: DiskFullEpisode,
    current: list[Service],
    fault: FaultHook,
) -> int | BaseException:
    """One service, from open to stop: its exit status, or the disk-full error that stopped
    it (the caller holds the episode, then starts a fresh one)."""
    sched = DeadlineScheduler()
    smtp = SmtpClient(cfg.smtp)
    refused: list[LoginRefused] = []

    def login_refused(exc: LoginRefused) -> None:
        """A server refused our login: stop (a wrong password is not waited out)."""
        if not refused:
            refused.append(exc)
        svc.request_stop()

    svc = Service(
        cfg=cfg,
        engine=engine or load_engine(cfg.engine),
        transport=LoginWatch(smtp, login_refused),
        scheduler=sched,
        fault=fault,
        on_alive=beat.chain(notifier.alive),
        # DKIM keys (auth "dkim_verify") from [auth] dns_server, else resolv.conf's servers
        resolver=DnsResolver(cfg.auth.dns_host, cfg.auth.dns_port),
    )
    current[:] = [svc]
    try:
        svc.open()
    except Exception as exc:
        svc.close()
        if is_disk_full(exc):
            return exc
        raise
    log.info(
        "pbem %s starting: config %s, data dir %s, %d game(s) loaded",
        __version__,
        cfg.path,
        svc.root,
        len(svc.games),
    )
    if on_service is not None:
        on_service(svc)
    worker = asyncio.create_task(svc.worker(), name="worker")
    sender = asyncio.create_task(svc.sender.run(), name="sender")
    clock = asyncio.create_task(svc.clock_jumps.watch(), name="clock")
    requests = asyncio.create_task(svc.operator.watch(), name="requests")
    probe = asyncio.create_task(probe_smtp_login(cfg, login_refused), name="smtp-login")
    beating = asyncio.create_task(beat.run(svc), name="heartbeat")
    drain: asyncio.Task[None] | None = None
    try:
        await svc.work.submit(Call(svc.deadlines.recover_resolving))
        drain = asyncio.create_task(_drain_at_startup(svc, mk), name="startup-drain")
        # deadlines wait for the drain (mail that arrived before them counts first, §5.4), but
        # no longer than a due deadline waits for the mailbox: a server down at start-up must
        # not stop every game (the same bound as deadline_fetch_wait_seconds in the main loop)
        wait = cfg.deadline_fetch_wait_seconds
        if not (await asyncio.wait({drain}, timeout=wait))[0]:
            log.warning("mailbox not drained %.0f s after the start: deadlines armed without", wait)
        await episode.resumed()
        with no_cyclic_gc():  # settle_heap collects once every game is armed
            for game in list(svc.games.values()):
                svc.deadlines.rearm(game)
        sched.start()
        svc.settle_heap()
        await drain
        await svc.imap.run(mk, notifier.max_wait(cfg.imap.idle_renew))
    except asyncio.CancelledError:
        pass
    except LoginRefused as exc:  # IMAP, at start-up or at a reconnection
        login_refused(exc)
    except Exception as exc:
        # the writer's failure reaches its submitter too; or a write outside the writer's
        # queue (the UIDVALIDITY record at a reconnection) failed for want of space
        if svc.disk_full is None and not is_disk_full(exc):
            raise
        svc.disk_full = svc.disk_full or exc
    finally:
        svc.request_stop()
        if drain is not None:
            drain.cancel()
        sched.shutdown()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(worker, 30)
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(sender, 10)
        for ticker in (clock, requests, probe, beating):
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(ticker, 5)
        await smtp.close()
        if svc.imap.mailbox is not None:
            await asyncio.to_thread(svc.imap.mailbox.close)
        svc.close()
    if svc.disk_full is not None and not refused:
        return svc.disk_full
    rc = await stop_for_login(cfg, refused[0]) if refused else 0
    beat.stopped(svc.root, rc)
    return rc


async def _drain_at_startup(svc: Service, mk: Callable[[], Mailbox]) -> None:
    """Connect and drain the mailbox once (:meth:`pbem.daemon.imap_loop.ImapLoop.drain_at_startup`),
    reconnecting if the server drops meanwhile (F3): what was committed is deduplicated by the
    ledger."""
    while True:
        box = await svc.imap.connect(mk)
        try:
            await svc.imap.drain_at_startup(box)
            return
        except ImapDown as exc:
            log.warning("IMAP dropped during the start-up drain (%s): reconnecting", exc)
            await asyncio.sleep(0.5)


class Heartbeat:
    """``heartbeat.json`` for ``pbem status`` (:mod:`pbem.daemon.heartbeat`): written from the event
    loop, so a hung loop goes stale like a dead process."""

    def __init__(self, cfg: Config) -> None:
        now = datetime.now(UTC).isoformat()
        self.every = heartbeat.interval(cfg.heartbeat_seconds)
        self.record: dict[str, Any] = {
            "pid": os.getpid(),
            "version": __version__,
            "started": now,
            "at": now,
            "mailbox_ok": None,
        }
        self.root: Path | None = None

    def chain(self, alive: Callable[[], None]) -> Callable[[], None]:
        """``alive`` (called after each IMAP round-trip), noting the time for ``pbem status``;
        the first is written at once: ``systemctl start`` returns once the mailbox answered
        (Type=notify), and a ``pbem status`` then must not say "mailbox reached never"."""

        def both() -> None:
            alive()
            first = self.record["mailbox_ok"] is None
            self.record["mailbox_ok"] = datetime.now(UTC).isoformat()
            if first and self.root is not None:
                self.record["at"] = self.record["mailbox_ok"]
                heartbeat.write(self.root, self.record)

        return both

    async def run(self, svc: Service) -> None:
        """Write the heartbeat file every ``every`` seconds until the daemon stops."""
        self.root = svc.root
        while not svc.stopping:
            self.record["at"] = datetime.now(UTC).isoformat()
            heartbeat.write(svc.root, self.record)
            await svc.work.sleep(self.every)

    def stopped(self, root: Path, rc: int) -> None:
        """Write the last heartbeat: when the daemon stopped and its exit code."""
        now = datetime.now(UTC).isoformat()
        heartbeat.write(root, {**self.record, "at": now, "stopped": now, "exit": rc})


class LoginWatch:
    """The SMTP transport, reporting a refused login to ``on_refused`` (the outbox keeps the
    mail: it is sent once the password is fixed and the daemon restarted)."""

    def __init__(self, smtp: SmtpClient, on_refused: Callable[[LoginRefused], None]) -> None:
        self.smtp = smtp
        self.on_refused = on_refused

    async def send(self, mail_from: str, rcpts: Sequence[str], raw: bytes) -> SendResult:
        """Send through the SMTP transport, reporting a refused login."""
        res = await self.smtp.send(mail_from, rcpts, raw)
        if res.login_refused is not None:
            self.on_refused(res.login_refused)
        return res


async def probe_smtp_login(cfg: Config, on_refused: Callable[[LoginRefused], None]) -> None:
    """One SMTP login at start-up, beside the IMAP one: with an empty outbox a wrong SMTP
    password would otherwise go unnoticed until the first reply is due. Anything but a refusal
    (the server down, a timeout) is left to the sender's retries."""
    if not cfg.smtp.user:
        return
    try:
        await SmtpClient(cfg.smtp).login_check()
    except LoginRefused as exc:
        on_refused(exc)
    except Exception as exc:
        log.warning(
            "SMTP %s:%d not reachable at start-up (%s): the sender will retry",
            cfg.smtp.host,
            cfg.smtp.port,
            exc,
        )


async def stop_for_login(cfg: Config, exc: LoginRefused) -> int:
    """The one line saying what to fix, an alert to the admins when SMTP still works (straight
    to the server: the daemon is stopping), and :data:`EX_CONFIG` so that systemd does not
    restart it (``RestartPreventExitStatus=78``)."""
    log.critical(
        "%s; pbem stops and is not restarted until it is fixed (exit status %d)",
        exc.describe(),
        EX_CONFIG,
    )
    if exc.protocol != "SMTP" and cfg.admins:
        try:
            await send_login_alert(cfg, exc)
        except Exception as err:
            log.error("the admins could not be alerted by mail: %s", err)
        else:
            log.info("admins alerted: %s", ", ".join(cfg.admins))
    return EX_CONFIG


async def send_login_alert(cfg: Config, exc: LoginRefused) -> None:
    """Mail the admins, bilingual like the daemon's other alerts; raises when it cannot."""
    from pbem.daemon.direct_alert import send_alert

    params = {
        "protocol": exc.protocol,
        "user": exc.user,
        "server": exc.server,
        "reply": exc.reply,
        "section": exc.section,
    }
    key = f"login-refused:{exc.protocol}:{datetime.now(UTC).isoformat()}"
    res = await send_alert(cfg, "daemon/alert_login", params, key)
    if not res.sent:
        raise PbemError(res.detail or "not sent")
