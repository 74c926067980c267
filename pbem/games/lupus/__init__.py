"""Lupus in Tabula (8 to 24 players): ``docs/rules/lupus-in-tabula.md``."""

from pbem.games.lupus.rules import LupusInTabula

__all__ = ["LupusInTabula"]
