"""Lupus in Tabula's days: the two ballots, their tallies and verdicts (LUP-400..LUP-420,
LUP-D16..LUP-D19)."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow, refuse
from pbem.core.events import Event, Notice, PlayerDied, VoteSet, public
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.core.moments import iso
from pbem.games.lupus import ending
from pbem.games.lupus.state import DayVerdict, LupusState, Nominated, evolve, phase_started
from pbem.games.village.voting import ranked, vote_and_tally


def open_round(state: LupusState, ballot: str, now: datetime) -> list[Event]:
    """Open the ballot ``round1`` or ``round2`` (LUP-740, LUP-742), folded in a
    :class:`Batch` so that the table takes the state built here (issue 23)."""
    o = state.options
    end = now + (o.round1_duration if ballot == "round1" else o.round2_duration)
    thread = f"day-{state.number}"
    started = phase_started("round1" if ballot == "round1" else "round2", state.number, end)
    if ballot == "round1":  # LUP-740
        voters = state.living() + state.ghosts()
        notice = public(
            "lupus/round1_open",
            thread,
            day=state.number,
            deadline=iso(end),
            ghosts=state.ghosts(),
            voters=len(voters),
            changes=o.vote_changes_allowed,  # LUP-D18: say whether a vote is final
        )
    else:  # LUP-742
        voters = [p for p in state.living() if p not in state.nominees]
        notice = public(
            "lupus/round2_open",
            thread,
            day=state.number,
            deadline=iso(end),
            nominees=list(state.nominees),
            voters=voters,
        )
    batch = Batch(state, evolve)
    batch.add(started, notice)
    return batch.events


def ballot_tally(state: LupusState) -> dict[str, Any]:
    """The running tally of the ballot, ghosts' votes marked (LUP-D22)."""
    ghosts = state.ghosts() if state.options.ghost_variant else ()  # LUP-D22: a few, if any
    votes = [{"voter": v, "target": t, "ghost": v in ghosts} for v, t in state.votes.items()]
    counts: dict[PlayerId, int] = {}
    for target in state.votes.values():  # in first-vote order, as ranked() keeps them
        counts[target] = counts.get(target, 0) + 1
    return {
        "votes": votes,
        "counts": [{"name": n, "count": counts[n]} for group in ranked(counts) for n in group],
    }


