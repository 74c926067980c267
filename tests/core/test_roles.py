"""Roles as data: a game's cards are one table of records, every lookup derived from it."""

from __future__ import annotations

from pbem.core.roles import (
    Action,
    Role,
    action_of,
    by_id,
    knowing_partners,
    priorities,
    role_ids,
    teams,
    verb_owners,
    words_of,
)

TABLE = (
    Role("wolf", "wolves", (Action("kill", priority=3),), partners_know=True),
    Role("villager", "village"),
    Role("seer", "village", (Action("scan", priority=1, allow_self=False),), words=("VOYANTE",)),
    Role("copycat", "village", (Action("copy", priority=5, nights=(2,)),), min_players=16),
)


def test_lookups_follow_the_table_order() -> None:
    assert role_ids(TABLE) == ("wolf", "villager", "seer", "copycat")
    assert by_id(TABLE)["seer"].team == "village"
    assert teams(TABLE) == {
        "wolf": "wolves",
        "villager": "village",
        "seer": "village",
        "copycat": "village",
    }
    assert verb_owners(TABLE) == {"kill": "wolf", "scan": "seer", "copy": "copycat"}
    assert list(priorities(TABLE).items()) == [("scan", 1), ("kill", 3), ("copy", 5)]
    assert knowing_partners(TABLE) == frozenset({"wolf"})
    assert words_of(TABLE) == {"seer": ("VOYANTE",)}


def test_an_action_record_carries_its_own_limits() -> None:
    scan = action_of(TABLE, "scan")
    assert scan is not None and not scan.allow_self and scan.phase == "night"
    copy = action_of(TABLE, "copy")
    assert copy is not None and copy.nights == (2,) and copy.allow_self
    assert action_of(TABLE, "vote") is None


def test_a_prompt_is_read_from_the_record() -> None:
    import pytest

    from pbem.core.roles import prompt_of

    cards = by_id((*TABLE, Role("owl", "village", prompt="game/owl_prompt")))
    assert prompt_of(cards, "owl") == "game/owl_prompt"
    with pytest.raises(KeyError):
        prompt_of(cards, "villager")
