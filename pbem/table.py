"""One game's pure pipeline: email in, events and outgoing mail out.

A :class:`Table` joins a game's rules, the mail parsing and the rendering. The daemon and
``pbem simulate`` both drive it, so a transcript behaves exactly as the same mails would by
email. It does no I/O and reads no clock: ``now`` comes in. :meth:`Table.receive` and
:meth:`Table.on_deadline` compute a :class:`Step` without changing the table; the caller
commits the step, then :meth:`Table.apply` folds it in. The RNG of a deadline is seeded from
the game's seed and the length of its log, so a step recomputed after a crash is identical.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any, Literal

from pbem.core.commands import (
    RULES,
    Command,
    CommandSpec,
    Player,
    Players,
    Text,
    Word,
    parse_line,
    takes_lines,
)
from pbem.core.errors import (
    CommandError,
    ListClosed,
    MailError,
    NotAPlayer,
    PartlyRefused,
    SetupError,
    TargetError,
    UnknownCommand,
    UnknownTarget,
)
from pbem.core.events import (
    DealCommitted,
    Event,
    Notice,
    PhaseClosed,
    RolledBack,
    Substituted,
)
from pbem.core.game import ADMIN, GameSpec, PlayerSpec, Rules
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.roster import Roster
from pbem.deal import canonical_deal, deal_events, digest
from pbem.desk import DESK_SPECS, is_desk, run_desk
from pbem.desk.kernel import Desk, is_kernel, split
from pbem.games import rules_for
from pbem.games.idle import idle_after_close
from pbem.handover import handover_mails
from pbem.mail.address import is_mailable
from pbem.mail.grammar import parse_gender
from pbem.mail.html import with_paragraph
from pbem.mail.inbound import MailText, extract, message_id_of, sender_of
from pbem.mail.render import LANGS, Renderer, duration, shared_renderer
from pbem.mail.threads import current_thread
from pbem.mailpages import MailPages
from pbem.rules import options_in_use, rules_page
from pbem.seats import bench_offer, replaced_refusal, setup_bench
from pbem.setup_check import check_new_setup
from pbem.signup import late as late_signup

Channel = Literal["private", "list"]
PostVerdict = Literal["relay", "hold", "refused"]


@dataclass(frozen=True)
class Outgoing:
    """One mail to send. ``key`` is stable and unique: the Message-ID derives from it."""

    key: str
    to: tuple[str, ...]
    public: bool
    subject: str
    body: str
    in_reply_to: str | None = None
    thread: str = ""
    auto: str = "auto-generated"
    html: str = ""
    """The HTML alternative (:mod:`pbem.mailpages`); empty: a text-only mail."""


@dataclass(frozen=True)
class Step:
    """The result of one input: encoded events to append, mails to send."""

    events: tuple[dict[str, Any], ...] = ()
    outgoing: tuple[Outgoing, ...] = ()
    facts: tuple[Event, ...] = field(default=(), compare=False, repr=False)
    """The same events, decoded (spares :meth:`Table.apply` a decode when in hand)."""
    post: PostVerdict | None = None
    """For a list post: whether a daemon that relays the list distributes it now, holds it
    until the list reopens, or drops it (the sender has been told why)."""
    deferred: tuple[str, ...] = ()
    """With ``receive(confirm="ask")``: the command lines that wait for a confirmation."""


@dataclass(frozen=True)
class TableSetup:
    """A game's fixed parameters (the ``setup`` of a transcript, plus addresses)."""

    game: str
    game_id: str
    seed: int
    lang: str
    players: tuple[PlayerSpec, ...]
    options: Mapping[str, Any]
    roles: Mapping[str, str] | None
    leftover: tuple[str, ...] | None
    moderator: str
    list_address: str
    timezone: str = "UTC"
    admins: tuple[str, ...] = ()
    deal_salt: str | None = None
    """The secret salt of the deal's commitment (pbem/deal.py); None: no commitment."""
    bench: tuple[Mapping[str, Any], ...] = ()
    """Volunteers beyond the seats (``pbem open-game``'s sign-ups, pbem.signup): each a
    ``name``, ``email`` and optional ``pronoun``/``lang``, in the order they signed up; the
    substitutes a seat may be handed to."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TableSetup:
        """Validate a setup mapping; SetupError names the first problem."""
        known = {
            "game",
            "game_id",
            "seed",
            "lang",
            "players",
            "options",
            "roles",
            "leftover",
            "moderator",
            "list",
            "timezone",
            "start",
            "admins",
            "deal_salt",
            "bench",
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise SetupError(f"setup: unknown key {unknown[0]!r}")
        game = data.get("game")
        if not isinstance(game, str):
            raise SetupError("setup: 'game' is missing")
        lang = data.get("lang", "fr")
        if lang not in LANGS:
            raise SetupError(f"setup: lang must be one of {', '.join(LANGS)}, not {lang!r}")
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SetupError("setup: seed must be an integer")
        raw_players = data.get("players")
        if not isinstance(raw_players, list) or not raw_players:
            raise SetupError("setup: 'players' must be a non-empty list")
        players = tuple(_player(p, lang) for p in raw_players)
        _check_unique(players)
        roles = data.get("roles")
        if roles is not None and not (
            isinstance(roles, dict) and all(isinstance(v, str) for v in roles.values())
        ):
            raise SetupError("setup: 'roles' must map player names to role ids")
        leftover = data.get("leftover")
        if leftover is not None and not (
            isinstance(leftover, list) and all(isinstance(v, str) for v in leftover)
        ):
            raise SetupError("setup: 'leftover' must be a list of role ids")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise SetupError("setup: 'options' must be an object")
        admins = data.get("admins", [])
        if not isinstance(admins, list) or not all(isinstance(a, str) for a in admins):
            raise SetupError("setup: 'admins' must be a list of addresses")
        deal_salt = data.get("deal_salt")
        if deal_salt is not None and not (
            isinstance(deal_salt, str) and re.fullmatch(r"[0-9a-f]{8,128}", deal_salt)
        ):
            raise SetupError("setup: 'deal_salt' must be 8 to 128 lowercase hex digits")
        bench = data.get("bench", [])
        if not isinstance(bench, list) or not all(
            isinstance(b, dict)
            and isinstance(b.get("name"), str)
            and isinstance(b.get("email"), str)
            for b in bench
        ):
            raise SetupError("setup: 'bench' must be a list of {name, email} objects")
        return cls(
            game=game,
            game_id=str(data.get("game_id", game)),
            seed=seed,
            lang=lang,
            players=players,
            options=options,
            roles=roles,
            leftover=tuple(leftover) if leftover is not None else None,
            moderator=str(data.get("moderator", "moderator")),
            list_address=str(data.get("list", "list")),
            timezone=str(data.get("timezone", "UTC")),
            admins=tuple(a.strip().lower() for a in admins),
            deal_salt=deal_salt,
            bench=tuple(dict(b) for b in bench),
        )


def _player(data: Any, lang: str) -> PlayerSpec:
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("name"), str)
        or not isinstance(data.get("email"), str)
    ):
        raise SetupError("setup: each player needs a 'name' and an 'email'")
    # LUP-D28 as amended by issue 13: a name may hold single spaces (« Jean Pierre »); the
    # matcher reads it whole (pbem.core.commands), so only runs of blanks are normalised
    name = " ".join(data["name"].split())
    if not name:
        raise SetupError("setup: a player's name is empty")
    plang = data.get("lang", lang)
    if plang not in LANGS:
        raise SetupError(f"setup: player {name}: lang must be one of {', '.join(LANGS)}")
    try:  # "gender": "f" | "m", or a pronoun: "elle" / "il", "she" / "he" / "they"
        gender = parse_gender(data.get("gender", data.get("pronoun")))
    except ValueError:
        raise SetupError(
            f"setup: player {name}: gender must be m or f (or pronoun il/elle, he/she/they)"
        ) from None
    return PlayerSpec(PlayerId(name), data["email"].strip(), plang, gender)


def _option_value(value: Any, lang: str) -> str:
    """An option's value as the rules page shows it: ``18 h``, ``oui``, ``named_partner``."""
    if isinstance(value, bool):
        return ("oui" if value else "non") if lang == "fr" else ("yes" if value else "no")
    if isinstance(value, timedelta):
        return duration(value.total_seconds(), lang)
    if isinstance(value, (list, tuple, frozenset, set)):
        return ", ".join(str(v) for v in value)
    return str(value)


