"""Issue 10, item 18: on the list, a name given by a prefix counts only when the line is the
vote and nothing else; a full name may be followed by comments.

Prefix matching turned debate into votes: "Vote blanc pour moi" was VOTE Blanche, "Vote pas
trop vite !" VOTE Pascal. Such a line is now debate, and its poster is told why it did not
count (no vote is lost without a word).
"""

from __future__ import annotations

import pytest

from pbem.core.ids import PlayerId
from tests.support.game_by_mail import Game

ROLES = {
    "Alice": "werewolf",
    "Bob": "werewolf",
    "Carol": "seer",
    "Blanche": "villager",
    "Pascal": "villager",
    "Erin": "villager",
    "Frank": "villager",
    "Gina": "villager",
}


def voting_game() -> Game:
    g = Game(ROLES)
    g.until("round1")
    return g


@pytest.mark.parametrize(
    "line", ["Vote blanc pour moi", "Vote pas trop vite !", "VOTE Blan, on verra demain"]
)
def test_prefix_followed_by_debate_is_not_a_vote(line: str) -> None:
    g = voting_game()
    g.post("Carol", f"Bon.\n{line}")
    assert g.state.votes == {}
    reply = g.reply()
    assert "is not the whole name of any player" in reply and "read as debate" in reply


@pytest.mark.parametrize(
    ("line", "target"),
    [
        ("Vote pas", "Pascal"),  # a prefix alone on its line is a vote
        ("VOTE blanc !", "Blanche"),  # punctuation is not more words
        ("VOTE Pascal parce qu'il ment", "Pascal"),  # a full name may carry a comment
        ("vote pascal, pas trop vite", "Pascal"),
    ],
)
def test_vote_alone_or_with_full_name_counts(line: str, target: str) -> None:
    g = voting_game()
    g.post("Carol", line)
    assert g.state.votes == {PlayerId("Carol"): PlayerId(target)}


def test_private_commands_still_take_prefixes() -> None:
    """Private orders are exact lines already (extra words are refused): prefixes stay."""
    g = Game(ROLES)
    g.mail("Alice", "KILL pasc")
    assert "KILL Pascal" in g.reply()
