"""The idle policy, applied as a phase closes: warnings, then an offer, a question or a removal.

Pure: the Table calls :func:`idle_events` with the log up to the close (its ``PhaseClosed``
marker included), the state the resolution left and the bench's names; the events returned
are part of the resolution (a rollback voids them with it). Warnings and questions are kernel
notices, so they change nothing the rules draw afterwards; a removal is the rules' business. The counts come from the log
(:func:`pbem.core.idle.idle_streaks`), and each threshold fires once, on the close that
reaches it. The options (``IdleOptions``, in every game's options) and the decisions are in
docs/seats.md.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from pbem.core.absences import Absence, absences, after_absences
from pbem.core.draws import idle_rng
from pbem.core.errors import CommandError
from pbem.core.events import (
    DeadlineMoved,
    DeskNotice,
    Event,
    Notice,
    PhaseClosed,
    SeatRemoved,
    rolls_back,
)
from pbem.core.game import ADMIN, Rules
from pbem.core.idle import IdleCount, IdleOptions, crossed, idle_streaks
from pbem.core.ids import PlayerId
from pbem.games.removal import IDLE, THREAD, alive, check_removable, removal_events


class ClosingSetup(Protocol):
    """What the idle policy reads of a game's setup: its draws' seed and the bench."""

    @property
    def seed(self) -> int: ...
    @property
    def seed_scheme(self) -> int: ...
    @property
    def bench(self) -> Sequence[Mapping[str, Any]]: ...


class ClosingGame(Protocol):
    """What the idle policy reads of a game whose phase closes: a
    :class:`pbem.table.table.Table`, or the rules-only fast path's
    :class:`pbem.balance.fastgame.RulesGame` (both hand themselves over)."""

    @property
    def rules(self) -> Rules[Any]: ...
    @property
    def state(self) -> Any: ...
    @property
    def setup(self) -> ClosingSetup: ...
    @property
    def events(self) -> Sequence[Event]: ...
    @property
    def ruled(self) -> Sequence[Event]: ...
    def idle_count(self) -> IdleCount: ...


QUIET = ("help", "status", "rules", "cancel", "unvote")
"""Commands that are no answer to what the rules await (the warning does not list them)."""


def idle_events(
    rules: Rules[Any],
    log: Sequence[Event],
    awaited: frozenset[PlayerId],
    state: Any,
    now: datetime,
    rng: random.Random,
    bench: Sequence[str] = (),
    counts: dict[PlayerId, int] | None = None,
) -> list[Event]:
    """The idle policy's events after a close.

    ``log``: every event up to and including the close's ``PhaseClosed``; ``awaited``: the
    seats the rules still awaited as it closed (the ones whose count went up); ``state``: the
    state after the resolution. Warnings name what the rules await now, and until when.
    ``counts``: the log's idle counts when the caller keeps them (else scanned from ``log``).
    """
    options = getattr(state, "options", None)
    if not isinstance(options, IdleOptions) or rules.outcome(state) is not None or not awaited:
        return []
    if counts is None:
        counts = idle_streaks(log)
    idle = {p: n for p, n in counts.items() if p in awaited}
    before = {p: n - 1 for p, n in idle.items()}
    acting = crossed(before, idle, options.idle_act_after)
    warned = [p for p in crossed(before, idle, options.idle_warn_after) if p not in acting]
    events: list[Event] = []
    if warned:  # the state is the same for every warning: its summary is read once
        living = _living(rules, state)
        events += [_warning(rules, state, p, idle[p]) for p in warned if p in living]
    for player in acting:
        if rules.outcome(state) is not None or not alive(rules, state, player):
            continue
        new = _act(rules, state, player, idle[player], options, now, rng, bench)
        events += new
        state = rules.fold(new, state)
    return events


def _living(rules: Rules[Any], state: Any) -> set[PlayerId]:
    """The seats still in the game (:func:`pbem.games.removal.alive` for each seat at once)."""
    seats = rules.summary(state).get("players", [])
    return {s.get("name") for s in seats if s.get("alive")}


def _warning(rules: Rules[Any], state: Any, player: PlayerId, count: int) -> Event:
    """The private warning: how many phases, what is awaited now (or what he may send, as the
    phase's prompt to him says: the Little Girl's question) and until when; nothing when the
    phase that opened has nothing for him (a villager's night).

    The deadline: the earliest for what the rules await (a council's vote), else the phase's
    end, never an earlier sub-phase's that is not his (issue 22)."""
    awaited = player in rules.awaiting(state)
    commands = [
        {"fr": s.keyword("fr"), "en": s.keyword("en")}
        for s in rules.available(state, player)
        if s.verb not in QUIET
        and not s.verb.startswith("desk.")
        and (awaited or s.verb != "pass")  # RIEN answers a wait, not an offer
    ]
    pending = rules.deadlines(state).values()
    due = (min if awaited else max)(pending).isoformat() if pending else None
    return notice(
        "seats/idle_warning",
        [player],
        count=count,
        commands=commands,
        awaited=awaited,
        deadline=due,
    )


def _act(
    rules: Rules[Any],
    state: Any,
    player: PlayerId,
    count: int,
    options: IdleOptions,
    now: datetime,
    rng: random.Random,
    bench: Sequence[str],
) -> list[Event]:
    """``on_idle``: remove the seat, offer it to the bench, or ask the game masters."""
    if options.on_idle == "remove":
        try:
            return removal_events(rules, state, player, reason="idle", by=IDLE, now=now, rng=rng)
        except CommandError:  # a seat the game cannot lose (Dracula): the game masters decide
            pass
    params: dict[str, Any] = {"player": player, "count": count, "removable": True}
    try:
        check_removable(rules, state, player)
    except CommandError:
        params["removable"] = False
    if options.on_idle == "offer" and bench:
        return [notice("seats/idle_offer", [ADMIN], bench=list(bench), **params)]
    return [notice("seats/idle_ask", [ADMIN], **params)]


def notice(template: str, to: Sequence[PlayerId], **params: Any) -> DeskNotice:
    """A warning or a question of the idle policy: a kernel notice (``DeskNotice``), folded
    by no game and out of the count the Table seeds its draws with, so that a warning
    changes nothing the rules draw afterwards (as the desk's own acts do not)."""
    return DeskNotice(template, tuple(to), False, params, THREAD)


def without_mail_to_removed(resolution: Sequence[Event], acts: Sequence[Event]) -> list[Event]:
    """The resolution's events less its private notices to the seats the idle policy's
    ``acts`` remove: a Seer removed for inactivity is not sent the next night's SONDER prompt
    a second before her removal notice (issue 22). A notice to several keeps the others."""
    removed = {e.player for e in acts if isinstance(e, SeatRemoved)}
    if not removed:
        return list(resolution)
    out: list[Event] = []
    for event in resolution:
        if isinstance(event, Notice) and not isinstance(event, DeskNotice) and not event.public:
            to = tuple(p for p in event.to if p not in removed)
            if not to:
                continue
            if to != event.to:
                event = dataclasses.replace(event, to=to)
        out.append(event)
    return out


def idle_after_close(
    table: ClosingGame,
    closed: PhaseClosed,
    resolution: Sequence[Event],
    now: datetime,
    after: Any = None,
) -> list[Event]:
    """:func:`idle_events` for a :class:`pbem.table.Table` whose phase closes with the marker
    ``closed`` and the events ``resolution`` (the wiring the Table needs, kept here).
    ``after``: the state ``resolution`` leads to when the caller folded it (else folded here)."""
    if not closed.awaited:
        return []  # idle_events' own early answer, before any fold or count
    if after is None:
        after = table.rules.fold(resolution, table.state)
    # seeded like the Table's own draws (game seed, log length): a recomputed step is identical
    rng = idle_rng(table.setup.seed, len(table.ruled) + len(resolution), table.setup.seed_scheme)
    bench = [str(b["name"]) for b in table.setup.bench]  # the sign-ups' volunteers
    added = [closed, *resolution]
    counts = None if rolls_back(added) else table.idle_count().extended(added).counts()
    # the whole log is read only to count it afresh (after a rollback)
    log = [*table.events, *added] if counts is None else ()
    return idle_events(table.rules, log, frozenset(closed.awaited), after, now, rng, bench, counts)


def absence_moves(table: ClosingGame, resolution: Sequence[Event]) -> list[Event]:
    """In ``absence_mode = "extend"`` (issue 25), the deadlines the phase ``resolution`` opens
    that fall in the declared absence of a seat the rules await, moved past it, and the list
    told; nothing otherwise (the ``excuse`` mode, no absence, the game over)."""
    options = getattr(table.state, "options", None)
    if not isinstance(options, IdleOptions) or options.absence_mode != "extend":
        return []
    away = absences(table.events)
    if not away:
        return []
    after = table.rules.fold(resolution, table.state)
    if table.rules.outcome(after) is not None:
        return []
    return deadline_moves(table.rules, after, away, {})


def deadline_moves(
    rules: Rules[Any],
    state: Any,
    away: Sequence[Absence],
    moved: dict[tuple[str, datetime], datetime],
) -> list[Event]:
    """The ``DeadlineMoved`` events taking the pending deadlines of ``state`` (each where
    ``moved``, the desk's moves, put it) out of the absences ``away`` of the seats the rules
    await, and the public notice naming them (as ``PROLONGER``'s); none when nothing moves."""
    awaited = rules.awaiting(state)
    moves: list[DeadlineMoved] = []
    absent: set[PlayerId] = set()
    for key, due in rules.deadlines(state).items():
        now = moved.get((key, due), due)
        later = after_absences(now, awaited, away)
        if later != now:
            moves.append(DeadlineMoved(key, due, later))
            absent |= {a.seat for a in away if a.seat in awaited and a.covers(now)}
    if not moves:
        return []
    told = DeskNotice(
        "absence/extended",
        (),
        True,
        {"players": sorted(absent), "deadlines": {m.key: m.to.isoformat() for m in moves}},
        "desk",
    )
    return [*moves, told]
