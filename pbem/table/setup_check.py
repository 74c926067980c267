"""Checks a NEW game's setup must pass, beyond its shape (:class:`pbem.table.TableSetup`).

Pure. These are refused when a game is created (``pbem new-game``, ``pbem simulate``), never
when a running game is loaded: a game already stored keeps working whatever it was created
with. Each refusal names the problem (issue 10, items 12, 18 and 19):

- a player's nickname must be one the mail parser can read back (:mod:`pbem.core.names`);
- every player's and admin's address must have a local part and a domain: an empty one would
  be matched by any mail without a From;
- the timezone must exist, and the start must leave room for the game's deadlines, so that no
  deadline of the game can overflow the calendar and stall it (each duration option is at most
  :data:`pbem.core.options.MAX_DURATION`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from pbem.core.errors import SetupError
from pbem.core.game import PlayerSpec
from pbem.core.names import name_problem
from pbem.mail.address import is_mailable

__all__ = ["LATEST_START", "check_new_setup"]

LATEST_START = 9000
"""The last year a game may start in: with durations of at most a year, a thousand years of
phases remain before the calendar ends (``datetime`` stops at 9999)."""
EARLIEST_START = 1970

_name_problem = functools.lru_cache(maxsize=1024)(name_problem)
""":func:`name_problem` kept per name: a pure check of a string, asked of every player of every
game created (1,000 games, issue 23), where the same nicknames come back."""


def check_new_setup(
    players: Sequence[PlayerSpec], admins: Sequence[str], timezone: str, start: datetime
) -> None:
    """Raise :class:`SetupError` naming the first problem of a new game's setup."""
    for player in players:
        problem = _name_problem(player.name)
        if problem is not None:
            raise SetupError(f"setup: player name {player.name!r} {problem}")
        if not is_mailable(player.email):
            raise SetupError(
                f"setup: player {player.name}: {player.email!r} is not a mail address "
                "(it needs a local part and a domain, as in name@example.org)"
            )
    for admin in admins:
        if not is_mailable(admin):
            raise SetupError(f"setup: admin {admin!r} is not a mail address (name@example.org)")
    try:
        ZoneInfo(timezone)
    except (ValueError, OSError, LookupError):  # ZoneInfoNotFoundError is a KeyError
        raise SetupError(f"setup: unknown timezone {timezone!r} (e.g. Europe/Paris)") from None
    if not EARLIEST_START <= start.year <= LATEST_START:
        raise SetupError(
            f"setup: start {start.isoformat()} is out of range "
            f"(years {EARLIEST_START} to {LATEST_START})"
        )
