"""A game opened for sign-ups and started: its game's setup and log read from the
``signup.started`` event. Pure and below the Table, which loads a started game through it
(:meth:`pbem.table.table.Table.load`); the engine that loads a lobby is
:mod:`pbem.signup.engine`, above the Table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.errors import SetupError

STARTED = "signup.started"


def started_game(
    setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]
) -> tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]:
    """The setup and log of the game a sign-up started: its setup from ``signup.started``, its
    events after it. SetupError while it still takes sign-ups (there is no game yet)."""
    for index, event in enumerate(events):
        if event.get("type") == STARTED:
            return event["setup"], events[index + 1 :]
    raise SetupError(f"game {setup.get('game_id')!r} is still taking sign-ups: no game yet")


def still_signing_up(setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a stored game is a lobby that has not started (nothing to archive or count)."""
    return "signup" in setup and all(e.get("type") != STARTED for e in events)


__all__ = ["STARTED", "started_game", "still_signing_up"]
