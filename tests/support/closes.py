"""Walk a fast-path game close by close, for the tests of what a close folds (issue 23)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from pbem.balance.fastgame import RulesGame, moves_of
from pbem.core.events import Event
from pbem.tools.simulate import EPOCH


def each_close(game: RulesGame, seed: int) -> Iterator[tuple[str, Any, list[Event]]]:
    """Play ``game`` with the random bots seeded by ``seed``; before each deadline passes,
    yield its key, the state it closes and the events the rules make for it (the close then
    runs as the fast path runs it)."""
    rules, rng, now = game.rules, random.Random(seed), EPOCH
    while not game.finished and game.deadlines():
        for move in list(moves_of(game, rng)):
            game.move(move, now)
        key, now = min(game.deadlines().items(), key=lambda kv: kv[1])
        before = game.state
        yield key, before, rules.on_deadline(before, key, now, game.rng())
        game.close(key, now)
