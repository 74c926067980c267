"""Issue 23: the mail pipeline's shortcuts give what their plain forms give. A prompt's block
of quick actions kept by its actions, a rendered text trimmed in C, an ASCII line's capital
words found without Unicode's classes, and whether every reader is refused a choice asked
once per state for all the readers of a step, and the commands a mail names kept per set
of verbs and keywords."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.match import fold
from pbem.mail import html, quickactions, render
from pbem.mail.html import QuickAction, to_html
from pbem.mail.render import Renderer
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


def test_a_kept_block_of_quick_actions_is_the_block_made_fresh() -> None:
    """The block is kept by the tuple of its actions (bounded), and a page made from a tuple
    is the page made from the same actions in a list (never kept)."""
    assert html._actions_kept.cache_info().maxsize == 256
    actions = tuple(
        QuickAction("VOTE", name, "mj+g1@example.org", "Re: [g1] Day 1", f"VOTE {name}")
        for name in ("Alice", "Bruno", "Élodie", "O'Neil & <Co>")
    )
    for title in ("Quick actions", ""):
        html._actions_kept.cache_clear()
        fresh = html._actions(actions, title)
        assert html._actions_kept(actions, title) == fresh
        assert html._actions_kept(actions, title) is html._actions_kept(actions, title)
        page = to_html("[g1] Day 1", "Send VOTE name.\n", actions=actions, actions_title=title)
        assert page == to_html(
            "[g1] Day 1", "Send VOTE name.\n", actions=list(actions), actions_title=title
        )
        assert fresh in page


def _trimmed_line_by_line(rendered: str) -> str:
    """Renderer.text's trim as it was written first, one line at a time."""
    lines = [ln if ln == "-- " else ln.rstrip() for ln in rendered.strip("\n").splitlines()]
    return "\n".join(lines)


_RENDERED = st.lists(
    st.sampled_from(
        ["a", "É", " ", "\t", "\n", "-", "-- ", "--", "\r", "\x0b", "\u2028", "\xa0", "\x85"]
    ),
    max_size=40,
).map("".join)


@given(_RENDERED)
def test_a_rendered_text_is_trimmed_as_line_by_line(rendered: str) -> None:
    """Every line's trailing whitespace, and the blank lines around, go; "-- " (the signature
    separator) keeps its space wherever it stands, however many there are."""
    assert render._trimmed(rendered) == _trimmed_line_by_line(rendered)


def test_every_template_renders_as_trimmed_line_by_line() -> None:
    """The renderer's trim of a real mail: the receipt, with its signature."""
    renderer = Renderer()
    params = {
        "game": "Lupus",
        "accepted": [{"line": "VOTE Bruno", "deadline": None, "final": False}],
        "rejected": [],
        "ignored": [],
        "extra": [],
        "topic": "",
    }
    text = renderer.text("common/reply", "fr", params)
    assert "\n-- \n" in text
    assert text == _trimmed_line_by_line(text)
    assert render._trimmed("\n\nSubject \nbody\t\n-- \nsig  \n\n") == "Subject\nbody\n-- \nsig"


_ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=60)


@given(_ASCII_TEXT)
def test_an_ascii_lines_words_are_those_the_unicode_pattern_finds(line: str) -> None:
    """In ASCII, a letter is an ASCII letter: the two patterns find the same words, so a
    prompt's capital keywords (VOTE, KILL) are found alike."""
    assert quickactions._ASCII_WORD.findall(line) == quickactions._WORD.findall(line)


_LATIN_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0xFF),
        st.sampled_from("TUERVOTEÉÈ²ªºµßÿ\n\u2019\u202f\u00a0«»Ƀƀǅ\uff36\u0301"),
    ),
    max_size=40,
)


