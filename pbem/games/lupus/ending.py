"""After deaths: the announcement, the victory check (LUP-110..LUP-114) and the end of the game."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.events import Event, GameEnded, public
from pbem.core.folded import Batch
from pbem.core.moments import iso
from pbem.core.outcome import Termination
from pbem.games.lupus import nightfall
from pbem.games.lupus.roles import HAMSTER, HAMSTER_SIDE, VILLAGERS, WEREWOLVES, WOLF, faction
from pbem.games.lupus.state import LupusState, phase_started


def after_deaths(
    batch: Batch[LupusState], now: datetime, template: str, thread: str, **params: Any
) -> None:
    """Announce, then check victory (LUP-114) and either end or move on: added to ``batch``,
    whose state has the deaths folded."""
    state = batch.state
    ended = victory(state)
    if state.phase == "night":
        o = state.options
        t_debate = now + o.debate_duration
        t_r1 = t_debate + o.round1_duration
        t_def = t_r1 + o.defence_duration
        t_r2 = t_def + o.round2_duration
        schedule = {
            "debate": iso(t_debate),
            "round1": iso(t_r1),
            "defence": iso(t_def),
            "round2": iso(t_r2),
        }
        batch.add(
            public(
                template,
                thread,
                day=state.number,
                schedule=None if ended else schedule,
                **params,
            )
        )
        if ended:
            batch.add(*ended)
        else:
            batch.add(phase_started("debate", state.number, t_debate))
        return
    batch.add(public(template, thread, day=state.number, **params))
    if ended:
        batch.add(*ended)
    else:
        nightfall.start_night(batch, state.number + 1, now)


def victory(state: LupusState) -> list[Event]:
    """LUP-110..LUP-113, LUP-D15, LUP-D26: the end of the game, or []."""
    holding = state.living_holders()
    living = sum(map(len, holding.values()))
    wolves = len(holding.get(WOLF, ()))
    hamsters = len(holding.get(HAMSTER, ()))
    # LUP-D15: the Werehamster counts among the others only when the option says so
    others = living - wolves - (0 if state.options.parity_counts_hamster else hamsters)
    hamster_alive = hamsters > 0
    if not living:
        return end_game(state, Termination.NO_WINNER, None)
    if wolves >= 1 and wolves >= others:
        side = WEREWOLVES
    elif wolves == 0:
        side = VILLAGERS
    else:
        return []
    if hamster_alive:
        side = HAMSTER_SIDE  # LUP-112, LUP-374
    return end_game(state, Termination.VICTORY, side)


def end_game(state: LupusState, termination: Termination, side: str | None) -> list[Event]:
    """The end of the game, with every card revealed when the option says so."""
    seats = state.seats
    winners = tuple(p for p in state.order if side is not None and faction(seats[p]) == side)
    reveal = [
        {"name": p, "role": seat.role, "dealt": seat.dealt, "alive": seat.alive}
        for p in state.order
        for seat in (seats[p],)
    ]
    return [
        GameEnded(termination, side, winners),
        public(
            "lupus/victory",
            "end",
            side=side,
            winners=list(winners),
            reveal=reveal if state.options.reveal_all_at_end else [],
        ),
    ]
