"""The kernel additions made for Dracula: multi-line texts, repeatable names, list-post hook."""

from __future__ import annotations

import pytest

from pbem.core.commands import CommandSpec, Players, Text, parse_line, takes_lines
from pbem.core.errors import InvalidSyntax

NAMES = ["Ana", "Bob", "Cid"]
PAINT = CommandSpec("paint", ("PEINDRE",), ("PAINT",), (Text(multiline=True),))
SAY = CommandSpec("say", ("DIRE",), ("SAY",), (Text(),))
FLAME = CommandSpec("flame", ("FLAMME",), ("FLAME",), (Players(3, True, False),))
CURSE = CommandSpec("curse", ("MAUDIRE",), ("CURSE",), (Players(2, True),))


def test_multiline_text_takes_the_following_lines() -> None:
    assert takes_lines("PEINDRE hello", [PAINT, SAY])
    assert not takes_lines("DIRE hello", [PAINT, SAY])
    cmd = parse_line("PEINDRE first\nsecond\nthird", [PAINT], NAMES)
    assert cmd is not None and cmd.text == "first\nsecond\nthird"
    one = parse_line("DIRE first\nsecond", [SAY], NAMES)
    assert one is not None and one.text == "first"


def test_players_may_repeat_only_when_allowed() -> None:
    cmd = parse_line("FLAMME Bob Bob", [FLAME], NAMES)
    assert cmd is not None and cmd.targets == ("Bob", "Bob")
    with pytest.raises(InvalidSyntax):
        parse_line("MAUDIRE Bob Bob", [CURSE], NAMES)


def test_on_post_default_accepts_everything() -> None:
    from pbem.games.lupus import LupusInTabula

    rules = LupusInTabula()
    assert rules.on_post(rules.new_state(), "Ana", ["hello"], None) == []  # type: ignore[arg-type]
