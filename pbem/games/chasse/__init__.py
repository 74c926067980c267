"""Chasse aux sorcières, the Charmed-themed werewolf (14 players, 16 cards):
``docs/rules/chasse-aux-sorcieres.md``."""

from pbem.games.chasse.rules import ChasseAuxSorcieres

__all__ = ["ChasseAuxSorcieres"]
