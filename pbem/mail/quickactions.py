"""Quick actions: what a mail asks a player to send, one link per legal choice (issue 15).

A night prompt says « envoyez SONDER nom », the first round « postez VOTE nom sur la liste ».
The commands a mail names by keyword, that the reader may send now, become quick actions:
one per choice the rules accept, each a ``mailto:`` link whose body is the command exactly as
the parser reads it. Legality is the rules' own: each candidate command goes through
``Rules.decide`` on the state the mail announces, and only those it does not refuse are kept,
so a link never offers a target the reply would refuse (the bodyguard's own name, LUP-340; a dead
player, a second round's non-nominee).

Pure: ``now`` and the state come in; nothing is applied (``decide`` only returns events).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any

from pbem.core.commands import Command, CommandSpec, Player, Players, Word
from pbem.core.game import Rules
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.mail.html import QuickAction

NOT_ACTIONS = frozenset({"help", "status", "rules", "cancel"})
"""The kernel's commands: they ask nothing of the game, so no mail offers them as a tap."""

_WORD = re.compile(r"[^\W\d_]{2,}")
_ASCII_WORD = re.compile(r"[A-Za-z]{2,}")
""":data:`_WORD` in an ASCII text: a letter there is one of these (issue 23)."""

MAX_PAIRS = 10
"""The most links a command naming two players gets (Cupid's AMOUREUX, the Piper's ENVOUTER):
one per legal pair when there are at most this many (five candidates), else none, and the
mail's text says how to write it. A link per pair is a list a phone player scans with a
thumb; 78 pairs for thirteen players is not. A link writing the first name and leaving the
second to type was weighed and left out: its draft is no command the rules can check, so it
would break this module's promise (every link is a command the reply accepts), and sent
unchanged it is refused."""


def game_address(moderator: str, game_id: str) -> str:
    """The game's plus-address (``moderator+game@domain``): the daemon routes a mail sent
    there to the game whatever its Subject (the plus-address is read first)."""
    local, at, domain = moderator.partition("@")
    if not at or not game_id:
        return moderator
    return f"{local}+{game_id}@{domain}"


def reply_subject(subject: str) -> str:
    """``Re: `` and the mail's Subject: the answer stays in the mail's thread and tag."""
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"


def quick_actions(
    rules: Rules[Any],
    state: Any,
    text: str,
    *,
    readers: Sequence[PlayerId],
    lang: str,
    now: datetime,
    subject: str,
    private_address: str,
    list_address: str,
    public: bool,
    shown: Mapping[str, str] | None = None,
) -> tuple[QuickAction, ...]:
    """The quick actions of a mail whose text part is ``text``.

    ``readers``: who may act on it (the one addressee of a private mail; every player for a
    public one, where a choice is kept if any reader may make it). A ``public`` mail offers
    only the commands posted on the list. ``shown``: seats shown under a newcomer's name
    (issue 13), written so in the labels and lines.
    """
    if rules.offers_nothing(state):  # a debate (LUP-400): no reader may send a command
        return ()
    asked = _asked(text)
    found_specs = _asked_readers(rules, state, readers, asked, lang, public)
    if not found_specs:
        return ()
    names = tuple(rules.names(state))
    shown_key = tuple(shown.items()) if shown else ()
    verdicts = _verdicts(rules, state, now)
    offers = None if type(rules).offers is Rules.offers else rules.offers
    refused = None if type(rules).refused_to_all is Rules.refused_to_all else rules.refused_to_all
    actions: list[QuickAction] = []
    seen: dict[str, set[str]] = {}  # verb -> the lines offered
    answer = reply_subject(subject)
    # where a link on each channel goes; None: nowhere (an offline game's "list" or
    # "moderator"), asked once a mail rather than once a link
    addresses = {
        "list": list_address if "@" in list_address else None,
        "private": private_address if "@" in private_address else None,
    }
    for spec, able in found_specs:
        found: list[QuickAction] = []
        channels = ("list",) if public else _CHANNELS[spec.public, spec.private]
        # one channel (every command but a few; "" otherwise): asked directly, no generator
        single = channels[0] if len(channels) == 1 else ""

        if _repeating(spec):

            def legal(
                command: Command,
                able: tuple[PlayerId, ...] = able,
                channels: tuple[str, ...] = channels,
            ) -> bool:
                return _channel(rules, state, able, command, now, channels) is not None

            choices = _spending_choices(spec, names, lang, shown or {}, legal)
            known: list[Any] = [_UNKNOWN] * len(choices)
            open_ = _unrefused(refused, state, choices, channels)
        else:
            choices = _candidates(spec, names, lang, shown or {}, shown_key)
            # a reader's verdict on a command is asked once per state: the prompt and the
            # reminder of one step to a player (issue 23); ``choices`` is kept, so its id holds
            known = _kept_verdicts(verdicts, (able, channels, id(choices)), choices)
            # the choices no reader may make (a dead target) are no reader's own verdict:
            # found once per state for the readers of every mail of the step (each wolf of
            # the pack, issue 23), and no reader is asked of them
            open_ = _kept_unrefused(verdicts, refused, state, choices, channels)
        group, pair, verb = spec.keyword(lang), _pair(spec), spec.verb
        offered = seen.setdefault(verb, set())
        # one reader on one channel (most private prompts): asked directly
        alone = able[0] if len(able) == 1 and single else None
        for index in open_:
            label, command, line = choices[index]
            if line in offered:
                continue
            if offers is not None and not offers(state, command):
                continue
            channel = known[index]
            if channel is _UNKNOWN:
                if alone is not None:
                    channel = single if rules.allows(state, alone, command, now, single) else None
                else:
                    channel = _channel(rules, state, able, command, now, channels)
                known[index] = channel
            if channel is None:
                continue
            offered.add(line)
            address = addresses[channel]
            if address is None:
                continue
            # QuickAction(group, label, address, answer, line), made in C: a named tuple's
            # own __new__ is Python code, run for every link of every prompt (issue 23)
            found.append(_made(QuickAction, (group, label, address, answer, line)))
            if pair and len(found) > MAX_PAIRS:  # too many to tap: none, and stop here
                found = []
                break
        actions += found
    return tuple(actions)


