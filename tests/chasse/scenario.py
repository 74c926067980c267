"""Drivers for the Chasse aux sorcières tests: the rules directly, and the mail pipeline."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from pbem.core.commands import parse_line
from pbem.core.errors import CommandError
from pbem.core.events import Event, Notice
from pbem.core.game import GameSpec, PlayerSpec
from pbem.core.ids import PlayerId
from pbem.games.chasse import ChasseAuxSorcieres
from pbem.games.chasse.state import ChasseState
from pbem.tools.simulate import simulate

NAMES = (
    "alice",
    "bob",
    "carol",
    "dave",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "niaj",
    "olivia",
    "peggy",
)
DEAL: Mapping[str, str] = {
    "alice": "phoebe",
    "bob": "prue",
    "carol": "coop",
    "dave": "demon",
    "erin": "demon",
    "frank": "demon",
    "grace": "piper",
    "heidi": "paige",
    "ivan": "leo",
    "judy": "billie",
    "mallory": "cole",
    "niaj": "innocent",
    "olivia": "innocent",
    "peggy": "innocent",
}
LEFTOVER = ("demon", "innocent")
T0 = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)


def deal(**changes: str) -> dict[str, str]:
    """The default deal with some players' cards changed."""
    return {**DEAL, **changes}


class Game:
    """A game driven through ``rules.decide`` / ``rules.on_deadline`` (English keywords)."""

    def __init__(
        self,
        roles: Mapping[str, str] | None = None,
        leftover: Iterable[str] = LEFTOVER,
        penny: str = "peggy",
        seed: int = 1,
        seating: Iterable[str] = NAMES,
        **options: Any,
    ) -> None:
        self.rules = ChasseAuxSorcieres()
        players = tuple(PlayerSpec(PlayerId(n), f"{n}@example.org", "en") for n in seating)
        opts = {"penny_player": penny, **options}
        spec = GameSpec(players, opts, "en", dict(roles or DEAL), tuple(leftover))
        self.now = T0
        self.rng = random.Random(seed)
        self.events: list[Event] = list(self.rules.setup(spec, self.now, self.rng))
        self.state: ChasseState = self.rules.fold(self.events)
        self.last: list[Event] = list(self.events)

    # -- acting ----------------------------------------------------------------------------
    def do(self, actor: str, line: str, channel: str = "private") -> list[Event]:
        command = parse_line(line, self.rules.all_commands, self.rules.names(self.state))
        assert command is not None, line
        new = self.rules.decide(self.state, PlayerId(actor), command, self.now, channel)
        return self._apply(new)

    def vote(self, actor: str, target: str) -> list[Event]:
        return self.do(actor, f"VOTE {target}", "list")

    def fails(self, actor: str, line: str, channel: str = "private") -> CommandError:
        before = self.state
        with pytest.raises(CommandError) as info:
            self.do(actor, line, channel)
        assert self.state is before
        return info.value

    def deadline(self, key: str | None = None) -> list[Event]:
        pending = self.rules.deadlines(self.state)
        assert pending, "no deadline pending"
        if key is None:
            key, when = min(pending.items(), key=lambda kv: kv[1])
        else:
            when = pending[key]
        self.now = max(self.now, when)
        return self._apply(self.rules.on_deadline(self.state, key, self.now, self.rng))

    def until(self, phase: str, number: int | None = None) -> list[Event]:
        """Pass deadlines until ``phase`` (of night/day ``number``) starts; the events."""
        out: list[Event] = []
        for _ in range(50):
            if self.state.phase == phase and (number is None or self.state.number == number):
                return out
            out += self.deadline()
        raise AssertionError(f"never reached {phase} {number}")

    def _apply(self, new: list[Event]) -> list[Event]:
        self.events += new
        self.state = self.rules.fold(new, self.state)
        self.last = new
        return new

    # -- reading ---------------------------------------------------------------------------
    def role(self, player: str) -> str:
        return self.state.seat(PlayerId(player)).role

    def alive(self, player: str) -> bool:
        return self.state.alive(PlayerId(player))

    @property
    def winners(self) -> list[str]:
        outcome = self.rules.outcome(self.state)
        return sorted(outcome.winners) if outcome else []

    @property
    def side(self) -> str | None:
        outcome = self.rules.outcome(self.state)
        return outcome.side if outcome else None


def notices(
    events: Iterable[Event], template: str | None = None, to: str | None = None
) -> list[Notice]:
    """The notices among ``events``, by template (without ``chasse/``) and recipient."""
    out = []
    for e in events:
        if not isinstance(e, Notice):
            continue
        if template is not None and e.template != f"chasse/{template}":
            continue
        if to is not None and (to == "list") != e.public:
            continue
        if to not in (None, "list") and to not in e.to:
            continue
        out.append(e)
    return out


def recipients(events: Iterable[Event], template: str) -> set[str]:
    return {p for n in notices(events, template) for p in (("list",) if n.public else n.to)}


# -- the mail pipeline ------------------------------------------------------------------------


def setup_line(
    roles: Mapping[str, str] | None = None,
    leftover: Iterable[str] = LEFTOVER,
    lang: str = "en",
    **options: Any,
) -> dict[str, Any]:
    return {
        "setup": {
            "game": "chasse-aux-sorcieres",
            "seed": 7,
            "lang": lang,
            "players": [{"name": n, "email": f"{n}@example.org"} for n in NAMES],
            "roles": dict(roles or DEAL),
            "leftover": list(leftover),
            "options": {"penny_player": "peggy", **options},
        }
    }


def mail(sender: str, body: str, to: str = "moderator") -> dict[str, Any]:
    return {"mail": {"from": f"{sender}@example.org", "to": to, "body": body}}


DEADLINE: dict[str, Any] = {"deadline": True}


def run(lines: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run a transcript through ``pbem simulate``: the mails sent and the final state."""
    out = list(simulate(json.dumps(line) for line in lines))
    mails = [o["mail"] for o in out if "mail" in o]
    return mails, out[-1]["state"]


def mails_to(mails: Iterable[dict[str, Any]], who: str) -> list[dict[str, Any]]:
    address = "list" if who == "list" else f"{who}@example.org"
    return [m for m in mails if address in m["to"]]
