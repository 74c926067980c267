"""The rules protocol every game implements, and the game specification it starts from.

A game is a small subclass of :class:`Rules` (as python-chess' variants are small subclasses
of ``Board``) listed in the explicit registry ``pbem.games.GAME_MODULES``. Rules are pure
functions of (state, input): time comes in as ``now``, randomness as a seeded
``random.Random``, and the result is a list of events; ``evolve`` folds one event into the
state.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Generic, TypeVar

from pbem.core.commands import COMMON_COMMANDS, Command, CommandSpec
from pbem.core.errors import CommandError, IllegalNow, PartlyRefused
from pbem.core.events import COMMON_EVENTS, Event, EventCodec
from pbem.core.frozen import quick_init
from pbem.core.ids import PlayerId
from pbem.core.outcome import Outcome

S = TypeVar("S")

ADMIN = PlayerId("@admin")
"""The recipient of a notice meant for the game's administrators (``admins`` of the setup)."""


@quick_init  # every player of every game created or loaded (1,000 created: issue 23)
@dataclass(frozen=True)
class PlayerSpec:
    """A registered player: nickname, address, language, grammatical gender if given."""

    name: PlayerId
    email: str
    lang: str
    gender: str | None = None
    """``"m"``, ``"f"`` or None (not given): the texts agree with it, or are phrased neutrally."""


@quick_init
@dataclass(frozen=True)
class GameSpec:
    """What a game master asks for: players, options, language, optionally a fixed deal."""

    players: tuple[PlayerSpec, ...]
    options: Mapping[str, Any]
    lang: str = "fr"
    roles: Mapping[str, str] | None = None
    leftover: tuple[str, ...] | None = None


