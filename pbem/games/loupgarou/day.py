"""Loup-Garou's days: the vote, the Mayor's tie-break and the lynch (LG-240..LG-256,
LG-520..LG-527)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from pbem.core.commands import Command
from pbem.core.errors import IllegalNow
from pbem.core.events import Event, Notice, PhaseStarted, PlayerDied, VoteSet, private, public
from pbem.core.folded import Batch
from pbem.core.ids import PlayerId
from pbem.games.loupgarou import deaths, election, nightfall, orders, victory
from pbem.games.loupgarou.roles import ELDER, POWERED, VILLAGERS
from pbem.games.loupgarou.state import (
    IdiotRevealed,
    LoupGarouState,
    LynchDecided,
    LynchTied,
    PowersLost,
    SashOpened,
    evolve,
    iso,
)
from pbem.games.village.voting import plurality, tally_params, vote_and_tally


def close_day(state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
    """LG-250, LG-251, LG-742: the final tally, then the tie-break or the lynch."""
    o = state.options
    thread = f"day-{state.number}"
    batch = Batch(state, evolve)
    if state.sash_holder is not None:  # LG-D31: never a tie-break without a Mayor
        batch.add(*election.draw_successor(state, rng))
    s = batch.state
    votes = {v: t for v, t in s.votes.items() if s.seat(v).alive and s.seat(t).alive}
    top = plurality(votes)
    mayor = s.mayor if s.mayor is not None and s.seat(s.mayor).alive else None
    tie = len(top) > 1 and mayor is not None
    end = now + o.mayor_tiebreak_window
    batch.add(
        public(
            "loupgarou/final_tally",
            thread,
            day=s.number,
            tied=[p for p in s.order if p in top] if tie else [],
            mayor=mayor,
            deadline=iso(end) if tie else None,
            **tally_params(votes),
        )
    )
    if tie and mayor is not None:  # LG-527, LG-D32
        tied = tuple(p for p in s.order if p in top)
        batch.add(
            LynchTied(tied),
            PhaseStarted("tiebreak", s.number, {"tiebreak": end}),
            private(
                "loupgarou/tiebreak_prompt",
                [mayor],
                thread,
                tied=list(tied),
                deadline=iso(end),
            ),
        )
    elif len(top) > 1:  # no living Mayor at all (cannot happen with a living player)
        lynch(batch, rng.choice(top), "draw", now)
    else:
        lynch(batch, top[0] if top else None, "majority" if top else "none", now)
    return batch.events


def close_tiebreak(state: LoupGarouState, now: datetime, rng: random.Random) -> list[Event]:
    """LG-D32: no answer -> the tied player the Mayor voted for, else a draw."""
    own = state.votes.get(state.mayor) if state.mayor else None
    living = [p for p in state.tied if state.seat(p).alive]  # one may have been removed
    batch = Batch(state, evolve)
    if own in living:
        lynch(batch, own, "mayor_vote", now)
    elif not living:  # every tied player was removed meanwhile (docs/seats.md)
        lynch(batch, None, "removed", now, tied=state.tied)
    else:
        lynch(batch, rng.choice(living), "draw", now)
    return batch.events


def lynch(
    batch: Batch[LoupGarouState],
    designated: PlayerId | None,
    how: str,
    now: datetime,
    tied: Sequence[PlayerId] = (),
) -> None:
    """LG-252..LG-256: idiot, grief, the Ancien, the announcement, checkpoint (b); added to
    ``batch``, which folds them as they come (the fast path then recalls that fold instead of
    folding them again, issue 23). ``tied``: the tie-break's players when every one of them
    left the game, whom the announcement names (« ont toutes quitté la partie »)."""
    emit = batch.add
    s = batch.state
    o = s.options
    thread = f"day-{s.number}"
    start = len(batch.events)
    s = emit(LynchDecided(s.number, designated, how))
    idiot = False
    if designated is not None:
        mayor = s.mayor if s.mayor is not None and s.seat(s.mayor).alive else None
        if (
            s.idiot == designated
            and not s.idiot_revealed
            and mayor is not None
            and designated != mayor  # LG-448
        ):  # LG-252, LG-445..LG-447
            idiot = True
            s = emit(IdiotRevealed(designated), PlayerDied(mayor, "burned"))
        else:
            s = emit(PlayerDied(designated, "lynch"))
        s = emit(*deaths.grief_deaths(s))  # LG-253
    dead = [e.player for e in batch.events[start:] if isinstance(e, PlayerDied)]
    elder = next((p for p in dead if s.seat(p).role == ELDER), None)
    elder_dead = elder is not None
    # named only when dead (« l'Ancienne n'est plus »): every other notice stays as logged before
    named = {"elder": elder} if elder is not None else {}
    lost: list[PlayerId] = []
    if elder_dead:  # LG-254, LG-386: at once by day
        lost = [p for p in s.team(VILLAGERS) if s.powered(p)]
    mayor_died = s.mayor is not None and s.mayor in dead
    ending = victory.checkpoint_events(s, "lynch")  # LG-256
    emit(
        public(
            "loupgarou/lynch",
            thread,
            day=s.number,
            designated=designated,
            how=how,
            idiot=idiot,
            dead=[deaths.reveal_params(s, p) for p in dead],
            elder_dead=elder_dead,
            mayor_dead=s.mayor if mayor_died else None,
            # only when they are named: every other lynch's notice stays as logged before
            **({"tied": list(tied)} if tied else {}),
            **named,
        )
    )
    if lost:
        s = emit(PowersLost(tuple(lost)))
        affected = [p for p in lost if s.seat(p).role in POWERED]
        if affected:  # LG-727
            emit(private("loupgarou/powers_lost", affected, thread, when="now", **named))
    if ending:
        emit(*ending)
        return
    if mayor_died and s.mayor is not None:  # LG-255, LG-740
        due = now + o.sash_window
        emit(
            SashOpened(s.mayor, due),
            private("loupgarou/sash_prompt", [s.mayor], thread, deadline=iso(due)),
        )
    nightfall.open_night(batch, s.number + 1, now)


def decide_tiebreak(
    state: LoupGarouState, actor: PlayerId, command: Command, now: datetime
) -> list[Event]:
    """LG-624, LG-402, LG-D32: the Mayor's choice is published and the lynch follows."""
    if state.phase != "tiebreak":
        raise IllegalNow("no_tiebreak")
    if state.mayor != actor:
        raise IllegalNow("not_mayor")
    target = command.targets[0]
    if target not in state.tied:
        raise IllegalNow("not_tied", name=target, tied=list(state.tied))
    batch = Batch(state, evolve)
    lynch(batch, target, "mayor", now)
    return batch.events


