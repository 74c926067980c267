"""Many whole games through the rules only (:mod:`pbem.balance.fastgame`), spread over worker
processes, each reduced to a small :class:`GameResult` as it ends."""

from __future__ import annotations

import contextlib
import gc
import os
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, Literal

from pbem.balance.fastgame import Bots, RulesGame, play_rules
from pbem.core.errors import SetupError
from pbem.core.events import PhaseStarted, PlayerDied
from pbem.core.frozen import quick_replace
from pbem.table.setup import TableSetup
from pbem.tools.bots import bot_moves
from pbem.tools.demo import USUAL_PLAYERS, demo_setup

BotLevel = Literal["random", "informed"]

DECK_OPTIONS: Mapping[str, Callable[[Sequence[str]], dict[str, Any]]] = {
    "lupus-in-tabula": lambda cards: {"deck_mode": "custom", "specials": list(cards)},
    "loup-garou": lambda cards: {"custom_deck": list(cards)},
    "chasse-aux-sorcieres": lambda cards: {"custom_deck": list(cards)},
}
"""``--deck``: the options each game reads a custom deck from (Lupus names its special
characters, LUP-D01; Loup-Garou and Chasse their whole deck); Dracula deals no deck."""

ROUND_SIDES = {"burned": "humans", "survives": "vampires", "all_bitten": "vampires"}
"""Dracula's round endings (DRA-470 … DRA-475): the camp each one is a win for."""


@dataclass(frozen=True)
class Setup:
    """What is simulated: a game, its table and options, and the bots' level."""

    game: str
    players: int = 0
    """0: the game's usual table (:data:`pbem.tools.demo.USUAL_PLAYERS`)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    bots: BotLevel = "random"

    @property
    def count(self) -> int:
        """The number of players: ``players``, or the game's usual table."""
        return self.players or USUAL_PLAYERS.get(self.game, 12)

    def setup_data(self, seed: int) -> dict[str, Any]:
        """The setup of the game of ``seed``, as ``pbem demo --offline --seed`` makes it,
        with this simulation's options."""
        data = demo_setup(self.game, self.count, seed, "fr")
        data["options"] = dict(self.options)
        return data


@dataclass(frozen=True)
class Seat:
    """One player's game: the card dealt, whether his side won, and the day he died."""

    role: str
    won: bool
    died: int | None
    """The day (the rules' phase number) he died on; None: alive at the end."""


@dataclass(frozen=True)
class GameResult:
    """What one game says about balance."""

    sides: tuple[str, ...]
    """The winning camp: one per game, or per round (Dracula); ``none`` for no winner."""
    days: int
    seats: tuple[Seat, ...]
    first_death: str | None
    """The card of the first player to die (None: nobody died)."""


def bots_for(level: BotLevel, game: str) -> Bots:
    """Who plays at ``level``: the random legal bots, or the informed ones
    (docs/balance.md, The bots)."""
    if level == "informed":
        from pbem.balance.informed import InformedBots

        return InformedBots(game)
    return bot_moves


def play_one(setup: Setup, seed: int) -> GameResult:
    """One whole game, seeded like ``pbem demo --offline --seed``."""
    game = RulesGame.of(table_setup(setup, seed))
    dealt = {p["name"]: str(p["role"]) for p in game.rules.summary(game.state)["players"]}
    play_rules(game, random.Random(seed), bots=bots_for(setup.bots, setup.game))
    return result_of(game, dealt)


_CHECKED: list[tuple[Setup, TableSetup]] = []
"""The last setup played and its table, checked once (a game's setup differs from the
next one's only by its seed)."""


def table_setup(setup: Setup, seed: int) -> TableSetup:
    """``TableSetup.from_mapping(setup.setup_data(seed))``, checked once per ``setup``."""
    if not _CHECKED or _CHECKED[0][0] is not setup:
        _CHECKED[:] = [(setup, TableSetup.from_mapping(setup.setup_data(seed)))]
    table = _CHECKED[0][1]
    return table if table.seed == seed else quick_replace(table, seed=seed)


