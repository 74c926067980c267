"""``pbem open-game``: a game opened for sign-ups by mail, which the running daemon picks up.

Like ``pbem new-game`` it writes a new game directory and renames it into place (the daemon is
the single writer of what exists), with the announcement queued in its outbox; the game's
setup holds everything ``new-game`` takes except the players, plus the ``signup`` terms.
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.cli.common import about, existing_data_dir, fail, load_config, queued
from pbem.cli.newgame import (
    add_admin_secret_option,
    admin_code,
    create_game,
    print_admin_code,
    setup_from_args,
)
from pbem.core.errors import CommandError, PbemError, SetupError


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``open-game`` on ``pbem``'s subparsers."""
    p = sub.add_parser(
        "open-game",
        help="open a game for sign-ups by mail (the daemon starts it when full or at the deadline)",
        **about(
            "Open a game without players: pbem posts the announcement on the list "
            "(the game, the deck for each count the rules accept, how to join, the deadline), "
            "players sign up by mail (INSCRIPTION/JOIN [name] [il|elle|he|she|they], "
            "DESINSCRIPTION/LEAVE, REMPLACANT/SUBSTITUTE), and the game starts when every seat "
            "is taken or at the deadline when the count is one the rules accept; otherwise the "
            "game masters are asked to extend (PROLONGER/EXTEND 24h), start with fewer "
            "(DEMARRER/START) or cancel (ANNULER PARTIE/CANCEL), by mail or `pbem admin`.",
            "pbem open-game --id village7 --seats 8-12 --deadline 3d",
            "pbem open-game --id village8 --game dracula --seats 4 --deadline 2026-12-05T20:00",
        ),
    )
    p.add_argument("--setup", help="a JSON setup file (game, options, seed, lang, admins...)")
    p.add_argument("--game", default="lupus-in-tabula", help="game id (default lupus-in-tabula)")
    p.add_argument("--id", dest="game_id", help="the game's id (plus-address and [tag])")
    p.add_argument(
        "--seats",
        required=True,
        help="the number of seats, or a range MIN-MAX (e.g. 8 or 8-12): the game starts when "
        "MAX have signed up, or at the deadline with MIN or more",
    )
    p.add_argument(
        "--deadline",
        help="when sign-ups close: a duration from now (48h, 3d) or a date "
        "(2026-12-05T20:00, in the config's timezone unless it names one)",
    )
    p.add_argument(
        "--no-start-when-full",
        dest="when_full",
        action="store_false",
        help="wait for the deadline even when every seat is taken (needs --deadline)",
    )
    p.add_argument(
        "--count-every",
        default="1h",
        help="the list sees the sign-up count at most this often, changes in between gathered "
        "in one post (default 1h; 0: one post per change)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        help="an option key=value (repeat); a duration with its unit: night_duration=18h",
    )
    p.add_argument("--seed", type=int, help="RNG seed (default: random)")
    p.add_argument("--lang", choices=("fr", "en"), help="language (default: the config's)")
    p.add_argument(
        "--list",
        dest="list_address",
        help="the game's own list address (default: the setup's, else [list] address)",
    )
    p.add_argument(
        "--admin",
        action="append",
        default=[],
        help="a game master's address (repeat; default: the setup's, else [moderator] admins)",
    )
    add_admin_secret_option(p)
    p.set_defaults(func=cmd_open_game, player=[])


def parse_seats(text: str) -> tuple[int, int]:
    """``8`` or ``8-12``."""
    m = re.fullmatch(r"\s*(\d{1,3})\s*(?:-\s*(\d{1,3})\s*)?", text)
    if m is None:
        raise SetupError(f"--seats {text!r}: expected a number or a range such as 8-12")
    low = int(m[1])
    return low, int(m[2]) if m[2] else low


def parse_deadline(text: str, now: datetime, timezone: str) -> datetime:
    """A duration from ``now`` (``48h``, ``3d``) or an ISO date (local to ``timezone``)."""
    from pbem.desk.kernel import parse_duration

    try:
        return now + parse_duration(text)
    except CommandError:
        pass
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise SetupError(
            f"--deadline {text!r}: expected 48h, 3d or a date such as 2026-12-05T20:00"
        ) from None
    if when.tzinfo:
        return when
    from zoneinfo import ZoneInfo  # here: its tz database path costs every pbem start

    return when.replace(tzinfo=ZoneInfo(timezone))


