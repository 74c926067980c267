"""``pbem seat replace GAME SEAT NEW-EMAIL``: a seat changes hands, from the shell (issue 13).

The daemon is the single writer: the command queues the desk's ``REPLACE`` line in the
``pbem admin`` spool (pbem/daemon/operator/admin.py), and the running daemon applies it as if the
game's first administrator had mailed it (pbem/desk/replace.py, the checks in pbem/seats.py),
then mails the reply to the game's administrators.
"""

from __future__ import annotations

import argparse
from typing import Any

from pbem.cli.common import fail, load_config
from pbem.core.errors import PbemError

PRONOUNS = ("il", "elle", "iel", "he", "she", "they")


def add_commands(sub: Any) -> None:
    """``pbem seat replace``."""
    seat = sub.add_parser(
        "seat",
        help="change who holds a seat of a running game (via the daemon)",
        description="Seats of a running game (issue 13).",
    )
    ssub = seat.add_subparsers(dest="seat_command", required=True)
    p = ssub.add_parser(
        "replace",
        help="give a living seat to a newcomer (mailed the seat's file)",
        description="Queue REPLACE SEAT WITH NEW-EMAIL [NAME] [PRONOUN] for the running "
        "daemon: the newcomer takes the seat (its role, votes and history), gets the "
        "hand-over packet (the role card and every private mail the seat received, then "
        "what is awaited now), the list is told, and the old address is refused from then "
        "on. Only a living seat is replaced. The seat takes NAME unless the game's option "
        "substitute_name is 'kept'. NEW-EMAIL may instead be the name of a volunteer on "
        "the game's bench (REMPLACANT/SUBSTITUTE by mail). The reply is mailed to the "
        "game's administrators.",
    )
    p.add_argument("game", help="the game's id")
    p.add_argument("seat", help="the seat's player name (as in pbem status)")
    p.add_argument("newcomer", metavar="NEW-EMAIL", help="the newcomer's address (or bench name)")
    p.add_argument("--name", help="the newcomer's name in the game (spaces allowed)")
    p.add_argument(
        "--pronoun", choices=PRONOUNS, help="how the texts address the newcomer (agreement)"
    )
    p.set_defaults(func=cmd_seat_replace)


def replace_line(seat: str, newcomer: str, name: str | None, pronoun: str | None) -> str:
    """The desk's line for a replacement (English keywords: the desk reads both)."""
    words = ["REPLACE", seat, "WITH", newcomer]
    words += [" ".join(name.split())] if name else []
    words += [pronoun] if pronoun else []
    return " ".join(words)


def cmd_seat_replace(args: argparse.Namespace) -> int:
    """Queue the replacement for the running daemon (the single writer)."""
    from pbem.adapters.store import list_games
    from pbem.daemon.operator.admin import AdminCommand
    from pbem.daemon.operator.spool import submit

    if args.name is not None and not args.name.strip():
        return fail("seat replace", PbemError("--name must not be empty"))
    if "@" in args.newcomer and args.name is None:
        print("(no --name: the seat keeps its name)")
    line = replace_line(args.seat, args.newcomer, args.name, args.pronoun)
    try:
        cfg = load_config(args)
        if args.game not in {d.name for d in list_games(cfg.data_dir)}:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        path = submit(cfg.data_dir, AdminCommand.now(args.game, [line]))
    except (PbemError, OSError) as exc:
        return fail("seat replace", exc)
    print(
        f"queued for {args.game}: {line} ({path.name}); the running daemon applies it and "
        "mails the reply to the game's administrators"
    )
    return 0
