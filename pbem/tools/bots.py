"""Bot players who make random legal moves: for ``make demo``, property tests and benchmarks.

A bot knows only what the rules let it send (``Rules.available``) and the players' names; it
writes the command line a person would write and mails it, privately or to the list.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import compat32
from typing import Any, TypeVar

from pbem.core.commands import (
    Command,
    CommandSpec,
    Player,
    Players,
    Text,
    Word,
    naming,
    parse_line,
)
from pbem.core.errors import CommandError
from pbem.core.frozen import quick_init
from pbem.core.game import PlayerSpec, Rules
from pbem.core.ids import PlayerId
from pbem.table import Table
from pbem.tools.simulate import EPOCH

_CHAT = ("Je me méfie de tout le monde.", "I trust nobody tonight.", "Courage !")


@quick_init
@dataclass(frozen=True)
class BotMove:
    """One command a bot sends: the line it writes, and the command the table reads in it.

    The mail pipeline mails ``line`` (:func:`bot_mails`); the rules-only fast path
    (:mod:`pbem.balance.fastgame`) hands ``command`` to the rules, the same decision without
    the mail. ``bold``: the line is the forum's ``Mon vote : **name**``, read by
    ``Rules.bold_command`` rather than by the grammar.
    """

    player: PlayerSpec
    command: Command | None
    """None: a line the grammar refuses (the table answers it with a rejection)."""
    line: str
    public: bool
    bold: bool = False


def bot_moves(
    rules: Rules[Any], state: Any, players: Sequence[PlayerSpec], rng: random.Random
) -> Iterator[BotMove]:
    """One round of moves: each player may send one command the rules allow him now.

    A single-name command is tried against the rules (``decide`` is pure) on a few names and
    sent with the first one they accept, so bots make legal moves; players who share a verb
    tend to agree on the name (a pack's victim, a mob's suspect), as people do.
    """
    names = rules.names(state)
    favourite: dict[str, PlayerId] = {}
    randbelow = rng._randbelow  # type: ignore[attr-defined]
    getrandbits = rng.getrandbits if _plain(rng) else None
    draw = rng.random
    verbs_of = rules.available_verbs
    kept = _PLAYED.setdefault(type(rules), {})
    channels = _CHANNELS.setdefault(type(rules), {})
    for spec in players:
        # the commands he may send now, less _SKIPPED, in the order of Rules.available: kept
        # per set of verbs where the game gives them (asked of every player of every round)
        verbs = verbs_of(state, spec.name)
        if verbs is None:
            options: Sequence[CommandSpec] = _played(rules, state, spec.name)
        else:
            found = kept.get(verbs)
            options = _kept(rules, verbs, kept) if found is None else found
        if not options or draw() < 0.1:
            continue
        # rng.choice(options), its very draws (randbelow's own loop, without its frame)
        n = len(options)
        if getrandbits is None:
            j = randbelow(n)
        else:
            bits = n.bit_length()
            j = getrandbits(bits)
            while j >= n:
                j = getrandbits(bits)
        command = options[j]
        args = command.args
        if not args:  # most moves (a pass): no name, no word, no text
            if command.public:
                draw()  # the draw of a bold vote (a bare command is never one): kept in step
            yield _bare(spec, command)
            continue
        if len(args) == 1:
            arg = args[0]
            if isinstance(arg, Player):  # most named moves: one name alone
                verb = command.verb
                channel = channels.get(verb) or _channel(rules, verb, channels)
                name = _legal_name(
                    rules, state, spec.name, verb, channel, names, favourite, rng, getrandbits
                )
                bold = command.public and draw() < 0.5 and verb == "vote"
                yield _named(spec, command, name, bold)
                continue
            if isinstance(arg, Word):  # a room: rng.choice(list(arg.choices.items())), its draws
                below = len(_choices(arg))
                j = randbelow(below) if getrandbits is None else _below(getrandbits, below)
                bold = command.public and draw() < 0.5 and command.verb == "vote"
                yield _worded(spec, command, arg, j, bold)
                continue
        words = [command.keyword(spec.lang)]
        targets: list[PlayerId] = []
        word: str | None = None
        text = ""
        for arg in command.args:
            if isinstance(arg, Player):
                verb = command.verb
                channel = channels.get(verb) or _channel(rules, verb, channels)
                name = _legal_name(
                    rules, state, spec.name, verb, channel, names, favourite, rng, getrandbits
                )
                words.append(name)
                targets.append(name)
            elif isinstance(arg, Players):
                most = min(arg.count, len(names))
                chosen = sample(rng, names, rng.randint(1, most) if arg.at_most else most)
                words += chosen
                targets += chosen
            elif isinstance(arg, Word):  # rng.choice(list(arg.choices.items())), its draws
                choices = _choices(arg)
                below = len(choices)
                j = randbelow(below) if getrandbits is None else _below(getrandbits, below)
                word, spellings = choices[j]
                words.append(spellings[0])
            elif isinstance(arg, Text):  # rng.choice(_CHAT), its draws
                below = len(_CHAT)
                j = randbelow(below) if getrandbits is None else _below(getrandbits, below)
                text = _CHAT[j]
                words.append(text)
        line = " ".join(words)
        parsed: Command | None
        if len(targets) == 1 and word is None and not text:  # most named moves
            parsed = naming(command.verb, targets[0])
        else:
            parsed = Command(command.verb, tuple(targets), word, text)
        if text:  # a text after names loses what the grammar drops (a lone « ! »): read it
            alone = _ALONE.get(id(command))
            if alone is None or alone[0] is not command:
                if len(_ALONE) >= 256:  # bounded, should a game make its commands anew
                    _ALONE.clear()
                alone = _ALONE[id(command)] = (command,)
            try:  # one tuple a command: parse_line keeps its reading of a line per tuple
                parsed = parse_line(line, alone, names, debate=command.public)
            except CommandError:
                parsed = None
        if command.public and draw() < 0.5 and command.verb == "vote":
            yield BotMove(spec, parsed, f"Mon vote : **{words[-1]}**", True, bold=True)
        else:
            yield BotMove(spec, parsed, line, command.public)


_SKIPPED = frozenset({"help", "status", "cancel"})
"""The commands bots never send: they read nothing and withdraw nothing."""

_BARE: dict[tuple[int, int], tuple[PlayerSpec, CommandSpec, BotMove]] = {}
"""The ids of a player and of a command with no argument -> them and the move of his line
(frozen: one object serves every round; both are held, so their ids are not others' while
kept; at most :data:`_KEPT_MOST`)."""

_KEPT_MOST = 4096


def _bare(spec: PlayerSpec, command: CommandSpec) -> BotMove:
    """``spec``'s move of ``command`` alone (a pass), kept in :data:`_BARE`: a game's few
    bare commands, sent by every player at every phase."""
    kept = _BARE.get((id(spec), id(command)))
    if kept is None or kept[0] is not spec or kept[1] is not command:
        if len(_BARE) >= _KEPT_MOST:  # bounded: a table's players change from game to game
            _BARE.clear()
        move = BotMove(
            spec, _command_alone(command.verb), command.keyword(spec.lang), command.public
        )
        kept = _BARE[id(spec), id(command)] = (spec, command, move)
    return kept[2]


def _named(spec: PlayerSpec, command: CommandSpec, name: PlayerId, bold: bool) -> BotMove:
    """``spec``'s move of ``command`` naming ``name``: ``KEYWORD name``, or the forum's bold
    vote ``Mon vote : **name**``. Made afresh: a game's players are new objects in most
    callers (a bench's or the demo's table), so a move kept per player would seldom serve."""
    parsed = naming(command.verb, name)
    if bold:
        return BotMove(spec, parsed, f"Mon vote : **{name}**", True, bold=True)
    return BotMove(spec, parsed, f"{command.keyword(spec.lang)} {name}", command.public)


def _worded(spec: PlayerSpec, command: CommandSpec, arg: Word, j: int, bold: bool) -> BotMove:
    """``spec``'s move of ``command`` with the ``j``-th of ``arg``'s words, written in its
    first spelling (a Dracula room), as the general path writes it."""
    word, spellings = _choices(arg)[j]
    parsed = Command(command.verb, (), word, "")
    if bold:
        return BotMove(spec, parsed, f"Mon vote : **{spellings[0]}**", True, bold=True)
    return BotMove(spec, parsed, f"{command.keyword(spec.lang)} {spellings[0]}", command.public)


_ALONE_COMMANDS: dict[str, Command] = {}
"""Verb -> the command of a line with no argument (frozen: one object serves every bot)."""


def _command_alone(verb: str) -> Command:
    found = _ALONE_COMMANDS.get(verb)
    if found is None:
        found = _ALONE_COMMANDS[verb] = Command(verb)
    return found


_ALONE: dict[int, tuple[CommandSpec]] = {}
"""A command's id -> the tuple of it alone that bots parse a line against (the tuple holds the
command, so its id is not another's while kept; at most 256)."""