def parse_every(text: str) -> timedelta:
    """``--count-every``'s duration (``0`` for none); anything else: a SetupError."""
    from pbem.desk.kernel import parse_duration

    if text.strip() in ("0", "0h", "0m"):
        return timedelta(0)
    try:
        return parse_duration(text)
    except CommandError:
        raise SetupError(f"--count-every {text!r}: expected 0, 30m, 1h...") from None


def signup_setup(args: argparse.Namespace, cfg: Any, now: datetime) -> dict[str, Any]:
    """The stored setup of a game opened for sign-ups: what ``new-game`` would store, without
    players, with the ``signup`` terms."""

    setup = setup_from_args(args, cfg)
    if setup.get("players"):
        raise SetupError("a game opened for sign-ups has no players yet: remove 'players'")
    setup.pop("players", None)
    admins = (
        [a.strip().lower() for a in args.admin] or list(setup.get("admins", [])) or list(cfg.admins)
    )
    setup["admins"] = admins
    if args.list_address:
        from pbem.mail.address import is_mailable

        setup["list"] = args.list_address.strip()
        if not is_mailable(setup["list"]):  # its public posts would bounce, unseen
            raise SetupError(f"--list {args.list_address!r}: not a mail address")
    low, high = parse_seats(args.seats)
    deadline = parse_deadline(args.deadline, now, setup["timezone"]) if args.deadline else None
    setup["signup"] = {
        "seats": [low, high],
        "deadline": deadline.astimezone(UTC).isoformat() if deadline else None,
        "when_full": bool(args.when_full),
        "count_every_seconds": parse_every(args.count_every).total_seconds(),
        # nobody sees codes printed here: with 'secret' among the [auth] layers, the start
        # mails each player his own (pbem.signup.codes)
        "secrets": "secret" in (*cfg.auth.methods, *(cfg.auth.final_methods or ())),
    }
    return setup


def _local(when: str, timezone: str) -> str:
    """A stored UTC instant as the game master reads a deadline (as ``pbem status`` shows
    it): the game's time zone, to the minute (it was ISO UTC with microseconds)."""
    from zoneinfo import ZoneInfo

    local = datetime.fromisoformat(when).astimezone(ZoneInfo(timezone))
    return f"{local:%a %d %b %Y %H:%M} {local.tzname()} ({timezone})"


class _Opener:
    """The engine ``create_game`` writes with: the game opens as its lobby."""

    @staticmethod
    def new(setup: Any, now: datetime) -> tuple[Any, Any]:
        """A new game's table: its lobby (:class:`pbem.signup.table.SignupTable`)."""
        from pbem.signup.table import SignupTable

        return SignupTable.open(setup, now)


def cmd_open_game(args: argparse.Namespace) -> int:
    """``pbem open-game``: open a game for sign-ups on its list and print its terms."""
    now = datetime.now(UTC)
    try:
        cfg = load_config(args)
        existing_data_dir(cfg)
        setup = signup_setup(args, cfg, now)
        code = admin_code(args, cfg, setup)
        table, rows, _codes = create_game(cfg, setup, _Opener, now, False, code)
    except (PbemError, OSError, ValueError) as exc:
        return fail("open-game", exc)
    local, _, domain = cfg.moderator.partition("@")
    terms = setup["signup"]
    low, high = terms["seats"]
    seats = f"{low}" if low == high else f"{low}-{high}"
    print(f"game {setup['game_id']} opened for sign-ups ({setup['game']}, {seats} seats)")
    print(f"counts the rules accept: {', '.join(map(str, table.legal_in_range))}")
    for deck in table.decks:  # the shipped table's odds for the proposed deck (pbem balance)
        if deck["odds"]:
            camps = ", ".join(f"{c['side']} {c['rate']} %" for c in deck["odds"]["camps"])
            games = deck["odds"]["games"]
            print(f"  at {deck['count']}: simulated {camps} ({games} random-bot games)")
    print(
        f"players write INSCRIPTION/JOIN to {local}+{setup['game_id']}@{domain} "
        f"or put [{setup['game_id']}] in the Subject"
    )
    if terms["deadline"]:
        print(f"sign-ups close {_local(terms['deadline'], setup['timezone'])}")
    print_admin_code(code, cfg, setup)
    print(f"{len(rows)} mail(s) queued (the announcement); {queued('open-game', cfg)} sends them")
    return 0


__all__ = ["add_commands", "cmd_open_game", "parse_seats", "signup_setup"]
