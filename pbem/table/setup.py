"""A game's fixed parameters: :class:`TableSetup`, the ``setup`` of a transcript or of a
stored game, checked for its shape (its players, options, admins, bench...)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pbem.core.draws import SCHEMES
from pbem.core.errors import SetupError
from pbem.core.frozen import quick_init
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.core.names import CONTROL_PROBLEM
from pbem.mail.grammar import parse_gender
from pbem.mail.render import LANGS


@quick_init  # one per game created or loaded: fifteen fields set at once (issue 23)
@dataclass(frozen=True)
class TableSetup:
    """A game's fixed parameters (the ``setup`` of a transcript, plus addresses)."""

    game: str
    game_id: str
    seed: int
    lang: str
    players: tuple[PlayerSpec, ...]
    options: Mapping[str, Any]
    roles: Mapping[str, str] | None
    leftover: tuple[str, ...] | None
    moderator: str
    list_address: str
    timezone: str = "UTC"
    admins: tuple[str, ...] = ()
    deal_salt: str | None = None
    seed_scheme: int = 1
    """How every draw derives from ``seed`` (pbem/record/seed.py); new schemes get a number."""
    """The secret salt of the deal's commitment (pbem/record/deal.py); None: no commitment."""
    bench: tuple[Mapping[str, Any], ...] = ()
    """Volunteers beyond the seats (``pbem open-game``'s sign-ups, pbem.signup): each a
    ``name``, ``email`` and optional ``pronoun``/``lang``, in the order they signed up; the
    substitutes a seat may be handed to."""

    @cached_property
    def seats(self) -> tuple[PlayerId, ...]:
        """Every seat, in the setup's order: the readers of each public notice's page (made
        once, not per notice)."""
        return tuple(PlayerId(p.name) for p in self.players)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TableSetup:
        """Validate a setup mapping; SetupError names the first problem."""
        unknown = sorted(data.keys() - _KNOWN_KEYS)
        if unknown:
            raise SetupError(f"setup: unknown key {unknown[0]!r}")
        game = data.get("game")
        if not isinstance(game, str):
            raise SetupError("setup: 'game' is missing")
        lang = data.get("lang", "fr")
        if lang not in LANGS:
            raise SetupError(f"setup: lang must be one of {', '.join(LANGS)}, not {lang!r}")
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SetupError("setup: seed must be an integer")
        seed_scheme = data.get("seed_scheme", 1)
        if seed_scheme not in SCHEMES or isinstance(seed_scheme, bool):
            raise SetupError(f"setup: seed_scheme must be one of {sorted(SCHEMES)}")
        raw_players = data.get("players")
        if not isinstance(raw_players, list) or not raw_players:
            raise SetupError("setup: 'players' must be a non-empty list")
        players = tuple(_player(p, lang) for p in raw_players)
        _check_unique(players)
        roles = data.get("roles")
        if roles is not None and not (
            isinstance(roles, dict) and all(isinstance(v, str) for v in roles.values())
        ):
            raise SetupError("setup: 'roles' must map player names to role ids")
        leftover = data.get("leftover")
        if leftover is not None and not (
            isinstance(leftover, list) and all(isinstance(v, str) for v in leftover)
        ):
            raise SetupError("setup: 'leftover' must be a list of role ids")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise SetupError("setup: 'options' must be an object")
        admins = data.get("admins", [])
        if not isinstance(admins, list) or not all(isinstance(a, str) for a in admins):
            raise SetupError("setup: 'admins' must be a list of addresses")
        deal_salt = data.get("deal_salt")
        if deal_salt is not None and not (
            isinstance(deal_salt, str) and re.fullmatch(r"[0-9a-f]{8,128}", deal_salt)
        ):
            raise SetupError("setup: 'deal_salt' must be 8 to 128 lowercase hex digits")
        bench = data.get("bench", [])
        if not isinstance(bench, list) or not all(
            isinstance(b, dict)
            and isinstance(b.get("name"), str)
            and isinstance(b.get("email"), str)
            for b in bench
        ):
            raise SetupError("setup: 'bench' must be a list of {name, email} objects")
        return cls(
            game=game,
            game_id=str(data.get("game_id", game)),
            seed=seed,
            lang=lang,
            players=players,
            options=options,
            roles=roles,
            leftover=tuple(leftover) if leftover is not None else None,
            moderator=str(data.get("moderator", "moderator")),
            list_address=str(data.get("list", "list")),
            timezone=str(data.get("timezone", "UTC")),
            admins=tuple(a.strip().lower() for a in admins),
            deal_salt=deal_salt,
            seed_scheme=seed_scheme,
            bench=tuple(dict(b) for b in bench),
        )


_KNOWN_KEYS = frozenset(
    {
        "game",
        "game_id",
        "seed",
        "lang",
        "players",
        "options",
        "roles",
        "leftover",
        "moderator",
        "list",
        "timezone",
        "start",
        "admins",
        "deal_salt",
        "seed_scheme",
        "bench",
    }
)
"""The keys a setup may hold (:meth:`TableSetup.from_mapping`)."""


def _player(data: object, lang: str) -> PlayerSpec:
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("name"), str)
        or not isinstance(data.get("email"), str)
    ):
        raise SetupError("setup: each player needs a 'name' and an 'email'")
    # LUP-D28 as amended by issue 13: a name may hold single spaces (« Jean Pierre »); the
    # matcher reads it whole (pbem.core.commands), so only runs of spaces are normalised; a
    # line break is refused as a sign-up refuses it (issue 21, item 15: pbem.core.names)
    if not data["name"].isprintable():
        raise SetupError(f"setup: player name {data['name']!r} {CONTROL_PROBLEM}")
    name = " ".join(data["name"].split())
    if not name:
        raise SetupError("setup: a player's name is empty")
    plang = data.get("lang", lang)
    if plang not in LANGS:
        raise SetupError(f"setup: player {name}: lang must be one of {', '.join(LANGS)}")
    try:  # "gender": "f" | "m", or a pronoun: "elle" / "il", "she" / "he" / "they"
        gender = parse_gender(data.get("gender", data.get("pronoun")))
    except ValueError:
        raise SetupError(
            f"setup: player {name}: gender must be m or f (or pronoun il/elle, he/she/they)"
        ) from None
    return PlayerSpec(PlayerId(name), data["email"].strip(), plang, gender)


def _check_unique(players: Sequence[PlayerSpec]) -> None:
    seen_names: set[str] = set()
    seen_mails: set[str] = set()
    for p in players:
        name, mail = fold(p.name), p.email.lower()
        if name in seen_names:
            raise SetupError(f"setup: two players are called {p.name} (names are case-insensitive)")
        if mail in seen_mails:
            raise SetupError(f"setup: two players share the address {p.email}")
        seen_names.add(name)
        seen_mails.add(mail)