_UNKNOWN = object()
_made = tuple.__new__


def _unrefused(
    refused: Callable[[Any, Command, str], bool] | None,
    state: Any,
    choices: Sequence[tuple[str, Command, str]],
    channels: tuple[str, ...],
) -> Sequence[int]:
    """The indices of ``choices`` that :meth:`Rules.refused_to_all` does not rule out on
    each of ``channels`` (all of them where the game has no such hook)."""
    if refused is None:
        return range(len(choices))
    if len(channels) == 1:  # most: no generator made
        channel = channels[0]
        return [
            i
            for i, (_l, command, _line) in enumerate(choices)
            if not refused(state, command, channel)
        ]
    return [
        i
        for i, (_l, command, _line) in enumerate(choices)
        if not all(refused(state, command, channel) for channel in channels)
    ]


def _kept_unrefused(
    verdicts: dict[Any, tuple[list[Any], Any]],
    refused: Callable[[Any, Command, str], bool] | None,
    state: Any,
    choices: list[tuple[str, Command, str]],
    channels: tuple[str, ...],
) -> Sequence[int]:
    """:func:`_unrefused`, kept with the state's verdicts (:func:`_verdicts`) by the
    channels and the kept list of choices (held: its id is not reused)."""
    memo = (None, channels, id(choices))
    entry = verdicts.get(memo)
    if entry is None or entry[0] is not choices:
        entry = verdicts[memo] = (choices, _unrefused(refused, state, choices, channels))
    kept: Sequence[int] = entry[1]
    return kept


def _kept_verdicts(
    verdicts: dict[Any, tuple[list[Any], list[Any]]],
    memo: tuple[Any, ...],
    choices: list[tuple[str, Command, str]],
) -> list[Any]:
    """The verdicts kept under ``memo`` for each of ``choices`` (:func:`_verdicts`), made
    unknown the first time (the list held: its id is not reused)."""
    entry = verdicts.get(memo)
    if entry is None or entry[0] is not choices:
        entry = verdicts[memo] = (choices, [_UNKNOWN] * len(choices))
    return entry[1]


_LAST_VERDICTS: tuple[Any, Any, Any, dict[Any, tuple[list[Any], list[Any]]]] = (
    None,
    None,
    None,
    {},
)


def _verdicts(
    rules: Rules[Any], state: Any, now: datetime
) -> dict[Any, tuple[list[Any], list[Any]]]:
    """Where each choice of a kept list is accepted for some readers on some channels, by
    (readers, channels, the list's id), on ``state`` at ``now``: kept for the last state asked,
    the one every mail of a step is checked on (``decide`` is pure)."""
    last = _LAST_VERDICTS  # read once: another thread may replace it
    if last[1] is state and last[0] is rules and last[2] == now:
        return last[3]
    verdicts: dict[Any, tuple[list[Any], list[Any]]] = {}
    globals()["_LAST_VERDICTS"] = (rules, state, now, verdicts)
    return verdicts


