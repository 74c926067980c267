"""A small driver for Dracula scenarios through ``rules.decide`` / ``on_deadline``."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pbem.core.commands import parse_line
from pbem.core.errors import CommandError
from pbem.core.events import Event, Notice
from pbem.core.game import GameSpec, PlayerSpec
from pbem.core.ids import PlayerId
from pbem.games.dracula import Dracula
from pbem.games.dracula.state import DraculaState

NAMES = ("Ana", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lou", "Max")
NOW = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)


def players(lang: str = "en") -> tuple[PlayerSpec, ...]:
    return tuple(PlayerSpec(PlayerId(n), f"{n.lower()}@example.org", lang) for n in NAMES)


class Game:
    """Drives one game; ``log`` keeps every event, ``mark()`` starts a new window."""

    def __init__(
        self, dracula: str = "Ana", options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> None:
        self.rules = Dracula()
        roles = {n: ("dracula" if n == dracula else "human") for n in NAMES}
        spec = GameSpec(players(), dict(options or {}), "en", roles)
        self.now = NOW
        self.rng = random.Random(seed)
        self.log: list[Event] = []
        self.state: DraculaState = self.rules.new_state()
        self._mark = 0
        self._apply(self.rules.setup(spec, NOW, self.rng))

    # -- driving ------------------------------------------------------------------------
    def _apply(self, events: list[Event]) -> list[Event]:
        for e in events:  # round-trip through the codec, as the Table does
            decoded = self.rules.codec.decode(self.rules.codec.encode(e))
            self.state = self.rules.evolve(self.state, decoded)
            self.log.append(decoded)
        return events

    def do(self, actor: str, line: str, channel: str = "private") -> list[Event]:
        specs = [s for s in self.rules.all_commands if (s.public if channel == "list" else True)]
        command = parse_line(line, specs, self.rules.names(self.state))
        assert command is not None, line
        return self._apply(
            self.rules.decide(self.state, PlayerId(actor), command, self.now, channel)
        )

    def fails(self, actor: str, line: str, channel: str = "private") -> str:
        before = self.state
        try:
            self.do(actor, line, channel)
        except CommandError as exc:
            assert self.state is before
            return exc.reason
        raise AssertionError(f"{actor}: {line!r} was accepted")

    def close(self, key: str | None = None) -> list[Event]:
        pending = self.rules.deadlines(self.state)
        assert pending, "no deadline pending"
        if key is None:
            (key,) = pending
        assert key in pending, (key, dict(pending))
        self.now = max(self.now, pending[key])
        return self._apply(self.rules.on_deadline(self.state, key, self.now, self.rng))

    @property
    def phase(self) -> str:
        return self.state.phase

    # -- reading notices ------------------------------------------------------------------
    def mark(self) -> None:
        self._mark = len(self.log)

    def notices(self, template: str | None = None, since_mark: bool = True) -> list[Notice]:
        events = self.log[self._mark :] if since_mark else self.log
        return [
            e
            for e in events
            if isinstance(e, Notice) and (template is None or e.template == f"dracula/{template}")
        ]

    def to(self, player: str, template: str, since_mark: bool = True) -> list[Notice]:
        return [n for n in self.notices(template, since_mark) if player in n.to]

    def public(self, template: str, since_mark: bool = True) -> list[Notice]:
        return [n for n in self.notices(template, since_mark) if n.public]

    # -- scenario helpers -----------------------------------------------------------------
    def rooms(
        self, rooms: Mapping[str, str], default: str = "torture", skip: tuple[str, ...] = ()
    ) -> None:
        """Every player who must choose sends a room (``rooms`` or ``default``)."""
        from pbem.games.dracula.night import must_choose_room

        for p in self.state.living():
            if p in skip:
                continue
            if must_choose_room(self.state, p) and self.state.order_of(p, "room") is None:
                self.do(p, f"ROOM {rooms.get(p, default)}")

    def night(
        self,
        rooms: Mapping[str, str],
        bites: Mapping[str, str] | None = None,
        default: str = "torture",
    ) -> None:
        """From the room choice to the end of the bite step (no dance)."""
        assert self.phase == "rooms", self.phase
        self.rooms(rooms, default)
        self.close("rooms")
        if self.phase == "dracula_room":
            d = self.state.dracula()
            self.do(d, f"ROOM {rooms.get(d, default)}")
            self.close("dracula_room")
        if self.phase == "magnifier":
            for p in self.state.living():
                if self.state.order_of(p, "magnifier") and not self.state.order_of(p, "room"):
                    self.do(p, f"ROOM {rooms.get(p, default)}")
            self.close("magnifier")
        assert self.phase == "bites", self.phase
        for v, t in (bites or {}).items():
            self.do(v, f"BITE {t}" if t != "NOBODY" else "BITE NOBODY")
        self.close("bites")

    def finish_night(self) -> None:
        while self.phase in ("dance_reply", "dawn_curse"):
            self.close()

    def day(self, votes: list[tuple[str, str]] = ()) -> None:  # type: ignore[assignment]
        assert self.phase == "day", self.phase
        for voter, target in votes:
            self.do(voter, f"VOTE {target}", "list")
        self.close("day")
        if self.phase == "pairing":
            self.close("pairing")

    def side(self, p: str) -> str:
        return self.state.seat(PlayerId(p)).side

    # -- test fixtures built from events --------------------------------------------------
    def give(self, player: str, *objects: str) -> None:
        from pbem.games.dracula.events import Moved

        self._apply([Moved(tuple(objects), "gone", f"hand:{player}", "test")])

    def clear_hands(self) -> None:
        from pbem.games.dracula.events import Moved

        for p in NAMES:
            hand = self.state.seat(PlayerId(p)).hand
            if hand:
                self._apply([Moved(hand, f"hand:{p}", "gone", "test")])

    def convert(self, player: str) -> None:
        from pbem.games.dracula.events import Converted

        self._apply([Converted(PlayerId(player), ())])


def advance(g: Game, night: int, *, clear: bool = True) -> Game:
    """Play quietly to the room choice of ``night``: Ana (Dracula) bites Bob on Night 1 in
    the boudoir; afterwards Bob sits alone in the dungeons and Ana abstains, nobody is
    designated (``fill_empty_seats = none``) and no object is picked up."""
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    while g.state.number < night:
        g.day()
        g.night({"Bob": "dungeons"})
        g.finish_night()
    g.day()
    if clear:
        g.clear_hands()
    assert g.phase == "rooms" and g.state.number == night
    return g


def designated_night_3(options: Mapping[str, Any]) -> Game:
    """:func:`advance` to Night 2's end, then a Day 3 whose votes send Bob, Cid and Dan to
    the sanctuary (DRA-048): Night 3's room choice, hands emptied."""
    g = advance(Game(options=dict(options)), 2)
    g.night({"Bob": "dungeons"})
    g.finish_night()
    for voter, target in (("Cid", "Bob"), ("Dan", "Cid"), ("Eve", "Dan")):
        g.do(voter, f"VOTE {target}", "list")
    g.close("day")
    g.clear_hands()
    return g


QUIET = {"fill_empty_seats": "none"}


def table_from(
    g: Game,
    admins: list[str] | None = None,
    lang: str = "en",
    genders: Mapping[str, str] | None = None,
) -> Any:
    """A :class:`~pbem.table.Table` over the game's log, to send it real mails (the
    players write in ``lang``; ``genders``: what some of them said, « f » or « m »)."""
    from pbem.table import Table, TableSetup

    setup = TableSetup.from_mapping(
        {
            "game": "dracula",
            "seed": 1,
            "lang": lang,
            "players": [
                {"name": n, "email": f"{n.lower()}@example.org"}
                | ({"gender": genders[n]} if genders and n in genders else {})
                for n in NAMES
            ],
            "moderator": "mj@example.org",
            "list": "list@example.org",
            "admins": admins or [],
        }
    )
    return Table(setup, g.rules, list(g.log))


def mail(sender: str, body: str, to: str = "list@example.org", subject: str = "") -> Any:
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"] = f"{sender.lower()}@example.org"
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{abs(hash((sender, body)))}@test>"
    msg.set_content(body)
    return msg
