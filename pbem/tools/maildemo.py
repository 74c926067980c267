"""``pbem demo``: the real daemon plays a whole game by email on this machine, nothing to install.

What runs, all in this process:

- a mail system: an aiosmtpd server on a free loopback port that delivers every accepted message
  into ``<dir>/mail/<address>/Maildir`` (the moderator, the admin, each player) and routes the
  list address as ``--list`` says (``[list] mode`` in the daemon's configuration):

  - ``external`` (the default): the mail system is the mailing list; it expands the list address
    to every player and the moderator, adding ``List-Id`` as a real list does;
  - ``relay``: the list address is only an alias of the moderator's mailbox; the daemon reads
    each post there and distributes the accepted ones itself (``From: "Alice via demo"
    <list>``, ``List-Id``, ``Reply-To``), the way :mod:`pbem.mail.relay` builds them;

- the daemon exactly as ``pbem serve`` wires it (:func:`pbem.daemon.serve.serve`), its SMTP pointed at
  that server (no auth, no TLS) and its mailbox at the moderator's Maildir
  (:class:`~pbem.adapters.maildir.MaildirMailbox`); the game is created by ``pbem new-game``;
- one bot per player (:class:`~pbem.tools.mailbots.MailBot`) that reads its own Maildir and
  answers by SMTP;
- a printer of the public thread, post by post as the list delivers it (the mail system's list,
  or in relay mode the daemon's copies as the players receive them).

A bot knows what a player knows: its mail. When the moderator opens a phase or a step (a post
on the list, a private prompt: whatever names a deadline's time), it asks ``HELP`` + ``STATUS``
like a newcomer would, and from the reply (the commands it can use now and which go on the list,
the living players, the nominees, the partners it knows; each game words its STATUS its own way)
picks a random legal-looking command: night actions and PASS privately, votes and other public
commands on the list (sometimes as ``**name**``), preferring the rooms and targets its prompt
names; a move refused as a whole, it tries again. The only outside knowledge is the rulebook:
which keyword takes which arguments, which order a step waits for.

Every game is played (:data:`MAIL_DEMO_GAMES`), each with its own phase lengths in seconds
(:data:`FAST_OPTIONS`; Dracula plays one round) and its number of players; phases close early
once everyone has acted where the game allows it, so a game takes well under a minute.

A bot acts on mail only, never on a timer: it waits for the reply to its question however
long that takes. And a step does not depend on a window of seconds either: once the daemon has
read and answered every mail and every bot is idle (every bot has read the step's opening,
asked, played, and read the answer: nobody can act in the step any more), the driver closes it
as the game master's ``CLORE`` would (:class:`IdleCloser`), bound to that step (the daemon
drops it if the step ended meanwhile); the deadlines are a safety net (:data:`PATIENT`). On a
busy machine the game is slower, never different in kind, and the demo fails (exit 1, a line
saying which) if a bot's move is refused or a vote round closes with no vote.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import io
import json
import logging
import mailbox
import os
import random
import re
import shutil
import signal
import socket
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from aiosmtpd.controller import Controller

from pbem.daemon.config import LIST_MODES
from pbem.mail.address import parseaddr
from pbem.mail.parse_once import parse_once_policy
from pbem.record.archive import named_summary
from pbem.tools.demo import NAMES, USUAL_PLAYERS, demo_names, gendered
from pbem.tools.demo_mail import (
    ADMIN,
    GAME_ID,
    LIST,
    LIST_ID,
    MODERATOR,
    address_of,
    email_of,
    parse_mail,
    text_of,
)
from pbem.tools.demo_problems import demo_problems
from pbem.tools.demo_watch import GameWatch, IdleCloser
from pbem.tools.demo_words import seconds, summary_lines, words
from pbem.tools.mailbots import PROMPT_TARGETS, MailBot, doorbell

if TYPE_CHECKING:
    from pbem.daemon.service import Service

log = logging.getLogger(__name__)

#: Games the daemon demo can play (its bots read these games' STATUS replies).
MAIL_DEMO_GAMES = ("lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula")


#: Each game's phase lengths in seconds (its own option names: ``pbem new-game`` refuses
#: unknown ones), and its early-close options: a phase closes as soon as everyone has acted.
FAST_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "lupus-in-tabula": {
        "night_duration": 3,
        "debate_duration": 1,
        "round1_duration": 3,
        "defence_duration": 1,
        "round2_duration": 3,
        "tally_min_interval": 2,
        "early_close": True,
        "early_close_day": True,
    },
    "loup-garou": {
        "bite_window": 2,
        "election_window": 3,
        "night_council_duration": 2,
        # only the witch is told when the council closes: nobody else can close this step
        "night_witch_duration": 1.5,
        "day_duration": 3,
        "sash_window": 1.5,
        "mayor_tiebreak_window": 1.5,
        "tally_min_interval": 2,
        "early_close": True,
        "early_close_day": True,
    },
    "chasse-aux-sorcieres": {
        # a night's steps close early only once every player has acted again, and only the
        # roles of a step are told it opened: the steps after the first run their course
        "leo_duration": 1.5,
        "coop_duration": 1.5,
        "w1_duration": 2,
        "w2_duration": 1.5,
        "day_duration": 3,
        "revenge_window": 1.5,
        "tiebreak_window": 1.5,
        "tally_min_interval": 2,
        "early_close": True,
        "early_close_day": True,
    },
    "dracula": {
        # one round (five days and nights, then the final phase) instead of three
        "rounds": 1,
        "day1": 2,
        "day": 2,
        "pairing": 2,
        "room_choice": 2,
        "magnifier": 1.5,
        "bites": 2,
        "dance_reply": 1.5,
        "dawn_curse": 1.5,
        "final_choice": 2,
        "flames": 1.5,
        # the days have no early close; the night's steps do, and an early night need not
        # wait for its scheduled end before the morning
        "early_close": True,
        "morning_not_before_scheduled": False,
    },
}
#: A step's deadline when the demo closes its steps itself (:class:`IdleCloser`), in seconds:
#: only a safety net. A step ended by a window of a second or two that a busy machine lets pass
#: refused the moves in flight (« Il n'y a pas de vote en cours ») and closed rounds before
#: the bots had voted; the closer ends each once every bot has read it and every mail is
#: answered, or the game closes it early once everyone has acted.
PATIENT = 60
#: Options that are not a step's duration.
NOT_DURATIONS = ("rounds", "tally_min_interval")


def patient(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with every step's duration made :data:`PATIENT`."""
    return {
        k: PATIENT
        if isinstance(v, int | float) and not isinstance(v, bool) and k not in NOT_DURATIONS
        else v
        for k, v in options.items()
    }


