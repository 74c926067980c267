"""Names with spaces, accents and hyphens (LUP-D28 as amended by issue 13): a new game takes
them, and the command parser, the matcher and the forum's bold vote read them whole."""

from __future__ import annotations

import pytest

from pbem.core.commands import CommandSpec, Player, Players, parse_line
from pbem.core.errors import InvalidSyntax, SetupError
from pbem.core.names import name_problem
from pbem.table import Table
from pbem.tools.simulate import EPOCH

NAMES = ["Jean Pierre", "Jean", "Pierre", "Marie-Ève", "Zoé"]
VOTE = CommandSpec("vote", ("VOTE",), ("VOTE",), (Player(),), public=True)
LOVERS = CommandSpec("lovers", ("AMOUREUX",), ("LOVERS",), (Players(2),))


def test_a_name_of_several_words_is_read_whole_lup_d28() -> None:
    """LUP-D28: the longest run of words that is a whole name wins over its first word."""
    assert parse_line("VOTE Jean Pierre", [VOTE], NAMES).targets == ("Jean Pierre",)
    assert parse_line("vote jean pierre", [VOTE], NAMES).targets == ("Jean Pierre",)
    assert parse_line("VOTE Jean", [VOTE], NAMES).targets == ("Jean",)
    assert parse_line("VOTE **Jean Pierre** il ment", [VOTE], NAMES, debate=True).targets == (
        "Jean Pierre",
    )
    assert parse_line("VOTE marie-eve", [VOTE], NAMES).targets == ("Marie-Ève",)


def test_two_names_are_told_apart_by_a_joiner_lup_d28() -> None:
    """LUP-D28: « et »/« and » ends a name, so two players are named side by side."""
    assert parse_line("AMOUREUX Jean et Pierre", [LOVERS], NAMES).targets == ("Jean", "Pierre")
    assert parse_line("AMOUREUX Jean Pierre Zoé", [LOVERS], NAMES).targets == (
        "Jean Pierre",
        "Zoé",
    )
    with pytest.raises(InvalidSyntax):
        parse_line("AMOUREUX Jean Pierre", [LOVERS], NAMES)  # one player: two are needed


def test_a_prefix_still_names_a_player_of_several_words() -> None:
    assert parse_line("VOTE Marie", [VOTE], ["Marie Claire", "Paul"]).targets == ("Marie Claire",)


def test_new_game_takes_names_with_spaces_and_bold_votes_read_them_lup_d28() -> None:
    """LUP-D28 (amended): `pbem new-game` no longer refuses a name with a space; the bold vote
    of the forums (« **Jean Pierre** ») names him."""
    from pbem.core.match import match_name

    names = ["Jean Pierre", "Anne", "Bea", "Carl", "Dora", "Eve", "Fred", "Gus"]
    players = [{"name": n, "email": f"p{i}@x.org"} for i, n in enumerate(names)]
    table, step = Table.new({"game": "lupus-in-tabula", "players": players}, EPOCH)
    table.apply(step)
    assert "Jean Pierre" in table.player_emails
    in_play = table.rules.names(table.state)
    vote = parse_line("VOTE Jean Pierre", table.rules.all_commands, in_play, debate=True)
    assert vote is not None and vote.targets == ("Jean Pierre",)
    assert match_name("jean pierre", in_play) == "Jean Pierre"  # a bold run is matched whole


@pytest.mark.parametrize(
    ("name", "why"),
    [("Jean  Pierre", "could never be targeted"), ("Jean et Marie", "separates two names")],
)
def test_names_the_parser_could_not_read_back_are_refused(name: str, why: str) -> None:
    assert why in (name_problem(name) or "")


def test_a_name_with_one_space_is_playable() -> None:
    assert name_problem("Jean Pierre") is None
    assert name_problem("Marie-Ève d'Arc") is None


def test_a_setup_with_a_joiner_in_a_name_is_refused() -> None:
    players = [{"name": n, "email": f"p{i}@x.org"} for i, n in enumerate(["A et B", *"CDEFGHI"])]
    with pytest.raises(SetupError, match="separates two names"):
        Table.new({"game": "lupus-in-tabula", "players": players}, EPOCH)


def test_a_kept_name_check_says_what_a_fresh_one_says_lup_d28() -> None:
    """Issue 23: every new game checks its players' names through a bounded cache of
    :func:`name_problem` (the same nicknames come back game after game); asked once or
    again, it gives the fresh check's answer, refusals included (LUP-D28)."""
    from pbem.table.setup_check import _name_problem

    names = ["Jean Pierre", "Jean  Pierre", "Jean et Marie", "Fin", "_Neo_", "Zoé", "x" * 31]
    for _ in range(2):
        assert [_name_problem(n) for n in names] == [name_problem(n) for n in names]
    assert _name_problem.cache_info().maxsize == 1024
