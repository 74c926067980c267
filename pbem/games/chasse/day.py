"""Chasse aux sorcières' days: the vote, its tally, the tie-break (CAS-D20) and the lynch
(CAS-400..CAS-407)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow
from pbem.core.events import Event, Notice, PhaseStarted, PlayerDied, VoteSet, private, public
from pbem.core.ids import PlayerId
from pbem.games.chasse import nightfall, revenge, victory
from pbem.games.chasse.grief import grief_deaths, grief_params
from pbem.games.chasse.state import ChasseState, TieOpened, Verdict, evolve, evolve_all, iso
from pbem.games.village.voting import ranked, vote_and_tally, weighted_plurality


def valid_votes(state: ChasseState) -> dict[PlayerId, PlayerId]:
    """CAS-D18, CAS-D21: votes by or for a player eliminated during the day are void."""
    return {v: t for v, t in state.votes.items() if state.alive(v) and state.alive(t)}


def weighted_tally(state: ChasseState) -> dict[str, Any]:
    """A public tally of the valid votes, Penny's counting double (CAS-401)."""
    votes = valid_votes(state)
    _, totals = weighted_plurality(votes, {v: state.weight(v) for v in votes})  # CAS-401
    counts = {p: int(n) for p, n in totals.items()}
    return {
        "votes": [{"voter": v, "target": t, "weight": state.weight(v)} for v, t in votes.items()]
        if state.options.penny_public
        else [],
        "counts": [{"name": p, "count": counts[p]} for g in ranked(counts) for p in g],
    }


def close_day(state: ChasseState, now: datetime, rng: random.Random) -> list[Event]:
    """CAS-403..CAS-407, CAS-D20, CAS-D21."""
    events: list[Event] = []
    if state.revenge is not None:  # a revenge window outlasting the day closes first
        closed = revenge.revenge_closed(state, now)
        events += closed
        state = evolve_all(closed, state)
    votes = valid_votes(state)
    leading, _ = weighted_plurality(votes, {v: state.weight(v) for v in votes})
    tally = weighted_tally(state)
    if not leading:  # CAS-404
        return events + lynch_events(state, now, None, "nobody", (), None, tally)
    top = [p for p in state.order if p in leading]  # CAS-403: relative majority
    if len(top) == 1:  # CAS-403
        return events + lynch_events(state, now, top[0], "majority", (), None, tally)
    for rule in state.options.tie_order.split(","):  # CAS-405..CAS-407, CAS-D20
        if rule == "penny" and state.penny and state.alive(state.penny):
            return events + open_tie(state, now, tuple(top), state.penny, "choose", tally)
        if rule == "last_lynched" and state.lynched:
            mode = "spare" if len(top) == 2 else "choose"
            return events + open_tie(state, now, tuple(top), state.lynched[-1], mode, tally)
        if rule == "random":
            break
    return events + lynch_events(state, now, rng.choice(top), "draw", tuple(top), None, tally)


def open_tie(
    state: ChasseState,
    now: datetime,
    tied: tuple[PlayerId, ...],
    breaker: PlayerId,
    mode: str,
    tally: Mapping[str, Any],
) -> list[Event]:
    """CAS-731: the tie is announced and the tie-breaker asked (CAS-D20 window)."""
    until = now + state.options.tiebreak_window
    thread = f"day-{state.number}"
    penny = breaker == state.penny and state.alive(breaker)
    return [
        PhaseStarted("tiebreak", state.number, {"tiebreak": until}),
        TieOpened(tied, breaker, mode, until, dict(tally)),
        public(
            "chasse/tie",
            thread,
            day=state.number,
            tied=list(tied),
            breaker=breaker,
            penny=penny,
            mode=mode,
            deadline=iso(until),
            **tally,
        ),
        private(
            "chasse/tie_prompt",
            [breaker],
            thread,
            tied=list(tied),
            mode=mode,
            penny=penny,
            deadline=iso(until),
        ),
    ]


def close_tiebreak(state: ChasseState, now: datetime, rng: random.Random) -> list[Event]:
    """CAS-D20, CAS-D29: no answer from the tie-breaker, a random draw among the tied."""
    assert state.tie is not None
    tied = state.tie.tied
    living = [p for p in tied if state.alive(p)]  # a tied player removed meanwhile
    if not living:  # (docs/seats.md): nobody left to lynch
        return lynch_events(state, now, None, "nobody", tied, None, state.tie.tally)
    return lynch_events(state, now, rng.choice(living), "draw", tied, None, state.tie.tally)