def _argument(arg: object, lang: str) -> str:
    """How AIDE writes one argument: ``nom``, ``nom1 nom2``, ``BOUDOIR|BAL``, ``texte``."""
    name, text = ("nom", "texte") if lang == "fr" else ("name", "text")
    if isinstance(arg, Player):
        return f"[{name}]" if arg.optional else name
    if isinstance(arg, Players):
        if arg.count == 1:
            return name
        if arg.at_most:
            return f"{name} [{name}…]" if arg.count > 2 else f"{name} [{name}]"
        return " ".join(f"{name}{i}" for i in range(1, arg.count + 1))
    if isinstance(arg, Word):
        words = "|".join(spellings[0] for spellings in arg.choices.values())
        return f"[{words}]" if arg.optional else words
    if isinstance(arg, Text):
        shown = f"{text} … FIN" if arg.multiline and lang == "fr" else text
        shown = f"{text} … END" if arg.multiline and lang == "en" else shown
        return f"[{shown}]" if arg.optional else shown
    return ""


def _check_unique(players: Sequence[PlayerSpec]) -> None:
    seen_names: set[str] = set()
    seen_mails: set[str] = set()
    for p in players:
        if fold(p.name) in seen_names:
            raise SetupError(f"setup: two players are called {p.name} (names are case-insensitive)")
        if p.email.lower() in seen_mails:
            raise SetupError(f"setup: two players share the address {p.email}")
        seen_names.add(fold(p.name))
        seen_mails.add(p.email.lower())


