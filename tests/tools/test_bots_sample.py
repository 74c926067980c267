"""The bots' own sample draws what ``random.Random.sample`` draws (issue 23): a different
draw would change every simulated game and the odds tables built from them."""

from __future__ import annotations

import random

from pbem.balance.fastgame import RulesGame, moves_of
from pbem.core import commands
from pbem.core.commands import PASS, Command, CommandSpec, Player, Word, naming, parse_line
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.tools import bots
from pbem.tools.bots import BotMove, sample
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
    for n in range(commands._NAMING_MOST + 10):
        name = PlayerId(f"p{n % 40}")
        verb = ("vote", "kill")[n % 2] if n < 80 else f"verb{n}"
        assert naming(verb, name) == Command(verb, (name,))
        assert len(commands._NAMING) <= commands._NAMING_MOST
    assert naming("vote", PlayerId("p1")) is naming("vote", PlayerId("p1"))


def test_a_kept_word_list_is_the_words_choices() -> None:
    """A Dracula room order draws among its word's choices kept per argument (bounded): the
    same pairs, in the same order, as the word's own mapping gives them."""
    rooms = Word({"bal": ("SALLE DE BAL",), "cave": ("CAVE",), "tour": ("TOUR",)})
    assert bots._choices(rooms) == tuple(rooms.choices.items())
    assert bots._choices(rooms) is bots._choices(rooms)
    for n in range(300):
        other = Word({f"w{n}": (f"W{n}",)})
        assert bots._choices(other) == ((f"w{n}", (f"W{n}",)),)
        assert len(bots._CHOICES) <= 256
    assert bots._choices(rooms) == tuple(rooms.choices.items())


def test_a_kept_bare_move_is_the_move_made_fresh() -> None:
    """A player's move of a command with no argument (a pass) is kept per player and
    command (bounded, both held): it is the move made fresh, in his language, and another
    table's player of the same name gets his own (his address)."""
    bare = (PASS, CommandSpec("fight", ("COMBATTRE",), ("FIGHT",), public=True))
    made = 0
    for n in range(bots._KEPT_MOST + 50):
        spec = PlayerSpec(PlayerId(f"p{n % 30}"), f"p{n}@example.org", ("fr", "en")[n % 2])
        for command in bare:
            move = bots._bare(spec, command)
            fresh = BotMove(spec, Command(command.verb), command.keyword(spec.lang), command.public)
            assert move == fresh and move.player is spec
            assert bots._bare(spec, command) is move
            assert len(bots._BARE) <= bots._KEPT_MOST
            made += 1
    assert made > bots._KEPT_MOST


def test_a_named_or_worded_move_is_the_general_paths_move() -> None:
    """A player's move naming a player, or giving a word (a Dracula room), written by the
    one-argument shortcuts: the line and command the general path writes, in his
    language, the forum's bold vote included (LUP-617, AMB-081)."""
    vote = CommandSpec("vote", ("VOTE",), ("VOTE",), (Player(),), public=True)
    bite = CommandSpec("bite", ("MORDRE",), ("BITE",), (Player(),))
    rooms = Word({"bal": ("SALLE DE BAL",), "cave": ("CAVE",)})
    room = CommandSpec("room", ("PIECE",), ("ROOM",), (rooms,))
    declare = CommandSpec("declare", ("PIECE",), ("ROOM",), (rooms,), public=True)
    for lang in ("fr", "en"):
        spec = PlayerSpec(PlayerId("p1"), "p1@example.org", lang)
        name = PlayerId("p2")
        for command, bold in ((vote, True), (vote, False), (bite, False)):
            move = bots._named(spec, command, name, bold)
            if bold:
                fresh = BotMove(
                    spec, Command("vote", (name,)), f"Mon vote : **{name}**", True, True
                )
            else:
                line = f"{command.keyword(spec.lang)} {name}"
                fresh = BotMove(spec, Command(command.verb, (name,)), line, command.public)
            assert move == fresh and move.player is spec
        for command in (room, declare):
            for j, (word, spellings) in enumerate(rooms.choices.items()):
                move = bots._worded(spec, command, rooms, j, False)
                line = f"{command.keyword(spec.lang)} {spellings[0]}"
                assert move == BotMove(spec, Command(command.verb, (), word), line, command.public)


def test_the_later_names_of_a_trial_are_the_samples_after_its_first() -> None:
    """A refused first name: the trial's later names, worked out one at a time, are the
    full sample's after its first, in order."""
    for n in (1, 2, 6, 13, 21):
        names = [PlayerId(f"p{i}") for i in range(n)]
        for seed in range(20):
            drawn = bots._draws(random.Random(seed), n, min(6, n), None)
            assert list(bots._later(names, drawn)) == bots._picked(names, drawn)[1:]
            assert bots._picked(names, drawn) == random.Random(seed).sample(names, min(6, n))


class _Accepting:
    """Rules that accept exactly the names in ``accepted`` (only ``allows`` is asked)."""

    all_commands = (CommandSpec("vote", ("VOTE",), ("VOTE",), (Player(),), public=True),)

    def __init__(self, accepted: set[PlayerId]) -> None:
        self.accepted = accepted

    def allows(self, state: object, actor: PlayerId, command: Command, *_: object) -> bool:
        return command.targets[0] in self.accepted


def _legal_name_as_sampled(
    rules: _Accepting, names: list[PlayerId], favourite: dict[str, PlayerId], rng: random.Random
) -> PlayerId:
    """The bots' name trial written plainly: six names sampled, the favourite first."""
    candidates = rng.sample(names, min(6, len(names)))
    if "vote" in favourite and rng.random() < 0.7:
        candidates.insert(0, favourite["vote"])
    for name in candidates:
        if rules.allows(None, PlayerId("a"), Command("vote", (name,))):
            favourite.setdefault("vote", name)
            return name
    return candidates[0]


def test_a_name_trial_draws_and_picks_as_a_full_sample() -> None:
    """The name trial works out the later candidates only when the first is refused (issue
    23); it draws what the full sample draws and picks the name it would pick."""
    for n in (1, 3, 6, 13, 21, 25):
        names = [PlayerId(f"p{i}") for i in range(n)]
        for seed in range(40):
            accepted = set(random.Random(-seed).sample(names, seed % (n + 1)))
            rules = _Accepting(accepted)
            mine, theirs = random.Random(seed), random.Random(seed)
            kept: dict[str, PlayerId] = {}
            plain: dict[str, PlayerId] = {}
            if seed % 3:
                kept["vote"] = plain["vote"] = names[seed % n]
            for _ in range(4):
                got = bots._legal_name(
                    rules,  # type: ignore[arg-type]
                    None,
                    PlayerId("a"),
                    "vote",
                    "list",
                    names,
                    kept,
                    mine,
                    mine.getrandbits if seed % 2 else None,  # drawn as randbelow draws
                )
                assert got == _legal_name_as_sampled(rules, names, plain, theirs), (n, seed)
                assert kept == plain
                assert mine.getstate() == theirs.getstate()