def _capital_words(line: str) -> frozenset[str]:
    """A line's capital words, folded: every word read (the plain form); and each two whole
    words of letters, both capitals, one space apart: the games' one keyword of two words,
    « MORDRE PERSONNE » (CMD-11), read from the line's runs of word characters."""
    words = {fold(word) for word in quickactions._WORD.findall(line) if word.isupper()}
    runs = list(re.finditer(r"\w+", line))
    pairs = {
        fold(f"{a.group()} {b.group()}")
        for a, b in itertools.pairwise(runs)
        if line[a.end() : b.start()] == " " and _pairable(a.group()) and _pairable(b.group())
    }
    return frozenset(words | pairs)


def _pairable(word: str) -> bool:
    return word.isupper() and re.fullmatch(r"[^\W\d_]{2,}", word) is not None


@pytest.mark.parametrize(
    ("line", "asked"),
    [
        ("AA AA", {"aa", "aa aa"}),  # hypothesis found it: the reference read no pairs
        (
            "MORDRE PERSONNE OU MORDRE Léo",
            {"mordre", "personne", "ou", "mordre personne", "personne ou", "ou mordre"},
        ),
        ("VOTE  Alice", {"vote"}),  # two spaces: no pair
        ("AB1 CD", {"ab", "cd"}),  # a word with a digit pairs with nothing
    ],
)
def test_a_lines_two_word_keywords_are_read_alike(line: str, asked: set[str]) -> None:
    """CMD-11: the reference reading above and the quick actions' agree on two-word keywords
    (the property tests below met a line like "AA AA" only now and then)."""
    assert _capital_words(line) == asked == quickactions._asked_line.__wrapped__(line)


@given(_LATIN_TEXT)
def test_a_lines_capital_words_are_those_its_full_reading_finds(line: str) -> None:
    """A line's capital words, an ASCII line's read with the ASCII letters only (issue 23), are
    those reading all its words finds, over Latin-1 and a few wider characters."""
    assert quickactions._asked_line.__wrapped__(line) == _capital_words(line)


@given(_LATIN_TEXT)
def test_a_mails_keywords_are_those_of_its_lines(text: str) -> None:
    """A mail names what its lines name; a text read again (each reader's copy of a notice,
    issue 23) names the same, from a bounded store."""
    plain = set().union(*map(_capital_words, text.split("\n")))
    assert quickactions._asked(text) == plain == quickactions._asked(text)
    assert type(quickactions._asked(text)) is frozenset  # shared: never to be changed
    assert quickactions._asked.cache_info().maxsize == 256


def test_a_line_beyond_ascii_still_finds_its_accented_keywords() -> None:
    quickactions._asked_line.cache_clear()
    assert quickactions._asked_line("Envoyez ÉCHARPE nom, ou VOTE Élodie.") == frozenset(
        {"echarpe", "vote"}
    )
    assert quickactions._asked_line("send KILL name (LUP-341) before 18:00") == frozenset(
        {"kill", "lup"}
    )


def test_every_wolf_of_the_pack_is_offered_what_a_fresh_computation_offers() -> None:
    """LUP-D05, LUP-607: the pack's prompts. Whether every reader is refused a target (a dead
    one, a partner) is asked once per state and target for the whole pack, not once per
    wolf; each wolf's links are those a computation from nothing gives him."""
    table, step = Table.new(demo_setup("lupus-in-tabula", 16, 1, "en"), EPOCH)
    table.apply(step)
    rules, state = table.rules, table.state
    assert state.phase == "night"
    wolves = [p for p in rules.names(state) if state.seat(p).role == "werewolf"]
    assert len(wolves) > 1
    asked: list[tuple[str, str]] = []
    refused_to_all = rules.refused_to_all

    def counted(state: Any, command: Any, channel: str) -> bool:
        asked.append((command.verb, command.targets[0] if command.targets else ""))
        return refused_to_all(state, command, channel)

    now = min(rules.deadlines(state).values())
    text = "Night: send KILL name.\n"

    def offered(wolf: str) -> tuple[QuickAction, ...]:
        return quickactions.quick_actions(
            rules,
            state,
            text,
            readers=(wolf,),
            lang="en",
            now=now,
            subject="[g1] Night",
            private_address="mj+g1@example.org",
            list_address="g1@example.org",
            public=False,
        )

    fresh = []
    for wolf in wolves:
        quickactions._LAST_VERDICTS = (None, None, None, {})  # nothing kept
        fresh.append(offered(wolf))
    quickactions._LAST_VERDICTS = (None, None, None, {})
    rules.refused_to_all = counted  # type: ignore[method-assign]
    try:
        kept = [offered(wolf) for wolf in wolves]
    finally:
        del rules.refused_to_all
    assert kept == fresh and all(kept)
    assert all(type(a) is QuickAction and a == QuickAction(*a) for a in kept[0])
    assert {target for _verb, target in asked} == set(rules.names(state))
    assert len(asked) == len(set(asked))  # once per target, for the whole pack
    partners = {a.command.split()[1] for a in kept[0]} & set(wolves)
    assert not partners  # LUP-D05: no link names a werewolf


