"""Informed bots (docs/balance.md, "The bots"): each uses what its role knows."""

from __future__ import annotations

import random
from typing import Any

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.balance.informed import InformedBots
from pbem.tools.bots import BotMove
from pbem.tools.demo import demo_setup


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
