"""Commands: what a player asks for, and the grammar that reads them from a line of text.

A game declares its commands as a table of :class:`CommandSpec` (keywords in French and
English, argument grammar, channel). :func:`parse_line` turns one line into a :class:`Command`
with player names already resolved, or raises a :class:`~pbem.core.errors.CommandError`.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pbem.core.errors import InvalidSyntax, UnknownCommand
from pbem.core.frozen import quick_init
from pbem.core.ids import PlayerId
from pbem.core.match import clean_token, fold, match_name


@quick_init  # built for every name a bot tries (issue 23)
@dataclass(frozen=True)
class Command:
    """A parsed command: canonical verb and resolved arguments."""

    verb: str
    targets: tuple[PlayerId, ...] = ()
    word: str | None = None
    text: str = ""


def naming(verb: str, name: PlayerId) -> Command:
    """``Command(verb, (name,))``, one object for each (frozen): a bot's every trial of a
    name, a bold vote (issue 23); at most :data:`_NAMING_MOST` kept."""
    command = _NAMING.get((verb, name))
    if command is None:
        if len(_NAMING) >= _NAMING_MOST:
            _NAMING.clear()
        command = _NAMING[verb, name] = Command(verb, (name,))
    return command


_NAMING: dict[tuple[str, PlayerId], Command] = {}
"""(verb, name) -> its command (:func:`naming`): a few verbs and table names."""
_NAMING_MOST = 4096


class Arg:
    """One argument of a command's grammar."""

    def take(self, tokens: list[str], names: Sequence[str], out: _Building) -> list[str]:
        """Consume the tokens this argument needs from the front; return the rest."""
        raise NotImplementedError


@dataclass
class _Building:
    targets: list[PlayerId] = field(default_factory=list)
    word: str | None = None
    text: str = ""
    more: str = ""  # the lines after the command's own line, for a multi-line Text
    prefixed: list[str] = field(default_factory=list)  # names given by a prefix, not in full


def _target(token: str, names: Sequence[str], out: _Building) -> PlayerId:
    """The player ``token`` names; a name given by a prefix only is noted in ``out``."""
    name = match_name(token, names)
    if fold(clean_token(token)) != fold(name):
        out.prefixed.append(clean_token(token))
    return PlayerId(name)


def _take_target(
    tokens: Sequence[str], names: Sequence[str], out: _Building
) -> tuple[PlayerId, int]:
    """The player the first tokens name, and how many tokens that took.

    LUP-D28 (amended by issue 13): a name may hold spaces (« Jean Pierre »). The longest run of
    tokens that is a player's whole name wins, so ``VOTE Jean Pierre`` is Jean Pierre even
    when a Jean plays too; otherwise the first token alone is a name or a unique prefix. The
    run stops at a joiner (``et``/``and``): ``AMOUREUX Jean et Pierre`` names two players.
    """
    longest = max((len(n.split()) for n in names), default=1)
    run: list[str] = []
    for token in tokens[:longest]:
        word = clean_token(token)
        if not word or fold(word) in _JOINERS:
            break
        run.append(word)
    for size in range(len(run), 1, -1):
        wanted = fold(" ".join(run[:size]))
        whole = [n for n in names if fold(n) == wanted]
        if whole:
            return PlayerId(whole[0]), size
    return _target(tokens[0], names, out), 1


@dataclass(frozen=True)
class Player(Arg):
    """A player's name (exact or unique prefix); ``optional`` if it may be omitted."""

    optional: bool = False

    def take(self, tokens: list[str], names: Sequence[str], out: _Building) -> list[str]:
        """Take one player's name (an exact name, possibly of several words, or a unique prefix)."""
        tokens = [t for t in tokens if clean_token(t)]
        if not tokens:
            if self.optional:
                return []
            raise InvalidSyntax("missing_name")
        target, used = _take_target(tokens, names, out)
        out.targets.append(target)
        return tokens[used:]


