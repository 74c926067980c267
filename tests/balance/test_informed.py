"""Informed bots (docs/balance.md, "The bots"): each uses what its role knows."""

from __future__ import annotations

import random
from typing import Any

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.balance.informed import InformedBots
from pbem.tools.bots import BotMove, bot_moves
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH


class Recording(InformedBots):
    """Informed bots that note every move with its actor's card and the state it was made in."""

    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.moves: list[tuple[BotMove, dict[str, str], dict[str, str]]] = []

    def __call__(self, rules: Any, state: Any, players: Any, rng: random.Random) -> Any:
        summary = rules.summary(state)["players"]
        roles = {p["name"]: p["role"] for p in summary}
        teams = {p["name"]: p["team"] for p in summary}
        for move in super().__call__(rules, state, players, rng):
            self.moves.append((move, roles, teams))
            yield move


def test_wolves_never_aim_at_a_partner_and_the_seer_accuses_what_she_found() -> None:
    """LUP-016 and the wolves' shared night: partners know each other; a seer's found wolf."""
    aimed = []
    accused_found = 0
    for seed in range(6):
        bots = Recording("lupus-in-tabula")
        play_rules(
            RulesGame.new(demo_setup("lupus-in-tabula", 16, seed, "fr")),
            random.Random(seed),
            bots=bots,
        )
        for move, roles, teams in bots.moves:
            command = move.command
            if command is None or len(command.targets) != 1:
                continue
            actor, target = move.player.name, command.targets[0]
            if roles[actor] == "werewolf" and command.verb in ("kill", "vote", "nominate"):
                aimed.append(roles[target])
            if roles[actor] == "seer" and command.verb in ("vote", "nominate"):
                accused_found += (
                    target in bots.probed.get(actor, ()) and teams[target] == "werewolves"
                )
    assert aimed and "werewolf" not in aimed
    assert accused_found > 0


def test_the_witch_saves_the_first_victim() -> None:
    """LG-615: the informed witch uses her save potion on the first victim she is shown."""
    saves = 0
    for seed in range(4):
        bots = Recording("loup-garou")
        play_rules(
            RulesGame.new(demo_setup("loup-garou", 16, seed, "fr")), random.Random(seed), bots=bots
        )
        saves += sum(
            1 for move, _r, _t in bots.moves if move.command and move.command.verb == "save"
        )
        assert len(bots.saved) <= 1
    assert saves > 0


def test_the_players_are_read_only_for_a_move_the_knowledge_bears_on() -> None:
    """DRA-003: a Dracula bot knows nobody's card, so its informed bots play the random legal
    bots' moves and never read the summary (issue 23: it was read at every round); a Lupus
    round reads it once at most, however many wolves and seers move."""
    assert _most_reads_a_round("dracula", 13, same_as_random=True) == 0
    assert _most_reads_a_round("lupus-in-tabula", 16, same_as_random=False) == 1


def _most_reads_a_round(game: str, players: int, *, same_as_random: bool) -> int:
    played = RulesGame.new(demo_setup(game, players, 3, "fr"))
    rules = played.rules
    reads: list[int] = []

    class Counting(type(rules)):  # type: ignore[misc]
        def summary(self, state: Any) -> dict[str, Any]:
            reads[-1] += 1
            return super().summary(state)  # type: ignore[no-any-return]

    played.rules = Counting()
    bots, rng, plain_rng = InformedBots(game), random.Random(3), random.Random(3)
    while not played.finished and played.deadlines():
        reads.append(0)
        state = played.state
        moves = list(bots(played.rules, state, played.setup.players, rng))
        if same_as_random:
            assert moves == list(bot_moves(rules, state, played.setup.players, plain_rng))
        for move in moves:
            played.move(move, EPOCH)
        key, when = min(played.deadlines().items(), key=lambda kv: kv[1])
        played.close(key, when)
    assert len(reads) > 5
    return max(reads)
