"""The games pbem runs, as an explicit registry (no decorators, no package scan).

:data:`GAME_MODULES` names, per game id, the module and class of its rules; a game's package is
imported the first time its rules are asked for (:func:`game_class`, :func:`rules_for`), so that
a command or a daemon that deals with one game does not pay for building the others' classes
(about 50 ms of start-up each). ``GAMES`` is every game's class, in the registry's order, for
the callers that list them all (``pbem games``, the config check, the help); reading it imports
every game.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pbem.core.errors import SetupError

if TYPE_CHECKING:
    from pbem.core.game import Rules

GAME_MODULES: dict[str, tuple[str, str]] = {
    "lupus-in-tabula": ("pbem.games.lupus", "LupusInTabula"),
    "loup-garou": ("pbem.games.loupgarou", "LoupGarou"),
    "dracula": ("pbem.games.dracula", "Dracula"),
    "chasse-aux-sorcieres": ("pbem.games.chasse", "ChasseAuxSorcieres"),
}
"""Game id → (module, class name) of its :class:`~pbem.core.game.Rules` subclass."""

GAME_IDS: tuple[str, ...] = tuple(GAME_MODULES)
"""The game ids, without importing any game."""

GAMES: tuple[type[Rules[Any]], ...]
"""Every game's rules class, in the registry's order (``__getattr__`` below imports them)."""


def game_class(game_id: str) -> type[Rules[Any]]:
    """The rules class of the game called ``game_id`` (its package imported on first use);
    SetupError names the known ones."""
    entry = GAME_MODULES.get(game_id)
    if entry is None:
        raise SetupError(f"unknown game {game_id!r} (known: {', '.join(GAME_IDS)})")
    module, name = entry
    cls: type[Rules[Any]] = getattr(importlib.import_module(module), name)
    return cls


def rules_for(game_id: str) -> Rules[Any]:
    """The rules of the game called ``game_id``; SetupError names the known ones.

    One instance per game for the whole process: a game's rules hold no game's state, only
    what they work out of their class (their codec, their commands, the empty state) and
    readings kept for every game alike. Every game created or loaded asks (1,000 created, 10,000
    loaded at start-up: issue 23); the registry bounds them to one per game."""
    rules = _SHARED.get(game_id)
    if rules is None:
        rules = _SHARED[game_id] = game_class(game_id)()
    return rules


_SHARED: dict[str, Rules[Any]] = {}
"""Game id -> its rules (:func:`rules_for`): at most one per entry of :data:`GAME_MODULES`."""


def __getattr__(name: str) -> Any:
    """``GAMES``, built when first read (PEP 562): importing the package imports no game."""
    if name == "GAMES":  # built on each read (no module state): after the first, dict look-ups
        return tuple(game_class(game_id) for game_id in GAME_IDS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
