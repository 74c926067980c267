"""Chasse aux sorcières' victory (CAS-100..CAS-104) and the end of the game."""

from __future__ import annotations

from pbem.core.events import Event, GameEnded, public
from pbem.core.outcome import Termination
from pbem.games.chasse.roles import DEMON, DEMONS, GOOD, LOVERS, faction
from pbem.games.chasse.state import ChasseState


def lovers_mixed(state: ChasseState) -> bool:
    """CAS-D08 (1): the Lovers are mixed when exactly one holds a Démon card."""
    if len(state.lovers) != 2:
        return False
    return sum(1 for p in state.lovers if state.seat(p).role == DEMON) == 1


def check_victory(state: ChasseState) -> list[Event]:
    """CAS-101..CAS-104, CAS-D08, CAS-D23: the end of the game, or []."""
    living = state.living()
    demons = [p for p in living if state.seat(p).role == DEMON]
    good = [p for p in living if state.seat(p).role != DEMON]
    mixed_alive = lovers_mixed(state) and all(state.alive(p) for p in state.lovers)
    side: str | None
    if not living:  # CAS-D23
        side = GOOD if state.options.everyone_dead == "good" else None
    elif state.options.mixed_lovers_victory == "last_two" and mixed_alive:
        if len(living) != 2:
            return []
        side = LOVERS
    elif not demons:  # CAS-101
        side = GOOD
    elif len(good) <= 1:  # CAS-102
        side = LOVERS if mixed_alive else DEMONS  # CAS-103, CAS-336, CAS-D08 (3)
    else:
        return []
    return end_game(state, side)


def end_game(state: ChasseState, side: str | None) -> list[Event]:
    """CAS-750, CAS-D25, CAS-D26."""
    mixed = set(state.lovers) if lovers_mixed(state) else set()
    if side == LOVERS:
        winners = tuple(p for p in state.order if p in state.lovers)
    elif side is None:
        winners = ()
    else:
        winners = tuple(
            p
            for p in state.order
            if faction(state.seat(p).role) == side and p not in mixed  # CAS-D08 (5)
        )
    termination = Termination.VICTORY if side else Termination.NO_WINNER
    reveal = [
        {
            "name": p,
            "role": state.seat(p).role,
            "dealt": state.seat(p).dealt,
            "alive": state.alive(p),
        }
        for p in state.order
    ]
    full = state.options.reveal_all_at_end
    return [
        GameEnded(termination, side, winners),
        public(
            "chasse/victory",
            "end",
            side=side,
            winners=list(winners),
            reveal=reveal if full else [],
            lovers=list(state.lovers) if full else [],
            penny=state.penny if full else None,
            leftover=list(state.leftover) if full else [],
        ),
    ]