def decide_vote(
    state: LoupGarouState,
    actor: PlayerId,
    command: Command,
    now: datetime,
    channel: str,
) -> list[Event]:
    """LG-520..LG-526, LG-622, LG-623, LG-D33, LG-D34."""
    target = check_vote(state, actor, command, channel)

    def tally(after: LoupGarouState) -> Notice:  # LG-525, LG-741
        params = tally_params(after.votes)
        return public("loupgarou/tally", f"day-{state.number}", day=state.number, **params)

    vote = VoteSet("lynch", actor, target, state.seq + 1)
    return vote_and_tally(state, vote, now, state.options.tally_min_interval, evolve, tally)


def check_vote(
    state: LoupGarouState, actor: PlayerId, command: Command, channel: str
) -> PlayerId | None:
    """The target of a vote :func:`decide_vote` takes (None: a withdrawal); IllegalNow if
    the rules refuse it (LG-520..LG-526, LG-622, LG-623)."""
    o = state.options
    if state.phase != "day":
        raise IllegalNow("no_vote_now")  # LG-526
    if channel != "list":
        raise IllegalNow("vote_on_list")  # LG-521
    previous = state.votes.get(actor)
    if previous is not None and not o.vote_changes_allowed:
        raise IllegalNow("vote_final")
    if command.verb == "unvote":
        if previous is None:
            raise IllegalNow("no_vote_to_withdraw")
        target: PlayerId | None = None
    else:
        target = command.targets[0]
        orders.living_target(state, target)
        if target == actor and not o.self_vote_allowed:
            raise IllegalNow("not_yourself")
    return target
