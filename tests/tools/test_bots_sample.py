"""The bots' own sample draws what ``random.Random.sample`` draws (issue 23): a different
draw would change every simulated game and the odds tables built from them."""

from __future__ import annotations

import random

from pbem.balance.fastgame import RulesGame, moves_of
from pbem.core.commands import Command, parse_line
from pbem.core.ids import PlayerId
from pbem.tools import bots
from pbem.tools.bots import sample
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH

NAMES = [f"p{i}" for i in range(25)]


def test_the_bots_sample_is_random_sample() -> None:
    for n in range(25):  # beyond 21 names it hands over to random.Random.sample itself
        for k in range(min(n, 8) + 1):
            for seed in range(5):
                mine, theirs = random.Random(seed), random.Random(seed)
                assert sample(mine, NAMES[:n], k) == theirs.sample(NAMES[:n], k), (n, k, seed)
                assert mine.getstate() == theirs.getstate()


def test_a_bots_text_command_reads_as_a_fresh_parse() -> None:
    """LUP-613: a bot's pack message is read as the grammar reads its line; the reading kept
    for the command's tuple (pbem.tools.bots._ALONE) is what a fresh parse gives."""
    game = RulesGame.new(demo_setup("lupus-in-tabula", 16, 2, "fr"))
    rng, texts = random.Random(2), 0
    while not game.finished and game.deadlines() and texts < 8:
        state, rules = game.state, game.rules
        for move in list(moves_of(game, rng)):
            if move.command is not None and move.command.text:
                spec = next(c for c in rules.all_commands if c.verb == move.command.verb)
                fresh = parse_line(move.line, [spec], rules.names(state), debate=move.public)
                assert move.command == fresh, move.line
                texts += 1
            game.move(move, EPOCH)
        key, when = min(game.deadlines().items(), key=lambda kv: kv[1])
        game.close(key, when)
    assert texts >= 2


def test_a_kept_trial_is_the_command_made_fresh() -> None:
    """The command a bot tries a name with is kept per (verb, name), bounded, and is the
    command made fresh (frozen: one object serves every trial)."""
    for n in range(bots._NAMING_MOST + 10):
        name = PlayerId(f"p{n % 40}")
        verb = ("vote", "kill")[n % 2] if n < 80 else f"verb{n}"
        assert bots._naming(verb, name) == Command(verb, (name,))
        assert len(bots._NAMING) <= bots._NAMING_MOST
    assert bots._naming("vote", PlayerId("p1")) is bots._naming("vote", PlayerId("p1"))
