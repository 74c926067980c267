"""Chasse aux sorcières' commands."""

from __future__ import annotations

from pbem.core.commands import CommandSpec, Player, Players, Text, Word
from pbem.games.chasse.roles import ROLE_WORDS

_PLAYER = (Player(),)

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("take", ("PRENDRE",), ("TAKE",), (Word(ROLE_WORDS),)),  # CAS-610
    CommandSpec("keep", ("GARDER",), ("KEEP",)),  # CAS-611
    CommandSpec("lovers", ("AMOUREUX",), ("LOVERS",), (Players(2),)),  # CAS-612
    CommandSpec("scan", ("SONDER",), ("SCAN", "PROBE"), _PLAYER),  # CAS-613
    CommandSpec("kill", ("TUER",), ("KILL",), _PLAYER),  # CAS-614
    CommandSpec("council", ("CONSEIL",), ("COUNCIL",), (Text(),)),  # CAS-615
    CommandSpec("swap", ("ECHANGER",), ("SWAP",), _PLAYER),  # CAS-616
    CommandSpec("burn", ("BRULER",), ("BURN",), _PLAYER),  # CAS-617
    CommandSpec("heal", ("GUERIR",), ("HEAL",), (Player(optional=True),)),  # CAS-618
    CommandSpec("revenge", ("VENGEANCE",), ("REVENGE",), _PLAYER),  # CAS-619
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), _PLAYER, public=True),  # CAS-620
    CommandSpec("unvote", ("RETIRER",), ("UNVOTE",), (), public=True),  # CAS-621
    CommandSpec("choose", ("DESIGNER",), ("CHOOSE",), _PLAYER, public=True),  # CAS-622
    CommandSpec("spare", ("SAUVER",), ("SPARE",), _PLAYER),  # CAS-623
)