def result_of(game: RulesGame, dealt: Mapping[str, str]) -> GameResult:
    """The :class:`GameResult` of a finished (or abandoned) game."""
    summary = game.rules.summary(game.state)
    winners = set(summary.get("winners") or ())
    day = 0
    died: dict[str, int] = {}
    first: str | None = None
    rounds: list[str] = []
    ruled = game.ruled
    for new in set(map(type, ruled)).difference(_READ):
        _READ[new] = _read(new)
    # most of the log (notices, actions, votes) is none of this: passed over without a step
    # of Python per event (issue 23)
    for event in compress(ruled, map(_READ.__getitem__, map(type, ruled))):
        kind = _READ[type(event)]
        if kind == _STARTED:
            day = max(day, event.number)  # type: ignore[attr-defined]
        elif kind == _DIED:
            player = event.player  # type: ignore[attr-defined]
            if player not in died:
                died[player] = day
                first = first or dealt.get(player)
        else:
            ending = getattr(event, "ending", None)
            if isinstance(ending, str):
                rounds.append(ROUND_SIDES.get(ending, ending))
    side = str(summary.get("side") or "none")
    seats = tuple(
        Seat(role, name in winners, None if p["alive"] else died.get(name, day))
        for p in summary["players"]
        for name, role in [(p["name"], dealt.get(p["name"], str(p["role"])))]
    )
    return GameResult(tuple(rounds) or (side,), int(summary.get("day") or day), seats, first)


_STARTED, _DIED, _SCORED = 1, 2, 3
_READ: dict[type, int] = {}
"""Event type -> what :func:`result_of` reads in it: 0 nothing, or a phase's start, a death,
a Dracula round's score."""


def _read(kind: type) -> int:
    if issubclass(kind, PhaseStarted):
        return _STARTED
    if issubclass(kind, PlayerDied):
        return _DIED
    return _SCORED if kind.__name__ == "RoundScored" else 0


def check(setup: Setup) -> None:
    """SetupError if the rules refuse this setup (a count, an option, a deck)."""
    RulesGame.new(setup.setup_data(0))


def _chunk(setup: Setup, seeds: range) -> list[GameResult]:
    return [play_one(setup, seed) for seed in seeds]


GC_THRESHOLD = (50_000, 20, 100)
"""The collector's thresholds while games are played: a game allocates many small objects
(events, states, commands) that die with it and hold no cycles, so the default threshold (a
young collection every 700 allocations) spends 5 to 8 % of a game's CPU finding nothing."""


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Play with :data:`GC_THRESHOLD`, then restore the collector as it was."""
    old = gc.get_threshold()
    gc.freeze()  # what is alive before the games (modules, rules) is never scanned again
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


def _worker_start() -> None:
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def play_many(
    setup: Setup,
    games: int,
    *,
    jobs: int = 0,
    first_seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> list[GameResult]:
    """``games`` games (seeds ``first_seed`` on), over ``jobs`` worker processes (0: one per
    core; 1: in this process). ``progress`` is told how many games each batch finished."""
    check(setup)
    jobs = jobs or os.cpu_count() or 1
    chunks = list(_chunks(first_seed, games, jobs))
    if jobs == 1 or games < 2:
        out: list[GameResult] = []
        with fewer_collections():
            for seeds in chunks:
                out += _chunk(setup, seeds)
                if progress:
                    progress(len(seeds))
        return out
    done: dict[int, list[GameResult]] = {}
    with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_start) as pool:
        pending: dict[Future[list[GameResult]], int] = {
            pool.submit(_chunk, setup, seeds): i for i, seeds in enumerate(chunks)
        }
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                index = pending.pop(future)
                done[index] = future.result()
                if progress:
                    progress(len(done[index]))
    return [r for i in range(len(chunks)) for r in done[i]]


def _chunks(first: int, games: int, jobs: int) -> Iterator[range]:
    """Seed ranges small enough for a lively progress bar, large enough to pay the pickling."""
    size = max(1, min(200, games // (jobs * 8) or 1))
    for start in range(first, first + games, size):
        yield range(start, min(start + size, first + games))


def deck_options(game: str, cards: Sequence[str]) -> dict[str, Any]:
    """The options a ``--deck`` stands for in ``game``; SetupError where no deck is dealt."""
    if game not in DECK_OPTIONS:
        raise SetupError(f"{game} deals no deck of its own: --deck does not apply")
    return DECK_OPTIONS[game](cards)