class Rules(ABC, Generic[S]):
    """A game's rules. Subclasses set the class attributes and implement the methods."""

    id: ClassVar[str]
    title: ClassVar[str]
    templates: ClassVar[str]
    """The folder of this game's templates under ``templates/<lang>/``."""
    roles: ClassVar[tuple[str, ...]]
    options_type: ClassVar[type[Any] | None] = None
    """The frozen dataclass of the game's options (its rules' configuration table, read by
    :func:`pbem.core.options.parse_options`): ``pbem games`` and the config's ``[games]``
    tables read their names, defaults and allowed values from it."""
    commands: ClassVar[tuple[CommandSpec, ...]]
    event_types: ClassVar[tuple[type[Event], ...]] = ()
    reserved: ClassVar[tuple[str, ...]] = ()
    """Words a player's nickname may not be besides the command keywords (e.g. role names)."""
    admin_commands: ClassVar[tuple[CommandSpec, ...]] = ()
    """Commands an administrator (not a player) may send, e.g. approving a held message."""

    def __init__(self) -> None:
        self.codec = EventCodec.of(COMMON_EVENTS + self.event_types)
        self.all_commands: tuple[CommandSpec, ...] = self.commands + COMMON_COMMANDS
        self._among: dict[frozenset[str], tuple[CommandSpec, ...]] = {}

    # -- building the state -------------------------------------------------------------
    @abstractmethod
    def new_state(self) -> S:
        """The state before any event."""

    @abstractmethod
    def evolve(self, state: S, event: Event) -> S:
        """Fold one event into the state. Total: events are facts."""

    def fold(self, events: Iterable[Event], state: S | None = None) -> S:
        """The state after ``events``, from ``state`` (or a new game's state) through
        :meth:`evolve`."""
        current = self.new_state() if state is None else state
        for event in events:
            current = self.evolve(current, event)
        return current

    # -- deciding -------------------------------------------------------------------------
    @classmethod
    def check_options(cls, options: Any) -> None:
        """Raise SetupError where the parsed ``options`` (an :attr:`options_type`) hold values
        the rules refuse together, whoever the players: :meth:`setup` asks it, and so does
        ``pbem check-config`` for the ``[games]`` tables, with the same message. None by
        default."""

    @abstractmethod
    def setup(self, spec: GameSpec, now: datetime, rng: random.Random) -> list[Event]:
        """The opening events (deal, announcements, first phase). Raises SetupError."""

    @abstractmethod
    def decide(
        self, state: S, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        """The events a command causes; raises a CommandError (and changes nothing) if refused.

        ``channel`` is ``"private"`` (mail to the moderator) or ``"list"`` (a public post).
        """

    @abstractmethod
    def on_deadline(self, state: S, key: str, now: datetime, rng: random.Random) -> list[Event]:
        """Close the phase whose deadline ``key`` passed; [] if ``key`` is not pending."""

    @abstractmethod
    def deadlines(self, state: S) -> Mapping[str, datetime]:
        """Pending deadlines of the current phase (empty once the game is over)."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The outcome once the game has ended."""

    # -- reading --------------------------------------------------------------------------
    @abstractmethod
    def names(self, state: S) -> Sequence[PlayerId]:
        """Every player's name, in seating order (what target names are matched against)."""

    @abstractmethod
    def summary(self, state: S) -> dict[str, Any]:
        """The ``state`` line of ``pbem simulate`` (see DESIGN.md)."""

    @abstractmethod
    def status(self, state: S, actor: PlayerId) -> dict[str, Any]:
        """What ``STATUS`` tells ``actor``: only what he already knows."""

    # -- optional hooks (the defaults suit a game without the feature) ---------------------

    def available(self, state: S, actor: PlayerId) -> list[CommandSpec]:
        """The commands ``actor`` may send now (the ``HELP`` reply): some of ``all_commands``
        (the quick actions look no further when a mail names none of those)."""
        return list(self.all_commands)

    def available_verbs(self, state: S, actor: PlayerId) -> frozenset[str] | None:
        """The verbs of :meth:`available` where the game knows them as a set (its
        ``available`` is then :meth:`commands_among` them, in the game's order), None where it
        does not: the bots ask it of every player of every round (issue 23), and keep the
        commands of each set of verbs."""
        return None

    def commands_among(self, verbs: Iterable[str]) -> list[CommandSpec]:
        """The game's commands whose verb is one of ``verbs``, in the game's order: what
        :meth:`available` returns, kept per set of verbs (asked for every player of every
        round by the bots, issue 23)."""
        key = verbs if type(verbs) is frozenset else frozenset(verbs)
        found = self._among.get(key)
        if found is None:
            found = self._among[key] = tuple(c for c in self.all_commands if c.verb in key)
        return list(found)

    def bold_command(self, state: S, actor: PlayerId, bold: Sequence[str]) -> Command | None:
        """The command meant by a public post whose only command is a bold text, if any."""
        return None

    def admin(self, state: S, command: Command, now: datetime) -> list[Event]:
        """The events an administrator's command causes; raises a CommandError if refused."""
        raise IllegalNow("not_now")

    def on_post(
        self,
        state: S,
        actor: PlayerId,
        lines: Sequence[str],
        now: datetime,
        *,
        moderated: bool = True,
    ) -> list[Event]:
        """A player's post reached the list (before its commands are read).

        Returns the events it causes (e.g. "posted today"); raises a CommandError to refuse
        the whole post (night silence, a post that breaks a format the rules impose), which
        the engine explains privately to the sender and does not read further.

        ``moderated=False``: the list is external, so every post has already reached the
        players whatever the daemon decides; rules that would refuse a post may say so
        publicly instead (AMB-009).
        """
        return []

    def changeable_until(self, state: S, actor: PlayerId, verb: str) -> datetime | None:
        """Until when an accepted ``verb`` may still be changed (shown in the reply).

        By default the earliest pending deadline; a game whose phase has several deadlines
        (a night in sub-phases) names the one that closes this verb.
        """
        deadlines = self.deadlines(state)
        return min(deadlines.values()) if deadlines else None

    def adds_up(self, verb: str) -> bool:
        """Whether a second order of ``verb`` in a step adds to the first rather than
        replacing it (Dracula's curses and dance replies, AMB-053, AMB-058): the receipt of a
        mail holding both then shows neither replaced."""
        return False

    def final(self, state: S, actor: PlayerId, verb: str) -> bool:
        """Whether an accepted ``verb`` can no longer be changed before the deadline."""
        return False

    def allows(
        self, state: S, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> bool:
        """Whether :meth:`decide` accepts ``command`` (raises no CommandError): the quick
        actions ask it of every choice of a mail's readers, the bots of each name they try
        (issue 23). By default ``decide`` itself; a game may answer without making the events
        (a vote's running tally), with the same checks in the same order."""
        try:
            self.decide(state, actor, command, now, channel)
        except CommandError:
            return False
        return True

    def decision(
        self, state: S, actor: PlayerId, command: Command, now: datetime, channel: str
    ) -> list[Event]:
        """The events :meth:`decide` makes of ``command``, [] where it refuses the whole of
        it, and the taken part's events where it refuses part (:class:`PartlyRefused`): for a
        caller who tells nobody why (the rules-only fast path, issue 23). By default
        ``decide`` itself; a game whose commands are often refused may answer without raising,
        with the same checks in the same order."""
        try:
            return self.decide(state, actor, command, now, channel)
        except PartlyRefused as exc:
            return list(exc.events)
        except CommandError:
            return []

    def offers_nothing(self, state: S) -> bool:
        """Whether no player may send any command but HELP or STATUS now (a debate): a round
        of bots then has nothing to send, and the rules-only fast path skips it (issue 23).
        True only when sure; False (the default) says nothing."""
        return False

    def refused_to_all(self, state: S, command: Command, channel: str) -> bool:
        """Whether :meth:`allows` refuses ``command`` on ``channel`` whoever sends it (a vote
        for a dead player): the quick actions of a mail to every player then ask no reader
        (issue 23). True only when sure; False (the default) says nothing."""
        return False

    def offers(self, state: S, command: Command) -> bool:
        """Whether a mail's quick action may propose ``command``: a legal command can still be
        no real choice (Dracula's bare FUIR hands the flame to chance, AMB-063)."""
        return True

    def ready_to_close(self, state: S) -> str | None:
        """The deadline key to close early because everyone has acted (early_close options)."""
        return None

    def side_of(self, state: S, player: PlayerId) -> str | None:
        """The side ``player`` plays for now (the game master's ``ROLES``, ``FIN camp``);
        None in a game without sides."""
        return None

    def awaiting(self, state: S) -> frozenset[PlayerId]:
        """Players expected to act before the current deadline who have not (reminders, the
        game master's STATUT, the absences' extensions)."""
        return frozenset()

    def awaited_at_close(self, state: S, key: str) -> frozenset[PlayerId]:
        """The players the close of deadline ``key`` holds to account: the seats whose idle
        count goes up (pbem/core/idle.py). Those :meth:`awaiting`, unless ``key`` is a side
        window that closes inside a phase whose own deadline is still to come."""
        return self.awaiting(state)
