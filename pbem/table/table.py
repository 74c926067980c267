"""The :class:`Table`: one game's rules, log and state, what the daemon and the tools read
of it, and its inputs (a mail, a deadline, the game master's lines), each computed by the
module of its concern (:mod:`pbem.table.receive`, :mod:`pbem.table.admin`...)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from email.message import EmailMessage
from typing import Any, Unpack

from pbem.adapters.codes import CodeSource, new_code
from pbem.core.absences import excused, may_excuse
from pbem.core.commands import CommandSpec
from pbem.core.draws import deal_rng, lazy_draw_rng
from pbem.core.errors import CommandError, SetupError
from pbem.core.events import Event, PhaseClosed, rolls_back
from pbem.core.folded import recall
from pbem.core.game import GameSpec, PlayerSpec, Rules
from pbem.core.idle import IdleCount
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.roster import Roster
from pbem.desk.kernel import Desk, is_kernel, split
from pbem.games import rules_for
from pbem.games.idle import absence_moves, idle_after_close, without_mail_to_removed
from pbem.mail.render import Renderer, shared_renderer
from pbem.mail.threads import current_thread
from pbem.record.chain import ChainCursor
from pbem.record.deal import deal_commitment
from pbem.record.seed import commitment as seed_commitment
from pbem.seats.substitution import setup_bench
from pbem.table import admin, receive, wording
from pbem.table.mailpages import MailPages
from pbem.table.mails import chained, committed, step_of
from pbem.table.setup import TableSetup
from pbem.table.setup_check import check_new_setup
from pbem.table.step import Delivery, Encoding, Outgoing, PostVerdict, Receipt, Step

_RESERVED: dict[type[Rules[Any]], tuple[frozenset[str], frozenset[str]]] = {}


def _reserved_names(rules: Rules[Any]) -> tuple[frozenset[str], frozenset[str]]:
    """The command keywords and the reserved words a player's name may not be, folded, once
    per rules class (they are class attributes): every game loaded checks its players."""
    names = _RESERVED.get(type(rules))
    if names is None:
        keywords = frozenset(fold(k) for c in rules.all_commands for k in c.fr + c.en)
        names = _RESERVED[type(rules)] = (keywords, frozenset(fold(w) for w in rules.reserved))
    return names


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
        # set by _rebuild, from the log (each made once: every game loaded makes a table)
        self.ruled: list[Event]
        """The events the rules fold: no kernel event, nothing a rollback voided."""
        self.desk: Desk
        self.state: Any
        self.roster: Roster
        """Who holds each seat now (setup + ``Substituted`` events): every address lookup."""
        self._rebuild()
        self.renderer = renderer or shared_renderer(setup.timezone)
        self._pages: MailPages | None = None
        self._idle: IdleCount | None = None
        self._chain: ChainCursor | None = None
        self._excusing = (0, False)
        """How many events of the log were read for a cause to excuse an idle seat, and
        whether one was found (:meth:`counted`: each close asks, the log only grows)."""
        self._genders: tuple[Roster | None, Mapping[str, str]] = (None, {})
        self._thread: tuple[list[Event], int, str] = (self.ruled, 0, "")
        """:attr:`thread` as found over ``ruled``'s first events (a receipt asks it each mail:
        only the events appended since are read)."""
        self.code_source: CodeSource = new_code
        """Where the codes a command mails come from (issue 25, ADRESSE): the sign-up codes'
        source, never the rules' draws; ``pbem simulate`` gives the seed's, so that a
        transcript plays the same twice."""
        keywords, reserved_words = _reserved_names(rules)
        for spec in setup.players:
            name = fold(spec.name)
            if name in keywords:
                raise SetupError(f"setup: player name {spec.name!r} is a command keyword (LUP-D28)")
            if name in reserved_words:
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
            events = rules.setup(spec, now, deal_rng(setup.seed, setup.seed_scheme))
        except OverflowError:  # a deadline past the calendar: the game could never reach it
            raise SetupError("setup: a deadline of the game falls past the year 9999") from None
        encode, id_ = rules.codec.encode, rules.id
        salt = setup.deal_salt
        logged = events if salt is None else [*events, deal_commitment(events, encode, id_, salt)]

        def opening() -> tuple[Outgoing, ...]:
            # made on a table as it was set up, whatever the caller did with ``table`` since
            start = cls(setup, rules, [], table.renderer)
            made = step_of(start, events, None) if salt is None else committed(start, events, salt)
            return made.outgoing

        # the opening's mails are rendered when first read (LazyMails): a game stored without
        # sending them renders none (issue 23); whoever sends them reads them. Its events are
        # encoded when read too (LazyEvents): whoever stores them
        return table, Step(Encoding(encode, logged), opening, tuple(logged))

    @classmethod
    def load(
        cls,
        setup_data: Mapping[str, Any],
        encoded: Sequence[Mapping[str, Any]],
        renderer: Renderer | None = None,
    ) -> Table:
        """Rebuild a game from its log; never calls the RNG."""
        if "signup" in setup_data:  # opened by `pbem open-game`: its game follows its start
            from pbem.signup.started import started_game

            setup_data, encoded = started_game(setup_data, encoded)
        setup = TableSetup.from_mapping(setup_data)
        rules = rules_for(setup.game)
        return cls(setup, rules, [rules.codec.decode(e) for e in encoded], renderer)

    # -- reading ------------------------------------------------------------------------------

    @property
    def game_id(self) -> str:
        """The game's id, as its setup gives it."""
        return self.setup.game_id

    @property
    def finished(self) -> bool:
        """Whether the rules say the game is over (it has an outcome)."""
        return self.rules.outcome(self.state) is not None

    @property
    def player_emails(self) -> Mapping[str, str]:
        """Seat -> the address that holds it now (the roster)."""
        return {h.seat: h.email for h in self.roster.holders}

    @property
    def player_langs(self) -> Mapping[str, str]:
        """Each seat's language, as its current holder chose it."""
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
        return self.roster.specs_by_email

    @property
    def by_name(self) -> Mapping[str, PlayerSpec]:
        """Each seat's player spec, by seat name."""
        return self.roster.specs_by_seat

    @property
    def genders(self) -> Mapping[str, str]:
        """Every text may name any player: the templates agree with these (``g`` filter);
        a seat that changed hands agrees with its newcomer."""
        roster, genders = self._genders
        if roster is not self.roster:  # kept while the roster stays (a seat changing hands)
            roster = self.roster
            genders = {h.seat: h.gender for h in roster.holders if h.gender}
            self._genders = (roster, genders)
        return genders

    def deadlines(self) -> Mapping[str, datetime]:
        """The pending deadlines in effect: the rules' ones, none while the game master has
        paused the game, each moved where he extended it (pbem.desk.kernel)."""
        return self.desk.deadlines(self.rules.deadlines(self.state))

    @property
    def paused(self) -> bool:
        """Whether the game master paused the game."""
        return self.desk.paused_at is not None

    def with_events(self, events: Sequence[Event]) -> Table:
        """A copy of this table with ``events`` appended (the desk runs several lines)."""
        return Table(self.setup, self.rules, [*self.events, *events], self.renderer)

    @property
    def thread(self) -> str:
        """The thread key of the phase in play (pbem.mail.threads): a receipt, a reminder
        join the player's thread of it."""
        ruled, seen, thread = self._thread
        if ruled is not self.ruled or seen > len(ruled):  # rebuilt (a rollback): read it all
            ruled, seen, thread = self.ruled, 0, ""
        if seen < len(ruled):
            thread = current_thread(reversed(ruled[seen:])) or thread
            self._thread = (ruled, len(ruled), thread)
        return thread

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
        decoded = len(step.facts) == step.size  # the events encoded only if read
        new = list(step.facts) if decoded else [self.rules.codec.decode(e) for e in step.events]
        base = len(self.events)
        self.events.extend(new)
        if rolls_back(new):
            self._rebuild()
            return
        folded = step.folded if decoded else None
        # folded once already, by the step, from this very state: not again
        after = folded[1] if folded is not None and folded[0] is self.state else None
        for index, event in enumerate(new, base):
            if is_kernel(event):  # seat events are kernel events: only they move the roster
                self.roster = self.roster.evolve(event)
                self.desk.evolve(index, event)
            else:
                self.ruled.append(event)
                if after is None:
                    self.state = self.rules.evolve(self.state, event)
        if after is not None:
            self.state = after

    def idle_count(self) -> IdleCount:
        """The log's idle counts (:mod:`pbem.core.idle`), kept between closes: extended by the
        events appended since, scanned again from the start only after a rollback."""
        count = IdleCount.caught_up(self._idle, self.events)
        self._idle = count
        return count

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
        awaited = self.counted(key, now)  # the idle count's fact
        events = self.rules.on_deadline(self.state, key, now, self.rng())
        after = None
        if events:  # a deadline in a seat's absence moves past it (absence_mode extend)
            events = [*events, *absence_moves(self, events)]
        if events:  # the idle policy's acts are the resolution's own (docs/seats.md)
            # the state the resolution leads to, folded once: the idle policy reads it, the
            # notices' quick actions are checked on it and apply takes it (issue 23); a
            # resolution holding the desk's own events is left to each to fold as it does
            # the rules that resolve in a batch folded it already (pbem.core.folded)
            if not any(map(is_kernel, events)):
                after = recall(events, self.state)
                if after is None:
                    after = self.rules.fold(events, self.state)
            closed = PhaseClosed(key, len(events), awaited)
            acts = idle_after_close(self, closed, events, now, after)
            if not all(map(is_kernel, acts)):  # a removal: the rules fold it too
                after = None
            events = [*without_mail_to_removed(events, acts), *acts]
        if events:  # marked, so that the game master may roll this resolution back
            events = [PhaseClosed(key, len(events), awaited), *events]
        return chained(self, step_of(self, events, reply=None, after=after))

    def counted(self, key: str, now: datetime) -> tuple[PlayerId, ...]:
        """The seats the rules await as the phase of deadline ``key`` closes at ``now``, less
        those the close does not hold to account (an absence, a phase the daemon could not hear
        them in: :func:`pbem.core.absences.excused`). The close's moment is the deadline's when
        it passed (``pbem verify`` knows it), ``now`` when the game master closed early."""
        awaited = self.rules.awaited_at_close(self.state, key)
        due = self.rules.deadlines(self.state).get(key)
        moment = now if due is None else min(now, self.desk.moved(due))
        deadline = None if due is None else (key, due)
        spared = excused(self.events, awaited, moment, deadline) if self._may_excuse() else {}
        return tuple(sorted(p for p in awaited if p not in spared))

    def _may_excuse(self) -> bool:
        """:func:`pbem.core.absences.may_excuse` of the log, reading only the events appended
        since it was last asked (a cause, once in the log, stays: a rollback voids, never
        removes)."""
        seen, found = self._excusing
        if not found and seen < len(self.events):
            found = may_excuse(self.events[seen:])
        self._excusing = (len(self.events), found)
        return found

    def chain_cursor(self) -> ChainCursor:
        """The hash chain over the log so far (pbem/record/chain.py), from the seed's
        commitment; cached, since a close only adds to it."""
        cursor = self._chain
        if cursor is None or cursor.seen > len(self.events):
            cursor = ChainCursor(0, (), 0, seed_commitment(self.setup.seed))
        if cursor.seen < len(self.events):
            encode = self.rules.codec.encode
            cursor, _links = cursor.fed(encode(e) for e in self.events[cursor.seen :])
        self._chain = cursor
        return cursor

    def receive(self, msg: EmailMessage, **delivery: Unpack[Delivery]) -> Step:
        """Handle one inbound mail (:func:`pbem.table.receive.receive_mail`). Bad input gives
        a reply, never an exception."""
        return receive.receive_mail(self, msg, **delivery)

    def release(self, msg: EmailMessage, now: datetime) -> Step:
        """A held list post asked again whether it may go out
        (:func:`pbem.table.receive.release_post`)."""
        return receive.release_post(self, msg, now)

    admin_lines = admin.admin_lines
    """The game master's commands, one a line (by mail, or ``pbem admin`` through the
    daemon), answered like a player's (:func:`pbem.table.admin.admin_lines`)."""

    # -- helpers ------------------------------------------------------------------------------

    def rng(self, offset: int = 0) -> random.Random:
        """The draws of the next resolution (``offset``: events the step already holds)."""
        # the rules' events only: a desk act (a pause, an announcement) does not change what
        # the next resolution draws, and a rolled-back resolution draws the same again
        # seeded at its first draw: most closes draw nothing (pbem.core.draws.LazyRandom)
        return lazy_draw_rng(self.setup.seed, len(self.ruled) + offset, self.setup.seed_scheme)

    def removal_rng(self) -> random.Random:
        """The draws of a removal by the game master (a Mayor drawn in a removed one's place)."""
        return self.rng()

    def syntax(self, spec: CommandSpec, lang: str) -> dict[str, str]:
        """How ``AIDE`` shows ``spec`` to a player writing in ``lang``."""
        return wording.syntax(spec, lang)

    def reason(self, exc: CommandError, lang: str, reader: str | None = None) -> str:
        """Why ``exc`` refused a command, in ``lang`` (the reply's wording); ``reader``: the
        seat it is told to, for the words that agree with him or her."""
        return wording.reason(self, exc, lang, reader)

    def step(
        self,
        events: Sequence[Event],
        reply: Receipt | None = None,
        post: PostVerdict | None = None,
    ) -> Step:
        """The step appending ``events``: their encoding, ``reply``'s receipt, their mails."""
        return step_of(self, events, reply, post)
