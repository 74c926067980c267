"""Loup-Garou's victory checkpoints (LG-110..LG-118)."""

from __future__ import annotations

from pbem.core.events import Event, GameEnded, public
from pbem.core.ids import PlayerId
from pbem.core.outcome import Termination
from pbem.games.loupgarou.deaths import reveal_params
from pbem.games.loupgarou.roles import CHECKPOINTS, LOVERS, PIPER, PIPER_SIDE, VILLAGERS, WOLVES
from pbem.games.loupgarou.state import LoupGarouState


def winner_of(s: LoupGarouState, checkpoint: str) -> tuple[str | None, tuple[PlayerId, ...]] | None:
    """The winning side and its winners at ``checkpoint``, or None while the game goes on."""
    living = s.living()
    if not living:
        return None, ()  # LG-D27 (5): everyone dead, no winner
    o = s.options
    for side in CHECKPOINTS[checkpoint]:
        if side == LOVERS:  # LG-113, LG-424
            if len(s.lovers) == 2 and sorted(living) == sorted(s.lovers):
                return LOVERS, tuple(s.lovers)
        elif side == PIPER_SIDE:  # LG-112, LG-393 (checkpoint (a) only, LG-115)
            for piper in s.holders(PIPER):
                if all(p in s.charmed for p in living if p != piper):
                    return PIPER_SIDE, (piper,)  # LG-D28: the Piper alone
        elif side == WOLVES:  # LG-111, LG-D27
            seats = s.seats
            wolves = [p for p in living if seats[p].team == WOLVES]
            counted = [
                p
                for p in living
                if seats[p].team == VILLAGERS
                or (o.parity_counts_piper and seats[p].team == PIPER_SIDE)
            ]
            if wolves and len(wolves) >= len(counted):
                return WOLVES, tuple(s.team(WOLVES, alive=False))
        elif side == VILLAGERS and not any(s.seats[p].team == WOLVES for p in living):
            return VILLAGERS, tuple(s.team(VILLAGERS, alive=False))  # LG-110
    return None


def checkpoint_events(s: LoupGarouState, checkpoint: str) -> list[Event]:
    """LG-114..LG-117, LG-760: the end of the game, or []."""
    won = winner_of(s, checkpoint)
    if won is None:
        return []
    side, winners = won
    termination = Termination.VICTORY if side else Termination.NO_WINNER
    reveal = [{**reveal_params(s, p), "alive": s.seat(p).alive} for p in s.order]  # LG-D29
    return [
        GameEnded(termination, side, winners),
        public(
            "loupgarou/victory",
            "end",
            side=side,
            winners=list(winners),
            reveal=reveal if s.options.reveal_all_at_end else [],
        ),
    ]