def _plain_asked_readers(
    rules: Any, state: Any, readers: list[str], asked: set[str], lang: str, public: bool
) -> list[tuple[str, tuple[str, ...]]]:
    """Each command the mail names that some reader may send, with those readers: asked of
    each reader's own :meth:`Rules.available`, nothing kept."""
    found: dict[str, list[str]] = {}
    for reader in readers:
        for spec in rules.available(state, reader):
            if quickactions._named(spec, asked, lang, public):
                found.setdefault(spec.verb, []).append(reader)
    return [(verb, tuple(who)) for verb, who in found.items()]


@pytest.mark.parametrize(
    "game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula"]
)
def test_the_commands_a_mail_names_are_each_readers_own(game: str) -> None:
    """LUP-408, LUP-613: the commands a prompt names, kept per set of verbs and keywords
    named, are those each reader's own available commands give, phase after phase."""
    table, step = Table.new(
        demo_setup(game, 16 if game in ("lupus-in-tabula", "loup-garou") else 0, 3, "fr"), EPOCH
    )
    table.apply(step)
    rules, rng = table.rules, random.Random(3)
    keywords = sorted({word.upper() for spec in rules.all_commands for word in spec.fr})
    texts = [" ".join(keywords), *keywords, "rien à faire"]
    for _phase in range(6):
        state, readers = table.state, list(rules.names(table.state))
        for text in texts:
            asked = quickactions._asked(text)
            for public in (False, True):
                for who in (readers, readers[:1], readers[-2:]):
                    kept = quickactions._asked_readers(rules, state, who, asked, "fr", public)
                    plain = _plain_asked_readers(rules, state, who, asked, "fr", public)
                    assert [(spec.verb, able) for spec, able in kept] == plain
        if table.finished or not table.deadlines():
            break
        play(table, rng, 1)


def test_a_link_goes_only_where_an_address_is() -> None:
    """Issue 15: an offline game's "list" and "moderator" are nowhere a link may go: its
    prompts offer no quick action, while the same prompt of a game with addresses does."""
    table, step = Table.new(demo_setup("lupus-in-tabula", 16, 1, "en"), EPOCH)
    table.apply(step)
    rules, state = table.rules, table.state
    wolf = next(p for p in rules.names(state) if state.seat(p).role == "werewolf")
    now = min(rules.deadlines(state).values())

    def offered(private: str, listed: str) -> tuple[QuickAction, ...]:
        quickactions._LAST_VERDICTS = (None, None, None, {})
        return quickactions.quick_actions(
            rules,
            state,
            "Night: send KILL name.\n",
            readers=(wolf,),
            lang="en",
            now=now,
            subject="[g1] Night",
            private_address=private,
            list_address=listed,
            public=False,
        )

    online = offered("mj+g1@example.org", "g1@example.org")
    assert online and {a.address for a in online} == {"mj+g1@example.org"}
    assert offered("moderator", "g1@example.org") == ()
    assert offered("mj+g1@example.org", "list") == online