_CHOICES: dict[int, tuple[Word, tuple[tuple[str, tuple[str, ...]], ...]]] = {}
"""A word argument's id -> it and its (value, spellings) pairs in order (it is held, so its id
is not another's while kept; at most 256)."""


def _choices(arg: Word) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``tuple(arg.choices.items())``, kept per argument: a Dracula room order draws among
    the same rooms all game long (``rng.choice`` draws alike from a tuple and a list)."""
    kept = _CHOICES.get(id(arg))
    if kept is None or kept[0] is not arg:
        if len(_CHOICES) >= 256:  # bounded, should a game make its commands anew
            _CHOICES.clear()
        kept = _CHOICES[id(arg)] = (arg, tuple(arg.choices.items()))
    return kept[1]


_PLAYED: dict[type, dict[frozenset[str], tuple[CommandSpec, ...]]] = {}
"""Rules class -> its available verbs -> the commands among them a bot sends."""


def _played(rules: Rules[Any], state: Any, actor: PlayerId) -> list[CommandSpec]:
    """The commands ``actor`` may send now, less :data:`_SKIPPED`, from ``Rules.available``."""
    return [c for c in rules.available(state, actor) if c.verb not in _SKIPPED]


def _kept(
    rules: Rules[Any],
    verbs: frozenset[str],
    kept: dict[frozenset[str], tuple[CommandSpec, ...]],
) -> tuple[CommandSpec, ...]:
    """The commands among ``verbs`` a bot sends, kept in ``kept``."""
    found = kept[verbs] = tuple(c for c in rules.commands_among(verbs) if c.verb not in _SKIPPED)
    return found


def bot_mails(table: Table, rng: random.Random) -> Iterator[tuple[EmailMessage, str]]:
    """One round of mails: each bot's move (:func:`bot_moves`) written and mailed, privately
    or to the list, as a person would."""
    setup = table.setup
    for move in bot_moves(table.rules, table.state, setup.players, rng):
        to = setup.list_address if move.public else setup.moderator
        channel = "list" if move.public else "private"
        yield plain_mail(move.player.email, to, move.line + "\n"), channel


def _legal_name(
    rules: Rules[Any],
    state: Any,
    actor: PlayerId,
    verb: str,
    channel: str,
    names: Sequence[PlayerId],
    favourite: dict[str, PlayerId],
    rng: random.Random,
    getrandbits: Callable[[int], int] | None,
) -> PlayerId:
    """A name the rules accept for ``verb`` sent on ``channel`` (the shared favourite
    first), else a random one.

    The candidates are six names drawn as :func:`sample` draws them, every draw made (they
    move ``rng`` on); which names the later draws pick is worked out only when the first
    candidate is refused, which is rare (issue 23). ``getrandbits``: ``rng``'s, when it
    draws as ``random.Random`` does (:func:`_plain`), else None.
    """
    n = len(names)
    k = min(6, n)
    drawn = _draws(rng, n, k, getrandbits) if n <= _POOLED else None
    candidates = rng.sample(names, k) if drawn is None else None
    first = names[drawn[0]] if drawn is not None else candidates[0]  # type: ignore[index]
    allows = rules.allows
    if verb in favourite and rng.random() < 0.7:
        fallback = favourite[verb]  # tried first, and sent should every name be refused
        if allows(state, actor, naming(verb, fallback), EPOCH, channel):
            return fallback
    else:
        fallback = first
    if allows(state, actor, naming(verb, first), EPOCH, channel):
        favourite.setdefault(verb, first)
        return first
    for name in _later(names, drawn) if candidates is None else candidates[1:]:  # type: ignore[arg-type]
        if allows(state, actor, naming(verb, name), EPOCH, channel):
            favourite.setdefault(verb, name)
            return name
    return fallback


T = TypeVar("T")


def sample(rng: random.Random, names: Sequence[T], k: int) -> list[T]:
    """``rng.sample(names, k)``: the same draws, in the same order (a list of up to 21 names
    is drawn from a copy, as ``random.Random.sample`` draws it), without its Sequence ABC
    check, which cost a bot's name trial a tenth of its time, nor a frame per draw (issue
    23)."""
    n = len(names)
    if n > _POOLED or not 0 <= k <= n:
        return rng.sample(names, k)
    return _picked(names, _draws(rng, n, k, rng.getrandbits if _plain(rng) else None))


_POOLED = 21
"""Up to this many names, ``random.Random.sample`` draws any count of them from a copy of the
list (its ``setsize``), the way :func:`_draws` and :func:`_picked` follow."""

_PLANS = tuple(
    tuple(tuple((m, m.bit_length()) for m in range(n, n - k, -1)) for k in range(n + 1))
    for n in range(_POOLED + 1)
)
"""``_PLANS[n][k]``: for each of the ``k`` picks of :func:`_draws` among ``n`` names, the
count of names left in the pool and its ``bit_length()``."""


def _draws(
    rng: random.Random, n: int, k: int, getrandbits: Callable[[int], int] | None
) -> list[int]:
    """The draws of ``random.Random.sample`` picking ``k`` of ``n <= 21`` names: an index
    into the pool left at each pick (``_randbelow(n - i)``), in order. ``getrandbits``:
    ``rng``'s own when :func:`_plain`, else None."""
    drawn: list[int] = []
    add = drawn.append
    if getrandbits is not None:  # random.Random's randbelow, its loop written out
        for m, bits in _PLANS[n][k]:
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            add(j)
        return drawn
    randbelow = rng._randbelow  # type: ignore[attr-defined]
    for m in range(n, n - k, -1):
        add(randbelow(m))
    return drawn


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    """``random.Random._randbelow(n)`` of a plain ``random.Random`` (:func:`_plain`): the
    same draws, one frame instead of ``choice``'s two."""
    bits = n.bit_length()
    j = getrandbits(bits)
    while j >= n:
        j = getrandbits(bits)
    return j


