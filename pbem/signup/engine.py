"""How the daemon, ``pbem status`` and the archive load a game opened for sign-ups.

The daemon's engine is the Table class named by ``[daemon] engine``; :func:`with_signups` wraps
it so that a stored game whose setup has a ``signup`` section loads as a
:class:`~pbem.signup.table.SignupTable` while it takes sign-ups and as the game's plain Table
once started. Every other game goes to the configured engine unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

# re-exported: the daemon and `pbem archive` read them from here
from pbem.signup.started import started_game, still_signing_up


class WithSignups:
    """An engine (``new``/``load``) that also loads games opened for sign-ups."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def new(self, setup: Mapping[str, Any], now: datetime) -> tuple[Any, Any]:
        """A new game, from the wrapped engine."""
        return self.engine.new(setup, now)  # type: ignore[no-any-return]

    def load(self, setup: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> Any:
        """A stored game: through :func:`pbem.signup.table.load` if it was opened for sign-ups, else
        the wrapped engine's."""
        if "signup" in setup:
            from pbem.signup.table import load

            return load(setup, events)
        return self.engine.load(setup, events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def with_signups(engine: Any) -> WithSignups:
    """``engine`` that also loads the games ``pbem open-game`` made."""
    return engine if isinstance(engine, WithSignups) else WithSignups(engine)


__all__ = ["WithSignups", "started_game", "still_signing_up", "with_signups"]