@dataclass(frozen=True)
class Players(Arg):
    """Exactly ``count`` distinct names (``at_most`` allows fewer, at least one).

    ``distinct=False`` lets a name repeat (Dracula's flames: two flames on one vampire).
    """

    count: int
    at_most: bool = False
    distinct: bool = True

    def take(self, tokens: list[str], names: Sequence[str], out: _Building) -> list[str]:
        """Take up to ``count`` names, skipping joiners (« et », « , »); too few refused, and a
        name twice unless ``distinct`` is off."""
        tokens = [t for t in tokens if clean_token(t)]
        chosen: list[PlayerId] = []
        while tokens and len(chosen) < self.count:
            if fold(clean_token(tokens[0])) in _JOINERS:
                tokens = tokens[1:]
                continue
            target, used = _take_target(tokens, names, out)
            chosen.append(target)
            tokens = tokens[used:]
        if not chosen or (len(chosen) < self.count and not self.at_most):
            raise InvalidSyntax("missing_names", count=self.count)
        if self.distinct and len(set(chosen)) != len(chosen):
            twice = next(t for i, t in enumerate(chosen) if t in chosen[:i])
            raise InvalidSyntax("same_name_twice", name=twice)
        out.targets.extend(chosen)
        return tokens


_JOINERS = {"et", "and", "&", "+", ","}  # pbem.core.names.JOINERS: never in a name


@dataclass(frozen=True)
class Word(Arg):
    """One of a fixed set of words (possibly several tokens long, e.g. ``SALLE DE BAL``).

    ``choices`` maps each canonical value to its accepted spellings; ``labels`` optionally
    maps a value to how a reply restates it in French and in English (default: the value).
    """

    choices: Mapping[str, tuple[str, ...]]
    optional: bool = False
    labels: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    unlisted: frozenset[str] = frozenset()
    """Values read only to be refused with their own reason (Dracula's sanctuary as a room,
    DRA-081): never listed as a choice."""

    def label(self, value: str, lang: str) -> str:
        """The value as a player writing in ``lang`` reads it in a reply."""
        fr, en = self.labels.get(value, (value.upper(), value.upper()))
        return en if lang == "en" else fr

    def spelling(self, value: str, lang: str) -> str:
        """How a player writing in ``lang`` is shown to write ``value``: its label where the
        parser reads the label back (« SALLE DE BAL », « BALLROOM »), else its first
        spelling."""
        spellings = self.choices[value]
        label = self.label(value, lang)
        own = value in self.labels or lang == "en"
        return label if own and fold(label) in {fold(s) for s in spellings} else spellings[0]

    def listed(self, lang: str) -> list[str]:
        """The choices as AIDE and a refusal list them for ``lang`` (:meth:`spelling`), the
        ``unlisted`` left out."""
        return [self.spelling(v, lang) for v in self.choices if v not in self.unlisted]

    def take(self, tokens: list[str], names: Sequence[str], out: _Building) -> list[str]:
        """Take the choice whose spelling matches the most leading words; none matches: refused
        unless optional."""
        folded = [fold(clean_token(t)) for t in tokens]
        best: tuple[int, str] | None = None
        for value, spellings in self.choices.items():
            for spelling in spellings:
                words = fold(spelling).split()
                if folded[: len(words)] == words and (best is None or len(words) > best[0]):
                    best = (len(words), value)
        if best is None:
            if self.optional:
                return tokens
            raise InvalidSyntax(
                "expected_word", choices=self.listed("fr"), choices_en=self.listed("en")
            )
        out.word = best[1]
        return tokens[best[0] :]