def _picked(names: Sequence[T], drawn: Sequence[int]) -> list[T]:
    """The names :func:`_draws`'s indices pick: each picked name's place in the pool is
    filled by the pool's last name, as ``random.Random.sample`` does."""
    pool = list(names)
    last = len(pool) - 1
    result: list[T] = []
    for i, j in enumerate(drawn):
        result.append(pool[j])
        pool[j] = pool[last - i]
    return result


def _later(names: Sequence[T], drawn: Sequence[int]) -> Iterator[T]:
    """The names :func:`_picked` gives after the first, one at a time: a refused bite or
    waltz tries the next name only until one is taken (issue 23)."""
    pool = list(names)
    last = len(pool) - 1
    pool[drawn[0]] = pool[last]
    for i in range(1, len(drawn)):
        j = drawn[i]
        yield pool[j]
        pool[j] = pool[last - i]


def _plain(rng: random.Random) -> bool:
    """Whether ``rng`` draws a number below ``n`` as ``random.Random`` does, by
    ``_randbelow_with_getrandbits`` (so that a caller may run its loop itself)."""
    return type(rng) is random.Random and _PLAIN_BELOW


_PLAIN_BELOW = (
    random.Random._randbelow  # type: ignore[attr-defined]
    is random.Random._randbelow_with_getrandbits  # type: ignore[attr-defined]
)


_CHANNELS: dict[type, dict[str, str]] = {}
"""Rules class -> verb -> the channel its command is sent on (asked at each name tried)."""


def _channel(rules: Rules[Any], verb: str, channels: dict[str, str]) -> str:
    """The channel ``verb``'s command is sent on, kept in ``channels`` (the rules class's)."""
    public = any(c.verb == verb and c.public for c in rules.all_commands)
    channel = channels[verb] = "list" if public else "private"
    return channel


def plain_mail(sender: str, to: str, body: str) -> EmailMessage:
    """A minimal text/plain mail, built without the header parsing ``EmailMessage`` does."""
    msg = EmailMessage(policy=compat32)
    msg["From"] = sender
    msg["To"] = to
    msg.set_payload(body.encode("utf-8"), None)
    msg["Content-Type"] = 'text/plain; charset="utf-8"'
    msg["Content-Transfer-Encoding"] = "8bit"
    return msg
