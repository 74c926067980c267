"""Lupus in Tabula's commands (LUP-610..LUP-620)."""

from __future__ import annotations

from pbem.core.commands import CommandSpec, Player, Text

_PLAYER = (Player(),)

COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("scan", ("SONDER",), ("SCAN", "PROBE"), _PLAYER),  # LUP-610
    CommandSpec("protect", ("PROTEGER",), ("PROTECT",), _PLAYER),  # LUP-611
    CommandSpec("kill", ("TUER",), ("KILL",), _PLAYER),  # LUP-612
    CommandSpec("pack", ("LOUPS",), ("PACK",), (Text(),)),  # LUP-613
    CommandSpec("seers", ("VOYANTS",), ("SEERS",), (Text(),)),  # LUP-614
    CommandSpec("nominate", ("NOMMER",), ("NOMINATE",), _PLAYER),  # LUP-615
    CommandSpec("copy", ("IMITER",), ("COPY", "IMITATE"), _PLAYER),  # LUP-616
    CommandSpec("vote", ("VOTE", "VOTER"), ("VOTE",), _PLAYER, public=True),  # LUP-617..619
    CommandSpec("unvote", ("RETIRER",), ("UNVOTE",), (), public=True),  # LUP-620
)
