"""The mail demo's bots (``pbem demo``): players who read their mail (HELP and STATUS replies,
the prompts) and answer by mail with random legal moves, as :mod:`pbem.tools.maildemo` runs them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import aiosmtplib

from pbem.core.commands import CommandSpec, Player, Players, Text, Word
from pbem.tools.demo_mail import (
    DOMAIN,
    LIST,
    MODERATOR,
    address_of,
    parse_mail,
    text_of,
)

log = logging.getLogger(__name__)

#: The labels of the STATUS reply a bot reads, per language; each game words its STATUS its
#: own way (Chasse's players are "in play", Dracula lists everyone in its scores, Loup-Garou's
#: wolves know "the other Wolves"), so a label may have several spellings; a label naming
#: players agrees with them (« Nommées : », "Nominee:"), so it has each of its forms.
LABELS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "en": {
        "phase": ("Phase:",),
        "living": ("Living players:", "Players in play:"),
        "scores": ("Scores:",),
        "nominees": ("Nominees:", "Nominee:"),
        "partners": ("You know:", "The other Wolves:"),
    },
    "fr": {
        "phase": ("Phase :",),
        "living": (
            "Joueurs vivants :",
            "Joueuses vivantes :",
            "Joueur vivant :",
            "Joueuse vivante :",
            "Joueurs en jeu :",
            "Joueuses en jeu :",
            "Joueur en jeu :",
            "Joueuse en jeu :",
        ),
        "scores": ("Scores :",),
        "nominees": ("Nommés :", "Nommées :", "Nommé :", "Nommée :"),
        "partners": ("Vous connaissez :", "Les autres loups :"),
    },
}
_CHAT = {
    "en": ("I trust nobody tonight.", "Stay calm, pack.", "Who is the Seer?"),
    "fr": ("Je me méfie de tout le monde.", "Du calme, la meute.", "Qui est le Voyant ?"),
}
# words that agree with no one: a bot is any of the demos' players, women among them
_BOLD = {
    "en": ("My vote: **{}**", "For me it is **{}**.", "**{}**, obviously."),
    "fr": ("Mon vote : **{}**", "Pour moi, c'est **{}**.", "**{}**, évidemment."),
}
_META = ("help", "status", "cancel", "pass", "unvote", "rules")
#: What the rulebook says a step waits for (a room at night, a bite, the final choice): a bot
#: does that first, so a step can close early; anything else it may add on a second line.
_FIRST = ("room", "bite", "flee", "fight", "flame", "partner")
#: Commands whose choices only their private prompt names (a Mayor's tie-break, LG-251: the
#: tied players), in every game: a bot picks among those, never among all the living.
_AMONG_PROMPTED = ("decide",)
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
    prompted: Sequence[str] = (),
) -> tuple[str, str] | None:
    """A random legal move for what ``view`` says: ``("private" | "list", text)`` or None.

    A vote (or another command HELP says to post on the list: a Dracula partner, a public
    room, a Mayor's decision) goes to the list; night actions go to the moderator, with PASS
    when there is nothing else to do. ``prompt``: the mail that opened the step; a word it names
    is preferred (Dracula's rooms, not its sanctuary). ``named``: the players a private prompt
    offered as targets (the others in a Dracula vampire's room), preferred for a night action.
    ``prompted``: the players any private prompt of the step named, the only choices of a
    command of :data:`_AMONG_PROMPTED`.
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
        among = [p for p in prompted if p in others]
        if spec.verb in _AMONG_PROMPTED and among:
            others = among
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


def doorbell(bots: Sequence[MailBot]) -> Callable[[str], None]:
    """What the mail system calls, from its own thread, on each delivery to an address: wakes
    the bot reading it (the caller's event loop runs the bots)."""
    loop = asyncio.get_running_loop()
    by_address = {b.email.lower(): b for b in bots}

    def ring(address: str) -> None:
        bot = by_address.get(address.lower())
        if bot is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody to wake
                loop.call_soon_threadsafe(bot.wake.set)

    return ring


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
            # as many as there are (LG-620: the Piper charms two, fewer only when fewer are
            # left; one name of two was refused « Cette commande demande 2 noms »)
            words += rng.sample(others, min(arg.count, len(others)))
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
    # CANCEL takes a free text too (the command to cancel): it is no way to talk
    return spec.verb not in _META and len(spec.args) == 1 and isinstance(spec.args[0], Text)


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
    #: a bot reads its mail when the mail system rings (:func:`doorbell`), and at least this
    #: often for mail delivered another way (13 bots reading every 50 ms cost about 1 s of CPU
    #: per game, most of it in a quiet mailbox)
    poll: float = 1.0
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: a phase's burst (the public post, the private prompt) comes in a few mails: a bot asks
    #: once its mailbox has been quiet this long, to ask once for the burst (only a saving: a
    #: prompt read after the question is answered by asking again)
    debounce: float = 0.15
    prompt_targets: bool = False  # a private prompt names the targets (see choose)
    acted: set[str] = field(default_factory=set)
    retried: int = 0
    sent: int = 0
    read: int = 0
    _asked: str | None = None  # the Message-ID of our HELP + STATUS awaiting its reply
    _wanted: bool = False  # a step opened (or a move was refused) since our last question
    _quiet_from: float = 0.0  # when the last prompt was read
    _fresh: bool = True  # the prompt was read by a reply: the next one starts a new prompt
    busy: bool = False  # inside a step (reading, asking, playing): see idle()
    over: bool = False  # the game's archive arrived: the game is over, nothing more to play
    _prompt: str = ""  # what the mail(s) opening the step said, public and private
    _named: tuple[str, ...] = ()  # the players a private prompt named (prompt_targets)
    _prompted: tuple[str, ...] = ()  # the players any private prompt of the step named
    _moves: dict[str, str] = field(default_factory=dict)  # Message-ID of a move -> its step
    _tries: dict[str, int] = field(default_factory=dict)  # step -> moves refused as a whole
    refusals: list[str] = field(default_factory=list)
    """Each line of ours the daemon refused (``name, step: line — why``); the demo fails on
    those refused as outside their step (issue 21 item 16: :mod:`pbem.tools.maildemo`)."""
    #: one SMTP connection kept open, as a mail client does (a connection and its greeting
    #: for each of a game's thousand mails cost the bots and the mail system)
    _smtp: aiosmtplib.SMTP | None = field(default=None, repr=False)

    async def run(self, stop: asyncio.Event) -> None:
        """Read mail as it is delivered (``wake``, or every ``poll`` seconds) until ``stop``;
        never raises (a bot must not kill the demo)."""
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                self.wake.clear()  # before reading: a mail delivered meanwhile rings again
                self.busy = True
                try:
                    await self.step()
                except Exception:  # an SMTP hiccup: log it and go on, as a mail client would
                    log.exception("bot %s", self.name)
                finally:
                    self.busy = False
                ringing = asyncio.ensure_future(self.wake.wait())
                await asyncio.wait(
                    {stopping, ringing}, timeout=self.nap(), return_when=asyncio.FIRST_COMPLETED
                )
                ringing.cancel()
        finally:
            stopping.cancel()
            await self._hang_up()

    def nap(self) -> float:
        """How long to wait for mail: until the burst's debounce is over when a question is
        due (see :meth:`step`), else the safety ``poll``."""
        if self._wanted and self._asked is None and not self.over:
            return max(0.01, self._quiet_from + self.debounce - time.monotonic())
        return self.poll

    async def step(self) -> None:
        """Read the new mail, then ask HELP + STATUS if a phase opened and nothing is in flight.

        Mail moves a bot, not a timer: the daemon answers every mail, so a question waits
        for its reply however long a busy machine takes (a bot that gave up after 5 s and
        asked again ignored the late reply, and on a loaded machine never played); a prompt
        read meanwhile is answered by asking again once the reply is in."""
        for msg in self.new_mail():
            await self.handle(msg)
        quiet = time.monotonic() - self._quiet_from >= self.debounce
        if self._wanted and quiet and self._asked is None and not self.over:
            self._wanted = False
            ask = [_spec(self.specs, v).keyword(self.lang) for v in ("help", "status")]
            self._asked = await self.send(MODERATOR, "\n".join(ask))

    def idle(self) -> bool:
        """Nothing left to do until new mail comes: all mail read, no question awaiting its
        reply, no step waiting to be asked about (the demo closes a step once every bot and
        the daemon are idle: :mod:`pbem.tools.maildemo`)."""
        if self.busy or self._asked is not None or (self._wanted and not self.over):
            return False
        return not any((self.maildir / "new").iterdir())

    def new_mail(self) -> list[EmailMessage]:
        """Unread messages in arrival order, marked read (moved to ``cur/``) like a mail client."""
        new = self.maildir / "new"
        files = sorted((p.stat().st_mtime, p.name, p) for p in new.iterdir())
        out = []
        for _mtime, name, path in files:
            out.append(parse_mail(path.read_bytes()))
            os.replace(path, self.maildir / "cur" / f"{name}:2,S")
        self.read += len(out)
        return out

    async def handle(self, msg: EmailMessage) -> None:
        """React to one message: play on the reply to our question, note that a phase opened."""
        if address_of(msg["From"]) != MODERATOR:
            return  # another player's post on the list
        if self._asked is not None and str(msg.get("In-Reply-To", "")) == self._asked:
            self._asked = None
            self._fresh = True
            view = read_reply(
                text_of(msg), self.roster, [s.keyword(self.lang) for s in self.specs], self.lang
            )
            if view is None or view.step in self.acted or self.name not in view.living:
                return
            self.acted.add(view.step)
            if self.rng.random() < self.silence:
                return  # sometimes a player just does not answer: the deadline handles it
            move = choose(
                view,
                self.name,
                self.specs,
                self.lang,
                self.rng,
                self._prompt,
                self._named,
                self._prompted,
            )
            if move is not None:
                channel, text = move
                mid = await self.send(LIST if channel == "list" else MODERATOR, text)
                self._moves[mid] = view.step
            return
        if str(msg.get("Auto-Submitted", "")).startswith("auto-replied"):
            # the receipt of a command we sent: all refused, a person would try something else
            step = self._moves.pop(str(msg.get("In-Reply-To", "")), None)
            body = text_of(msg)
            if step is not None:
                self.refusals += [
                    f"{self.name}, {step}: {line.strip()[2:]}"
                    for line in body.splitlines()
                    if _REFUSED.match(line)
                ]
            if step is not None and _REFUSED.search(body) and not _ACCEPTED.search(body):
                tries = self._tries.get(step, 0)
                if tries < RETRIES:
                    self._tries[step] = tries + 1
                    self.acted.discard(step)
                    self.retried += 1
                    self._wanted = True
            return
        if next(msg.iter_attachments(), None) is not None:
            self.over = True  # the game's archive (mailed at its end): a keepsake
            return
        text = text_of(msg)
        if not _CLOCK.search(text):
            # a tally, a result, a relay: only what opens a phase names its deadline's time
            return
        # the moderator opened a phase: look at what we can do (the rest of the burst, the
        # public post and the private prompt, is read with it or before the reply)
        if self._fresh:
            self._prompt, self._named, self._prompted, self._fresh = "", (), (), False
        self._prompt += text
        if not msg.get("List-Id"):
            named = _names_in(text, self.roster)
            self._prompted += named
            if self.prompt_targets:
                self._named += named
        self._wanted = True
        self._quiet_from = time.monotonic()

    async def send(self, to: str, body: str) -> str:
        """Mail ``body`` by SMTP as a mail client would; returns its Message-ID."""
        msg = EmailMessage()
        msg["From"] = f"{self.name} <{self.email}>"
        msg["To"] = to
        msg["Subject"] = ""
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = mid = make_msgid(domain=DOMAIN)
        msg.set_content(body + "\n")
        for attempt in (1, 2):
            smtp = await self._connection()
            try:
                await smtp.send_message(msg)
                break
            except aiosmtplib.SMTPServerDisconnected:
                # the server closed the connection kept open (an idle timeout): call again,
                # once; nothing was accepted on a connection that was gone
                self._smtp = None
                if attempt == 2:
                    raise
        self.sent += 1
        return mid

    async def _connection(self) -> aiosmtplib.SMTP:
        if self._smtp is None or not self._smtp.is_connected:
            # a HELO name of our own: aiosmtplib otherwise looks up this machine's FQDN
            smtp = aiosmtplib.SMTP(
                hostname="127.0.0.1", port=self.smtp_port, timeout=10, local_hostname="localhost"
            )
            await smtp.connect()
            self._smtp = smtp
        return self._smtp

    async def _hang_up(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None and smtp.is_connected:
            try:
                await smtp.quit()
            except (aiosmtplib.SMTPException, OSError):
                smtp.close()
