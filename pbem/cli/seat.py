"""``pbem seat replace GAME SEAT NEW-EMAIL``: a seat changes hands, from the shell (issue 13).

The daemon is the single writer: the command queues the desk's ``REPLACE`` line in the
``pbem admin`` spool (pbem/daemon/operator/admin.py), and the running daemon applies it as if the
game's first administrator had mailed it (pbem/desk/replace.py, the checks in pbem/seats/substitution.py),
then mails the reply to the game's administrators.
"""

from __future__ import annotations

import argparse
from typing import Any

from pbem.cli.common import (
    about,
    add_wait_options,
    fail,
    load_config,
    no_answer,
    queue_request,
    queued,
    wait_needs_the_daemon,
)
from pbem.core.errors import PbemError

PRONOUNS = ("il", "elle", "iel", "he", "she", "they")


def add_commands(sub: Any) -> None:
    """``pbem seat replace``."""
    seat = sub.add_parser(
        "seat",
        help="change who holds a seat of a running game (via the daemon)",
        description="Change who holds a seat of a running game: pbem seat replace --help.",
    )
    ssub = seat.add_subparsers(dest="seat_command", required=True)
    p = ssub.add_parser(
        "replace",
        help="give a living seat to a newcomer (mailed the seat's file)",
        **about(
            "Queue REPLACE SEAT WITH NEW-EMAIL [NAME] [PRONOUN] for the running "
            "daemon: the newcomer takes the seat (its role, votes and history), gets the "
            "hand-over packet (the role card and every private mail the seat received, then "
            "what is awaited now), the list is told, and the old address is refused from then "
            "on. Only a living seat is replaced. The seat takes NAME unless the game's option "
            "substitute_name is 'kept'. NEW-EMAIL may instead be the name of a volunteer on "
            "the game's bench (REMPLACANT/SUBSTITUTE by mail). The reply is mailed to the "
            "game's administrators.",
            "pbem seat replace village7 Bob newcomer@example.org --name Zoé --pronoun elle",
            "pbem seat replace village7 Bob Carla     # Carla, a volunteer of the bench",
        ),
    )
    p.add_argument("game", help="the game's id")
    p.add_argument("seat", help="the seat's player name (as in pbem status)")
    p.add_argument("newcomer", metavar="NEW-EMAIL", help="the newcomer's address (or bench name)")
    p.add_argument("--name", help="the newcomer's name in the game (spaces allowed)")
    p.add_argument(
        "--pronoun", choices=PRONOUNS, help="how the texts address the newcomer (agreement)"
    )
    add_wait_options(p)
    p.set_defaults(func=cmd_seat_replace)


def replace_line(
    seat: str, newcomer: str, name: str | None, pronoun: str | None, lang: str = "en"
) -> str:
    """The desk's line for a replacement, in the game's language: the desk reads both, and
    its receipt to the game masters quotes the line (no English in a French mail)."""
    verb, joint = ("REMPLACER", "par") if lang == "fr" else ("REPLACE", "WITH")
    return " ".join([verb, seat, joint, newcomer_words(newcomer, name, pronoun)])


def newcomer_words(newcomer: str, name: str | None, pronoun: str | None) -> str:
    """What follows ``par``/``WITH``: the address or bench name, the name, the pronoun."""
    words = [newcomer]
    words += [" ".join(name.split())] if name else []
    words += [pronoun] if pronoun else []
    return " ".join(words)


def check_replacement(cfg: Any, directory: Any, seat: str, newcomer: str) -> str:
    """The game's language, once what can be checked before the daemon is asked (issue 21, item 9), by the rules the desk
    applies (pbem/seats/substitution.py) to the game as stored: the seat, the newcomer's address (mailable,
    holding no seat, no game master's) or bench name, his name. A PbemError says why, in the
    words the desk's reply would use; what only the daemon can decide is left to it."""
    from pbem.adapters.store import GameStore
    from pbem.core.errors import CommandError
    from pbem.daemon.engine import load_engine
    from pbem.seats.substitution import parse_newcomer, substitution

    store = GameStore(directory, readonly=True)
    lang = str(store.setup.get("lang") or "en")
    table: Any = load_engine(cfg.engine).load(store.setup, store.events())
    roster = getattr(table, "roster", None)
    if roster is None or not hasattr(table, "reason"):  # the lobby takes no REPLACE
        raise PbemError(
            f"game {store.game_id} is taking sign-ups: nobody holds a seat before its start "
            "(a player leaves with DESINSCRIPTION/LEAVE, a newcomer joins with INSCRIPTION/JOIN)"
        )
    holder = roster.seat_named(seat)
    if holder is None:
        names = ", ".join(h.name for h in roster.holders)
        raise PbemError(f"no seat {seat!r} in game {store.game_id} (seats: {names})")
    try:
        substitution(table, holder.seat, parse_newcomer(table, newcomer))
    except CommandError as exc:
        raise PbemError(" ".join(table.reason(exc, "en").split())) from None
    return lang


def check_address_line(cfg: Any, directory: Any, line: str) -> None:
    """``pbem admin GAME "ADDRESS name new@address"`` checked before the daemon is asked, as
    :func:`check_replacement` checks a replacement (issue 25): the seat, the address (mailable,
    holding no seat, no game master's, not on the bench, not the game's own). A PbemError says
    why, in the words the desk's reply would use."""
    from pbem.adapters.store import GameStore
    from pbem.core.commands import parse_line
    from pbem.core.errors import CommandError
    from pbem.daemon.engine import load_engine
    from pbem.desk import address

    store = GameStore(directory, readonly=True)
    table: Any = load_engine(cfg.engine).load(store.setup, store.events())
    roster = getattr(table, "roster", None)
    if roster is None or not hasattr(table, "reason"):
        return  # a game still signing up: the desk answers
    try:
        names = roster.desk_names(table.rules.names(table.state))
        command = parse_line(line, [address.SPEC], names)
        if command is not None:
            address.change(table, roster.to_seats(command), admins=cfg.admins)
    except CommandError as exc:
        raise PbemError(" ".join(table.reason(exc, "en").split())) from None


def cmd_seat_replace(args: argparse.Namespace) -> int:
    """Queue the replacement for the running daemon (the single writer)."""
    from pbem.adapters.store import list_games
    from pbem.daemon.operator.admin import AdminCommand

    if args.name is not None and not args.name.strip():
        return fail("seat replace", PbemError("--name must not be empty"))
    try:
        cfg = load_config(args)
        dirs = {d.name: d for d in list_games(cfg.data_dir)}
        if args.game not in dirs:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        newcomer = newcomer_words(args.newcomer, args.name, args.pronoun)
        lang = check_replacement(cfg, dirs[args.game], args.seat, newcomer)
        line = replace_line(args.seat, args.newcomer, args.name, args.pronoun, lang)
        if args.wait:
            wait_needs_the_daemon(cfg)
        request = AdminCommand.now(args.game, [line])
        path, answer = queue_request(cfg.data_dir, request, args.wait, args.timeout)
    except (PbemError, OSError) as exc:
        return fail("seat replace", exc)
    if args.wait:  # what only the daemon could decide, told here as well as by mail
        if answer is None:
            return no_answer("seat replace", args.timeout)
        print(str(answer.get("reply") or "").strip())
        return 0 if answer.get("applied") else 2
    if "@" in args.newcomer and args.name is None:
        print("(no --name: the seat keeps its name)")
    print(
        f"queued for {args.game}: {line} ({path.name}); {queued('seat replace', cfg)} "
        "applies it and mails the reply to the game's administrators"
    )
    return 0
