"""Typed identifiers shared by every game."""

from __future__ import annotations

from typing import NewType

PlayerId = NewType("PlayerId", str)
"""A player's nickname as registered: unique in a game, the key of every player table."""

RoleId = NewType("RoleId", str)
"""A role (card) id as listed in DESIGN.md, e.g. ``"werewolf"``."""