@dataclass
class _Reply:
    accepted: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    topic: str = ""
    """``help`` or ``rules`` when the mail asked for AIDE or REGLES: the Subject says so (when
    the reply holds nothing else)."""
    helped: str = ""
    """The player an AIDE answered: his reply's HTML has a quick action per command it lists
    that has a fixed form (issue 15)."""

    def __bool__(self) -> bool:
        return bool(self.accepted or self.rejected or self.extra)


class Table:
    """One game: rules, log and state, and the translation to and from mail."""

    def __init__(
        self,
        setup: TableSetup,
        rules: Rules[Any],
        events: list[Event],
        renderer: Renderer | None = None,
    ) -> None:
        self.setup = setup
        self.rules = rules
        self.events = events
        """The whole log, the desk's kernel events and voided events included."""
        self.ruled: list[Event] = []
        """The events the rules fold: no kernel event, nothing a rollback voided."""
        self.desk = Desk()
        self.state = rules.new_state()
        self.roster = Roster.of(setup.players)
        """Who holds each seat now (setup + ``Substituted`` events): every address lookup."""
        self._rebuild()
        self.renderer = renderer or shared_renderer(setup.timezone)
        self._pages: MailPages | None = None
        for spec in setup.players:
            for reserved in rules.all_commands:
                if fold(spec.name) in {fold(k) for k in reserved.fr + reserved.en}:
                    raise SetupError(
                        f"setup: player name {spec.name!r} is a command keyword (LUP-D28)"
                    )
            if fold(spec.name) in {fold(w) for w in rules.reserved}:
                raise SetupError(f"setup: player name {spec.name!r} is a reserved word")

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def new(
        cls, setup_data: Mapping[str, Any], now: datetime, renderer: Renderer | None = None
    ) -> tuple[Table, Step]:
        """Set up a new game; SetupError if the setup is wrong."""
        setup = TableSetup.from_mapping(setup_data)
        check_new_setup(setup.players, setup.admins, setup.timezone, now)
        rules = rules_for(setup.game)
        table = cls(setup, rules, [], renderer)
        spec = GameSpec(setup.players, setup.options, setup.lang, setup.roles, setup.leftover)
        try:
            events = rules.setup(spec, now, random.Random(setup.seed))
        except OverflowError:  # a deadline past the calendar: the game could never reach it
            raise SetupError("setup: a deadline of the game falls past the year 9999") from None
        if setup.deal_salt is None:
            return table, table._step(events, reply=None)
        return table, table._committed(events, setup.deal_salt)

    def _committed(self, events: list[Event], salt: str) -> Step:
        """The opening step with the deal's commitment: a :class:`DealCommitted` event after
        the opening ones (their mails keep their keys) and its digest under the opening post."""
        canonical = canonical_deal(
            (self.rules.codec.encode(e) for e in deal_events(events)), self.rules.id
        )
        committed = DealCommitted(salt, digest(salt, canonical))
        step = self._step([*events, committed], reply=None)
        outgoing = list(step.outgoing)
        first = next((i for i, o in enumerate(outgoing) if o.public), None)
        if first is not None:
            _subject, line = self.renderer.mail(
                "common/deal_commitment", self.setup.lang, {"digest": committed.digest}
            )
            opening = outgoing[first]
            outgoing[first] = replace(
                opening,
                body=f"{opening.body.rstrip()}\n\n{line}",
                html=with_paragraph(opening.html, line),
            )
        return replace(step, outgoing=tuple(outgoing))

    @classmethod
    def load(
        cls,
        setup_data: Mapping[str, Any],
        encoded: Sequence[Mapping[str, Any]],
        renderer: Renderer | None = None,
    ) -> Table:
        """Rebuild a game from its log; never calls the RNG."""
        if "signup" in setup_data:  # opened by `pbem open-game`: its game follows its start
            from pbem.signup.engine import started_game

            setup_data, encoded = started_game(setup_data, encoded)
        setup = TableSetup.from_mapping(setup_data)
        rules = rules_for(setup.game)
        return cls(setup, rules, [rules.codec.decode(e) for e in encoded], renderer)

    # -- reading ------------------------------------------------------------------------------

    @property
    def game_id(self) -> str:
        return self.setup.game_id

    @property
    def finished(self) -> bool:
        return self.rules.outcome(self.state) is not None

    @property
    def player_emails(self) -> Mapping[str, str]:
        """Seat -> the address that holds it now (the roster)."""
        return {h.seat: h.email for h in self.roster.holders}

    @property
    def player_langs(self) -> Mapping[str, str]:
        return {h.seat: h.lang for h in self.roster.holders}

    @property
    def pages(self) -> MailPages:
        """The HTML alternative's maker, for the seats as they are shown now: names in bold and
        quick actions under a newcomer's name once a seat changed hands (issue 13)."""
        renamed = self.roster.renamed
        if self._pages is None or self._pages.renamed != renamed:
            self._pages = MailPages(
                self.rules,
                self.renderer,
                tuple(self.roster.shown_names(self.by_name)),
                self.setup.moderator,
                self.setup.game_id,
                self.setup.list_address,
                renamed,
            )
        return self._pages

    @property
    def by_email(self) -> Mapping[str, PlayerSpec]:
        """Lower-cased address -> the seat it holds now, as a player (the roster)."""
        return {h.email.lower(): h.spec for h in self.roster.holders}

    @property
    def by_name(self) -> Mapping[str, PlayerSpec]:
        return {h.seat: h.spec for h in self.roster.holders}

    @property
    def genders(self) -> Mapping[str, str]:
        """Every text may name any player: the templates agree with these (``g`` filter);
        a seat that changed hands agrees with its newcomer."""
        return {h.seat: h.gender for h in self.roster.holders if h.gender}

    def deadlines(self) -> Mapping[str, datetime]:
        """The pending deadlines in effect: the rules' ones, none while the game master has
        paused the game, each moved where he extended it (pbem.desk.kernel)."""
        return self.desk.deadlines(self.rules.deadlines(self.state))

    @property
    def paused(self) -> bool:
        return self.desk.paused_at is not None

    def with_events(self, events: Sequence[Event]) -> Table:
        """A copy of this table with ``events`` appended (the desk runs several lines)."""
        return Table(self.setup, self.rules, [*self.events, *events], self.renderer)

    @property
    def thread(self) -> str:
        """The thread key of the phase in play (pbem.mail.threads): a receipt, a reminder
        join the player's thread of it."""
        return current_thread(reversed(self.ruled))

    def summary(self) -> dict[str, Any]:
        """The rules' summary, by seat (the archive, stats and status read seats)."""
        return self.rules.summary(self.state)

    def shown_summary(self) -> dict[str, Any]:
        """The summary with each seat shown by its holder's name (``pbem simulate``'s state
        line: what the players see)."""
        shown: dict[str, Any] = self.roster.show(self.summary())
        return shown

    def awaiting(self) -> frozenset[PlayerId]:
        return self.rules.awaiting(self.state)

    # -- inputs -------------------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        """Fold a committed step into the table."""
        decoded = len(step.facts) == len(step.events)
        new = list(step.facts) if decoded else [self.rules.codec.decode(e) for e in step.events]
        base = len(self.events)
        self.events.extend(new)
        if any(isinstance(e, RolledBack) for e in new):
            self._rebuild()
            return
        for index, event in enumerate(new, base):
            self.roster = self.roster.evolve(event)
            if is_kernel(event):
                self.desk.evolve(index, event)
            else:
                self.ruled.append(event)
                self.state = self.rules.evolve(self.state, event)

    def _rebuild(self) -> None:
        self.ruled, self.desk = split(self.events)
        self.state = self.rules.fold(self.ruled)
        # seat events are kernel events, never void; the bench starts with the setup's
        self.roster = Roster.of(self.setup.players, self.events, setup_bench(self.setup))

    def on_deadline(self, key: str, now: datetime) -> Step:
        """Close the phase whose deadline ``key`` passed; an empty step if it is not pending
        or the game master paused the game (its deadlines do not fire)."""
        if self.paused:
            return Step()
        return self.close(key, now)

    def close(self, key: str, now: datetime) -> Step:
        """Close the phase of deadline ``key`` now, paused or not (``CLORE``, ``APERCU``)."""
        awaited = tuple(sorted(self.rules.awaiting(self.state)))  # the idle count's fact
        events = self.rules.on_deadline(self.state, key, now, self._rng())
        if events:  # the idle policy's acts are the resolution's own (docs/seats.md)
            events += idle_after_close(self, PhaseClosed(key, len(events), awaited), events, now)
        if events:  # marked, so that the game master may roll this resolution back
            events = [PhaseClosed(key, len(events), awaited), *events]
        return self._step(events, reply=None)

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
    ) -> Step:
        """Handle one inbound mail. Bad input gives a reply, never an exception.

        ``relay``: the daemon distributes the list itself, so a list post the rules close for
        now (:class:`ListClosed`) is held rather than refused, and a non-player's post is
        refused rather than ignored (it would otherwise reach every player).

        ``confirm`` (list posts whose commands need a confirmation from the registered
        address, requirement 6): ``"ask"`` takes the post as posted but runs none of its
        commands, listing them in ``Step.deferred``; ``"apply"``, once confirmed, runs them
        without counting the post a second time.

        ``strong=False``: the sender passed the daemon's authentication for ordinary commands
        but not the stronger one for irreversible commands, so the commands the rules call
        final are refused (requirement 5).

        ``admins``: the daemon's administrators, who run the game master's desk in every game
        besides the game's own ``admins``.
        """
        sender = sender_of(msg)
        message_id = message_id_of(msg)
        key = hashlib.sha256(f"{message_id}|{sender}|{len(self.events)}".encode()).hexdigest()
        if not is_mailable(sender):
            # No From, or one without a domain ("frank@", "alice"): nobody's mail, and no
            # address to answer (issue 10, items 12 and 20); never relayed either.
            return Step(post="refused" if channel == "list" else None)
        player = self.by_email.get(sender)
        is_admin = sender in self.setup.admins or sender in {a.lower() for a in admins}
        if player is None and channel == "private" and is_admin:
            return self._receive_admin(msg, sender, key[:16], message_id, now)
        if player is None and channel == "list":
            if sender in self.setup.admins:  # the game master talks on his own list
                return Step(post="relay")
            if not relay:
                return Step()  # a spectator's post on an external list is just talk
        if player is None and channel == "private":
            # REMPLACANT/SUBSTITUTE: a volunteer for the bench (issue 13, pbem/seats.py)
            offered = bench_offer(self, msg, sender, key[:16], message_id, admins)
            if offered is not None:
                return offered
            late = self._late_stranger(msg, sender, key[:16], message_id, admins)
            if late is not None:  # a sign-up word after the start
                return late
        if player is None:
            # an address whose seat changed hands is told so politely (issue 13)
            why = replaced_refusal(self, sender) or NotAPlayer(address=sender)
            refused = _Reply(rejected=[{"line": "", "reason": self._reason(why, self.setup.lang)}])
            return Step(
                (),
                (self._reply_mail(sender, self.setup.lang, refused, key[:16], message_id),),
                post="refused" if channel == "list" else None,
            )
        try:
            text = extract(msg)
        except MailError:
            text = MailText("", (), (), False, False)
        reply = _Reply()
        leaving = None
        if channel == "private":  # DESINSCRIPTION/LEAVE after the start: the GMs decide
            text, leaving = late_signup.take_leave(text)
        commands = self._read(text, channel, player.lang, reply)
        told = late_signup.game_masters(self, admins) if leaving else []
        if leaving:
            reply.extra.append(late_signup.leave_text(self, player.lang, bool(told)))
        if channel == "list" and not commands and not reply.rejected and text.bold:
            commands = self._bold(text.bold, player, reply)
            if text.bold_disagreement:  # the HTML was read: say what the text part said
                params = {"html": list(text.bold), "text": list(text.bold_disagreement)}
                reply.extra.append(self.renderer.text("common/bold_disagree", player.lang, params))
        state = self.state
        events: list[Event] = []
        if channel == "list" and confirm == "apply":
            pass  # the post itself was taken when it arrived
        elif channel == "list":  # the game may refuse the whole post (Rules.on_post)
            try:
                posted = self.rules.on_post(state, player.name, text.lines, now, moderated=relay)
            except ListClosed as exc:
                if not relay:
                    return self._refuse_post(exc, player, key[:16], message_id)
                # LG-D35: commands posted while the list is closed are ignored; the post
                # itself waits for the list to reopen
                held = _Reply(extra=[self.renderer.text("common/post_held", player.lang, {})])
                return self._step([], (player, held, key[:16], message_id), post="hold")
            except CommandError as exc:
                return self._refuse_post(exc, player, key[:16], message_id)
            events += posted
            state = self.rules.fold(posted, state)
        if confirm == "ask" and commands:
            return self._step(
                events,
                (player, reply, key[:16], message_id) if reply else None,
                post="relay",
                deferred=tuple(line for line, _command in commands),
            )
        for line, command in commands:
            if not strong and self.rules.final(state, player.name, command.verb):
                reason = self.renderer.text("reasons/final_needs_auth", player.lang, {})
                reply.rejected.append({"line": line, "reason": reason})
                continue
            state = self._run(state, player, command, line, now, channel, events, reply)
        early = self.rules.ready_to_close(state)
        if (
            early is not None and not self.paused
        ):  # a paused game closes nothing by itself  # early close (LUP-D29) is off unless the options turn it on
            closing = self.rules.on_deadline(state, early, now, self._rng(len(events)))
            if closing:  # marked like a deadline's resolution (the desk's ROLLBACK)
                awaited = tuple(sorted(self.rules.awaiting(state)))
                events += [PhaseClosed(early, len(closing), awaited)]
            events += closing
            if reply.accepted:
                reply.extra.append(self.renderer.text("common/closed_early", player.lang, {}))
        if channel == "private" and not reply:
            reply.extra.append(self.renderer.text("common/no_command", player.lang, {}))
        step = self._step(
            events,
            (player, reply, key[:16], message_id) if reply else None,
            post="relay" if channel == "list" else None,
        )
        if not told:
            return step
        wish = {"kind": "leave", "name": player.name, "address": player.email, "words": ""}
        notice = late_signup.tell_game_masters(self, told, key[:16], wish)
        return replace(step, outgoing=(*step.outgoing, *notice))

    def _late_stranger(
        self,
        msg: EmailMessage,
        sender: str,
        key: str,
        message_id: str | None,
        admins: Sequence[str],
    ) -> Step | None:
        """A stranger's INSCRIPTION/JOIN or REMPLACANT/SUBSTITUTE once the game runs: told it
        has started and how to volunteer; a volunteer is passed on to the game masters (issue
        13). None: his mail holds no sign-up word (the usual "not a player" reply)."""
        try:
            text = extract(msg)
        except MailError:
            return None
        found = late_signup.stranger_request(text)
        if found is None:
            return None
        verb, lang, words = found
        told = late_signup.game_masters(self, admins) if verb == "substitute" else []
        answer = late_signup.stranger_text(self, verb, lang, bool(told))
        outgoing = [self._reply_mail(sender, lang, _Reply(extra=[answer]), key, message_id)]
        if told:
            params = {"kind": "substitute", "name": "", "address": sender, "words": words}
            outgoing += late_signup.tell_game_masters(self, told, key, params)
        return Step((), tuple(outgoing))

    def _refuse_post(
        self, exc: CommandError, player: PlayerSpec, key: str, message_id: str | None
    ) -> Step:
        """The rules refuse the whole post: explained privately, never relayed."""
        bounced = _Reply(rejected=[{"line": "", "reason": self._reason(exc, player.lang)}])
        return self._step([], (player, bounced, key, message_id), post="refused")

    def release(self, msg: EmailMessage, now: datetime) -> Step:
        """A held list post (see ``receive(relay=True)``), asked again whether it may go out.

        ``post="relay"`` once the list has reopened to its sender, ``"hold"`` while it is still
        closed, ``"refused"`` if he may no longer post at all (he died meanwhile: the dead never
        speak, CAS-D28), with a private notice. A released post is debate only: the rules read
        no command in it and it causes no event (LG-D35: commands posted at night are ignored).
        """
        sender = sender_of(msg)
        player = self.by_email.get(sender) if is_mailable(sender) else None
        if player is None:
            return Step(post="relay")  # the game master's own post
        message_id = message_id_of(msg)
        try:
            text = extract(msg)
        except MailError:
            text = MailText("", (), (), False, False)
        try:
            self.rules.on_post(self.state, player.name, text.lines, now)
        except ListClosed:
            return Step(post="hold")
        except CommandError as exc:
            key = hashlib.sha256(f"release|{message_id}|{sender}|{len(self.events)}".encode())
            dropped = _Reply(
                extra=[
                    self.renderer.text(
                        "common/post_dropped",
                        player.lang,
                        {"reason": self._reason(exc, player.lang)},
                    )
                ]
            )
            return self._step(
                [], (player, dropped, key.hexdigest()[:16], message_id), post="refused"
            )
        return Step(post="relay")

    def _read(
        self, text: MailText, channel: Channel, lang: str, reply: _Reply
    ) -> list[tuple[str, Command]]:
        """The mail's commands; errors and free text are noted in ``reply``.

        On the list only public commands count and other text is debate, never an error; a
        private mail's Subject may hold a command but is never reported as ignored text.
        """
        specs = [s for s in self.rules.all_commands if s.public or channel == "private"]
        names = self.roster.shown_names(self.rules.names(self.state))
        subject = [text.subject] if channel == "private" and text.subject else []
        commands: list[tuple[str, Command]] = []
        lines = subject + list(text.lines)
        for index in range(len(subject), len(lines)):
            if takes_lines(lines[index], specs):  # a multi-line text runs to FIN/END or the end
                lines = [*lines[:index], "\n".join(lines[index:])]
                break
        for index, line in enumerate(lines):
            quiet = channel == "list" or index < len(subject)
            try:
                command = parse_line(line, specs, names, debate=channel == "list")
            except UnknownCommand as exc:
                if not quiet:
                    reply.rejected.append({"line": line, "reason": self._reason(exc, lang)})
                continue
            except CommandError as exc:
                reply.rejected.append({"line": line, "reason": self._reason(exc, lang)})
                continue
            if command is not None:
                commands.append((line, self.roster.to_seats(command)))
            elif channel == "private" and index >= len(subject):
                reply.ignored.append(line)
        return commands

    def _bold(
        self, bold: Sequence[str], player: PlayerSpec, reply: _Reply
    ) -> list[tuple[str, Command]]:
        """The forum convention: a public post whose only command is a bold text."""
        line = " ".join(f"**{b}**" for b in bold)
        try:
            command = self.rules.bold_command(
                self.state, player.name, self.roster.bold_to_seats(bold)
            )
        except CommandError as exc:
            reply.rejected.append({"line": line, "reason": self._reason(exc, player.lang)})
            return []
        return [(line, command)] if command is not None else []

    def _receive_admin(
        self, msg: EmailMessage, sender: str, key: str, message_id: str | None, now: datetime
    ) -> Step:
        """An administrator's private mail: the game's ``admin_commands`` and the desk's."""
        try:
            text = extract(msg)
        except MailError:
            text = MailText("", (), (), False, False)
        return self.admin_lines(text.lines, sender, now, key, message_id, subject=text.subject)

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
        """The game master's commands, one a line (by mail, or ``pbem admin`` through the
        daemon), answered like a player's: accepted, rejected, ignored (pbem.desk). The reply
        goes to ``sender``, or to every address of ``reply_to``. A mail's ``subject`` may hold
        a command too, but is never reported as ignored text."""
        lang = self.setup.lang
        table = self
        events: list[Event] = []
        reply = _Reply()
        specs = [*self.rules.admin_commands, *DESK_SPECS]
        heading = [subject] if subject else []
        for index, line in enumerate([*heading, *lines]):
            try:
                # the game master may name a seat by its shown name or by the seat's own
                # (pbem status, pbem seat replace)
                shown = table.roster.desk_names(self.rules.names(table.state))
                command = parse_line(line, specs, shown)
                if command is None:
                    if line.strip() and index >= len(heading):
                        reply.ignored.append(line)
                    continue
                command = table.roster.to_seats(command)
                if is_desk(command.verb):
                    result = run_desk(table, command, now, sender)
                    new = list(result.events)
                    reply.extra += result.reply
                else:
                    new = self.rules.admin(table.state, command, now)
            except CommandError as exc:
                reply.rejected.append({"line": line, "reason": self._reason(exc, lang)})
                continue
            events += new
            if new:
                table = self.with_events(events)
            reply.accepted.append({"line": line, "deadline": None, "final": True})
        if not reply:
            reply.extra.append(self.renderer.text("common/no_command", lang, {}))
        step = self._step(events, reply=None)
        mail = self._reply_mail(sender, lang, reply, key, message_id, threaded=False)
        if reply_to:
            mail = replace(mail, to=tuple(reply_to))
        return Step(step.events, (mail, *step.outgoing), step.facts)

    def _run(
        self,
        state: Any,
        player: PlayerSpec,
        command: Command,
        line: str,
        now: datetime,
        channel: Channel,
        events: list[Event],
        reply: _Reply,
    ) -> Any:
        if command.verb == "help":  # what this player can send now, how, and until when
            available = self.rules.available(state, player.name)
            if all(c.verb != "rules" for c in available):  # REGLES works in every phase
                available = [*available, RULES]
            pending = self.rules.deadlines(state)
            reply.topic = reply.topic or "help"
            reply.helped = player.name
            reply.extra.append(
                self.renderer.text(
                    "common/help",
                    player.lang,
                    {
                        "game": self.rules.id,
                        "folder": self.rules.templates,
                        "commands": [self._syntax(c, player.lang) for c in available],
                        "deadline": min(pending.values()).isoformat() if pending else None,
                    },
                )
            )
            return state
        if command.verb == "rules":  # the players' rules page, with this game's options
            used = options_in_use(getattr(state, "options", None))
            reply.topic = reply.topic or "rules"
            reply.extra.append(
                self.renderer.text(
                    "common/rules",
                    player.lang,
                    {
                        "text": rules_page(self.rules.id, player.lang),
                        "options": {k: _option_value(v, player.lang) for k, v in used.items()},
                    },
                )
            )
            return state
        if command.verb == "status":
            params = self.rules.status(state, player.name)
            params = {"name": player.name, "genders": self.genders, **params}
            reply.extra.append(
                self.renderer.text(
                    f"{self.rules.templates}/status", player.lang, self.roster.show(params)
                )
            )
            return state
        try:
            new = self.rules.decide(state, player.name, command, now, channel)
        except PartlyRefused as exc:  # the taken part is accepted, the rest explained
            new = list(exc.events)
            command = replace(command, targets=tuple(PlayerId(t) for t in exc.kept))
            refused = {"line": " ".join(exc.refused), "reason": self._reason(exc, player.lang)}
            reply.rejected.append(refused)
        except CommandError as exc:
            reply.rejected.append({"line": line, "reason": self._reason(exc, player.lang)})
            return state
        events += new
        state = self.rules.fold(new, state)
        until = self.rules.changeable_until(state, player.name, command.verb)
        if until is not None:  # a deadline the game master moved is shown where it now falls
            until = self.desk.moved(until)
        entry = {
            "line": self._canonical(command, player.lang),
            "deadline": until.isoformat() if until else None,
            "final": self.rules.final(state, player.name, command.verb),
        }
        spec = self._spec(command.verb)
        if command.text and any(isinstance(a, Text) and a.multiline for a in spec.args):
            # a text others will read (Dracula's telepathy, painting, waltz, reply): the sender
            # sees exactly what is passed on, where the mail's text ended (DRA-421)
            entry["line"] = self._canonical(replace(command, text=""), player.lang)
            entry["text"] = command.text
        reply.accepted.append(entry)
        return state

    # -- helpers ------------------------------------------------------------------------------

    def _rng(self, offset: int = 0) -> random.Random:
        # the rules' events only: a desk act (a pause, an announcement) does not change what
        # the next resolution draws, and a rolled-back resolution draws the same again
        return random.Random(f"{self.setup.seed}:{len(self.ruled) + offset}")

    def removal_rng(self) -> random.Random:
        """The draws of a removal by the game master (a Mayor drawn in a removed one's place)."""
        return self._rng()

    def _spec(self, verb: str) -> CommandSpec:
        return next(s for s in self.rules.all_commands if s.verb == verb)

    def _canonical(self, command: Command, lang: str) -> str:
        spec = self._spec(command.verb)
        parts = [spec.keyword(lang)]
        if command.word:
            words = [a for a in spec.args if isinstance(a, Word)]
            parts.append(words[0].label(command.word, lang) if words else command.word.upper())
        parts += self.roster.shown_names(command.targets)
        if command.text:
            parts.append(command.text)
        return " ".join(parts)

    def _syntax(self, spec: CommandSpec, lang: str) -> dict[str, str]:
        return {
            "verb": spec.verb,
            "keyword": spec.keyword(lang),
            "args": " ".join(_argument(a, lang) for a in spec.args),
            "public": "yes" if spec.public else "no",
        }

    def syntax(self, spec: CommandSpec, lang: str) -> dict[str, str]:
        """How ``AIDE`` shows ``spec`` to a player writing in ``lang``."""
        return self._syntax(spec, lang)

    def reason(self, exc: CommandError, lang: str) -> str:
        """Why ``exc`` refused a command, in ``lang`` (the reply's wording)."""
        return self._reason(exc, lang)

    def _reason(self, exc: CommandError, lang: str) -> str:
        params = {"genders": self.genders, **exc.params}
        if isinstance(exc, UnknownTarget):  # LG-D42: the rejection lists the valid names
            params["players"] = list(self.rules.names(self.state))
        template = f"reasons/{exc.reason}"
        if not self.renderer.exists(template, lang):
            template = "reasons/rejected"
        # the params name seats, shown by their holders' names; but what a player typed is
        # his, and a refused address is told the name it played under
        shown = params if isinstance(exc, NotAPlayer) else self.roster.show(params)
        if isinstance(exc, TargetError):
            shown["name"] = exc.name
        return self.renderer.text(template, lang, shown)

    def _reply_mail(
        self,
        to: str,
        lang: str,
        reply: _Reply,
        key: str,
        message_id: str | None,
        threaded: bool = True,
    ) -> Outgoing:
        subject, body = self.renderer.mail(
            "common/reply",
            lang,
            {
                "game": self.rules.title,
                "accepted": reply.accepted,
                "rejected": reply.rejected,
                "ignored": reply.ignored,
                "extra": reply.extra,
                "topic": "" if reply.accepted or reply.rejected else reply.topic,
            },
        )
        # a player's receipt belongs to his thread of the phase in play (issue 15); the answers
        # to AIDE and REGLES alone, and the game master's, keep a Subject of their own
        topic_only = reply.topic and not (reply.accepted or reply.rejected)
        thread = self.thread if threaded and not topic_only else ""
        return Outgoing(
            f"{self.game_id}/reply/{key}",
            (to,),
            False,
            subject,
            body,
            message_id,
            f"{self.game_id}/{thread or 'replies'}",
            "auto-replied",
            self.pages.prompt(
                subject, body, lang, self.state, (PlayerId(reply.helped),), public=False
            )
            if reply.helped
            else self.pages.page(subject, body, lang),
        )

    def _step(
        self,
        events: Sequence[Event],
        reply: tuple[PlayerSpec, _Reply, str, str | None] | None,
        post: PostVerdict | None = None,
        deferred: tuple[str, ...] = (),
    ) -> Step:
        base = len(self.events)
        outgoing: list[Outgoing] = []
        if reply is not None:
            player, body, key, message_id = reply
            outgoing.append(self._reply_mail(player.email, player.lang, body, key, message_id))
        after = None  # the state the step leads to: the one its prompts' quick actions are for
        for index, event in enumerate(events):
            if isinstance(event, Notice):
                if after is None and not any(isinstance(e, RolledBack) for e in events):
                    after = self.rules.fold((e for e in events if not is_kernel(e)), self.state)
                outgoing += self._notice_mails(event, f"{self.game_id}/{base + index}", after)
            elif isinstance(event, Substituted):  # issue 13: the list, the packet, a goodbye
                history = [*self.events, *events[:index]]
                outgoing += handover_mails(self, event, history, f"{self.game_id}/{base + index}")
        encoded = tuple(self.rules.codec.encode(e) for e in events)
        return Step(encoded, tuple(outgoing), tuple(events), post, deferred)

    def _notice_mails(self, notice: Notice, key: str, after: Any = None) -> list[Outgoing]:
        """The mails of a notice; ``after``: the state its quick actions are checked on
        (None: no quick actions)."""
        thread = f"{self.game_id}/{notice.thread}"
        # a seat that changed hands is shown by its newcomer's name (the option
        # substitute_name, issue 13): the rules' params name seats
        params = self.roster.show(
            {"game": self.rules.title, "genders": self.genders, **notice.params}
        )
        lang = self.setup.lang
        if notice.public:
            subject, body = self.renderer.mail(notice.template, lang, params)
            everyone = tuple(PlayerId(p.name) for p in self.setup.players)
            html = self.pages.prompt(subject, body, lang, after, everyone, public=True)
            to = (self.setup.list_address,)
            return [Outgoing(key, to, True, subject, body, None, thread, html=html)]
        mails = []
        for name in notice.to:
            if name == ADMIN:  # the game's administrators, in the game's language
                subject, body = self.renderer.mail(notice.template, lang, params)
                html = self.pages.page(subject, body, lang)
                mails += [
                    Outgoing(
                        f"{key}/admin/{i}", (a,), False, subject, body, None, thread, html=html
                    )
                    for i, a in enumerate(self.setup.admins)
                ]
                continue
            player = self.by_name[name]
            subject, body = self.renderer.mail(
                notice.template, player.lang, {"name": self.roster.shown(name), **params}
            )
            html = self.pages.prompt(subject, body, player.lang, after, (name,), public=False)
            mails.append(
                Outgoing(
                    f"{key}/{name}", (player.email,), False, subject, body, None, thread, html=html
                )
            )
        return mails
