"""Informed bots: each bot uses what its role knows (docs/balance.md, "The bots").

They start from the random legal bots' round (:func:`pbem.tools.bots.bot_moves`, so they
choose what to do the same way) and change the target, or the command, where the role's
knowledge says better: partners who know each other never aim at one another, a seer votes
a hostile player he found and probes someone he has not, a witch saves the first victim she
is shown. Every changed move is checked with ``Rules.decide`` first (the bots stay legal).
What a role knows is read from the state as the rules' private mail told it: a seer's result
is the probed player's camp (the rules' answer, assumed truthful), the pack's members are
the cards that wake together.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.core.commands import Command
from pbem.core.errors import CommandError
from pbem.core.frozen import replace
from pbem.core.game import PlayerSpec, Rules
from pbem.core.ids import PlayerId
from pbem.tools.bots import BotMove, bot_moves
from pbem.tools.simulate import EPOCH


@dataclass(frozen=True)
class Knowledge:
    """What a game's roles know, for its informed bots."""

    circles: tuple[frozenset[str], ...]
    """Cards whose holders know each other (a pack, the Masons)."""
    hostile: str
    """The camp the village hunts (the seer's answer that matters)."""
    aimed: frozenset[str]
    """Verbs aimed at a victim or a suspect: never at one's own circle."""
    accuse: frozenset[str]
    """Verbs aimed at a suspect: a seer aims them at a hostile player he found."""
    scan: str | None = None
    save: str | None = None
    """A healer's verb, used on the first victim she is shown (LG-615, CAS-618)."""


KNOWLEDGE: Mapping[str, Knowledge] = {
    "lupus-in-tabula": Knowledge(
        circles=(frozenset({"werewolf"}), frozenset({"mason"})),  # LUP-016, wolves' night
        hostile="werewolves",
        aimed=frozenset({"kill", "vote", "nominate"}),
        accuse=frozenset({"vote", "nominate"}),
        scan="scan",
    ),
    "loup-garou": Knowledge(
        circles=(frozenset({"werewolf", "master_wolf"}),),
        hostile="wolves",
        aimed=frozenset({"bite", "kill", "vote", "decide", "poison"}),
        accuse=frozenset({"vote", "decide"}),
        scan="scan",
        save="save",
    ),
    "chasse-aux-sorcieres": Knowledge(
        circles=(frozenset({"demon"}),),
        hostile="demons",
        aimed=frozenset({"kill", "vote", "choose", "burn"}),
        accuse=frozenset({"vote", "choose", "burn"}),
        scan="scan",
        save="heal",
    ),
    "dracula": Knowledge(  # DRA-003: vampires do not know each other
        circles=(),
        hostile="vampires",
        aimed=frozenset(),
        accuse=frozenset(),
    ),
}


class _Seen:
    """The players as one round's state shows them (``Rules.summary``): each one's card and
    camp, and who is alive."""

    __slots__ = ("alive", "role", "team")

    def __init__(self, players: Sequence[Mapping[str, Any]]) -> None:
        self.role: dict[PlayerId, str] = {}
        self.team: dict[PlayerId, str] = {}
        self.alive: list[PlayerId] = []
        for player in players:
            name = PlayerId(player["name"])
            self.role[name] = str(player["role"])
            self.team[name] = str(player["team"])
            if player["alive"]:
                self.alive.append(name)


class InformedBots:
    """The informed bots of one game (one instance a game: it remembers what was probed)."""

    def __init__(self, game: str) -> None:
        self.knowledge = KNOWLEDGE[game]
        self.probed: dict[PlayerId, list[PlayerId]] = {}
        self.saved: set[PlayerId] = set()
        scan = {self.knowledge.scan} if self.knowledge.scan else set()
        self.informed = self.knowledge.aimed | self.knowledge.accuse | scan
        """The verbs whose target a role's knowledge may change."""

    def __call__(
        self, rules: Rules[Any], state: Any, players: Sequence[PlayerSpec], rng: random.Random
    ) -> Iterator[BotMove]:
        know = self.knowledge
        seen: _Seen | None = None  # read at the round's first move that needs it
        for move in bot_moves(rules, state, players, rng):
            actor = move.player.name
            if know.save and actor not in self.saved:
                saved = self._save(rules, state, move)
                if saved is not None:
                    self.saved.add(actor)
                    yield saved
                    continue
            command = move.command
            if command is None or len(command.targets) != 1:
                yield move
                continue
            if command.verb not in self.informed:
                yield move  # nothing the role knows bears on it (none of Dracula's verbs)
                continue
            if seen is None:
                seen = _Seen(rules.summary(state)["players"])
            role, team, alive = seen.role, seen.team, seen.alive
            circle = next((c for c in know.circles if role.get(actor) in c), frozenset())
            partners = {p for p in alive if role.get(p) in circle} if circle else set()
            found = [t for t in self.probed.get(actor, ()) if team.get(t) == know.hostile]
            wanted: list[PlayerId] = []
            if command.verb == know.scan:
                done = set(self.probed.get(actor, ()))
                wanted = [p for p in alive if p != actor and p not in done]
                rng.shuffle(wanted)
            elif command.verb in know.accuse and any(p in alive for p in found):
                wanted = [p for p in found if p in alive]
            elif command.verb in know.aimed and command.targets[0] in partners:
                wanted = [p for p in alive if p not in partners]
                rng.shuffle(wanted)
            chosen = self._legal(rules, state, move, wanted)
            if chosen is not None:
                move = chosen
            elif command.targets[0] in partners and command.verb in know.aimed:
                continue  # nobody else to aim at: a partner is spared, the bot abstains
            if move.command is not None and move.command.verb == know.scan:
                self.probed.setdefault(actor, []).append(move.command.targets[0])
            yield move

    def _legal(
        self, rules: Rules[Any], state: Any, move: BotMove, wanted: Sequence[PlayerId]
    ) -> BotMove | None:
        """The move aimed at the first of ``wanted`` the rules accept, if any."""
        assert move.command is not None
        channel = "list" if move.public else "private"
        for target in wanted:
            command = replace(move.command, targets=(target,))
            if not rules.allows(state, move.player.name, command, EPOCH, channel):
                continue
            return replace(move, command=command, line=f"{move.command.verb} {target}", bold=False)
        return None

    def _save(self, rules: Rules[Any], state: Any, move: BotMove) -> BotMove | None:
        """The healer's save, on the victim the rules show her, when they let her save."""
        verb = self.knowledge.save
        if not any(c.verb == verb for c in rules.available(state, move.player.name)):
            return None
        command = Command(str(verb))
        try:
            rules.decide(state, move.player.name, command, EPOCH, "private")
        except CommandError:
            return None
        return BotMove(move.player, command, str(verb), False)