@dataclass(frozen=True)
class Text(Arg):
    """The rest of the line, verbatim (chat relays, messages).

    ``multiline``: also every following line of the mail, up to a ``FIN``/``END`` line or
    the end of the message (Dracula's paintings, waltzes and telepathy).
    """

    optional: bool = False
    multiline: bool = False
    hint: tuple[str, str] | None = None
    """How AIDE writes it (French, English) when ``texte`` says too little (issue 25's
    services: ``phase|tout``, ``OUI|NON``)."""

    def take(self, tokens: list[str], names: Sequence[str], out: _Building) -> list[str]:
        """Take the rest of the line (and, if multiline, the following lines); empty: refused unless
        optional."""
        out.text = " ".join(tokens).strip()
        if self.multiline and out.more:
            out.text = f"{out.text}\n{out.more}".strip()
        if not out.text and not self.optional:
            raise InvalidSyntax("missing_text")
        return []


@dataclass(frozen=True)
class CommandSpec:
    """A command of a game: canonical verb, keywords, grammar and channel."""

    verb: str
    fr: tuple[str, ...]
    en: tuple[str, ...]
    args: tuple[Arg, ...] = ()
    public: bool = False
    private: bool = True

    def keyword(self, lang: str) -> str:
        """The keyword shown to a player writing in ``lang``."""
        return (self.en if lang == "en" else self.fr)[0]


# Commands every game understands; their meaning is the kernel's (help, status) or the
# game's own ``decide`` (pass, cancel).
HELP = CommandSpec("help", ("AIDE",), ("HELP",))
STATUS = CommandSpec("status", ("STATUT", "ETAT"), ("STATUS",))
PASS = CommandSpec("pass", ("RIEN", "PASSE"), ("PASS", "NOTHING"))
# The keyword to cancel is optional in the grammar so that the game answers a bare CANCEL
# with its own "cancel what?" reason (LUP-621) rather than "the text to send is missing".
CANCEL = CommandSpec(
    "cancel", ("ANNULER",), ("CANCEL",), (Text(optional=True, hint=("mot-clé", "keyword")),)
)
RULES = CommandSpec("rules", ("REGLES", "REGLE"), ("RULES",))  # the players' rules page

# The judges' services (issue 25): a player's own absences, history, address and digest,
# answered by pbem/judge/ (one module a command), never by a game's rules. Each takes the rest
# of its line, which its module reads.
ABSENCE = CommandSpec(
    "absence",
    ("ABSENCE", "ABSENCES"),
    ("ABSENT", "ABSENCE", "ABSENCES"),
    (
        Text(
            optional=True,
            hint=("du 12/01 au 14/01 raison|ANNULER", "from 12/01 to 14/01 reason|CANCEL"),
        ),
    ),
)

HISTORY = CommandSpec(
    "history",
    ("HISTORIQUE",),
    ("HISTORY",),
    (Text(optional=True, hint=("phase|TOUT", "phase|ALL")),),
)

ADDRESS = CommandSpec(
    "address",
    ("ADRESSE",),
    ("ADDRESS",),
    (Text(optional=True, hint=("nouvelle@adresse|ANNULER", "new@address|CANCEL")),),
)

# not « RESUME » alone: a French player's free line « Résumé de la nuit : … » is no command,
# and RESUME is the game master's English word to end a pause (pbem/desk/resume.py)
DIGEST = CommandSpec(
    "digest",
    ("RESUME QUOTIDIEN", "DIGEST"),
    ("DIGEST",),
    (Text(optional=True, hint=("OUI|NON", "ON|OFF")),),
)

JUDGE_COMMANDS: tuple[CommandSpec, ...] = (ABSENCE, HISTORY, ADDRESS, DIGEST)
COMMON_COMMANDS: tuple[CommandSpec, ...] = (HELP, STATUS, PASS, CANCEL, RULES, *JUDGE_COMMANDS)


def find_spec(
    tokens: Sequence[str], specs: Iterable[CommandSpec]
) -> tuple[CommandSpec, int] | None:
    """The spec whose keyword (longest first) starts ``tokens``, and the keyword's length."""
    if not tokens:
        return None
    by_first, longest = _keyword_index(specs if isinstance(specs, tuple | list) else tuple(specs))
    folded = tuple(fold(clean_token(t)) for t in tokens[:longest])
    best: tuple[CommandSpec, int] | None = None
    for spec, words in by_first.get(folded[0], ()):  # in the specs' and keywords' order
        if folded[: len(words)] == words and (best is None or len(words) > best[1]):
            best = (spec, len(words))
    return best


