"""The forum's bold-name vote (LUP-617) reads a name written as the table writes it without
folding it again (issue 23): the same player as the folded reading finds, for every spelling."""

from __future__ import annotations

import pytest

from pbem.core.errors import InvalidSyntax
from pbem.core.ids import PlayerId
from pbem.core.match import fold, names_by_fold
from pbem.games.village.voting import bold_name

NAMES = tuple(PlayerId(n) for n in ("Chloé", "Léo", "Hugo", "chloe2", "Zoë", "Bruno"))


def folded_reading(names: tuple[PlayerId, ...], bold: list[str]) -> PlayerId | None:
    """Every bold text folded, then looked up: the reading before the shortcut."""
    by_fold = names_by_fold(names)
    folded = [fold(b.strip()) for b in bold]
    found = list(dict.fromkeys(by_fold[f] for f in folded if f in by_fold))
    if len(found) > 1:
        raise InvalidSyntax("several_bold_names", names=found)
    return PlayerId(found[0]) if found else None


@pytest.mark.parametrize(
    "bold",
    [
        ["Chloé"],
        [" Léo "],
        ["chloe"],
        ["CHLOÉ"],
        ["zoe"],
        ["Zoë", "zoe"],
        ["Chloé", "chloe"],
        ["Hugo", "Bruno"],
        ["Hugo", "nobody"],
        ["nobody"],
        [],
        ["chloe2", "Chloé2"],
    ],
)
def test_a_bold_name_reads_as_its_folded_spelling(bold: list[str]) -> None:
    try:
        expected: PlayerId | str | None = folded_reading(NAMES, bold)
    except InvalidSyntax as exc:
        expected = f"{exc.reason} {exc.params}"
    try:
        found: PlayerId | str | None = bold_name(NAMES, bold)
    except InvalidSyntax as exc:
        found = f"{exc.reason} {exc.params}"
    assert found == expected