#: Lupus' table, under its former name.
FAST: Mapping[str, Any] = FAST_OPTIONS["lupus-in-tabula"]
#: Players by default: Lupus plays with 10 here; the others are played by a fixed number.
DEMO_PLAYERS = {**USUAL_PLAYERS, "lupus-in-tabula": 10}


def free_port() -> int:
    """A free TCP port on loopback (the tiny race until the server binds it is acceptable here)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# ---- the mail system ------------------------------------------------------------------------


def close_failed(controller: Controller) -> None:
    """Close what an aiosmtpd ``Controller`` whose start failed leaves open: its thread returns
    before the event loop is closed when the bind fails (a port taken meanwhile), and the loop's
    sockets would otherwise be reported unclosed by the garbage collector, at any later time."""
    thread = controller._thread
    if thread is not None:
        thread.join(timeout=10)
    if not controller.loop.is_running():
        controller.loop.close()


class MailSystem:
    """An embedded mail server: aiosmtpd on loopback, a Maildir per address, one list address.

    The handler runs on the controller's own thread and event loop, like a separate server.
    ``list_mode`` ``external``: the list address is a mailing list run here; every post is kept
    in order in :attr:`posts` (and in the list's archive Maildir). ``relay``: the list address
    is an alias of the moderator's mailbox; :attr:`posts` holds each message carrying the list's
    ``List-Id`` that reached a member (the daemon's relayed copies and public results), once.
    """

    def __init__(
        self,
        root: Path,
        accounts: Sequence[str],
        members: Sequence[str],
        list_mode: str = "external",
    ) -> None:
        if list_mode not in LIST_MODES:
            raise ValueError(f"list mode {list_mode!r} is not one of {', '.join(LIST_MODES)}")
        self.root = root
        self.accounts = {a.lower() for a in accounts}
        self.members = [m.lower() for m in members]
        self.list_mode = list_mode
        self.posts: list[bytes] = []
        self.post_times: list[float] = []
        self.messages = 0
        self.deliveries = 0
        self.lock = threading.Lock()
        self.port = 0
        self.controller: Controller | None = None
        self._seen: set[str] = set()  # relay mode: Message-IDs of the list mail already kept
        self._delivered = 0  # files written: each delivery's file has a name of its own
        self.on_delivery: Callable[[str], None] = lambda address: None  # called in our thread
        # in relay mode no list runs here, so there is no list archive either
        archive = [LIST] if list_mode == "external" else []
        for a in [*self.accounts, *archive]:
            self.maildir(a).parent.mkdir(parents=True, exist_ok=True)
            mailbox.Maildir(self.maildir(a), create=True)

    def maildir(self, address: str) -> Path:
        """Where mail for ``address`` is delivered."""
        return self.root / address.lower() / "Maildir"

    def start(self) -> None:
        """Listen on a free loopback port (no TLS, no AUTH: nothing leaves this machine).

        The port was free when chosen; another socket may take it before the bind, and then
        another one is chosen."""
        for attempt in range(4):
            self.port = free_port()
            self.controller = Controller(
                self, hostname="127.0.0.1", port=self.port, ready_timeout=10
            )
            try:
                self.controller.start()
                return
            except OSError as exc:
                close_failed(self.controller)
                self.controller = None
                if exc.errno != errno.EADDRINUSE or attempt == 3:
                    raise

    def stop(self) -> None:
        """Stop the server and its thread."""
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    # aiosmtpd handler hooks

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any
    ) -> str:
        """Accept our accounts (plus-addresses included) and the list; refuse anyone else."""
        local, _, domain = address.lower().partition("@")
        base = local.split("+", 1)[0] + "@" + domain  # plus-addressing: mj+demo@ is mj@
        if base not in self.accounts and address.lower() != LIST:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        """Deliver to each recipient's Maildir; a list post goes to every member, with List-Id
        (``external``), or to the moderator's mailbox as it is (``relay``)."""
        data: bytes = envelope.original_content or envelope.content
        head = f"Return-Path: <{envelope.mail_from or ''}>\r\n".encode()
        jobs: list[tuple[str, bytes]] = []
        if self.list_mode == "relay":
            self._keep_relayed(envelope.rcpt_tos, data)
        for rcpt in envelope.rcpt_tos:
            local, _, domain = rcpt.lower().partition("@")
            if rcpt.lower() == LIST and self.list_mode == "relay":
                # an alias, as a virtual alias map would have it: the daemon is the list
                jobs.append((MODERATOR, head + data))
            elif rcpt.lower() == LIST:
                post = (
                    f"List-Id: Village <{LIST_ID}>\r\nList-Post: <mailto:{LIST}>\r\n".encode()
                    + data
                )
                jobs += [(m, head + post) for m in [*self.members, LIST]]
                with self.lock:
                    self.posts.append(post)
                    self.post_times.append(time.monotonic())
            else:
                jobs.append((local.split("+", 1)[0] + "@" + domain, head + data))
        for address, payload in jobs:
            self._deliver(self.maildir(address), payload)
            self.on_delivery(address)
        with self.lock:
            self.messages += 1
            self.deliveries += len(jobs)
        return "250 OK delivered"

    def _deliver(self, maildir: Path, payload: bytes) -> None:
        """Maildir delivery: tmp/ then rename into new/, so readers never see half a message.

        Not fsynced, unlike :meth:`mailbox.Maildir.add`: the demo's mail outlives no power
        cut, and a Dracula demo made about 3,000 deliveries (an fsync each, the mail system's
        thread waiting on the disk while the daemon and the bots wait for their mail)."""
        with self.lock:
            self._delivered += 1
            # unique in this process; within one tick of the file system's clock the readers
            # order a burst by its name's time and counter (pbem.adapters.maildir.arrival_key,
            # as numbers; the bots compare names as text: both are padded)
            seconds, micros = divmod(time.time_ns() // 1000, 10**6)
            name = f"{seconds}.M{micros:06d}P{os.getpid()}Q{self._delivered:09d}.demo"
        tmp = maildir / "tmp" / name
        tmp.write_bytes(payload)
        os.rename(tmp, maildir / "new" / name)

    def _keep_relayed(self, rcpts: Sequence[str], data: bytes) -> None:
        """Relay mode: keep, once, a message with the list's List-Id sent to a member."""
        if not any(r.lower() in self.members for r in rcpts):
            return
        head = BytesHeaderParser(policy=parse_once_policy()).parsebytes(data)
        if LIST_ID not in str(head.get("List-Id", "")).lower():
            return
        # the daemon may send one copy per recipient (VERP, retries): one post all the same
        mid = str(head.get("Message-ID", "")) or str(len(self.posts))
        with self.lock:
            if mid in self._seen:
                return
            self._seen.add(mid)
            self.posts.append(data)
            self.post_times.append(time.monotonic())


# ---- the printer ----------------------------------------------------------------------------

WIDTH = 88
# French puts a space before « ; : ! ? » and inside guillemets: a line never starts with
# « ; » nor ends with « « », so that space is glued (a private-use mark textwrap keeps whole)
_GLUE = "\ue000"
_FRENCH_SPACE = re.compile(r"(?<=\S) (?=[;:!?»])|(?<=«) ")


def render_post(raw: bytes, names: Mapping[str, str], at: float | None = None) -> str:
    """One post of the list for the terminal: a box for the moderator, a line for a player.

    ``at``: seconds since the start, shown so the deadlines (in seconds) can be seen at work."""
    msg = parse_mail(raw)
    sender = address_of(msg["From"])
    body = text_of(msg).rstrip()
    if sender != MODERATOR:
        text = " / ".join(line.strip() for line in body.splitlines() if line.strip())
        if sender == LIST:
            # the daemon's relayed copy: shown as players see it, "Alice via demo"
            return f"   {parseaddr(str(msg['From']))[0] or sender}: {text}"
        who = names.get(sender, sender)
        return f"   {who} → list: {text}"
    clock = f"{at:5.1f} s ─ " if at is not None else ""
    # a folded, encoded Subject may come back with the folding's leading space
    out = [f"┌─ {clock}{str(msg['Subject']).strip()}"]
    for line in body.splitlines():
        wrapped = textwrap.wrap(
            _FRENCH_SPACE.sub(_GLUE, line), WIDTH, subsequent_indent="  " if line[:1] == " " else ""
        )
        out += ["│ " + w.replace(_GLUE, " ") for w in wrapped] if wrapped else ["│"]
    out.append("└" + "─" * 40)
    return "\n".join(out)


@dataclass
class Printer:
    """Prints the list's posts in the order the list delivered them."""

    mail: MailSystem
    names: Mapping[str, str]
    out: TextIO
    started: float = field(default_factory=time.monotonic)
    done: int = 0

    def flush(self) -> None:
        """Print the posts not printed yet."""
        with self.mail.lock:
            posts = self.mail.posts[self.done :]
            times = self.mail.post_times[self.done :]
        for raw, t in zip(posts, times, strict=True):
            print(render_post(raw, self.names, t - self.started), file=self.out, flush=True)
        self.done += len(posts)

    async def run(self, stop: asyncio.Event) -> None:
        """Print as the list delivers, until ``stop``."""
        while not stop.is_set():
            self.flush()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.1)
        self.flush()


# ---- wiring ---------------------------------------------------------------------------------


def write_config(root: Path, smtp_port: int, lang: str, list_mode: str = "external") -> Path:
    """The daemon's TOML for the demo (``pbem status -c <dir>/pbem.toml`` works on it too)."""
    path = root / "pbem.toml"
    how = (
        "the daemon distributes the posts itself: the list address is delivered to its mailbox"
        if list_mode == "relay"
        else "the embedded mail system runs the list; the daemon reads it like a subscriber"
    )
    path.write_text(
        f"""# Written by `pbem demo`: the daemon against the embedded mail system of this directory.
[moderator]
address = "{MODERATOR}"
admins = ["{ADMIN}"]
language = "{lang}"
timezone = "UTC"

[list]
# {how}
mode = "{list_mode}"
address = "{LIST}"
list_id = "{LIST_ID}"
# phases last seconds and bots post fast: no hourly per-poster limit
posts_per_hour = 0

# The demo reads the moderator's Maildir ({root / "mail" / MODERATOR / "Maildir"}) instead of
# IMAP: only the folder names, the size cap and the poll interval below are used.
[imap]
host = "127.0.0.1"
tls = "none"
poll_interval = 1

[smtp]
host = "127.0.0.1"
port = {smtp_port}
tls = "none"
timeout = 10

[daemon]
data_dir = {json.dumps(str(root / "data"))}
retry_base_seconds = 1
heartbeat_seconds = 5
# bots write a lot: lift the anti-flood limits meant for people
outbound_cap_per_hour = 100000
errors_per_hour = 100000
autos_per_day = 100000
reply_burst = 100000
replies_per_hour = 100000
""",
        encoding="utf-8",
    )
    (root / "data").mkdir(exist_ok=True)  # as StateDirectory= does: new-game creates none
    return path


def create_game(
    config: Path, game: str, names: Sequence[str], seed: int, lang: str, options: Mapping[str, Any]
) -> str:
    """``pbem new-game`` itself (the daemon's own path); returns what it printed."""
    from pbem.cli.daemon import main as daemon_cli

    setup = {
        "game": game,
        "seed": seed,
        "lang": lang,
        "players": gendered([{"name": n, "email": email_of(n)} for n in names]),
        "options": dict(options),
    }
    path = config.parent / "setup.json"
    path.write_text(json.dumps(setup, ensure_ascii=False, indent=1), encoding="utf-8")
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        rc = daemon_cli(["new-game", "-c", str(config), "--setup", str(path), "--id", GAME_ID])
    if rc != 0:
        raise RuntimeError(f"pbem new-game failed: {err.getvalue().strip()}")
    return buf.getvalue()


@dataclass
class DemoResult:
    """What happened: for the summary and the tests."""

    root: Path
    finished: bool
    summary: dict[str, Any]
    posts: list[bytes]
    elapsed: float
    messages: int
    deliveries: int
    daemon_status: int | None
    bots: list[MailBot]
    list_mode: str = "external"
    problems: list[str] = field(default_factory=list)
    """What contradicts the game as played: a bot's move refused, a round closed with no
    vote (:func:`pbem.tools.demo_problems.demo_problems`); the demo fails on any."""
    lang: str = "en"
    """The game's language: the summary's words (pbem/tools/demo_words.py)."""


def drain_requests(services: Sequence[Service]) -> None:
    """Have the running daemon's writer act on the operator's requests now (the demo's
    ``CLORE``), instead of at its request ticker's next look, up to a second later: the same
    work the ticker submits, so a request is consumed once whichever comes first."""
    from pbem.daemon.work import Call

    if not services or services[-1].work.stopping:
        return
    svc = services[-1]
    done = svc.work.submit_nowait(Call(svc.operator.apply_requests))
    done.add_done_callback(_log_failure)


def _log_failure(done: asyncio.Future[Any]) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.error("the demo's close failed", exc_info=done.exception())


def _load_table(data: Path) -> Any:
    from pbem.adapters.store import GameStore
    from pbem.table import Table

    gs = GameStore(data / "games" / GAME_ID, readonly=True)
    return Table.load(gs.setup, gs.events()), gs


async def play_by_mail(
    root: Path,
    *,
    game: str = "lupus-in-tabula",
    players: int = 0,
    seed: int = 1,
    lang: str = "en",
    options: Mapping[str, Any] | None = None,
    out: TextIO = sys.stdout,
    timeout: float = 180.0,
    list_mode: str = "external",
    close_when_idle: bool = True,
) -> DemoResult:
    """Run the whole demo in ``root``; stops the daemon with SIGTERM once the game is over.

    ``players``: 0 for the game's :data:`DEMO_PLAYERS`; ``options`` complete (and override) the
    game's :data:`FAST_OPTIONS`.

    ``list_mode``: who distributes the list, the mail system (``external``) or the daemon
    (``relay``); see the module docstring.

    ``close_when_idle``: close each step as soon as nobody can act in it (:class:`IdleCloser`)
    instead of waiting for its deadline, made :data:`PATIENT` (a safety net)."""
    from pbem.adapters.maildir import MaildirMailbox
    from pbem.daemon.config import load
    from pbem.daemon.serve import serve
    from pbem.games import rules_for

    started = time.monotonic()
    names = demo_names(game, players or DEMO_PLAYERS.get(game, 10))
    emails = {email_of(n): n for n in names}
    mail = MailSystem(
        root / "mail", [MODERATOR, ADMIN, *emails], [*emails, MODERATOR], list_mode=list_mode
    )
    mail.start()
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    daemon: asyncio.Task[int] | None = None
    bots: list[MailBot] = []
    finished = False
    try:
        config = write_config(root, mail.port, lang, list_mode)
        cfg = load(config)
        chosen = {**FAST_OPTIONS.get(game, {}), **(options or {})}
        created = create_game(
            config, game, names, seed, lang, patient(chosen) if close_when_idle else chosen
        )
        for line in created.splitlines():
            print(f"  pbem new-game: {line}", file=out)
        print(
            f"  SMTP on 127.0.0.1:{mail.port}; mailboxes in {root / 'mail'}; "
            f"daemon data in {cfg.data_dir}\n",
            file=out,
            flush=True,
        )
        moderator_box = mail.maildir(MODERATOR)
        opened: list[MaildirMailbox] = []

        def moderator_mailbox() -> MaildirMailbox:
            # the mail system rings it on each delivery (below): no need to look every 50 ms
            box = MaildirMailbox(moderator_box, cfg.imap, poll=cfg.imap.poll_interval)
            opened.append(box)
            return box

        services: list[Service] = []
        daemon = asyncio.create_task(
            serve(cfg, mailbox=moderator_mailbox, on_service=services.append), name="daemon"
        )
        specs = tuple(rules_for(game).all_commands)
        rng = random.Random(seed)
        for email, name in emails.items():
            bot = MailBot(
                name=name,
                email=email,
                lang=lang,
                maildir=mail.maildir(email),
                roster=tuple(names),
                specs=specs,
                smtp_port=mail.port,
                rng=random.Random(rng.random()),
                prompt_targets=game in PROMPT_TARGETS,
            )
            bots.append(bot)
            tasks.append(asyncio.create_task(bot.run(stop), name=f"bot {name}"))
        ring_bots = doorbell(bots)

        def delivered(address: str) -> None:
            # a bot reads its mail as soon as it is delivered, and so does the daemon
            ring_bots(address)
            if address == MODERATOR and opened:
                opened[-1].interrupt.set()

        mail.on_delivery = delivered
        printer = Printer(mail, emails, out, started)
        tasks.append(asyncio.create_task(printer.run(stop), name="printer"))
        watch = GameWatch(cfg.data_dir)
        closer = IdleCloser(
            cfg.data_dir, moderator_box, bots, lang, kick=lambda: drain_requests(services)
        )
        end = time.monotonic() + timeout
        ticks = 0
        while time.monotonic() < end and not daemon.done():
            # the game is read every second, and by the closer whenever everyone is idle (a
            # read of the whole head at each of the daemon's commits was a sixth of the CPU)
            if watch.done or (ticks % 5 == 0 and watch.poll()):
                # the mail system delivers a message before it answers the daemon's SMTP:
                # an empty outbox means every mail of the game is in its Maildirs
                finished = True
                break
            if close_when_idle:
                closer.check(watch)
            ticks += 1
            await asyncio.sleep(0.2)
    finally:
        stop.set()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        status: int | None = None
        if daemon is not None:
            if not daemon.done():
                # the daemon's own SIGTERM path: finish the work item in hand, stop cleanly
                os.kill(os.getpid(), signal.SIGTERM)
            try:
                status = await asyncio.wait_for(daemon, 30)
            except (TimeoutError, asyncio.CancelledError):
                status = None
            except Exception:
                log.exception("the daemon failed")
                status = 1
        mail.stop()
    table, gs = _load_table(cfg.data_dir)
    return DemoResult(
        root=root,
        finished=finished,
        summary=named_summary(table),  # « Voyante », never seer, in a French demo
        posts=list(mail.posts),
        elapsed=time.monotonic() - started,
        messages=mail.messages,
        deliveries=mail.deliveries,
        daemon_status=status,
        bots=bots,
        list_mode=list_mode,
        problems=demo_problems(bots, gs.events()),
        lang=lang,
    )


def print_summary(result: DemoResult, out: TextIO) -> None:
    """Winners, roles (Dracula: the scores) and what went through the mail system, in the
    game's language."""
    bar = "═" * 72
    w = words(result.lang)
    print(f"\n{bar}\n  {w['summary']}\n{bar}", file=out)
    for line in summary_lines(result.summary, result.finished, result.lang):
        print(f"  {line}", file=out)
    traffic = w["traffic"].format(
        posts=len(result.posts),
        who=w["relayed"] if result.list_mode == "relay" else w["listed"],
        messages=result.messages,
        sent=sum(b.sent for b in result.bots),
        retried=sum(b.retried for b in result.bots),
        deliveries=result.deliveries,
        elapsed=seconds(result.elapsed, 1, result.lang),
        status=result.daemon_status,
    )
    print(f"\n  {traffic}", file=out)
    for problem in result.problems:
        print("  " + w["failed"].format(problem=problem), file=out)


def run_mail_demo(
    game: str,
    players: int,
    seed: int | None,
    lang: str,
    directory: str | None = None,
    out: TextIO = sys.stdout,
    list_mode: str = "external",
) -> int:
    """``pbem demo``: returns 0 when the game was played to its end and the daemon stopped.

    ``list_mode``: ``external`` (a list run by the mail system) or ``relay`` (the daemon is
    the list)."""
    seed = seed if seed is not None else random.SystemRandom().randrange(10**6)
    count = players or DEMO_PLAYERS.get(game, 10)
    if game in USUAL_PLAYERS and game != "lupus-in-tabula" and count != USUAL_PLAYERS[game]:
        # Loup-Garou, Chasse aux sorcières and Dracula are played by a fixed number
        print(f"pbem demo: {game} is played by {USUAL_PLAYERS[game]} players", file=sys.stderr)
        return 2
    if not 8 <= count <= len(demo_names(game, len(NAMES))):
        print(f"pbem demo: --players must be between 8 and {len(NAMES)}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    root = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    if (root / "data").exists():
        print(f"pbem demo: {root} already holds a game; choose an empty --dir", file=sys.stderr)
        return 2
    bar = "═" * 72
    w = words(lang)
    print(bar, file=out)
    from pbem.games import rules_for

    title = rules_for(game).title  # « Lupus in Tabula », never its id
    print("  " + w["banner"].format(game=title, count=count, seed=seed), file=out)
    if list_mode == "relay":
        print(f"  {w['relay']}", file=out)
    print(bar, file=out, flush=True)
    try:
        result = asyncio.run(
            play_by_mail(
                root, game=game, players=count, seed=seed, lang=lang, out=out, list_mode=list_mode
            )
        )
        print_summary(result, out)
    finally:
        if directory is None:
            shutil.rmtree(root, ignore_errors=True)
        else:
            kept = w["kept"].format(root=root, config=root / "pbem.toml")
            print(f"  {kept}", file=out)
    for problem in result.problems:
        print(f"pbem demo: {problem}", file=sys.stderr)
    return 0 if result.finished and result.daemon_status == 0 and not result.problems else 1