_KeywordIndex = tuple[dict[str, list[tuple["CommandSpec", tuple[str, ...]]]], int]
_INDEXES: dict[tuple[int, ...], tuple[Sequence[CommandSpec], _KeywordIndex]] = {}


def _keyword_index(specs: Sequence[CommandSpec]) -> _KeywordIndex:
    """Each keyword's words by its first word (folded), and the most words a keyword has:
    made once per list of specs (a game's, found by identity: specs hold dicts), so a line
    is matched against the few keywords its first word begins, not every keyword."""
    if type(specs) is tuple:  # a game's own tuple (immutable): found by its identity alone
        same = _BY_TUPLE.get(id(specs))
        if same is not None and same[0] is specs:
            return same[1]
    key = tuple(map(id, specs))
    known = _INDEXES.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], specs, strict=True)):
        if type(specs) is tuple:
            _BY_TUPLE[id(specs)] = (specs, known[1])
        return known[1]
    by_first: dict[str, list[tuple[CommandSpec, tuple[str, ...]]]] = {}
    longest = 1
    for spec in specs:
        for keyword in spec.fr + spec.en:
            words = _keyword_words(keyword)
            if words:  # a keyword is never blank
                by_first.setdefault(words[0], []).append((spec, words))
                longest = max(longest, len(words))
    if len(_INDEXES) > 256:  # lists made on the fly (tests): bounded
        _INDEXES.clear()
    _INDEXES[key] = (tuple(specs), (by_first, longest))
    if type(specs) is tuple:
        if len(_BY_TUPLE) > 256:
            _BY_TUPLE.clear()
        _BY_TUPLE[id(specs)] = (specs, (by_first, longest))
    return by_first, longest


_BY_TUPLE: dict[int, tuple[tuple[CommandSpec, ...], _KeywordIndex]] = {}
""":func:`_keyword_index` of a tuple of specs, by the tuple's id (kept with the tuple, so that
an id reused by another tuple is never mistaken for it)."""


@functools.lru_cache(maxsize=4096)  # the games' keywords: a few hundred, read on every line
def _keyword_words(keyword: str) -> tuple[str, ...]:
    return tuple(fold(keyword).split())


def looks_like_command(token: str, specs: Iterable[CommandSpec]) -> list[str]:
    """Keywords close to ``token``: a typo of a command rather than free text."""
    specs = specs if isinstance(specs, tuple | list) else tuple(specs)
    key = (fold(clean_token(token)), tuple(map(id, specs)))
    known = _CLOSE.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], specs, strict=True)):
        return list(known[1])
    keywords = {fold(k): k for s in specs for k in s.fr + s.en if " " not in k}
    close = difflib.get_close_matches(key[0], list(keywords), n=2, cutoff=0.75)
    if len(_CLOSE) > 4096:  # every word a player writes first on a line: bounded
        _CLOSE.clear()
    found = [keywords[c] for c in close]
    _CLOSE[key] = (tuple(specs), tuple(found))
    return found


_CLOSE: dict[tuple[str, tuple[int, ...]], tuple[Sequence[CommandSpec], tuple[str, ...]]] = {}
"""The keywords close to a word, by (word folded, the specs' ids): difflib's comparison of a
line's first word with every keyword is a mail's dearest parse (free text, a Subject)."""


def takes_lines(line: str, specs: Iterable[CommandSpec]) -> bool:
    """True if ``line`` starts a command whose text goes on over the following lines."""
    if type(specs) is tuple and len(line) <= _KEPT_LINE:  # a game's own commands
        key = (line, id(specs))
        known = _TAKES_LINES.get(key)
        if known is not None and known[0] is specs:
            return known[1]
        found = _takes_lines(line, specs)
        if len(_TAKES_LINES) > 4096:  # every line of every mail: bounded
            _TAKES_LINES.clear()
        _TAKES_LINES[key] = (specs, found)
        return found
    return _takes_lines(line, specs)


