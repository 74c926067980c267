"""Dracula: the manor, its rooms and objects, rounds and scoring."""

from pbem.games.dracula.rules import Dracula

__all__ = ["Dracula"]
