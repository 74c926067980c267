"""Inactive players: the idle policy's options and the idle count, derived from the log.

A seat is *idle* in a phase when the rules still await it (:meth:`Rules.awaiting`) as the
phase closes: the ``PhaseClosed`` marker records those seats. Its count goes up by one at
each such close and back to zero at any order it gives (an action, a vote, a withdrawal, an
explicit pass: every event with an ``actor`` and a ``verb``, or a ``VoteSet``), a chat relayed
for it included (``LOUPS``: a phase it talked in is not a silent one). Phases where
the rules do not await the seat (a villager's night) change nothing. The count is a pure fold
of the event log, never a side counter: a replay, a rollback (its events void) or a preview
sees the same counts. See docs/seats.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pbem.core.events import (
    Event,
    Notice,
    PhaseClosed,
    PlayerDied,
    SeatRemoved,
    VoteSet,
    rolls_back,
    voided,
)
from pbem.core.ids import PlayerId

OnIdle = Literal["offer", "ask", "remove"]
Reveal = Literal["as_death", "always", "never"]
AbsenceMode = Literal["excuse", "extend"]


@dataclass(frozen=True)
class IdleOptions:
    """The idle policy, shared by every game's options (its fields come first).

    ``idle_warn_after``: closed phases in a row where a living seat was awaited and gave no
    order before it is privately warned (0: never warned). ``idle_act_after``: the count at
    which ``on_idle`` applies (0: never): ``offer`` tells the game masters the bench
    volunteers and the ``REMPLACER`` command (asks them when the bench is empty), ``ask``
    asks them, ``remove`` removes the seat (``SeatRemoved``). ``removal_reveal``: whether the
    removal's announcement shows the seat's card: ``as_death`` as a death does in this game
    (Loup-Garou, Chasse and Dracula show it; Lupus never does, LUP-103), or ``always``/``never``.

    ``absence_days``: the days of declared absence (``ABSENCE``, issue 25) each player may take
    in the game (0: none). ``absence_mode``: ``excuse`` (the absent seat is not counted idle and
    not warned; the deadlines stay) or ``extend`` (a deadline falling in an absence of a seat
    the rules await moves to the same hour on the day after it, the list told, as njudge does).
    """

    idle_warn_after: int = 2
    idle_act_after: int = 3
    on_idle: OnIdle = "offer"
    removal_reveal: Reveal = "as_death"
    absence_days: int = 7
    absence_mode: AbsenceMode = "excuse"


def actor_of(event: Event) -> PlayerId | None:
    """The player whose order ``event`` records (a vote, an action, a pass), else None.

    An order the rules drew by default for a silent player (Dracula's ``default``) is not his.
    """
    if isinstance(event, VoteSet):
        return event.voter
    actor = getattr(event, "actor", None)
    if isinstance(actor, str) and isinstance(getattr(event, "verb", None), str):
        return None if getattr(event, "default", False) else PlayerId(actor)
    return None


def _relayed_for(event: Event) -> PlayerId | None:
    """The player whose words a private notice relays (his ``LOUPS``/``PACK`` chat, a
    council's vote passed on: the rules name him its ``sender``): the least order resets the
    count (the players' rules pages: « le moindre ordre … remet le compte à zéro »), a chat
    included, or a wolf who talks with his pack every night would be told his phases closed
    « sans rien de votre part » (issue 22)."""
    if isinstance(event, Notice) and not event.public:
        sender = event.params.get("sender")
        if isinstance(sender, str) and sender:
            return PlayerId(sender)
    return None


def idle_streaks(events: Sequence[Event]) -> dict[PlayerId, int]:
    """Each living seat's count of closed phases in a row it was awaited and silent.

    ``events`` is the whole log (kernel events included: each ``PhaseClosed`` marker names the
    seats the rules still awaited as its phase closed). A linear scan, no rules folded.
    """
    return IdleCount.of(events).counts()


@dataclass
class IdleCount:
    """:func:`idle_streaks`' scan, kept: the counts of the first ``length`` events of a log,
    extended by the events appended after them without a scan of the whole log again (a
    :class:`pbem.table.Table` keeps one: a close reads the counts, issue 23)."""

    streak: dict[PlayerId, int] = field(default_factory=dict)
    out: set[PlayerId] = field(default_factory=set)
    spoke: set[PlayerId] = field(default_factory=set)
    """Who talked in the phase in play (a chat leaves him awaited, yet not silent)."""
    length: int = 0

    @classmethod
    def of(cls, events: Sequence[Event]) -> IdleCount:
        """The counts of the whole log ``events``, its voided events left out."""
        void = voided(events)
        count = cls()
        for index, event in enumerate(events):
            if index not in void:
                count._feed(event)
        count.length = len(events)
        return count

    @classmethod
    def caught_up(cls, count: IdleCount | None, log: Sequence[Event]) -> IdleCount:
        """``count`` (the counts of an earlier prefix of ``log``, or None) brought up to the
        whole ``log``: extended by the events appended since, scanned again from the start
        after a rollback (it voids earlier events) or when the log is not its continuation."""
        if count is None or count.length > len(log):
            return cls.of(log)
        added = log[count.length :]
        if rolls_back(added):
            return cls.of(log)
        return count.extended(added) if added else count

    def extended(self, events: Sequence[Event]) -> IdleCount:
        """The counts once ``events`` are appended to the log (a copy; a rollback among them
        voids earlier events: the caller scans the whole log again instead)."""
        assert not rolls_back(events)
        count = IdleCount(
            dict(self.streak), set(self.out), set(self.spoke), self.length + len(events)
        )
        for event in events:
            count._feed(event)
        return count

    def counts(self) -> dict[PlayerId, int]:
        """Each player's current streak of idle phases, those at zero left out."""
        return {p: n for p, n in self.streak.items() if n}

    def _feed(self, event: Event) -> None:
        cls = type(event)
        telling = _TELLING.get(cls)
        if telling is None:
            telling = _TELLING[cls] = _tells(cls)
        if not telling:  # most of a log: nothing that counts (issue 23)
            return
        streak, out, spoke = self.streak, self.out, self.spoke
        if isinstance(event, PhaseClosed):
            for player in event.awaited:
                if player not in out and player not in spoke:
                    streak[player] = streak.get(player, 0) + 1
            spoke.clear()
            return
        actor = actor_of(event)
        relayed = _relayed_for(event)
        if relayed is not None:
            spoke.add(relayed)
        who = actor if actor is not None else relayed
        if who is not None:
            streak[who] = 0
        if isinstance(event, _OUT):
            out.add(event.player)
            streak.pop(event.player, None)


_OUT = (PlayerDied, SeatRemoved)
"""The events that take a seat out of the count (a tuple: ``A | B`` makes a union each time)."""

_TELLING: dict[type, bool] = {}
"""Event class -> whether :meth:`IdleCount._feed` may read anything in its instances."""


def _tells(cls: type) -> bool:
    """Whether an event of class ``cls`` may change the counts: a close, a vote, a private
    notice, a death or removal, or any class with an ``actor`` (an order; a class that is no
    dataclass is read as any event is). Others leave :meth:`IdleCount._feed` nothing to do."""
    if issubclass(cls, PhaseClosed | VoteSet | Notice | PlayerDied | SeatRemoved):
        return True
    if not dataclasses.is_dataclass(cls):
        return True
    names = {f.name for f in dataclasses.fields(cls)}
    return "actor" in names or hasattr(cls, "actor")


def crossed(
    before: dict[PlayerId, int], after: dict[PlayerId, int], threshold: int
) -> list[PlayerId]:
    """The seats whose count reached ``threshold`` with this close (0: none ever)."""
    if threshold <= 0:
        return []
    return [p for p, n in after.items() if n >= threshold > before.get(p, 0)]
