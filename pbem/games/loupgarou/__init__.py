"""Loup-Garou (the forum variant with the Mayor, the Village idiot and the Joueur de flûte):
``docs/rules/loup-garou.md``."""

from pbem.games.loupgarou.rules import LoupGarou

__all__ = ["LoupGarou"]