def close_round1(state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
    """Round 1 closes: the nominees (LUP-404, LUP-405, LUP-D16), or a verdict."""
    o = state.options
    thread = f"day-{state.number}"
    seats = state.seats
    counts: dict[PlayerId, int] = {}  # in first-vote order, as a Counter keeps them
    for target in state.votes.values():
        if seats[target].alive:
            counts[target] = counts.get(target, 0) + 1
    owl = state.owl_pick if state.owl_pick and state.seat(state.owl_pick).alive else None
    slots = 2 - (1 if owl else 0)
    chosen: list[PlayerId] = []
    draws: list[dict[str, Any]] = []
    pool = {p: c for p, c in counts.items() if p != owl and c >= 1}  # LUP-D16
    for group in ranked(pool):
        room = slots - len(chosen)
        if room <= 0:
            break
        ordered = [p for p in state.order if p in group]
        if len(ordered) <= room or o.nomination_tie == "all_tied":
            chosen += ordered
        else:
            picked = rng.sample(ordered, room)
            draws.append({"among": ordered, "chosen": [p for p in ordered if p in picked]})
            chosen += [p for p in ordered if p in picked]
            break
    nominees = ([owl] if owl else []) + chosen
    nominated = Nominated(
        tuple(nominees), owl, {str(k): v for k, v in counts.items()}, tuple(draws)
    )
    batch = Batch(state, evolve)
    batch.add(nominated)
    params = ballot_tally(state)
    if len(nominees) >= 2:
        end = now + o.defence_duration
        batch.add(
            public(
                "lupus/round1_result",
                thread,
                day=state.number,
                nominees=nominees,
                owl=owl,
                draws=draws,
                lynched=None,
                outcome="defence",
                deadline=iso(end),
                **params,
            ),
            phase_started("defence", state.number, end),
        )
        return batch.events
    if len(nominees) == 1 and o.single_nominee == "lynch":
        lynched: PlayerId | None = nominees[0]
        how = "single"
    else:
        lynched, how = None, "nobody" if not nominees else "single_spared"
    batch.add(DayVerdict(state.number, lynched, how))
    if lynched:
        batch.add(PlayerDied(lynched, "lynch"))
    ending.after_deaths(
        batch,
        now,
        "lupus/round1_result",
        thread,
        nominees=nominees,
        owl=owl,
        draws=draws,
        lynched=lynched,
        outcome=how,
        deadline=None,
        **params,
    )
    return batch.events


def close_round2(state: LupusState, now: datetime, rng: random.Random) -> list[Event]:
    """Round 2 closes: the lynch, a tie settled by LUP-D17."""
    o = state.options
    thread = f"day-{state.number}"
    nominees = state.nominees
    counts: dict[PlayerId, int] = {}
    for target in state.votes.values():
        if target in nominees:
            counts[target] = counts.get(target, 0) + 1
    most = max((counts.get(n, 0) for n in nominees), default=0)
    top = [p for p in nominees if counts.get(p, 0) == most]
    drawn: tuple[PlayerId, ...] = ()
    how = "majority"
    lynched: PlayerId | None
    if not top:  # every nominee was removed from the game (docs/seats.md)
        lynched, how = None, "no_nominee"
    elif len(top) == 1:
        lynched = top[0]
    elif o.round2_tie == "no_lynch":
        lynched, how = None, "tie_no_lynch"
    else:
        tied = top
        if o.round2_tie == "round1_then_random":  # LUP-D17
            best = max(state.round1_counts.get(p, 0) for p in tied)
            tied = [p for p in tied if state.round1_counts.get(p, 0) == best]
        if len(tied) == 1:
            lynched, how = tied[0], "round1"
        else:
            drawn = tuple(tied)
            lynched, how = rng.choice(tied), "draw"
    batch = Batch(state, evolve)
    batch.add(DayVerdict(state.number, lynched, how, drawn))
    if lynched:
        batch.add(PlayerDied(lynched, "lynch"))
    ending.after_deaths(
        batch,
        now,
        "lupus/round2_result",
        thread,
        lynched=lynched,
        how=how,
        drawn_among=list(drawn),
        nominees=list(state.nominees),
        **ballot_tally(state),
    )
    return batch.events


def decide_vote(
    state: LupusState, actor: PlayerId, command: Command, now: datetime, channel: str
) -> list[Event]:
    """A vote or its withdrawal (LUP-617..LUP-620), with the running tally."""
    refuse(vote_refusal(state, actor, command, channel))
    return vote_events(state, actor, command, now)


def vote_events(state: LupusState, actor: PlayerId, command: Command, now: datetime) -> list[Event]:
    """The events of a vote or its withdrawal that :func:`vote_refused` takes: the vote, and
    the running tally when it is due (LUP-D18)."""
    o = state.options
    phase = state.phase
    target = None if command.verb == "unvote" else command.targets[0]
    vote = VoteSet(phase, actor, target, state.seq + 1)
    last = state.last_tally
    if last is not None and now - last < o.tally_min_interval:
        return [vote]  # most votes: vote_and_tally's own answer, without making its tally

    def tally(after: LupusState) -> Notice:  # LUP-D18: the running tally
        params = ballot_tally(after)
        return public(
            "lupus/tally", f"day-{state.number}", day=state.number, ballot=phase, **params
        )

    return vote_and_tally(state, vote, now, o.tally_min_interval, evolve, tally)


def vote_refusal(
    state: LupusState, actor: PlayerId, command: Command, channel: str
) -> IllegalNow | None:
    """Why a vote or its withdrawal is refused, None if it is taken: :func:`vote_refused`'s
    reason, with what its template shows."""
    reason = vote_refused(state, actor, command, channel)
    if reason is None:
        return None
    if reason in ("voting_not_open", "round2_not_open"):  # LUP-D19: when the ballot opens
        return IllegalNow(reason, opens=iso(state.deadlines[state.phase]))
    if reason == "target_not_living":
        return IllegalNow(reason, name=command.targets[0])
    if reason == "not_a_nominee":
        return IllegalNow(reason, name=command.targets[0], nominees=list(state.nominees))
    return IllegalNow(reason)


def vote_refused(state: LupusState, actor: PlayerId, command: Command, channel: str) -> str | None:
    """The reason a vote or its withdrawal is refused (LUP-607, LUP-617..LUP-620, LUP-408,
    LUP-D18, LUP-D19, LUP-D22), None if it is taken: the checks of :func:`decide_vote`, in
    order, without the tally. A reason only: the quick actions and the bots ask it of every
    choice, and most refusals are never shown (issue 23)."""
    o = state.options
    seat = state.seats[actor]
    phase = state.phase
    if seat.alive and channel == "list" and (phase == "round1" or phase == "round2"):
        # most calls (a living voter on the list, in a ballot): the checks below that can
        # refuse him, in their order
        round2 = phase == "round2"
        if round2 and actor in state.nominees:
            return "nominee_no_vote"  # LUP-408
        previous = state.votes.get(actor)
        if previous is not None and not o.vote_changes_allowed:
            return "vote_final"  # LUP-D18
        if command.verb == "unvote":
            return "no_vote_to_withdraw" if previous is None else None
        target = command.targets[0]
        if not state.seats[target].alive:
            return "target_not_living"
        if round2 and target not in state.nominees:
            return "not_a_nominee"
        if target == actor and not o.self_vote_allowed:
            return "not_yourself"
        return None
    return refused_in_order(state, actor, command, channel)


def refused_in_order(
    state: LupusState, actor: PlayerId, command: Command, channel: str
) -> str | None:
    """:func:`vote_refused`, every check made in its order (any voter, any phase)."""
    o = state.options
    seat = state.seats[actor]
    phase = state.phase
    if not seat.alive and actor not in state.ghosts():
        return "dead"  # LUP-607: said first, whatever the phase
    if phase == "debate":
        return "voting_not_open"  # LUP-D19
    if phase == "defence":
        return "round2_not_open"
    if phase not in ("round1", "round2"):
        return "no_vote_now"
    if not seat.alive:  # a ghost
        if phase == "round2":
            return "ghost_round2"  # LUP-408
        if channel == "list":
            return "ghost_vote_private"  # LUP-D22
    elif channel != "list":
        return "vote_on_list"  # LUP-617: votes are public
    if phase == "round2" and actor in state.nominees:
        return "nominee_no_vote"  # LUP-408
    previous = state.votes.get(actor)
    if previous is not None and not o.vote_changes_allowed:
        return "vote_final"  # LUP-D18
    if command.verb == "unvote":
        if previous is None:
            return "no_vote_to_withdraw"
    else:
        target = command.targets[0]
        if not state.seats[target].alive:
            return "target_not_living"
        if phase == "round2" and target not in state.nominees:
            return "not_a_nominee"
        if target == actor and not o.self_vote_allowed:
            return "not_yourself"
    return None
