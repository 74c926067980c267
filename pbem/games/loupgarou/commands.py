"""Loup-Garou's commands."""

from __future__ import annotations

from pbem.core.commands import CommandSpec, Player, Players, Text, Word
from pbem.games.loupgarou.roles import BECOME, BECOME_LABELS, QUESTION_LABELS, QUESTIONS

_PLAYER = (Player(),)

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("bite", ("MORDRE",), ("BITE",), _PLAYER),  # LG-610
    CommandSpec("mayor", ("MAIRE",), ("MAYOR",), _PLAYER),  # LG-611
    CommandSpec("kill", ("TUER",), ("KILL",), _PLAYER),  # LG-612
    CommandSpec("pack", ("LOUPS",), ("PACK",), (Text(),)),  # LG-613
    CommandSpec("scan", ("SONDER",), ("SCAN",), _PLAYER),  # LG-614
    CommandSpec("save", ("SAUVER",), ("SAVE",), (Player(optional=True),)),  # LG-615
    CommandSpec("poison", ("EMPOISONNER",), ("POISON",), _PLAYER),  # LG-616
    CommandSpec(
        "ask",
        ("QUESTION",),
        ("ASK",),
        (Word(QUESTIONS, labels=QUESTION_LABELS), Player(optional=True)),
    ),  # LG-617, LG-618
    CommandSpec("lovers", ("AMOUREUX",), ("LOVERS",), (Players(2),)),  # LG-619
    CommandSpec("charm", ("ENVOUTER",), ("CHARM",), (Players(2, at_most=True),)),  # LG-620
    CommandSpec(
        "become", ("DEVENIR",), ("BECOME",), (Word(BECOME, labels=BECOME_LABELS),)
    ),  # LG-621
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), _PLAYER, public=True),  # LG-622
    CommandSpec("unvote", ("RETIRER",), ("UNVOTE",), (), public=True),  # LG-623
    CommandSpec("decide", ("TRANCHER",), ("DECIDE",), _PLAYER, public=True),  # LG-624
    CommandSpec("sash", ("ECHARPE",), ("SASH",), _PLAYER),  # LG-625
)
