"""Whole bot-played games in memory (as tests/test_templates.py's recorded_params plays them)."""

from __future__ import annotations

import functools
import random
from typing import Any

from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.support.once_per_run import once_per_run

GAMES = ("lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula")
SALT = "5eed5a1f00112233445566778899aabb"
WOMEN = frozenset({"Alice", "Chloé", "Élodie", "Gaëlle", "Inès", "Karine", "Manon", "Océane"})
"""The demo's players who say « elle » in a ``gendered`` game; the others say « il »."""
VETO_SEED = {"lupus-in-tabula": 6, "loup-garou": 1, "chasse-aux-sorcieres": 1, "dracula": 0}
"""A seed whose bot game has a night intent some hook stopped (a protection, an elder...)."""


@functools.lru_cache(maxsize=16)
def whole_game(
    game: str,
    lang: str = "en",
    seed: int | None = None,
    salt: str | None = SALT,
    gendered: bool = True,
) -> Table:
    """A finished bot game; its deal committed with ``salt`` (None: not committed);
    ``gendered``: the players said « elle » (:data:`WOMEN`) or « il » (False: nobody said).

    Played once per test run (a dozen files ask for the same games, on every xdist worker),
    then loaded from its log as the daemon loads a game: the same table, event for event."""
    seed = VETO_SEED[game] if seed is None else seed
    setup = bot_setup(game, lang, seed, salt, gendered)

    def log() -> list[dict[str, Any]]:
        table = played(setup, seed)
        return [table.rules.codec.encode(e) for e in table.events]

    table = Table.load(setup, once_per_run(f"bot-game-{game}-{lang}-{seed}-{salt}-{gendered}", log))
    assert table.finished
    return table


def bot_setup(
    game: str, lang: str, seed: int, salt: str | None = SALT, gendered: bool = True
) -> dict[str, Any]:
    """The setup of :func:`whole_game`'s game."""
    setup = demo_setup(game, 0, seed, lang)
    if gendered:
        for player in setup["players"]:
            player["gender"] = "f" if player["name"] in WOMEN else "m"
    setup["admins"] = ["gm@village.example"]
    if salt is not None:
        setup["deal_salt"] = salt
    return setup


def played(setup: dict[str, Any], seed: int) -> Table:
    """The bot game of ``setup``, played to its end."""
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    play(table, random.Random(seed))
    assert table.finished
    return table
