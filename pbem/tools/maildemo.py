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
- one bot per player (:class:`MailBot`) that reads its own Maildir and answers by SMTP;
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
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import Any, TextIO

import aiosmtplib
from aiosmtpd.controller import Controller

from pbem.core.commands import CommandSpec, Player, Players, Text, Word
from pbem.daemon.config import LIST_MODES
from pbem.tools.demo import NAMES, USUAL_PLAYERS, demo_names

log = logging.getLogger(__name__)

#: Games the daemon demo can play (its bots read these games' STATUS replies).
MAIL_DEMO_GAMES = ("lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula")

DOMAIN = "village.example"
MODERATOR = f"mj@{DOMAIN}"
ADMIN = f"admin@{DOMAIN}"
LIST = f"village@lists.{DOMAIN}"
LIST_ID = f"village.lists.{DOMAIN}"
GAME_ID = "demo"

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


def email_of(name: str) -> str:
    """``Chloé`` → ``chloe@village.example``: plain ASCII, so no SMTPUTF8 is needed."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return f"{plain}@{DOMAIN}"


def _parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def _text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    if part is None:
        return ""
    with contextlib.suppress(Exception):
        return str(part.get_content())
    return ""


def _address(value: object) -> str:
    return parseaddr(str(value or ""))[1].lower()


# ---- the mail system ------------------------------------------------------------------------


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
            # Maildir delivery: tmp/ then rename into new/, so readers never see half a message
            mailbox.Maildir(self.maildir(address), create=False).add(payload)
        with self.lock:
            self.messages += 1
            self.deliveries += len(jobs)
        return "250 OK delivered"

    def _keep_relayed(self, rcpts: Sequence[str], data: bytes) -> None:
        """Relay mode: keep, once, a message with the list's List-Id sent to a member."""
        if not any(r.lower() in self.members for r in rcpts):
            return
        head = BytesHeaderParser(policy=policy.default).parsebytes(data)
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


# ---- bots -----------------------------------------------------------------------------------

#: The labels of the STATUS reply a bot reads, per language; each game words its STATUS its
#: own way (Chasse's players are "in play", Dracula lists everyone in its scores, Loup-Garou's
#: wolves know "the other Wolves"), so a label may have several spellings.
LABELS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "en": {
        "phase": ("Phase:",),
        "living": ("Living players:", "Players in play:"),
        "scores": ("Scores:",),
        "nominees": ("Nominees:",),
        "partners": ("You know:", "The other Wolves:"),
    },
    "fr": {
        "phase": ("Phase :",),
        "living": ("Joueurs vivants :", "Joueurs en jeu :"),
        "scores": ("Scores :",),
        "nominees": ("Nommés :",),
        "partners": ("Vous connaissez :", "Les autres loups :"),
    },
}
_CHAT = {
    "en": ("I trust nobody tonight.", "Stay calm, pack.", "Who is the Seer?"),
    "fr": ("Je me méfie de tout le monde.", "Du calme, la meute.", "Qui est le Voyant ?"),
}
_BOLD = {
    "en": ("My vote: **{}**", "I am sure it is **{}**.", "**{}**, obviously."),
    "fr": ("Mon vote : **{}**", "Je suis sûr que c'est **{}**.", "**{}**, évidemment."),
}
_META = ("help", "status", "cancel", "pass", "unvote", "rules")
#: What the rulebook says a step waits for (a room at night, a bite, the final choice): a bot
#: does that first, so a step can close early; anything else it may add on a second line.
_FIRST = ("room", "bite", "flee", "fight", "flame", "partner")
_REFUSED = re.compile(r"^  ✗ ", re.MULTILINE)
_ACCEPTED = re.compile(r"^  ✓ ", re.MULTILINE)
#: Games whose private prompts name a night action's possible targets (Dracula: who is in
#: the vampire's room); elsewhere they name one's own team.
PROMPT_TARGETS = ("dracula",)
#: How many times a bot tries again in one step after a move refused as a whole.
RETRIES = 2
# "  VOTE name — vote for ... (post it on the list)": the keyword, then what HELP says of it
_HELP_LINE = re.compile(r"^  (\S+)(?: .*?)?( \((?:post it on the list|à poster sur la liste)\))?$")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")  # a deadline's time of day, in any language