@functools.lru_cache(maxsize=4096)  # a template's lines, the same in each reader's mail
def _asked_line(line: str) -> frozenset[str]:
    # an ASCII line's words are its runs of ASCII letters: found without Unicode's classes
    words = (_ASCII_WORD if line.isascii() else _WORD).findall(line)
    caps = [word for word in words if word.isupper()]
    asked = frozenset(fold(word) for word in caps)
    if len(caps) < 2:
        return asked
    # a keyword of two words (« MORDRE PERSONNE », CMD-11): two capitals one space apart
    pairs = [f"{a} {b}" for a, b in _CAPS_PAIR.findall(line) if a.isupper() and b.isupper()]
    return asked.union(map(fold, pairs)) if pairs else asked


_CAPS_PAIR = re.compile(r"(?<!\w)([^\W\d_]{2,}) (?=([^\W\d_]{2,})(?!\w))")
"""Two words one space apart, the second looked ahead (« MORDRE PERSONNE OU »: both pairs);
the pair is kept when both are capitals."""


@functools.lru_cache(maxsize=256)  # a notice's text, the same in each of its readers' mails
def _asked(text: str) -> frozenset[str]:
    """The folded keywords ``text`` names, in capitals as every prompt writes them («
    ÉCHARPE » too). Read per line and kept (a word never spans two lines): the regex over a
    whole mail was a tenth of its quick actions (issue 23)."""
    return _NONE_ASKED.union(*map(_asked_line, text.split("\n")))


_NONE_ASKED: frozenset[str] = frozenset()


_CANDIDATES: dict[tuple[Any, ...], tuple[CommandSpec, list[tuple[str, Command, str]]]] = {}


def _candidates(
    spec: CommandSpec,
    names: tuple[str, ...],
    lang: str,
    shown: Mapping[str, str],
    shown_key: tuple[tuple[str, str], ...],
) -> list[tuple[str, Command, str]]:
    """:func:`_choices`, made once per game's spec, players and language (specs hold dicts,
    so they are found by identity)."""
    key = (id(spec), names, lang, shown_key)
    known = _CANDIDATES.get(key)
    if known is not None and known[0] is spec:
        return known[1]
    made = list(_choices(spec, names, lang, shown))
    if len(_CANDIDATES) > 1024:  # specs and tables made on the fly (tests): bounded
        _CANDIDATES.clear()
    _CANDIDATES[key] = (spec, made)
    return made


def _asked_readers(
    rules: Rules[Any],
    state: Any,
    readers: Sequence[PlayerId],
    asked: frozenset[str],
    lang: str,
    public: bool,
) -> list[tuple[CommandSpec, tuple[PlayerId, ...]]]:
    """The commands the mail names that some reader may send now, in the order they are
    first available, each with the readers who may send it (:meth:`Rules.available`: the
    others' orders the rules refuse, so no choice is checked for them)."""
    found: list[tuple[CommandSpec, list[PlayerId]]] = []  # specs hold dicts: no hash
    # the offerable keywords the mail names: whether it names a spec a link may offer is
    # whether it names one of these (:func:`_offerable` holds every such spec's keywords)
    hits = _offerable(rules.all_commands, lang, public).intersection(asked)
    if not hits:
        return []  # most mails name no command (a tally, a result): no reader's commands asked
    if len(readers) == 1:  # a private prompt: its reader's commands the mail names
        reader = readers[0]
        verbs = rules.available_verbs(state, reader)
        if verbs is not None:
            named = _named_among(rules, verbs, hits, lang, public)
            if len(named) < 2:  # most: one (no two of them to tell apart)
                return [(spec, (reader,)) for spec in named]
    readers_of: dict[int, list[PlayerId]] = {}  # a spec of found (alive: ids hold) -> readers
    named_of: dict[frozenset[str], list[CommandSpec]] = {}  # the readers' few sets of verbs
    for reader in readers:
        verbs = rules.available_verbs(state, reader)
        if verbs is None:
            specs = [s for s in rules.available(state, reader) if _named(s, hits, lang, public)]
        else:
            kept = named_of.get(verbs)
            if kept is None:
                kept = named_of[verbs] = _named_among(rules, verbs, hits, lang, public)
            specs = kept
        for spec in specs:
            # found holds named specs only, no two equal: an unnamed spec is in none; each
            # reader of a public mail finds the same spec objects, told by their identity
            able = readers_of.get(id(spec))
            if able is None and found:
                able = next((who for known, who in found if known == spec), None)
            if able is None:
                able = [reader]
                found.append((spec, able))
            elif reader not in able:
                able.append(reader)
            readers_of[id(spec)] = able
    return [(spec, tuple(able)) for spec, able in found]


