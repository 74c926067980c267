"""The games pbem runs, as an explicit registry (no decorators, no package scan)."""

from __future__ import annotations

from typing import Any

from pbem.core.errors import SetupError
from pbem.core.game import Rules
from pbem.games.chasse import ChasseAuxSorcieres
from pbem.games.dracula import Dracula
from pbem.games.loupgarou import LoupGarou
from pbem.games.lupus import LupusInTabula

GAMES: tuple[type[Rules[Any]], ...] = (LupusInTabula, LoupGarou, Dracula, ChasseAuxSorcieres)


def rules_for(game_id: str) -> Rules[Any]:
    """The rules of the game called ``game_id``; SetupError names the known ones."""
    for game in GAMES:
        if game.id == game_id:
            return game()
    known = ", ".join(g.id for g in GAMES)
    raise SetupError(f"unknown game {game_id!r} (known: {known})")
