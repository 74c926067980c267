"""What a player is offered against what the rules accept, over whole bot games of any game.

At each step as it opens (every deadline's close, and the opening), for every seat, living
or dead: each command :meth:`Rules.available` offers him (his HELP/AIDE and his mails' quick
actions show it) must be accepted (:meth:`Rules.allows`) with at least one argument on a
channel its spec names (else he is offered a command he can never send); each command of the
rules not offered must be refused with every argument on both channels, but where the game's
test names it moot (the rules take a command that changes nothing, or that another offered
command already does).

HELP, STATUS, REGLES and the judges' services are the table's, never the rules': not
checked. CANCEL is the rules' and withdraws an order he gave: offered only while one stands
that it would withdraw (some ``ANNULER <mot-clé>`` taken, a), refused with every keyword
otherwise (b) (LUP-603, LG-603, CAS-603).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.balance.fastgame import RulesGame, play_rules
from pbem.core.commands import (
    Command,
    CommandSpec,
    Player,
    Players,
    Text,
    Word,
)
from pbem.core.game import Rules
from pbem.core.ids import PlayerId
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH

_TABLES = frozenset({"help", "status", "rules", "absence", "history", "address", "digest"})
"""The verbs the table answers, never the rules (pbem/table/commands.py, pbem/judge/)."""

Moot = Callable[[Rules[Any], Any, PlayerId, Command, datetime, str], bool]
"""Whether a command taken but not offered is rightly not offered (a game's documented,
rule-cited exceptions)."""


@dataclass(frozen=True)
class Mismatch:
    """One step's disagreement between the offer and the rules."""

    kind: str
    """``offered_never_taken`` (a) or ``taken_not_offered`` (b)."""
    phase: str
    actor: str
    alive: bool
    verb: str
    trial: Command | None = None
    channel: str = ""


@dataclass
class Counts:
    """What one game's check looked at."""

    steps: int = 0
    offered: int = 0
    """Offered commands found taken (a), each once a step and seat."""
    refused: int = 0
    """Trials of commands not offered found refused (b)."""
    moot: int = 0
    dead: int = 0
    """Checks of a dead seat (every offer of his, and every other command, refused)."""
    dead_offered: int = 0
    """Offers to a dead seat found taken: a ghost's vote, a dead Mayor's sash, Prue's
    revenge (LUP-D22, LG-447, CAS-619)."""
    mismatches: list[Mismatch] = field(default_factory=list)


def trials(spec: CommandSpec, names: Sequence[PlayerId], keywords: Sequence[str]) -> list[Command]:
    """Every command of ``spec``'s grammar with each argument each way: each name (where it
    takes several: each name alone where fewer may be given, beside its neighbour, twice
    where it may repeat), each word, a short text (for CANCEL: each command's keyword)."""
    combos: list[tuple[tuple[PlayerId, ...], str | None, str]] = [((), None, "")]
    for arg in spec.args:
        options: list[tuple[tuple[PlayerId, ...], str | None, str]] = []
        if isinstance(arg, Player):
            options = [((n,), None, "") for n in names]
            if arg.optional:
                options.append(((), None, ""))
        elif isinstance(arg, Players):
            # each name beside its neighbour in the seating (the last beside the first):
            # every name in two pairs, the kinds of pair the rules tell apart (the dead, a
            # partner) met over a game, at a fraction of the cost of every pair
            pairs = [(n, names[(i + 1) % len(names)]) for i, n in enumerate(names)]
            if not arg.distinct:
                pairs += [(n, n) for n in names]
            options = [(pair, None, "") for pair in pairs]
            if arg.at_most:
                options += [((n,), None, "") for n in names]
        elif isinstance(arg, Word):
            options = [((), w, "") for w in arg.choices]
            if arg.optional:
                options.append(((), None, ""))
        elif isinstance(arg, Text):
            texts = list(keywords) if spec.verb == "cancel" else ["x"]
            options = [((), None, t) for t in texts]
            if arg.optional:
                options.append(((), None, ""))
        combos = [
            (targets + t, w if w is not None else word, text or x)
            for targets, word, text in combos
            for t, w, x in options
        ]
    return [Command(spec.verb, targets, word, text) for targets, word, text in combos]


