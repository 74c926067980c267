"""Removing a seat (``RETIRER``, the idle policy): the generic part, and each game's hook.

A removal is ``SeatRemoved`` (why, and who decided) then ``PlayerDied(player, "removed")``:
every game already knows what a dead seat may no longer do. What the death *triggers* is each
game's decision, in its hook (``REMOVALS``), written down with the rules it rests on in
docs/seats.md: a lover's grief, a Mayor's sash, Prue's revenge, the victory check. The
announcement (« Alice a été retirée de la partie pour inactivité ») is the ``seats/removed``
notice, the removed seat's card shown or not per the ``removal_reveal`` option.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.core.errors import IllegalNow
from pbem.core.events import Event, PlayerDied, SeatRemoved, private, public
from pbem.core.game import Rules
from pbem.core.idle import IdleOptions
from pbem.core.ids import PlayerId
from pbem.games.aftermath import Aftermath

THREAD = "seats"
IDLE = "idle"
"""``SeatRemoved.by`` of a removal by the idle policy (else the admin's address)."""


Hook = Callable[[Any, Any, PlayerId, datetime, random.Random], Aftermath]
"""``(rules, state with the seat dead, player, now, rng) -> Aftermath``."""

Refusal = Callable[[Any, PlayerId], None]
"""Raises a CommandError when a game cannot lose this seat (Dracula's holder)."""


@dataclass(frozen=True)
class GameRemoval:
    """A game's removal decisions: its hook, whether its deaths show the card (what
    ``removal_reveal = "as_death"`` follows), and a check run before anything happens."""

    hook: Hook
    death_reveals: bool
    refuse: Refusal | None = None


def _later(module: str, name: str) -> Callable[..., Any]:
    """The function ``name`` of a game's ``module``, imported on its first call: a daemon that
    runs one game does not import the others (start-up cost)."""

    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args)

    return call


_LUPUS = "pbem.games.lupus.removal"
_LOUPGAROU = "pbem.games.loupgarou.removal"
_CHASSE = "pbem.games.chasse.removal"
_DRACULA = "pbem.games.dracula.removal"

REMOVALS: Mapping[str, GameRemoval] = {
    "lupus-in-tabula": GameRemoval(_later(_LUPUS, "aftermath"), False),  # LUP-103: never shown
    "loup-garou": GameRemoval(_later(_LOUPGAROU, "aftermath"), True),  # LG-100
    "chasse-aux-sorcieres": GameRemoval(_later(_CHASSE, "aftermath"), True),  # CAS-100
    "dracula": GameRemoval(
        _later(_DRACULA, "aftermath"), True, _later(_DRACULA, "refuse")
    ),  # DRA-184
}


def alive(rules: Rules[Any], state: Any, player: PlayerId) -> bool:
    """Whether ``player`` is still in the game (every game lists the living in its summary)."""
    seats = rules.summary(state).get("players", [])
    return any(s.get("name") == player and s.get("alive") for s in seats)


def check_removable(rules: Rules[Any], state: Any, player: PlayerId) -> None:
    """Refuse a removal the game cannot take (CommandError); nothing otherwise."""
    if rules.outcome(state) is not None:
        raise IllegalNow("desk_over")
    if not alive(rules, state, player):
        raise IllegalNow("remove_dead", name=player)
    game = REMOVALS.get(rules.id)
    if game is not None and game.refuse is not None:
        game.refuse(state, player)


def removal_events(
    rules: Rules[Any],
    state: Any,
    player: PlayerId,
    *,
    reason: str,
    by: str,
    now: datetime,
    rng: random.Random,
) -> list[Event]:
    """The events of removing ``player``, decided ``by`` an admin (his address; ``reason``: his
    words) or the idle policy (:data:`IDLE`); raises a CommandError if the game cannot take it
    (:func:`check_removable`)."""
    check_removable(rules, state, player)
    role = _role(rules, state, player)
    events: list[Event] = [SeatRemoved(player, reason, by), PlayerDied(player, "removed")]
    state = rules.fold(events, state)
    game = REMOVALS.get(rules.id)
    after = game.hook(rules, state, player, now, rng) if game else Aftermath()
    options = getattr(state, "options", None)
    wanted = options.removal_reveal if isinstance(options, IdleOptions) else "as_death"
    reveal = wanted == "always" or (wanted == "as_death" and (game is None or game.death_reveals))
    params = {
        "player": player,
        "idle": by == IDLE,
        "reason": "" if by == IDLE else reason,
        "role": role if reveal else None,
        "deaths": [dict(d) for d in after.deaths],
        "names": f"{rules.templates}/_names.jinja",
        **after.params,
    }
    return [
        *events,
        *after.events,
        public("seats/removed", THREAD, **params),
        private("seats/removed_you", [player], THREAD, idle=by == IDLE, reason=params["reason"]),
        *after.ending,
    ]


def _role(rules: Rules[Any], state: Any, player: PlayerId) -> str:
    seats: Sequence[Mapping[str, Any]] = rules.summary(state).get("players", [])
    return next((str(s.get("role", "")) for s in seats if s.get("name") == player), "")