_NAMED: dict[tuple[Any, ...], tuple[tuple[CommandSpec, ...], list[CommandSpec]]] = {}


def _named_among(
    rules: Rules[Any], verbs: frozenset[str], hits: frozenset[str], lang: str, public: bool
) -> list[CommandSpec]:
    """The commands among ``verbs`` (:meth:`Rules.commands_among`) a mail naming the offerable
    keywords ``hits`` names (:func:`_named`): the readers' commands are a few sets of verbs,
    the prompts' keywords a few too, so each answer is made once per game's commands, not
    once per reader of each mail (issue 23). Found by the commands' identity (specs hold
    dicts); the list returned is shared: not to be changed."""
    specs = rules.all_commands
    key = (id(specs), verbs, hits, lang, public)
    known = _NAMED.get(key)
    if known is not None and known[0] is specs:
        return known[1]
    made = [spec for spec in rules.commands_among(verbs) if _named(spec, hits, lang, public)]
    if len(_NAMED) > 1024:  # commands made on the fly (tests): bounded
        _NAMED.clear()
    _NAMED[key] = (specs, made)
    return made


_OFFERABLE: dict[tuple[int, str, bool], tuple[tuple[CommandSpec, ...], frozenset[str]]] = {}


def _offerable(specs: tuple[CommandSpec, ...], lang: str, public: bool) -> frozenset[str]:
    """Every folded keyword in ``lang`` of the ``specs`` a link may offer (:func:`_named`
    but for the keywords): a mail naming none of them has no quick action. Made once per
    game's commands (a constant tuple, found by identity)."""
    known = _OFFERABLE.get((id(specs), lang, public))
    if known is not None and known[0] is specs:
        return known[1]
    keywords = frozenset(
        keyword
        for spec in specs
        if _named(spec, set(_folded(spec, lang)), lang, public)
        for keyword in _folded(spec, lang)
    )
    if len(_OFFERABLE) > 256:  # commands made on the fly (tests): bounded
        _OFFERABLE.clear()
    _OFFERABLE[id(specs), lang, public] = (specs, keywords)
    return keywords


def _named(spec: CommandSpec, asked: AbstractSet[str], lang: str, public: bool) -> bool:
    """Whether the mail names ``spec`` (one of its keywords in ``asked``) and a link may
    offer it (a game's command, posted on the list if the mail is public, in one tap)."""
    if public and not spec.public:
        return False
    _spec, folded, offerable = _kept(spec, lang)
    return offerable and not asked.isdisjoint(folded)


_FOLDED: dict[tuple[int, str], tuple[CommandSpec, frozenset[str], bool]] = {}


def _folded(spec: CommandSpec, lang: str) -> frozenset[str]:
    """The keywords of ``spec`` in ``lang``, folded."""
    return _kept(spec, lang)[1]


def _kept(spec: CommandSpec, lang: str) -> tuple[CommandSpec, frozenset[str], bool]:
    """``spec``, its :func:`_folded` keywords and whether a link may offer it (a game's
    command in one tap, :func:`_simple`): made once per spec (the games' specs are constants;
    specs hold dicts, so they are found by identity)."""
    known = _FOLDED.get((id(spec), lang))
    if known is not None and known[0] is spec:
        return known
    folded = frozenset(fold(s) for s in (spec.en if lang == "en" else spec.fr))
    if len(_FOLDED) > 4096:  # specs made on the fly (tests): bounded
        _FOLDED.clear()
    made = _FOLDED[(id(spec), lang)] = (
        spec,
        folded,
        spec.verb not in NOT_ACTIONS and _simple(spec),
    )
    return made


def _simple(spec: CommandSpec) -> bool:
    """One tap, one command: no argument, one player, one word from a fixed set, two
    distinct players (a pair: see :data:`MAX_PAIRS`), up to N distinct players (a link per
    player: :func:`_several`) or N players that may repeat (:func:`_repeating`)."""
    return len(spec.args) <= 1 and all(
        isinstance(a, Player | Word) or _pair(spec) or _several(spec) or _repeating(spec)
        for a in spec.args
    )


def _pair(spec: CommandSpec) -> bool:
    """The command names two distinct players (AMOUREUX, ENVOUTER)."""
    return (
        len(spec.args) == 1
        and isinstance(spec.args[0], Players)
        and spec.args[0].count == 2
        and spec.args[0].distinct
    )