def lynch_events(
    state: ChasseState,
    now: datetime,
    lynched: PlayerId | None,
    how: str,
    tied: tuple[PlayerId, ...],
    decided_by: PlayerId | None,
    tally: Mapping[str, Any],
) -> list[Event]:
    """CAS-237, CAS-409, CAS-732: the lynch, grief, victory, Prue's revenge, the night."""
    thread = f"day-{state.number}"
    events: list[Event] = [Verdict(state.number, lynched, how, tied, decided_by)]
    if lynched is not None:
        events.append(PlayerDied(lynched, "lynch"))
    after = evolve_all(events, state)
    grief = grief_deaths(after)
    events += grief
    after = evolve_all(grief, after)
    prue = revenge.prue_trigger(state, after, ("lynch",))
    ended = victory.check_victory(after)  # CAS-D22 (c)
    until = now + state.options.revenge_window
    events.append(
        public(
            "chasse/lynch",
            thread,
            day=state.number,
            lynched=lynched,
            role=after.seat(lynched).role if lynched else None,
            how=how,
            tied=list(tied),
            decided_by=decided_by,
            grief=grief_params(grief, after),
            revenge=iso(until) if prue and not ended else None,
            **tally,
        )
    )
    if ended:
        return events + ended
    if prue:  # CAS-239: the night waits for the revenge
        return [
            *events,
            PhaseStarted("revenge", state.number, {}),
            *revenge.open_revenge(prue, until, "lynch", thread),
        ]
    return events + nightfall.start_night(after, state.number + 1, now)


def decide_vote(
    state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
) -> list[Event]:
    """CAS-400..CAS-402, CAS-620, CAS-621, CAS-D21."""
    target = check_vote(state, actor, command, channel)

    def tally(after: ChasseState) -> Notice:  # CAS-730
        return public(
            "chasse/tally", f"day-{state.number}", day=state.number, **weighted_tally(after)
        )

    vote = VoteSet("day", actor, target, state.seq + 1)
    return vote_and_tally(state, vote, now, state.options.tally_min_interval, evolve, tally)


def vote_withdrawable(state: ChasseState, actor: PlayerId) -> bool:
    """Whether ``actor`` has a vote standing to withdraw: one for a living player (CAS-621,
    as :func:`check_vote` reads it)."""
    previous = state.votes.get(actor)
    return previous is not None and state.alive(previous)


def check_vote(
    state: ChasseState, actor: PlayerId, command: Command, channel: str
) -> PlayerId | None:
    """The target of a vote :func:`decide_vote` takes (None: a withdrawal); IllegalNow if
    the rules refuse it (CAS-400..CAS-402, CAS-620, CAS-621)."""
    if state.phase != "day":
        raise IllegalNow("no_vote_now")
    if channel != "list":
        raise IllegalNow("vote_on_list")  # CAS-400: votes are public
    previous = state.votes.get(actor)
    target: PlayerId | None
    if command.verb == "unvote":
        if previous is None or not state.alive(previous):
            raise IllegalNow("no_vote_to_withdraw")
        target = None
    else:
        target = command.targets[0]
        if not state.alive(target):
            raise IllegalNow("target_not_living", name=target)
    return target


def decide_tiebreak(
    state: ChasseState, actor: PlayerId, command: Command, now: datetime, channel: str
) -> list[Event]:
    """CAS-405..CAS-408, CAS-622, CAS-623, CAS-D20."""
    tie = state.tie
    if tie is None or state.phase != "tiebreak" or tie.breaker != actor:
        raise IllegalNow("dead" if not state.alive(actor) else "not_tiebreaker")
    if channel == "list" and not state.alive(actor):
        raise IllegalNow("dead")  # CAS-D28: the dead answer privately
    if command.verb != ("choose" if tie.mode == "choose" else "spare"):
        raise IllegalNow("tiebreak_mode", mode=tie.mode)
    target = command.targets[0]
    if target not in tie.tied:
        raise IllegalNow("not_tied", name=target, tied=list(tie.tied))  # CAS-408
    lynched = target if tie.mode == "choose" else next(p for p in tie.tied if p != target)
    how = "penny" if actor == state.penny and state.alive(actor) else "last_lynched"
    return lynch_events(state, now, lynched, how, tie.tied, actor, tie.tally)