def _takes_lines(line: str, specs: Iterable[CommandSpec]) -> bool:
    found = find_spec(line.split(), specs)
    return found is not None and any(isinstance(a, Text) and a.multiline for a in found[0].args)


_KEPT_LINE = 200
"""A line up to this many characters (a command, a short remark) has its reading kept: the
same lines come from every player, day after day (« VOTE Bruno », « PASSE »), issue 23."""

_TAKES_LINES: dict[tuple[str, int], tuple[tuple[CommandSpec, ...], bool]] = {}
""":func:`takes_lines` by (line, the specs' tuple's id), kept with the tuple (an id reused by
another tuple is never mistaken for it)."""

_PARSED: dict[
    tuple[str, int, tuple[str, ...], bool], tuple[tuple[CommandSpec, ...], Command | None]
] = {}
""":func:`parse_line`'s commands (or None: free text) by (line, the specs' tuple's id, the
names, debate), kept with the tuple. A refused line is parsed again each time (its error is
raised anew, never shared)."""


def parse_line(
    line: str,
    specs: Sequence[CommandSpec],
    names: Sequence[str],
    *,
    debate: bool = False,
) -> Command | None:
    """Parse one line into a :class:`Command`.

    Returns None for free text (a line that does not start with a keyword and does not look
    like a misspelt one). Raises :class:`UnknownCommand` for a misspelt or shouted unknown
    keyword, :class:`InvalidSyntax` or a target error for bad arguments. A ``line`` holding
    newlines is a command with a multi-line text: only its first line is the command's own.

    ``debate``: the line is from a public post, where a command may be followed by comments.
    A name given there by a prefix only counts when nothing follows the command: in "Vote
    blanc pour moi" or "Vote pas trop vite !" the word after VOTE is debate, not Blanche or
    Pascal (issue 10, item 18), so such a line raises ``InvalidSyntax("prefix_in_debate")``;
    a full name may be followed by comments.
    """
    if type(specs) is tuple and len(line) <= _KEPT_LINE:  # a pure function of its arguments
        key = (line, id(specs), tuple(names), debate)
        known = _PARSED.get(key)
        if known is not None and known[0] is specs:
            return known[1]
        command = _parse_line(line, specs, names, debate)  # a refusal raises: not kept
        if len(_PARSED) > 4096:  # every line of every mail: bounded
            _PARSED.clear()
        _PARSED[key] = (specs, command)
        return command
    return _parse_line(line, specs, names, debate)


def _parse_line(
    line: str, specs: Sequence[CommandSpec], names: Sequence[str], debate: bool
) -> Command | None:
    line, _, more = line.partition("\n")
    tokens = line.split()
    if not tokens:
        return None
    found = find_spec(tokens, specs)
    if found is None:
        first = clean_token(tokens[0])
        close = looks_like_command(first, specs)
        if close or (len(first) >= 3 and first.isalpha() and first.isupper()):
            raise UnknownCommand(word=first, suggestions=close)
        return None
    spec, used = found
    rest = tokens[used:]
    out = _Building(more=more.strip())
    for arg in spec.args:
        rest = arg.take(rest, names, out)
    # A public post may comment on its vote on the same line; a private order must be exact.
    if rest and not spec.public and any(clean_token(t) for t in rest):
        raise InvalidSyntax("extra_words", extra=" ".join(rest))
    if debate and out.prefixed and any(clean_token(t) for t in rest):
        keyword = " ".join(tokens[:used])
        raise InvalidSyntax(
            "prefix_in_debate",
            name=out.prefixed[0],
            names=[t for t in out.targets if fold(t).startswith(fold(out.prefixed[0]))],
            keyword=keyword,
        )
    return Command(spec.verb, tuple(out.targets), out.word, out.text)
