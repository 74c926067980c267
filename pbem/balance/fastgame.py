"""A whole game through the rules only: the same ``Rules`` and bots as the mail pipeline
(:func:`pbem.tools.demo.play`), the bots' commands handed over as objects, with no mail
parsed, rendered or sent.

Each input follows the table's own steps, calling the same functions: a list post is first
offered to ``Rules.on_post`` (:func:`pbem.table.receive.receive_mail`), a command runs through
``Rules.decide`` (:func:`pbem.table.commands.run_command`), an early close is asked of
``Rules.ready_to_close``, and a deadline closes with ``Rules.on_deadline`` followed by the idle
policy (:meth:`pbem.table.Table.close`, :func:`pbem.games.idle.idle_after_close`); the draws are
seeded as the table seeds them. So a seed ends in the same state on both paths
(tests/balance/test_fastgame.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from pbem.core.commands import Command
from pbem.core.draws import deal_rng, lazy_draw_rng
from pbem.core.errors import CommandError
from pbem.core.events import Event, PhaseClosed, VoteSet
from pbem.core.folded import recall
from pbem.core.frozen import quick_replace
from pbem.core.game import GameSpec, PlayerSpec, Rules
from pbem.core.idle import IdleCount, IdleOptions
from pbem.desk.kernel import is_kernel
from pbem.games import rules_for
from pbem.games.idle import idle_after_close, without_mail_to_removed
from pbem.table.setup import TableSetup
from pbem.tools.bots import BotMove, bot_moves
from pbem.tools.simulate import EPOCH

Bots = Callable[[Rules[Any], Any, Sequence[PlayerSpec], random.Random], Iterable[BotMove]]
"""Who plays: one round of moves from the rules and the state (:func:`bot_moves`)."""


class RulesGame:
    """One game's rules, log and state, without mail: the part of a
    :class:`pbem.table.Table` the rules and the idle policy read."""

    def __init__(self, setup: TableSetup, rules: Rules[Any] | None = None) -> None:
        self.setup = setup
        self.rules: Rules[Any] = rules or rules_for(setup.game)
        self.events: list[Event] = []
        """The whole log, kernel events (phase closes, idle notices) included."""
        self.ruled: list[Event] = []
        """The events the rules fold."""
        self.state: Any = self.rules.new_state()
        self._idle: IdleCount | None = None
        self._open: Any = None
        """The last state ``Rules.ready_to_close`` found open (None for it): a state is
        frozen and the rules' verdict pure, so a move that changes nothing need not ask it
        again (most moves: a refused command, issue 23)."""
        self.idle_removes = True
        """Whether the idle policy may change the rules' state (``on_idle = "remove"``).
        Otherwise it only mails warnings and questions (kernel notices, folded by no game,
        out of the draws' seeds: pbem/games/idle.py), which a game without mail skips: its
        count rescans the whole log at every close."""

    @classmethod
    def new(
        cls, setup_data: Mapping[str, Any], now: datetime = EPOCH, rules: Rules[Any] | None = None
    ) -> RulesGame:
        """A game set up as :meth:`pbem.table.Table.new` sets it up (same deal, same seed)."""
        return cls.of(TableSetup.from_mapping(setup_data), now, rules)

    @classmethod
    def of(
        cls, setup: TableSetup, now: datetime = EPOCH, rules: Rules[Any] | None = None
    ) -> RulesGame:
        """:meth:`new` from a setup already checked (many games of one table, issue 23); the
        rules are kept per game (a ``Rules`` holds no game's state)."""
        game = cls(setup, rules or rules_of(setup.game))
        spec = GameSpec(setup.players, setup.options, setup.lang, setup.roles, setup.leftover)
        game.apply(game.rules.setup(spec, now, deal_rng(setup.seed, setup.seed_scheme)))
        options = getattr(game.state, "options", None)
        game.idle_removes = isinstance(options, IdleOptions) and options.on_idle == "remove"
        return game

    @property
    def finished(self) -> bool:
        """Whether the rules have an outcome (the game is over)."""
        return self.rules.outcome(self.state) is not None

    def deadlines(self) -> Mapping[str, datetime]:
        return self.rules.deadlines(self.state)

    def rng(self, offset: int = 0) -> random.Random:
        """The draws of the next resolution, seeded as :meth:`pbem.table.Table.rng` (at the
        first draw: most closes draw nothing)."""
        return lazy_draw_rng(self.setup.seed, len(self.ruled) + offset, self.setup.seed_scheme)

    def idle_count(self) -> IdleCount:
        """The log's idle counts, kept between closes as :meth:`pbem.table.Table.idle_count`
        keeps them (the idle policy reads them)."""
        self._idle = IdleCount.caught_up(self._idle, self.events)
        return self._idle

    def apply(self, events: Iterable[Event]) -> None:
        """Append ``events`` to the log and fold the rules' own (not the kernel's) into the
        state, as :meth:`pbem.table.Table.apply` does."""
        events = list(events)
        ruled = [e for e in events if type(e) in _RULED or _ruled(e)]
        self.events += events
        self.ruled += ruled
        self.state = fold(self.rules, ruled, self.state)

    # -- inputs: the table's steps, without their mail -------------------------------------

    def move(self, move: BotMove, now: datetime) -> None:
        """One bot's command, as :func:`pbem.table.receive.receive_mail` runs its mail."""
        rules = self.rules
        evolve = rules.evolve
        actor = move.player.name
        state = self.state
        # the rules' events: never a kernel event (those are the desk's and the table's)
        ruled: list[Event] = []
        command: Command | None = move.command
        if move.public:
            if move.bold and command is not None:  # the forum's bold name
                try:
                    command = rules.bold_command(state, actor, (str(command.targets[0]),))
                except CommandError:
                    command = None
            try:  # the game may refuse the whole post
                posted = rules.on_post(state, actor, (move.line,), now, moderated=False)
            except CommandError:
                return
            if posted:
                ruled += posted
                # a post's event (Dracula's first post of the day) folded as it is
                state = evolve(state, posted[0]) if len(posted) == 1 else fold(rules, posted, state)
            channel = "list"
        else:
            channel = "private"
        if command is not None:
            new = rules.decision(state, actor, command, now, channel)
            if new:
                # the rules' own events are folded (the state the rules built while deciding,
                # pbem.core.folded), the log takes the stamped copies: no rule reads a vote's
                # time, so both folds are one state (tests/balance/test_fastgame.py)
                # one event (most commands) is folded at once: a rule traces only a
                # decision it folds in steps (pbem.core.folded)
                state = rules.evolve(state, new[0]) if len(new) == 1 else fold(rules, new, state)
                ruled += _stamped(new, now)
        if not ruled and state is self._open:
            return
        early = rules.ready_to_close(state)
        if early is None:
            self._open = state
            if ruled:  # the state is folded already: the log takes the events as they are
                self.events += ruled
                self.ruled += ruled
                self.state = state
            return
        # LUP-D29: the early close, when the options turn it on
        closing = rules.on_deadline(state, early, now, self.rng(len(ruled)))
        events = list(ruled)
        if closing:
            awaited = tuple(sorted(rules.awaited_at_close(state, early)))
            events.append(PhaseClosed(early, len(closing), awaited))
            events += closing
            ruled += closing
            state = fold(rules, closing, state)
        if events:
            self.events += events
            self.ruled += ruled
            self.state = state

    def close(self, key: str, now: datetime) -> None:
        """A deadline passes: as :meth:`pbem.table.Table.close`, the idle policy included."""
        before = self.state
        events = self.rules.on_deadline(before, key, now, self.rng())
        if not events:
            return
        if self.idle_removes:  # only the idle policy reads who was awaited
            awaited = tuple(sorted(self.rules.awaited_at_close(before, key)))
            closed = PhaseClosed(key, len(events), awaited)
            acts = idle_after_close(self, closed, events, now)
            # as the table: no private notice to a seat this close removes (issue 22)
            events = [*without_mail_to_removed(events, acts), *acts]
            self.apply([PhaseClosed(key, len(events), awaited), *events])
            return
        # the rules' events only (no kernel event among them), the state already folded as
        # the rules built it (pbem.core.folded.Batch)
        self.events += events
        self.ruled += events
        self.state = fold(self.rules, events, before)


def _stamped(events: list[Event], now: datetime) -> list[Event]:
    """``events``, each vote stamped with its arrival time, as
    :func:`pbem.table.commands.stamp_votes` stamps it; most decisions are one event, whose
    list is kept when it is not a vote."""
    if len(events) == 1:
        event = events[0]
        if type(event) is not VoteSet:
            return events
        values = event.__dict__.copy()  # quick_replace(event, at=now), without its checks
        values["at"] = now
        stamped = _new(VoteSet)
        _set(stamped, "__dict__", values)
        return [stamped]
    return [quick_replace(e, at=now) if type(e) is VoteSet else e for e in events]


_new = object.__new__
_set = object.__setattr__

_RULES: dict[str, Rules[Any]] = {}


def rules_of(game: str) -> Rules[Any]:
    """The rules of ``game``, one instance for every game played here (a ``Rules`` holds no
    game's state, and keeps what it works out once: its commands per set of verbs)."""
    rules = _RULES.get(game)
    if rules is None:
        rules = _RULES[game] = rules_for(game)
    return rules


_RULED: set[type] = set()
"""The types of event the rules fold (not the kernel's): asked of every event of a game."""


def _ruled(event: Event) -> bool:
    """Whether the rules fold ``event`` (not :func:`pbem.desk.kernel.is_kernel`)."""
    if is_kernel(event):
        return False
    _RULED.add(type(event))
    return True


def fold(rules: Rules[Any], events: Sequence[Event], state: Any) -> Any:
    """``rules.fold(events, state)``; the state the rules built already when they folded
    these very events while deciding (:func:`pbem.core.folded.recall`)."""
    known = recall(events, state)
    if known is not None:
        return known
    if len(events) == 1:
        return rules.evolve(state, events[0])
    return rules.fold(events, state)  # one new state for them all, where the game can


def play_rules(
    game: RulesGame,
    rng: random.Random,
    max_phases: int = 400,
    *,
    now: datetime = EPOCH,
    bots: Bots = bot_moves,
    most_rounds: int = 5,
) -> RulesGame:
    """Bots act each phase, then the deadline passes: :func:`pbem.tools.demo.play`'s loop.

    ``bots`` send only what the rules offer (as :func:`bot_moves` and the informed bots do):
    a phase in which the rules offer nothing (``Rules.offers_nothing``) has no round."""
    rules, players, play = game.rules, game.setup.players, game.move
    outcome = rules.outcome  # game.finished, asked after every move that changed it
    quiet = rules.offers_nothing
    for _ in range(max_phases):
        # the deadlines as they stand (a state is frozen: its mapping is never changed)
        opened = game.deadlines()
        if not opened or outcome(game.state) is not None:
            break
        for _round in range(most_rounds):
            going = game.state
            if quiet(going):  # every bot would pass his turn without a draw
                break
            for move in list(bots(rules, going, players, rng)):
                play(move, now)
                if game.state is not going:  # a refused command changes no state
                    going = game.state
                    if outcome(going) is not None:
                        return game
            deadlines = game.deadlines()
            if deadlines is opened or all(opened.get(k) == due for k, due in deadlines.items()):
                break
            opened = deadlines
        if game.finished:
            break
        deadlines = game.deadlines()
        if len(deadlines) == 1:  # most phases: one deadline
            ((key, when),) = deadlines.items()
        else:
            key, when = min(deadlines.items(), key=lambda kv: kv[1])
        now = max(now, when)
        game.close(key, now)
    return game


def moves_of(game: RulesGame, rng: random.Random) -> Iterator[BotMove]:
    """The random legal bots' round for ``game`` (a convenience for tests)."""
    return bot_moves(game.rules, game.state, game.setup.players, rng)
