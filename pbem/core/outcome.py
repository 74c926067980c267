"""How a game ends (after python-chess' ``Outcome`` and ``Termination``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from pbem.core.ids import PlayerId


class Termination(enum.Enum):
    """Why a game ended."""

    VICTORY = "victory"
    """One side met its win condition."""
    NO_WINNER = "no_winner"
    """Nobody is left to win (or the rules declare a draw)."""
    MATCH_END = "match_end"
    """A game of several rounds reached its last round (Dracula): the best score wins."""
    ADMIN = "admin"
    """The game master ended the game (``FIN``/``END``), with a side or none."""


@dataclass(frozen=True)
class Outcome:
    """The end of a game: why, which side, and exactly which players share the win."""

    termination: Termination
    side: str | None
    winners: tuple[PlayerId, ...]

    def to_json(self) -> dict[str, object]:
        """The outcome as JSON-ready data."""
        return {
            "termination": self.termination.value,
            "side": self.side,
            "winners": list(self.winners),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Outcome:
        """The outcome stored by :meth:`to_json`."""
        winners = data.get("winners") or []
        assert isinstance(winners, list)
        side = data.get("side")
        return cls(
            Termination(str(data["termination"])),
            str(side) if side is not None else None,
            tuple(PlayerId(str(w)) for w in winners),
        )
