"""Deck by player count and setup (LUP-001..LUP-019, LUP-200, LUP-D01, LUP-D02, LUP-D28)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from pbem.core.errors import SetupError
from pbem.games.lupus.deck import standard_deck
from tests.lupus.scenario import names, new_table
from tests.support.game_by_mail import Game, lupus_roles

SPECIALS_BY_MINIMUM = [
    (8, ["seer"]),
    (9, ["medium"]),
    (10, ["possessed"]),
    (11, ["bodyguard"]),
    (12, ["owl"]),
    (13, ["mason", "mason"]),
    (15, ["werehamster"]),
    (16, ["mythomaniac"]),
]

# LUP-017 written out: players -> (werewolves, simple villagers).
TABLE = {8: (2, 5), 9: (2, 5), 10: (2, 5), 11: (2, 5), 12: (2, 5), 13: (2, 4), 14: (2, 5)}
TABLE |= {15: (2, 5), **{n: (3, n - 12) for n in range(16, 25)}}


@pytest.mark.parametrize("n", range(8, 25))
def test_recommended_deck_matches_the_table(n: int) -> None:
    """LUP-011, LUP-012, LUP-013, LUP-014, LUP-015, LUP-016, LUP-017, LUP-D01: the default deck."""
    deck = Counter(standard_deck(n))
    wolves, villagers = TABLE[n]
    specials = Counter(r for minimum, rs in SPECIALS_BY_MINIMUM if n >= minimum for r in rs)
    assert deck == Counter({"werewolf": wolves, "villager": villagers, **specials})
    assert sum(deck.values()) == n
    assert deck["mason"] in (0, 2)  # LUP-016


@pytest.mark.parametrize("n", [7, 25, 3])
def test_refuses_fewer_than_8_or_more_than_24_players(n: int) -> None:
    """LUP-001, LUP-010, LUP-D02: the daemon refuses to start outside 8..24 players."""
    with pytest.raises(SetupError, match="8 to 24"):
        new_table(n)


@pytest.mark.parametrize("n", [8, 12, 16, 24])
def test_daemon_composes_and_deals_the_deck(n: int) -> None:
    """LUP-003, LUP-018, LUP-200: one card per player, exactly the recommended deck."""
    table = new_table(n, seed=n)
    dealt = Counter(p["role"] for p in table.summary()["players"])
    assert dealt == Counter(standard_deck(n))


def test_deal_is_random() -> None:
    """LUP-018: the deal depends on the seed (uniform shuffle), not on the seating order."""
    deals = {
        tuple(p["role"] for p in new_table(12, seed=s).summary()["players"]) for s in range(12)
    }
    assert len(deals) > 6


def test_each_player_learns_only_his_own_role() -> None:
    """LUP-018, LUP-200, LUP-701: one role mail each, naming his role, nobody else's."""
    g = Game(lupus_roles(8))
    for name in names(8):
        mails = [m for m in g.to(name, g.sent) if "Your role" in m.subject]
        assert len(mails) == 1
        assert g.state.seats[name].role not in mails[0].subject.lower()  # a lock screen
        assert g.state.seats[name].role in mails[0].body.lower()
        others = [p for p in names(8) if p != name]
        assert not any(re.search(rf"\b{p}\b", mails[0].body) for p in others)


def test_opening_makes_the_composition_public_not_the_holders() -> None:
    """LUP-019, LUP-700, LUP-D01: composition public, who holds what secret."""
    g = Game(lupus_roles(12, p4="medium", p5="possessed", p6="bodyguard", p7="owl"))
    opening = g.public(g.sent)[0].body
    assert "2 × Werewolf, 1 × Seer, 1 × Medium, 1 × Possessed, 1 × Bodyguard, 1 × Owl" in opening
    assert "5 × Villager" in opening
    for line in opening.splitlines():
        assert not ("p1" in line and "Werewolf" in line)


def test_custom_deck_uses_the_chosen_specials() -> None:
    """LUP-014, LUP-D01: deck_mode=custom, simple Villagers fill the rest."""
    table = new_table(10, {"deck_mode": "custom", "specials": ["seer", "owl", "werehamster"]})
    dealt = Counter(p["role"] for p in table.summary()["players"])
    assert dealt == Counter(werewolf=2, seer=1, owl=1, werehamster=1, villager=5)


def test_custom_deck_below_minimum_warns_in_the_opening() -> None:
    """LUP-014, LUP-015, LUP-D01: a special below its minimum is allowed, with a warning."""
    g = Game(lupus_roles(9, p4="owl", p5="mason", p6="mason"))
    opening = g.public(g.sent)[0].body
    assert "the Owl is in play below its recommended number" in opening
    assert "the Mason is in play below" in opening
    assert "Seer is in play below" not in opening


@pytest.mark.parametrize(
    ("specials", "error"),
    [
        (["medium"], "Seer is always"),
        (["seer", "mason"], "Masons are always two"),
        (["seer", "owl", "owl"], "at most one owl"),
        (["seer", "werewolf"], "not a special"),
        (["seer", "medium", "possessed", "bodyguard", "owl", "mason", "mason"], "cards for 8"),
    ],
)
def test_custom_deck_validation(specials: list[str], error: str) -> None:
    """LUP-011, LUP-016, LUP-D01: the Seer always, Masons 0 or 2, others 0 or 1, total n."""
    with pytest.raises(SetupError, match=error):
        new_table(8, {"deck_mode": "custom", "specials": specials})


def test_fixed_deal_cannot_change_the_number_of_werewolves() -> None:
    """LUP-012, LUP-013, LUP-D01: Werewolves are 2 (8-15) or 3 (16-24), never changed."""
    with pytest.raises(SetupError):
        Game(lupus_roles(8, p4="werewolf"))
    with pytest.raises(SetupError):
        Game(lupus_roles(16, p3="villager"))


@pytest.mark.parametrize(
    ("player", "error"),
    [("VOTE", "keyword"), ("bob et marie", "separates two names"), ("P2", "two players")],
)
def test_nicknames_are_unique_and_not_keywords(player: str, error: str) -> None:
    """LUP-D28 (amended by issue 13): unique (case-insensitive), not a keyword, no « et »."""
    from pbem.table import Table
    from pbem.tools.simulate import EPOCH

    players = [{"name": p, "email": f"{i}@x.org"} for i, p in enumerate([*names(7), player])]
    with pytest.raises(SetupError, match=error):
        Table.new({"game": "lupus-in-tabula", "players": players}, EPOCH)


def test_the_opening_tells_each_roles_count_as_a_tally_of_the_deck_does_lup_017() -> None:
    """LUP-017's composition told in the opening, counted card by card (issue 23), is what a
    tally of the deck gives, in the table's order, for every recommended and custom deck."""
    from pbem.games.lupus.deck import custom_deck, deck_counts
    from pbem.games.lupus.roles import SPECIAL_MINIMUM, VILLAGER, WOLF

    decks = [standard_deck(n) for n in range(8, 25)]
    decks += [custom_deck(12, ["seer", "mason", "mason", "owl"])[0], ["seer"] * 8]
    for deck in decks:
        tally = Counter(deck)
        order = [WOLF, *SPECIAL_MINIMUM, VILLAGER]
        told = deck_counts(deck)
        assert told == {role: tally[role] for role in order if tally[role]}
        assert list(told) == [role for role in order if role in tally]
