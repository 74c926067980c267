"""A game taking sign-ups, driven by mail like any game: :class:`SignupTable`.

Pure (no I/O, no clock). The daemon and ``pbem simulate`` drive it exactly as they drive a
:class:`pbem.table.Table` (``receive``, ``on_deadline``, ``deadlines``, ``apply``,
``admin_lines``...): volunteers' commands become lobby events (:mod:`pbem.signup.lobby`) with
a receipt, the list sees the count move, and the start is what ``pbem new-game`` does (the
deal, the sealed deal commitment, role cards, the opening post) from the setup the lobby has
filled in. From then on every call passes through to the game's own Table, so the daemon needs
no second code path; a game loaded after its start is a plain Table (:func:`load`).

The game's log is the lobby's events, then ``signup.started`` holding the game's full setup
(players, and the ``bench`` of volunteers beyond the seats), then the game's own events.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from functools import cached_property
from typing import Any, TypeVar, Unpack

from pbem.adapters.codes import CodeSource, new_code
from pbem.core.commands import find_spec
from pbem.core.errors import CommandError, IllegalNow, MailError, SetupError, UnknownCommand
from pbem.core.ids import PlayerId
from pbem.core.match import clean_token, fold
from pbem.core.options import parse_options
from pbem.desk import DESK_SPECS
from pbem.desk.kernel import parse_duration
from pbem.games import rules_for
from pbem.mail.address import is_mailable, parseaddr
from pbem.mail.grammar import parse_gender
from pbem.mail.html import to_html
from pbem.mail.inbound import MailText, extract, message_id_of, sender_of
from pbem.mail.plain_text import plain_text
from pbem.mail.render import Renderer, shared_renderer
from pbem.rules import options_in_use, rules_page
from pbem.rules.options_words import described
from pbem.signup import lobby as lb
from pbem.signup.codes import issue_codes, wants_codes
from pbem.signup.decks import deck, legal_counts
from pbem.signup.started import started_game, still_signing_up
from pbem.table import Delivery, Outgoing, Reply, Step, Table

# What a volunteer may send before the start: folded keyword -> (verb, language it is in).
PLAYER_WORDS: Mapping[str, tuple[str, str]] = {
    "inscription": ("join", "fr"),
    "join": ("join", "en"),
    "desinscription": ("leave", "fr"),
    "leave": ("leave", "en"),
    "remplacant": ("substitute", "fr"),
    "substitute": ("substitute", "en"),
    "aide": ("help", "fr"),
    "help": ("help", "en"),
    "statut": ("status", "fr"),
    "etat": ("status", "fr"),
    "status": ("status", "en"),
    "regles": ("rules", "fr"),
    "regle": ("rules", "fr"),
    "rules": ("rules", "en"),
}
# What a game master may send before the start (ANNULER PARTIE: ANNULER alone is a player's).
ADMIN_WORDS: Mapping[str, str] = {
    "prolonger": "extend",
    "extend": "extend",
    "demarrer": "start",
    "start": "start",
    "annuler partie": "cancel",
    "cancel": "cancel",
    "cancel game": "cancel",
    "aide": "help",
    "help": "help",
    "statut": "status",
    "status": "status",
    "inscrits": "status",
}
W = TypeVar("W")
"""What a keyword of :data:`PLAYER_WORDS` or :data:`ADMIN_WORDS` stands for."""
SIGNUP_DEADLINE = "signup"
"""The deadline key of the sign-up deadline."""
COUNT_DEADLINE = "signup-count"
"""The deadline key of a digest of sign-up changes the list has not seen yet."""


LONGEST_SIGNUP = timedelta(days=366)
"""The latest a sign-up deadline may fall, from its opening."""


def _verb(line: str, table: Mapping[str, W]) -> tuple[W, list[str]] | None:
    """The command a line starts with (longest keyword first) and the words after it."""
    words = line.split()
    folded = [fold(w.strip("*_.,;:!?")) for w in words]
    for size in (2, 1):
        key = " ".join(folded[:size])
        if len(folded) >= size and key in table:
            return table[key], words[size:]
    return None


def _not_before_the_start(line: str) -> CommandError | None:
    """Why a game master's line that is none of the sign-up commands is refused, or None for
    free text: a command of the game itself (PAUSE, RETIRER: not before it starts), or a
    typo of a sign-up command (DEMARER, a bare ANNULER), as the desk answers them."""
    tokens = line.split()
    first = fold(clean_token(tokens[0])) if tokens else ""
    if not first:
        return None
    if find_spec(tokens, DESK_SPECS) is not None:
        return IllegalNow("desk_not_started", word=clean_token(tokens[0]).upper())
    words = {k.split()[0]: k for k in ADMIN_WORDS}  # ANNULER alone: ANNULER PARTIE
    close = [words[first]] if first in words else []
    close += difflib.get_close_matches(first, [k for k in ADMIN_WORDS if " " not in k], 2, 0.75)
    if not close:
        return None
    return UnknownCommand(word=clean_token(tokens[0]), suggestions=[c.upper() for c in close])


class SignupTable:
    """One game before its start: the lobby, and the mail in and out of it."""

    def __init__(
        self,
        setup: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]] = (),
        renderer: Renderer | None = None,
        code_source: CodeSource = new_code,
    ) -> None:
        self.base_setup = {k: v for k, v in setup.items() if k != "signup"}
        try:
            self.terms = lb.Terms.from_mapping(setup["signup"])
        except (KeyError, TypeError, ValueError, IndexError):
            raise SetupError(
                'setup: \'signup\' must be {"seats": [min, max], "deadline": ISO date or '
                'null, "when_full": true|false}'
            ) from None
        if not isinstance(setup.get("game"), str):
            raise SetupError("setup: 'game' is missing")
        self.game_id = str(setup.get("game_id", setup["game"]))
        self.lang = str(setup.get("lang", "fr"))
        self.moderator = str(setup.get("moderator", "moderator"))
        self.list_address = str(setup.get("list", "list"))
        self.admins = tuple(str(a).lower() for a in setup.get("admins", []))
        self.options: Mapping[str, Any] = dict(setup.get("options", {}))
        self.rules = rules_for(str(setup["game"]))
        self.renderer = renderer or shared_renderer(str(setup.get("timezone", "UTC")))
        self.events: list[Mapping[str, Any]] = []
        self.lobby = lb.opened(self.terms)
        self.game: Table | None = None
        """The game's own Table once started: every call passes through to it."""
        self.code_source = code_source
        self.hands_out_codes = wants_codes(setup["signup"])
        """Whether the start mails each player a secret code (``[auth]`` asks for one)."""
        self._fold(events)

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def open(
        cls, setup: Mapping[str, Any], now: datetime, renderer: Renderer | None = None
    ) -> tuple[SignupTable, Step]:
        """A game opened for sign-ups and its announcement on the list; SetupError names the
        first problem (unknown game, no count the rules accept, a deadline in the past...)."""
        table = cls(setup, (), renderer)
        terms = table.terms
        if not 1 <= terms.seats_min <= terms.seats_max:
            raise SetupError(f"seats {terms.seats_min}-{terms.seats_max}: expected 1 <= min <= max")
        if not table.legal_in_range:
            from pbem.signup.decks import refusal

            why = refusal(table.rules, terms.seats_max, table.options, table.lang)
            raise SetupError(
                f"no count from {terms.seats_min} to {terms.seats_max} is one the rules accept"
                f" ({why})"
            )
        if terms.deadline is None and not terms.when_full:
            raise SetupError("a game taking sign-ups needs a deadline or to start when full")
        if terms.deadline is not None and terms.deadline <= now:
            raise SetupError(f"the sign-up deadline {terms.deadline.isoformat()} has passed")
        if terms.deadline is not None and terms.deadline > now + LONGEST_SIGNUP:
            # a typo (a year's digits): the lobby would wait for ever, its mails promising it
            raise SetupError(
                f"the sign-up deadline {terms.deadline.isoformat()} is more than a year ahead:"
                " give one within a year (48h, 3d or a date)"
            )
        if not table.admins:
            raise SetupError("sign-ups need a game master to ask at the deadline (admins)")
        for admin in table.admins:
            if not is_mailable(admin):
                raise SetupError(f"setup: admin {admin!r} is not a mail address")
        return table, table._step([], [table._public("announce", "announce", {})])

    # -- reading (the daemon's TableLike) -----------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        # only reached for what the lobby does not define: the started game's attributes
        game = self.__dict__.get("game")
        if game is None:
            raise AttributeError(name)
        return getattr(game, name)

    @property
    def started(self) -> bool:
        """Whether the game has started (its table exists)."""
        return self.game is not None

    @property
    def finished(self) -> bool:
        """Whether the game is over, or the sign-up was cancelled."""
        if self.game is not None:
            return self.game.finished
        return self.lobby.status == "cancelled"

    @property
    def paused(self) -> bool:
        """Whether the started game is paused (a sign-up never is)."""
        return self.game.paused if self.game is not None else False

    @property
    def player_emails(self) -> Mapping[str, str]:
        """Every volunteer before the start (they are the lobby's members), the game's players
        after it."""
        if self.game is not None:
            return self.game.player_emails
        return {v.name: v.email for v in self.lobby.volunteers}

    @property
    def player_langs(self) -> Mapping[str, str]:
        """Each player's language: the game's players, else the volunteers."""
        if self.game is not None:
            return self.game.player_langs
        return {v.name: v.lang for v in self.lobby.volunteers}

    @cached_property
    def legal(self) -> list[int]:
        """Every count up to the seats the rules accept (``DEMARRER`` may start with fewer)."""
        return legal_counts(self.rules, 1, self.terms.seats_max, self.options, self.lang)

    @cached_property
    def decks(self) -> list[dict[str, Any]]:
        """The deck of each count the rules accept within the seats (the announcement's)."""
        from pbem.balance.odds import odds_for

        out = []
        for n in self.legal_in_range:
            cards, aside = deck(self.rules, n, self.options, self.lang)
            # the deck's simulated odds where the shipped table played it (docs/balance.md)
            odds = odds_for(self.rules.id, n, self.options, cards)
            out.append({"count": n, "cards": cards, "aside": aside, "odds": odds})
        return out

    @property
    def legal_in_range(self) -> list[int]:
        """The player counts the rules accept, from the fewest seats wanted."""
        return [n for n in self.legal if n >= self.terms.seats_min]

    def deadlines(self) -> Mapping[str, datetime]:
        if self.game is not None:
            return self.game.deadlines()
        out = {}
        if self.lobby.status == "open" and self.lobby.deadline is not None:
            out[SIGNUP_DEADLINE] = self.lobby.deadline
        due = self.lobby.count_due()
        if due is not None:
            out[COUNT_DEADLINE] = due
        return out

    def awaiting(self) -> frozenset[PlayerId]:
        return self.game.awaiting() if self.game is not None else frozenset()

    def summary(self) -> dict[str, Any]:
        """The game's summary once started; before, the lobby as ``pbem simulate`` and ``pbem
        status`` show it."""
        if self.game is not None:
            return self.game.summary()
        return {
            "game": self.rules.id,
            "status": "cancelled" if self.lobby.status == "cancelled" else "signup",
            "phase": "signup",
            "day": 0,
            "winners": [],
            "seats": [self.terms.seats_min, self.terms.seats_max],
            "deadline": self.lobby.deadline.isoformat() if self.lobby.deadline else None,
            "players": [v.entry() for v in self.lobby.seated],
            "bench": [v.entry() for v in self.lobby.bench],
        }

    @property
    def genders(self) -> dict[str, str]:
        """How each volunteer asked to be addressed: the templates' ``g`` filter reads it."""
        return _genders(self.lobby)

    # -- inputs -------------------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        """Fold a committed step: the lobby's events, and the game's from its start on."""
        if self.game is not None:
            self.game.apply(step)
            return
        self._fold(step.events)

    def _fold(self, events: Sequence[Mapping[str, Any]]) -> None:
        for index, event in enumerate(events):
            if self.game is not None:
                self.game.apply(Step(tuple(dict(e) for e in events[index:])))
                return
            self.events.append(event)
            self.lobby = lb.evolve(self.lobby, event)
            if event.get("type") == "signup.started":
                self.game = Table.load(event["setup"], [], self.renderer)

    def release(self, msg: EmailMessage, now: datetime) -> Step:
        """A held list post asked again whether it may go out: the game decides, a lobby relays
        it."""
        if self.game is not None:
            return self.game.release(msg, now)
        return Step(post="relay")

    def on_deadline(self, key: str, now: datetime) -> Step:
        """The sign-up deadline (start, or ask the game masters) or a digest of the count."""
        if self.game is not None:
            return self.game.on_deadline(key, now)
        due = self.deadlines().get(key)
        if due is None or now < due:
            return Step()
        if key == COUNT_DEADLINE:
            return self._step(*self._count_post(self.lobby, now, force=True))
        if lb.at_deadline(self.lobby, self.legal) == "start":
            return self._start(self.lobby, now, [], [])
        asked = {"type": "signup.asked", "at": now.isoformat()}
        return self._step([asked], self._ask_admins(self.lobby, "deadline"))

    def receive(self, msg: EmailMessage, **delivery: Unpack[Delivery]) -> Step:
        """A mail to the game: a volunteer's sign-up commands, or a game master's (a
        confirmation or a weaker authentication changes nothing before the start)."""
        if self.game is not None:
            return self.game.receive(msg, **delivery)
        channel, now = delivery["channel"], delivery["now"]
        relay, admins = delivery.get("relay", False), delivery.get("admins", ())
        sender = sender_of(msg)
        if not is_mailable(sender):
            return Step(post="refused" if channel == "list" else None)
        if channel == "list":  # chat before the start: the lobby's members may talk
            member = self.lobby.find(sender) is not None or sender in self.admins
            return Step(post="relay" if member else "refused" if relay else None)
        try:
            text = extract(msg)
        except MailError:
            text = MailText("", (), (), False, False)
        key = hashlib.sha256(
            f"{message_id_of(msg)}|{sender}|{len(self.events)}".encode()
        ).hexdigest()[:16]
        if sender in self.admins or sender in {a.lower() for a in admins}:
            return self.admin_lines(
                text.lines, sender, now, key, message_id_of(msg), (), text.subject
            )
        return self._volunteer(msg, sender, text, now, key)

    # -- a volunteer's mail -------------------------------------------------------------------

    def _volunteer(
        self, msg: EmailMessage, sender: str, text: MailText, now: datetime, key: str
    ) -> Step:
        lobby = self.lobby
        known = lobby.find(sender)
        lang = known.lang if known else None
        reply = Reply()
        events: list[dict[str, Any]] = []
        # the Subject counts only when the body holds no command (« [village] inscription »
        # over a body saying the same must not sign up twice)
        in_body = any(_verb(line, PLAYER_WORDS) for line in text.lines)
        heading = [text.subject] if text.subject and not in_body else []
        lines = [*heading, *text.lines]
        for index, line in enumerate(lines):
            found = _verb(line, PLAYER_WORDS)
            if found is None:
                if index >= len(heading):
                    reply.ignored.append(line)
                continue
            (verb, word_lang), rest = found
            lang = lang or word_lang
            try:
                event, note = self._volunteer_command(lobby, verb, rest, msg, sender, lang)
            except CommandError as exc:
                reply.rejected.append({"line": line, "reason": self._reason(exc, lang)})
                continue
            if event is not None:
                events.append(event)
                lobby = lb.evolve(lobby, event)
            if note:
                reply.markdown = reply.markdown or note[0] == "common/rules"
                reply.extra.append(
                    self.renderer.text(note[0], lang, {**note[1], **self._common(lobby)})
                )
            if verb not in ("help", "status", "rules"):
                reply.accepted.append({"line": line, "deadline": None, "final": False})
            if lb.starts_now(lobby, self.legal):
                # the game starts with this mail: what follows was not read as a sign-up
                reply.ignored += [ln for ln in lines[index + 1 :] if ln.strip()]
                break
        lang = lang or self.lang
        if not reply:  # nothing accepted, refused or answered
            reply.extra.append(self.renderer.text("signup/help", lang, self._common(lobby)))
        mail = self._reply_mail(sender, lang, reply, key, message_id_of(msg))
        if lb.starts_now(lobby, self.legal):
            return self._start(lobby, now, events, [mail])
        if not events:
            return self._step([], [mail])
        more, posts = self._count_post(lobby, now)
        return self._step([*events, *more], [mail, *posts])

    def _volunteer_command(
        self,
        lobby: lb.Lobby,
        verb: str,
        rest: list[str],
        msg: EmailMessage,
        sender: str,
        lang: str,
    ) -> tuple[dict[str, Any] | None, tuple[str, dict[str, Any]] | None]:
        """One command: the event it makes (or None) and a text for the receipt."""
        if verb == "substitute" and lobby.find(sender) is not None:
            moved = lb.to_bench(lobby, sender)  # a volunteer already in gives up his seat
            after = lb.evolve(lobby, moved)
            who = after.find(sender)
            params: dict[str, Any] = {"name": who.name if who else "", "seat": None, "asked": True}
            return moved, ("signup/joined", {**params, **self._rank(after, sender)})
        if verb in ("join", "substitute"):
            words, pronoun = lb.parse_pronoun(rest)
            name = " ".join(words) or _display_name(msg, sender)
            event = lb.join(
                lobby,
                name=name,
                email=sender,
                pronoun=pronoun,
                lang=lang,
                bench=verb == "substitute",
                keywords=[k for s in self.rules.all_commands for k in (*s.fr, *s.en)],
                reserved=self.rules.reserved,
            )
            after = lb.evolve(lobby, event)
            seat = next((i for i, v in enumerate(after.seated, 1) if v.email == sender), None)
            params = {
                "name": name,
                "seat": seat,
                "asked": verb == "substitute",
                **self._rank(after, sender),
            }
            return event, ("signup/joined", params)
        if verb == "leave":
            who = lobby.find(sender)
            event = lb.leave(lobby, sender)
            return event, ("signup/left", {"name": who.name if who else ""})
        if rest:
            raise lb.LobbyRefusal("signup_extra_words", extra=" ".join(rest))
        if verb == "help":
            return None, ("signup/help", {})
        if verb == "rules":
            options = (
                parse_options(self.rules.options_type, self.options)
                if self.rules.options_type
                else None
            )
            params = {
                "text": rules_page(self.rules.id, lang),
                "options": described(options_in_use(options), lang),
                "folder": self.rules.templates,
            }
            return None, ("common/rules", params)
        if verb == "status":
            who = lobby.find(sender)
            return None, (
                "signup/status",
                {"name": who.name if who else None, **self._rank(lobby, sender)},
            )
        raise lb.LobbyRefusal("signup_extra_words", extra=verb)

    # -- the game master's mail ---------------------------------------------------------------

    def admin_lines(
        self,
        lines: Sequence[str],
        sender: str,
        now: datetime,
        key: str,
        message_id: str | None = None,
        reply_to: Sequence[str] = (),
        subject: str = "",
    ) -> Step:
        """The game master's commands before the start, one a line (by mail or ``pbem
        admin``): PROLONGER/EXTEND, DEMARRER/START, ANNULER PARTIE/CANCEL, STATUT, AIDE."""
        if self.game is not None:
            return self.game.admin_lines(lines, sender, now, key, message_id, reply_to, subject)
        lobby = self.lobby
        lang = self.lang
        reply = Reply()
        events: list[dict[str, Any]] = []
        posts: list[Outgoing] = []
        heading = [subject] if subject else []
        for index, line in enumerate([*heading, *lines]):
            found = _verb(line, ADMIN_WORDS)
            if found is None:
                if line.strip() and index >= len(heading):
                    refusal = _not_before_the_start(line)
                    if refusal is None:
                        reply.ignored.append(line)
                    else:
                        reply.rejected.append({"line": line, "reason": self._reason(refusal, lang)})
                continue
            verb, rest = found
            try:
                if verb == "start":
                    lb.check_start(lobby, self.legal)
                    reply.accepted.append({"line": line, "deadline": None, "final": True})
                    mail = self._reply_mail(sender, lang, reply, key, message_id, reply_to)
                    return self._start(lobby, now, events, [mail, *posts])
                if verb == "extend":
                    event = lb.extend(lobby, parse_duration(" ".join(rest)), now)
                    posts.append(
                        self._public(
                            "extended", f"extended-{len(events)}", {"deadline": event["deadline"]}
                        )
                    )
                elif verb == "cancel":
                    event = lb.cancel(lobby, now)
                    posts += self._cancelled(lobby)
                elif verb == "help":
                    reply.extra.append(
                        self.renderer.text("signup/admin_help", lang, self._common(lobby))
                    )
                    continue
                else:
                    reply.extra.append(
                        self.renderer.text("signup/admin_status", lang, self._common(lobby))
                    )
                    continue
            except CommandError as exc:
                reply.rejected.append({"line": line, "reason": self._reason(exc, lang)})
                continue
            events.append(event)
            lobby = lb.evolve(lobby, event)
            reply.accepted.append({"line": line, "deadline": None, "final": True})
        if not reply:  # nothing accepted, refused or answered
            reply.extra.append(self.renderer.text("signup/admin_help", lang, self._common(lobby)))
        mail = self._reply_mail(sender, lang, reply, key, message_id, reply_to)
        return self._step(events, [mail, *posts])

    # -- the start ----------------------------------------------------------------------------

    def game_setup(self, lobby: lb.Lobby) -> dict[str, Any]:
        """The setup the game starts from: the one ``pbem open-game`` stored, with the seated
        volunteers as its players and the others as its ``bench`` (name, email, pronoun)."""
        return {
            **self.base_setup,
            "players": [v.entry() for v in lobby.seated],
            "bench": [v.entry() for v in lobby.bench],
        }

    def _start(
        self,
        lobby: lb.Lobby,
        now: datetime,
        events: Sequence[Mapping[str, Any]],
        mails: Sequence[Outgoing],
    ) -> Step:
        """Start the game: ``signup.started`` then what ``pbem new-game`` makes of that setup
        (the deal, the sealed deal commitment, role cards, the opening post); the bench is
        told it is on the bench."""
        setup = self.game_setup(lobby)
        try:
            _table, opening = Table.new(setup, now, self.renderer)
        except SetupError as exc:  # never expected (the lobby checked); the GMs decide
            asked = {"type": "signup.asked", "at": now.isoformat()}
            return self._step([*events, asked], [*mails, *self._ask_admins(lobby, str(exc))])
        started = {"type": "signup.started", "at": now.isoformat(), "setup": setup}
        bench = [
            self._private(
                v.email,
                v.lang,
                "bench_started",
                f"bench/{i}",
                {"name": v.name, **self._common(lobby)},
            )
            for i, v in enumerate(lobby.bench)
        ]
        codes: list[Outgoing] = []
        if self.hands_out_codes:
            # nobody prints these codes to the game master: each player gets his own by mail,
            # before his role card, so that his first command can carry it (issue 13)
            issued, hashed = issue_codes([v.name for v in lobby.seated], self.code_source)
            started["secrets"] = hashed
            codes = [
                self._private(
                    v.email,
                    v.lang,
                    "code",
                    f"code/{i}",
                    {"name": v.name, "code": issued[v.name], **self._common(lobby)},
                )
                for i, v in enumerate(lobby.seated)
            ]
        encoded = (*self._encode([*events, started]), *opening.events)
        return Step(encoded, (*mails, *codes, *bench, *opening.outgoing))

    def _ask_admins(self, lobby: lb.Lobby, why: str) -> list[Outgoing]:
        params = {"why": why, **self._common(lobby)}
        return [
            self._private(a, self.lang, "ask", f"ask/{len(self.events)}/{i}", params)
            for i, a in enumerate(self.admins)
        ]

    def _cancelled(self, lobby: lb.Lobby) -> list[Outgoing]:
        told = [
            self._private(
                v.email,
                v.lang,
                "cancelled",
                f"cancelled/{i}",
                {"name": v.name, **self._common(lobby)},
            )
            for i, v in enumerate(lobby.volunteers)
        ]
        return [self._public("cancelled", "cancelled", {}), *told]

    # -- the list sees the count move ---------------------------------------------------------

    def _count_post(
        self, lobby: lb.Lobby, now: datetime, *, force: bool = False
    ) -> tuple[list[dict[str, Any]], list[Outgoing]]:
        """The post telling the list the count and what changed, now if the last one is at
        least ``count_every`` old (or ``force``: the digest's deadline), else nothing yet (the
        digest deadline will post every change since)."""
        if not lobby.changes:
            return [], []
        last = lobby.last_post
        if not force and last is not None and now < last + self.terms.count_every:
            return [], []
        post = self._public(
            "count",
            f"count/{len(self.events)}",
            {"changes": [list(c) for c in lobby.changes], **self._common(lobby)},
        )
        return [{"type": "signup.posted", "at": now.isoformat()}], [post]

    # -- helpers ------------------------------------------------------------------------------

    def _common(self, lobby: lb.Lobby) -> dict[str, Any]:
        """What every sign-up text may show: the game, the seats, the decks, the deadline."""
        local, _, domain = self.moderator.partition("@")
        decks = self.decks
        return {
            "game": self.rules.title,
            "game_id": self.game_id,
            "names": f"{self.rules.templates}/_names.jinja",
            "address": f"{local}+{self.game_id}@{domain}" if domain else self.moderator,
            "seats_min": self.terms.seats_min,
            "seats_max": self.terms.seats_max,
            "legal": self.legal_in_range,
            "decks": decks,
            "deadline": lobby.deadline.isoformat() if lobby.deadline else None,
            "when_full": self.terms.when_full,
            "seated": [v.name for v in lobby.seated],
            "bench": [v.name for v in lobby.bench],
            "status": lobby.status,
            # the lobby the text shows, not the folded one: a count post names who just came
            "genders": _genders(lobby),
        }

    def _rank(self, lobby: lb.Lobby, email: str) -> dict[str, Any]:
        bench = [v.email for v in lobby.bench]
        return {
            "on_bench": email in bench,
            "rank": bench.index(email) + 1 if email in bench else None,
        }

    def _reason(self, exc: CommandError, lang: str) -> str:
        params = {"genders": self.genders, **exc.params}
        if exc.reason.startswith("signup_"):
            return self.renderer.text("signup/refused", lang, {"reason": exc.reason, **params})
        template = f"reasons/{exc.reason}"
        if not self.renderer.exists(template, lang):
            template = "reasons/rejected"
        return self.renderer.text(template, lang, params)

    def _reply_mail(
        self,
        to: str,
        lang: str,
        reply: Reply,
        key: str,
        message_id: str | None,
        reply_to: Sequence[str] = (),
    ) -> Outgoing:
        subject, body = self.renderer.mail(
            "common/reply",
            lang,
            {
                "game": self.rules.title,
                "accepted": reply.accepted,
                "rejected": reply.rejected,
                "ignored": reply.ignored,
                "hints": reply.hints,
                "extra": reply.extra,
                "topic": "",
            },
        )
        return Outgoing(
            f"{self.game_id}/reply/{key}",
            tuple(reply_to) or (to,),
            False,
            subject,
            plain_text(body) if reply.markdown else body,
            message_id,
            f"{self.game_id}/replies",
            "auto-replied",
            self._page(subject, body, lang),
        )

    def _public(self, template: str, key: str, params: Mapping[str, Any]) -> Outgoing:
        subject, body = self.renderer.mail(
            f"signup/{template}", self.lang, {**self._common(self.lobby), **params}
        )
        return Outgoing(
            f"{self.game_id}/signup/{len(self.events)}/{key}",
            (self.list_address,),
            True,
            subject,
            body,
            None,
            f"{self.game_id}/signup",
            html=self._page(subject, body, self.lang),
        )

    def _private(
        self, to: str, lang: str, template: str, key: str, params: Mapping[str, Any]
    ) -> Outgoing:
        subject, body = self.renderer.mail(f"signup/{template}", lang, params)
        return Outgoing(
            f"{self.game_id}/signup/{len(self.events)}/{key}",
            (to,),
            False,
            subject,
            body,
            None,
            f"{self.game_id}/signup",
            html=self._page(subject, body, lang),
        )

    def _page(self, subject: str, body: str, lang: str) -> str:
        """The HTML alternative the game's mails have (volunteers' names in bold); the
        daemon sends it unless ``[smtp] html = false``."""
        return to_html(subject, body, lang=lang, names=[v.name for v in self.lobby.volunteers])

    def _encode(self, events: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
        return tuple(dict(e) for e in events)

    def _step(self, events: Sequence[Mapping[str, Any]], outgoing: Sequence[Outgoing]) -> Step:
        return Step(self._encode(events), tuple(outgoing))


def _genders(lobby: lb.Lobby) -> dict[str, str]:
    """Each volunteer's gender in ``lobby``, as he or she said it at sign-up (« il », « elle »)."""
    out = {}
    for v in lobby.volunteers:
        gender = parse_gender(v.pronoun) if v.pronoun else None
        if gender:
            out[v.name] = gender
    return out


def _display_name(msg: EmailMessage, sender: str) -> str:
    """The name a bare ``INSCRIPTION`` signs up with: the From's display name, else the
    address's local part."""
    display, _address = parseaddr(str(msg.get("From", "")))
    local = sender.partition("@")[0]
    return " ".join(display.split()) or local[:1].upper() + local[1:]


def load(
    setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]], renderer: Renderer | None = None
) -> SignupTable | Table:
    """A stored game opened for sign-ups: the lobby while it takes them, the game's own Table
    (its setup from ``signup.started``, its events after it) once started."""
    if still_signing_up(setup, events):
        return SignupTable(setup, events, renderer)
    return Table.load(*started_game(setup, events), renderer)


def is_signup(setup: Mapping[str, Any]) -> bool:
    """Whether a stored setup is a game opened by ``pbem open-game``."""
    return "signup" in setup


__all__ = ["SignupTable", "is_signup", "load"]