@dataclass(frozen=True)
class View:
    """What one HELP + STATUS reply tells a player.

    ``public``: the commands HELP says to post on the list (Dracula's ``ROOM`` is a private
    order at night and a public declaration by day). ``step``: the whole phase line, deadlines
    included, which tells apart the steps of one phase (a Loup-Garou night's council, then its
    witch; Dracula's rooms, then its bites).
    """

    commands: tuple[str, ...]
    phase: str
    living: tuple[str, ...]
    nominees: tuple[str, ...]
    partners: tuple[str, ...]
    public: tuple[str, ...] = ()
    step: str = field(default="", compare=False)


def _names_in(line: str, roster: Sequence[str]) -> tuple[str, ...]:
    return tuple(n for n in roster if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", line))


def read_reply(body: str, roster: Sequence[str], keywords: Sequence[str], lang: str) -> View | None:
    """Read a reply to ``HELP`` + ``STATUS``; None if it holds no STATUS (e.g. the game is over).

    The living are read from the living players' line, or, for a game whose STATUS has none
    (Dracula), from its scores line, which names everyone.
    """
    labels = LABELS.get(lang, LABELS["en"])
    known = {k.upper() for k in keywords}
    commands: list[str] = []
    public: list[str] = []
    found: dict[str, str] = {}
    for line in body.splitlines():
        m = _HELP_LINE.match(line)
        if m and m[1].upper() in known:
            commands.append(m[1].upper())
            if m[2]:
                public.append(m[1].upper())
            continue
        for what, spellings in labels.items():
            label = next((x for x in spellings if line.startswith(x)), None)
            if label is not None and what not in found:
                found[what] = line[len(label) :]
    living = found.get("living", found.get("scores"))
    if "phase" not in found or living is None:
        return None
    return View(
        commands=tuple(commands),
        phase=found["phase"].split(",")[0].strip(),
        living=_names_in(living, roster),
        nominees=_names_in(found.get("nominees", ""), roster),
        partners=_names_in(found.get("partners", ""), roster),
        public=tuple(public),
        step=found["phase"].strip(),
    )


def choose(
    view: View,
    me: str,
    specs: Sequence[CommandSpec],
    lang: str,
    rng: random.Random,
    prompt: str = "",
    named: Sequence[str] = (),
) -> tuple[str, str] | None:
    """A random legal move for what ``view`` says: ``("private" | "list", text)`` or None.

    A vote (or another command HELP says to post on the list: a Dracula partner, a public
    room, a Mayor's decision) goes to the list; night actions go to the moderator, with PASS
    when there is nothing else to do. ``prompt``: the mail that opened the step; a word it names
    is preferred (Dracula's rooms, not its sanctuary). ``named``: the players a private prompt
    offered as targets (the others in a Dracula vampire's room), preferred for a night action.
    """
    avail = []
    for kw in view.commands:
        # one keyword may name two commands (Dracula's ROOM): HELP says which one is meant
        same = [s for s in specs if s.keyword(lang).upper() == kw]
        pick = next((s for s in same if s.public == (kw in view.public)), same[0] if same else None)
        if pick is not None:
            avail.append(pick)
    others = [p for p in view.living if p != me and p not in view.partners] or [
        p for p in view.living if p != me
    ]
    named = [p for p in named if p in others]
    vote = next((s for s in avail if s.verb == "vote"), None)
    if vote is not None:
        if me in view.nominees:
            return None  # a nominee does not vote in round 2
        pool = list(view.nominees) or others
        if not pool:
            return None
        target = rng.choice(pool)
        if rng.random() < 0.4:
            return "list", rng.choice(_BOLD.get(lang, _BOLD["en"])).format(target)
        return "list", f"{vote.keyword(lang)} {target}"
    lines = []
    actions = [s for s in avail if s.verb not in _META and not _is_chat(s)]
    first = [s for s in actions if s.verb in _FIRST]
    if first and others:
        spec = rng.choice(first)
        extra = [s for s in actions if s not in first and not s.public]
        if extra and not spec.public and rng.random() < 0.3:
            lines.append(_words(rng.choice(extra), named or others, lang, rng, prompt))
        if spec.public:
            return "list", _words(spec, others, lang, rng, prompt)
        lines.insert(0, _words(spec, named or others, lang, rng, prompt))
    elif actions and others:
        spec = rng.choice(actions)
        if spec.public:
            return "list", _words(spec, others, lang, rng, prompt)
        lines.append(_words(spec, named or others, lang, rng, prompt))
    elif any(s.verb == "pass" for s in avail):
        lines.append(_spec(avail, "pass").keyword(lang))
    chat = [s for s in avail if _is_chat(s)]
    if chat and (not lines or rng.random() < 0.4):
        # a reply to a waltz, a painting, the pack's talk: sometimes all there is to do
        lines.append(f"{chat[0].keyword(lang)} {rng.choice(_CHAT.get(lang, _CHAT['en']))}")
    return ("private", "\n".join(lines)) if lines else None


def _words(
    spec: CommandSpec, others: Sequence[str], lang: str, rng: random.Random, prompt: str = ""
) -> str:
    """``spec``'s keyword with random arguments: names among ``others``, a word (one that
    ``prompt`` names, if any), a phrase."""
    words = [spec.keyword(lang)]
    for arg in spec.args:
        if isinstance(arg, Player):
            words.append(rng.choice(others))
        elif isinstance(arg, Players):
            most = min(arg.count, len(others))
            count = rng.randint(1, min(most, 2)) if arg.at_most else most
            words += rng.sample(others, count)
        elif isinstance(arg, Word):
            spellings = list(arg.choices.values())
            told = [w for w in spellings if any(_word_in(x, prompt) for x in w)]
            words.append(rng.choice(told or spellings)[0])
        elif isinstance(arg, Text):
            words.append(rng.choice(_CHAT.get(lang, _CHAT["en"])))
    return " ".join(words)


def _word_in(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) is not None


def _spec(specs: Sequence[CommandSpec], verb: str) -> CommandSpec:
    return next(s for s in specs if s.verb == verb)


def _is_chat(spec: CommandSpec) -> bool:
    return len(spec.args) == 1 and isinstance(spec.args[0], Text)


@dataclass
class MailBot:
    """A player who reads its Maildir and writes by SMTP (see the module docstring)."""

    name: str
    email: str
    lang: str
    maildir: Path
    roster: tuple[str, ...]
    specs: tuple[CommandSpec, ...]
    smtp_port: int
    rng: random.Random
    silence: float = 0.05
    debounce: float = 0.15
    prompt_targets: bool = False  # a private prompt names the targets (see choose)
    acted: set[str] = field(default_factory=set)
    retried: int = 0
    sent: int = 0
    read: int = 0
    _asked: str | None = None
    _asked_at: float = 0.0
    _due: float | None = None
    over: bool = False  # the game's archive arrived: the game is over, nothing more to play
    _prompt: str = ""  # what the mail(s) opening the step said, public and private
    _named: tuple[str, ...] = ()  # the players a private prompt named
    _moves: dict[str, str] = field(default_factory=dict)  # Message-ID of a move -> its step
    _tries: dict[str, int] = field(default_factory=dict)  # step -> moves refused as a whole

    async def run(self, stop: asyncio.Event) -> None:
        """Read mail every 50 ms until ``stop``; never raises (a bot must not kill the demo)."""
        while not stop.is_set():
            try:
                await self.step()
            except Exception:  # an SMTP hiccup: log it and go on, as a mail client would
                log.exception("bot %s", self.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.05)

    async def step(self) -> None:
        """Read the new mail, then ask HELP + STATUS if a phase opened and nothing is in flight."""
        for msg in self.new_mail():
            await self.handle(msg)
        now = time.monotonic()
        if self._asked is not None and now - self._asked_at > 5:
            self._asked = None  # the reply never came: ask again if needed
        if self._due is not None and now >= self._due and self._asked is None and not self.over:
            self._due = None
            ask = [_spec(self.specs, v).keyword(self.lang) for v in ("help", "status")]
            self._asked = await self.send(MODERATOR, "\n".join(ask))
            self._asked_at = now

    def new_mail(self) -> list[EmailMessage]:
        """Unread messages in arrival order, marked read (moved to ``cur/``) like a mail client."""
        new = self.maildir / "new"
        files = sorted((p.stat().st_mtime, p.name, p) for p in new.iterdir())
        out = []
        for _mtime, name, path in files:
            out.append(_parse(path.read_bytes()))
            os.replace(path, self.maildir / "cur" / f"{name}:2,S")
        self.read += len(out)
        return out

    async def handle(self, msg: EmailMessage) -> None:
        """React to one message: play on the reply to our question, note that a phase opened."""
        if _address(msg["From"]) != MODERATOR:
            return  # another player's post on the list
        if self._asked is not None and str(msg.get("In-Reply-To", "")) == self._asked:
            self._asked = None
            view = read_reply(
                _text(msg), self.roster, [s.keyword(self.lang) for s in self.specs], self.lang
            )
            if view is None or view.step in self.acted or self.name not in view.living:
                return
            self.acted.add(view.step)
            if self.rng.random() < self.silence:
                return  # sometimes a player just does not answer: the deadline handles it
            move = choose(
                view, self.name, self.specs, self.lang, self.rng, self._prompt, self._named
            )
            if move is not None:
                channel, text = move
                mid = await self.send(LIST if channel == "list" else MODERATOR, text)
                self._moves[mid] = view.step
            return
        if str(msg.get("Auto-Submitted", "")).startswith("auto-replied"):
            # the receipt of a command we sent: all refused, a person would try something else
            step = self._moves.pop(str(msg.get("In-Reply-To", "")), None)
            body = _text(msg)
            if step is not None and _REFUSED.search(body) and not _ACCEPTED.search(body):
                tries = self._tries.get(step, 0)
                if tries < RETRIES:
                    self._tries[step] = tries + 1
                    self.acted.discard(step)
                    self.retried += 1
                    self._due = time.monotonic() + self.debounce
            return
        if next(msg.iter_attachments(), None) is not None:
            self.over = True  # the game's archive (mailed at its end): a keepsake
            return
        text = _text(msg)
        if not _CLOCK.search(text):
            # a tally, a result, a relay: only what opens a phase names its deadline's time
            return
        # the moderator opened a phase: look at what we can do, once the burst is in
        if self._due is None:
            self._prompt, self._named = "", ()
        self._prompt += text
        if self.prompt_targets and not msg.get("List-Id"):
            self._named += _names_in(text, self.roster)
        self._due = time.monotonic() + self.debounce

    async def send(self, to: str, body: str) -> str:
        """Mail ``body`` by SMTP as a mail client would; returns its Message-ID."""
        msg = EmailMessage()
        msg["From"] = f"{self.name} <{self.email}>"
        msg["To"] = to
        msg["Subject"] = ""
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = mid = make_msgid(domain=DOMAIN)
        msg.set_content(body + "\n")
        await aiosmtplib.send(msg, hostname="127.0.0.1", port=self.smtp_port, timeout=10)
        self.sent += 1
        return mid


# ---- the printer ----------------------------------------------------------------------------

WIDTH = 88


def render_post(raw: bytes, names: Mapping[str, str], at: float | None = None) -> str:
    """One post of the list for the terminal: a box for the moderator, a line for a player.

    ``at``: seconds since the start, shown so the deadlines (in seconds) can be seen at work.
    """
    msg = _parse(raw)
    sender = _address(msg["From"])
    body = _text(msg).rstrip()
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
        wrapped = textwrap.wrap(line, WIDTH, subsequent_indent="  " if line[:1] == " " else "")
        out += ["│ " + w for w in wrapped] if wrapped else ["│"]
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
        "players": [{"name": n, "email": email_of(n)} for n in names],
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
) -> DemoResult:
    """Run the whole demo in ``root``; stops the daemon with SIGTERM once the game is over.

    ``players``: 0 for the game's :data:`DEMO_PLAYERS`; ``options`` complete (and override) the
    game's :data:`FAST_OPTIONS`.

    ``list_mode``: who distributes the list, the mail system (``external``) or the daemon
    (``relay``); see the module docstring.
    """
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
        created = create_game(
            config, game, names, seed, lang, {**FAST_OPTIONS.get(game, {}), **(options or {})}
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
        daemon = asyncio.create_task(
            serve(cfg, mailbox=lambda: MaildirMailbox(moderator_box, cfg.imap)), name="daemon"
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
        printer = Printer(mail, emails, out, started)
        tasks.append(asyncio.create_task(printer.run(stop), name="printer"))
        data = cfg.data_dir
        end = time.monotonic() + timeout
        while time.monotonic() < end and not daemon.done():
            table, gs = _load_table(data)
            # the victory post is committed: wait until the daemon has sent everything
            if table.finished and all(r.get("status") != "pending" for r in gs.outbox()):
                finished = True
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.3)  # the list's last deliveries
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
    table, _gs = _load_table(cfg.data_dir)
    return DemoResult(
        root=root,
        finished=finished,
        summary=table.summary(),
        posts=list(mail.posts),
        elapsed=time.monotonic() - started,
        messages=mail.messages,
        deliveries=mail.deliveries,
        daemon_status=status,
        bots=bots,
        list_mode=list_mode,
    )


def print_summary(result: DemoResult, out: TextIO) -> None:
    """Winners, roles (Dracula: the scores) and what went through the mail system."""
    bar = "═" * 72
    s = result.summary
    scores: Mapping[str, int] = s.get("scores") or {}  # a game of points: who scored what
    print(f"\n{bar}\n  Summary\n{bar}", file=out)
    winners = ", ".join(s["winners"]) or "nobody"
    if result.finished and scores:
        best = max(scores.values(), default=0)
        print(f"  Winners: {winners} ({best} point{'' if best == 1 else 's'})", file=out)
    elif result.finished:
        print(f"  Winners: {s.get('side')} — {winners}", file=out)
    else:
        print(f"  The game did not finish (phase {s.get('phase')}, day {s.get('day')}).", file=out)
    for p in s["players"]:
        mark = "alive" if p["alive"] else "dead"
        n = scores.get(p["name"])
        points = "" if n is None else f" {n:>3} point{'' if n == 1 else 's'}"
        print(f"  {p['name']:<10} {p['role']:<13} {p['team']:<12} {mark:<5}{points}", file=out)
    sent = sum(b.sent for b in result.bots)
    retried = sum(b.retried for b in result.bots)
    who = "relayed by the daemon" if result.list_mode == "relay" else "on the list"
    print(
        f"\n  {len(result.posts)} posts {who}, {result.messages} messages through SMTP "
        f"({sent} written by the bots, who tried again {retried} times after a refusal), "
        f"{result.deliveries} Maildir deliveries; "
        f"{result.elapsed:.1f} s; daemon exit status {result.daemon_status}",
        file=out,
    )


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
    the list).
    """
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
    print(bar, file=out)
    print(
        f"  {game} by email — {count} bot players, seed {seed}: the real daemon, an embedded "
        "SMTP server, Maildir mailboxes",
        file=out,
    )
    if list_mode == "relay":
        print("  [list] mode = relay: the daemon itself distributes the list", file=out)
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
            print(f"  Everything is kept in {root} (pbem status -c {root / 'pbem.toml'})", file=out)
    return 0 if result.finished and result.daemon_status == 0 else 1