def _channels(spec: CommandSpec) -> tuple[str, ...]:
    return (("private",) if spec.private else ()) + (("list",) if spec.public else ())


class _Checked(RulesGame):
    """A bot game that checks every seat's offer at each step as it opens."""

    counts: Counts
    moot: Moot
    specs: tuple[CommandSpec, ...]
    keywords: tuple[str, ...]
    trials_of: dict[str, list[Command]]
    last: Any = None

    def close(self, key: str, now: datetime) -> None:
        self.check(now)  # as the step closes: what each seat sent in it stands
        super().close(key, now)
        self.check(now)  # as the next opens

    def check(self, now: datetime) -> None:
        rules, state, counts = self.rules, self.state, self.counts
        if rules.outcome(state) is not None or state is self.last:
            return  # a state is frozen: one checked already is not checked again
        self.last = state
        counts.steps += 1
        phase = str(getattr(state, "phase", "?"))
        for actor in rules.names(state):
            alive = bool(state.seats[actor].alive)
            offered = {c.verb for c in rules.available(state, actor)}
            counts.dead += not alive
            for spec in self.specs:
                verb = spec.verb
                if verb in offered:
                    if any(
                        rules.allows(state, actor, trial, now, channel)
                        for trial in self.trials_of[verb]
                        for channel in _channels(spec)
                    ):
                        counts.offered += 1
                        counts.dead_offered += not alive
                    else:
                        counts.mismatches.append(
                            Mismatch("offered_never_taken", phase, actor, alive, verb)
                        )
                    continue
                for trial in self.trials_of[verb]:
                    for channel in ("private", "list"):
                        if not rules.allows(state, actor, trial, now, channel):
                            counts.refused += 1
                        elif self.moot(rules, state, actor, trial, now, channel):
                            counts.moot += 1
                        else:
                            counts.mismatches.append(
                                Mismatch(
                                    "taken_not_offered",
                                    phase,
                                    actor,
                                    alive,
                                    verb,
                                    trial,
                                    channel,
                                )
                            )


def never_moot(
    rules: Rules[Any], state: Any, actor: PlayerId, trial: Command, now: datetime, channel: str
) -> bool:
    """No exception: every command taken is offered."""
    return False


def cancel_vote_is_unvote(
    rules: Rules[Any], state: Any, actor: PlayerId, trial: Command, now: datetime, channel: str
) -> bool:
    """``ANNULER VOTE`` is ``RETIRER`` (LUP-603/LUP-620, LG-603/LG-623, CAS-603/CAS-621): taken
    where RETIRER is offered, which HELP lists."""
    if trial.verb != "cancel" or not trial.text.upper().startswith("VOTE"):
        return False
    return any(c.verb == "unvote" for c in rules.available(state, actor))


def check_game(
    game: str,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    players: int = 0,
    moot: Moot = never_moot,
) -> Counts:
    """One whole bot game of ``game`` (``seed``, ``options``), its offers checked at each
    step as it opens; its counts and the mismatches found (none expected)."""
    setup = demo_setup(game, players, seed, "fr")
    if options:
        setup["options"] = dict(options)
    checked = _Checked.new(setup)
    assert isinstance(checked, _Checked)
    rules = checked.rules
    checked.counts = Counts()
    checked.moot = moot
    checked.specs = tuple(s for s in rules.all_commands if s.verb not in _TABLES)
    checked.keywords = tuple(s.fr[0] for s in rules.all_commands)
    names = tuple(rules.names(checked.state))
    checked.trials_of = {s.verb: trials(s, names, checked.keywords) for s in checked.specs}
    checked.check(EPOCH)
    play_rules(checked, random.Random(seed))
    assert checked.finished
    return checked.counts


def described(mismatches: Sequence[Mismatch], most: int = 12) -> str:
    """The first mismatches, one a line, and their count by kind, phase and verb."""
    kinds: dict[tuple[str, str, bool, str], int] = {}
    for m in mismatches:
        key = (m.kind, m.phase, m.alive, m.verb)
        kinds[key] = kinds.get(key, 0) + 1
    lines = [f"{n} x {k}" for k, n in sorted(kinds.items())]
    lines += [repr(m) for m in mismatches[:most]]
    return "\n".join(lines)
