"""What the sender checks ask of a game opened for sign-ups (issue 13).

Before the start, the lobby's volunteers have no secret code yet: their sign-up commands are
checked without the ``secret`` layer (the registered From still counts). From the start on,
each player's code is the one the start mailed him, kept hashed in the ``signup.started``
event (:mod:`pbem.signup.codes`), on top of any the head holds (``new-game --secrets``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from pbem.daemon.config import AuthConfig
from pbem.daemon.ports import Game
from pbem.signup.codes import started_secrets
from pbem.signup.table import SignupTable, is_signup


def auth_for(game: Game, auth: AuthConfig) -> AuthConfig:
    """``auth`` without the ``secret`` layer while the game still takes sign-ups."""
    table = game.table
    if not isinstance(table, SignupTable) or table.started:
        return auth
    methods = tuple(m for m in auth.methods if m != "secret") or ("registered",)
    final = auth.final_methods
    return replace(
        auth,
        methods=methods,
        final_methods=tuple(m for m in final if m != "secret") if final is not None else None,
    )


def player_secrets(game: Game) -> Mapping[str, Mapping[str, str]]:
    """The players' hashed codes: the head's, and those the start of a sign-up game mailed."""
    stored: dict[str, Mapping[str, str]] = dict(game.store.meta.get("secrets", {}))
    if not is_signup(game.store.setup):
        return stored
    table = game.table
    events = table.events if isinstance(table, SignupTable) else game.store.events()
    return {**stored, **started_secrets(events)}


__all__ = ["auth_for", "player_secrets"]