def _several(spec: CommandSpec) -> bool:
    """The command names up to N distinct players, over as many orders as the player likes:
    Dracula's MAUDIRE (two targets a night in total, over any number of orders: DRA-371,
    AMB-053). A link names one player; a second tap sends the second curse."""
    arg = spec.args[0] if len(spec.args) == 1 else None
    return isinstance(arg, Players) and arg.at_most and arg.distinct and not _pair(spec)


def _repeating(spec: CommandSpec) -> bool:
    """The command names players one per thing held, a name may repeat, and its first order
    is final: Dracula's FLAMME, one vampire per flame (DRA-470, AMB-065, AMB-007). A link must
    then spend everything held (:func:`_spending_choices`)."""
    arg = spec.args[0] if len(spec.args) == 1 else None
    return isinstance(arg, Players) and not arg.distinct


def _spending_choices(
    spec: CommandSpec,
    names: Sequence[str],
    lang: str,
    shown: Mapping[str, str],
    legal: Callable[[Command], bool],
) -> list[tuple[str, Command, str]]:
    """(label, command, line) for each legal command of a :func:`_repeating` spec that names
    as many players as the rules accept (a fighter with two flames: « FLAMME Bob Bob », «
    FLAMME Bob Cid »...): a link naming fewer would lose the rest, the order being final.
    The targets are those the rules accept alone; with more than :data:`MAX_PAIRS` such
    commands, none (the mail's text says how to write it)."""
    arg = spec.args[0]
    assert isinstance(arg, Players)
    keyword = spec.keyword(lang)
    singles = [n for n in names if legal(Command(spec.verb, (PlayerId(n),)))]
    best: list[tuple[str, ...]] = []
    for size in range(1, arg.count + 1):
        if math.comb(len(singles) + size - 1, size) > MAX_PAIRS:
            first = (singles[0],) * size if singles else ()
            if first and legal(Command(spec.verb, tuple(PlayerId(n) for n in first))):
                return []  # too many to tap
            break
        found = [
            combo
            for combo in itertools.combinations_with_replacement(singles, size)
            if legal(Command(spec.verb, tuple(PlayerId(n) for n in combo)))
        ]
        if not found:
            break
        best = found
    out = []
    for combo in best:
        words = " ".join(shown.get(n, n) for n in combo)
        out.append(
            (words, Command(spec.verb, tuple(PlayerId(n) for n in combo)), f"{keyword} {words}")
        )
    return out


def _choices(
    spec: CommandSpec, names: Iterable[str], lang: str, shown: Mapping[str, str]
) -> Iterable[tuple[str, Command, str]]:
    """(label, command, line) for each value of the command's one argument."""
    keyword = spec.keyword(lang)
    if not spec.args:
        yield keyword, Command(spec.verb), keyword
        return
    arg = spec.args[0]
    if isinstance(arg, Players) and _several(spec):  # one player a link (MAUDIRE nom)
        for name in names:
            label = shown.get(name, name)
            yield label, Command(spec.verb, (PlayerId(name),)), f"{keyword} {label}"
    elif isinstance(arg, Players):  # a pair, in the order the game lists its players
        for first, second in itertools.combinations(names, 2):
            targets = (PlayerId(first), PlayerId(second))
            one, two = shown.get(first, first), shown.get(second, second)  # their holders
            yield f"{one} & {two}", Command(spec.verb, targets), f"{keyword} {one} {two}"
    elif isinstance(arg, Player):
        for name in names:
            label = shown.get(name, name)  # the command names the seat, the line its holder
            yield label, Command(spec.verb, (PlayerId(name),)), f"{keyword} {label}"
        if arg.optional:
            yield keyword, Command(spec.verb), keyword
    elif isinstance(arg, Word):
        for value in arg.choices:
            if value in arg.unlisted:  # read only to be refused (DRA-081)
                continue
            word = arg.spelling(value, lang)  # the reader's language, read back by the parser
            yield (
                word,
                Command(spec.verb, word=value),
                f"{keyword} {word}",
            )


_CHANNELS: dict[tuple[bool, bool], tuple[str, ...]] = {
    (public, private): tuple(c for c, ok in (("list", public), ("private", private)) if ok)
    for public in (False, True)
    for private in (False, True)
}
"""The channels a command is sent on, by (``spec.public``, ``spec.private``), list first."""


def _channel(
    rules: Rules[Any],
    state: Any,
    readers: Sequence[PlayerId],
    command: Command,
    now: datetime,
    channels: tuple[str, ...],
) -> str | None:
    """Where ``command`` is accepted for some reader among ``channels``: the list, privately,
    or nowhere."""
    for channel in channels:
        for reader in readers:
            if rules.allows(state, reader, command, now, channel):
                return channel
    return None
