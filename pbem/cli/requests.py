"""Requests to the running daemon: ``pbem reachable`` and ``pbem admin``.

The daemon is the single writer: each command checks what it can at once, then drops a request
file in the operator spool (pbem/daemon/operator/spool.py) that the daemon acts on.
"""

from __future__ import annotations

import argparse
from pathlib import Path
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


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``reachable`` and ``admin``."""

    p = sub.add_parser(
        "reachable",
        help="clear a player's hard bounces and unreachable flag (via the daemon)",
        **about(
            "A player whose mail hard-bounced daemon.hard_bounces times within a phase is "
            "flagged unreachable (the admins are told; the game goes on). Once his address "
            "works again, this has the running daemon clear the flag and his bounces.",
            "pbem reachable village1 Alice",
        ),
    )
    p.add_argument("game", help="the game's id")
    p.add_argument("player", help="the player's name (as in pbem status)")
    p.set_defaults(func=cmd_reachable)

    p = sub.add_parser(
        "admin",
        help="a game master's command for a game (via the daemon, answered by mail)",
        **about(
            "Queue one of the game master's commands (PAUSE, REPRISE/RESUME, "
            "PROLONGER/EXTEND 24h, CLORE/CLOSE, ROLES, ANNONCE/ANNOUNCE text, RETIRER/REMOVE "
            "name [reason], FIN/END [side], APERCU/PREVIEW, ANNULER RESOLUTION/ROLLBACK 24h, "
            "REMPLACER/REPLACE name WITH address [name], ADRESSE/ADDRESS name new-address, "
            "ABSENCE/ABSENT name du/from 12/01 au/to 14/01 [reason], SPECTATEURS/OBSERVERS, "
            "STATUT/STATUS, AIDE/HELP; before a game opened by open-game starts: "
            "PROLONGER/EXTEND 24h, DEMARRER/START, ANNULER PARTIE/CANCEL, STATUT/STATUS) for "
            "the running daemon, which applies it as if the game's administrator had mailed it "
            "and mails the reply to the game's administrators. The command's words may be "
            "quoted as one argument or not.",
            "pbem admin village1 PAUSE holidays",
            "pbem admin village1 EXTEND 24h --wait     # and print the daemon's reply",
            'pbem admin village1 "ABSENCE alice du 12/01 au 14/01 hôpital"',
            "pbem admin village7 START                # a game opened by open-game, now",
        ),
    )
    p.add_argument("game", help="the game's id")
    p.add_argument("words", nargs="+", metavar="COMMAND", help="the command and its arguments")
    add_wait_options(p)
    p.set_defaults(func=cmd_admin)


def cmd_reachable(args: argparse.Namespace) -> int:
    """Ask the running daemon to clear a player's hard-bounce count and unreachable flag (the
    operator knows the address works again). The game and player are checked here, so a typo
    fails at once; the daemon does the write, in the game's store."""
    from pbem.adapters.store import GameStore, list_games
    from pbem.daemon.operator.reachable import Reachable
    from pbem.daemon.operator.spool import submit

    try:
        cfg = load_config(args)
        dirs = {d.name: d for d in list_games(cfg.data_dir)}
        if args.game not in dirs:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        gs = GameStore(dirs[args.game], readonly=True)
        seat, holder = _holder(cfg, gs, args.game, args.player)
        rec = gs.bounce_states().get(seat) or {}
        submit(cfg.data_dir, Reachable.now(args.game, seat))
    except (PbemError, OSError, ValueError) as exc:
        return fail("reachable", exc)
    who = holder if holder == seat else f"{holder} (seat {seat})"
    state = (
        "flagged unreachable"
        if rec.get("unreachable")
        else f"{rec.get('count') or 0} hard bounce(s) counted"
    )
    print(
        f"{who} in {args.game} ({state}): clearing requested; "
        f"{queued('reachable', cfg)} picks it up"
    )
    return 0


def _holder(cfg: Any, store: Any, game: str, name: str) -> tuple[str, str]:
    """The seat ``name`` designates (its holder's name now, as ``pbem status`` shows it, or the
    seat's own: a seat handed over keeps its first holder's name as its id), without regard to
    case or accents, as ``pbem seat replace`` reads it; with the holder's name."""
    from pbem.core.match import fold
    from pbem.daemon.engine import load_engine

    table = load_engine(cfg.engine).load(store.setup, store.events())
    roster = getattr(table, "roster", None)
    if roster is not None:
        holder = roster.seat_named(name)
        if holder is not None:
            return str(holder.seat), str(holder.name)
        names = [h.name for h in roster.holders]
    else:  # an engine without a roster (a game taking sign-ups has no seat yet)
        names = [str(n) for n in getattr(table, "player_emails", {})]
        seat = next((n for n in names if fold(n) == fold(name.strip())), None)
        if seat is not None:
            return seat, seat
    listed = ", ".join(names) or "none yet"
    raise PbemError(f"no player {name!r} in game {game} (players: {listed})")


def cmd_admin(args: argparse.Namespace) -> int:
    """Queue a game master's command for the running daemon (the single writer)."""
    from pbem.adapters.store import list_games
    from pbem.core.commands import find_spec
    from pbem.daemon.operator.admin import AdminCommand
    from pbem.desk import DESK_SPECS

    line = " ".join(args.words).strip()
    try:
        cfg = load_config(args)
        games = {d.name: d for d in list_games(cfg.data_dir)}
        if args.game not in games:
            raise PbemError(f"no game {args.game!r} in {cfg.data_dir}")
        if _signing_up(games[args.game]):
            _check_lobby_line(args.game, line)
        else:
            found = find_spec(line.split(), DESK_SPECS)
            if found is None:
                keywords = ", ".join(s.en[0] for s in DESK_SPECS)
                raise PbemError(f"unknown command {args.words[0]!r} (commands: {keywords})")
            if found[0].verb == "desk.address":  # checked at once, as `pbem seat replace`
                from pbem.cli.seat import check_address_line

                check_address_line(cfg, games[args.game], line)
            if found[0].verb in running_verbs() and _finished(cfg, games[args.game]):
                raise PbemError(
                    f"game {args.game} is over: {args.words[0].split()[0].upper()} needs a "
                    f"running game (pbem archive {args.game} writes its archive)"
                )
        if args.wait:
            wait_needs_the_daemon(cfg)
        request = AdminCommand.now(args.game, [line])
        path, answer = queue_request(cfg.data_dir, request, args.wait, args.timeout)
    except (PbemError, OSError) as exc:
        return fail("admin", exc)
    if not args.wait:
        print(
            f"queued for {args.game}: {line} ({path.name}); {queued('admin', cfg)} applies it "
            "and mails the reply to the game's administrators"
        )
        return 0
    if answer is None:
        return no_answer("admin", args.timeout)
    print(str(answer.get("reply") or "").strip() or f"{line}: applied")
    return 0


def running_verbs() -> frozenset[str]:
    """The desk's verbs that refuse a finished game (each calls ``pbem.desk.common.running``:
    tests/cli/test_operator_walk.py keeps the two lists together)."""
    from pbem.desk import close, end, extend, pause, preview, remove, resume

    return frozenset(m.SPEC.verb for m in (close, end, extend, pause, preview, remove, resume))


def _finished(cfg: Any, directory: Path) -> bool:
    """Whether the stored game is over (its table rebuilt from its log, read-only)."""
    from pbem.adapters.store import GameStore
    from pbem.daemon.engine import load_engine

    store = GameStore(directory, readonly=True)
    return bool(
        getattr(load_engine(cfg.engine).load(store.setup, store.events()), "finished", False)
    )


def _signing_up(directory: Path) -> bool:
    """Whether the stored game is one ``pbem open-game`` opened that has not started yet."""
    from pbem.adapters.store import GameStore
    from pbem.signup.started import still_signing_up

    store = GameStore(directory, readonly=True)
    return "signup" in store.setup and still_signing_up(store.setup, store.events())


def _check_lobby_line(game: str, line: str) -> None:
    """Before its start a game opened for sign-ups takes the lobby's commands only
    (:data:`pbem.signup.table.ADMIN_WORDS`: START, CANCEL... as docs/season.md sends them),
    not the desk's (PAUSE, REMOVE: the lobby would refuse them by mail)."""
    from pbem.core.match import clean_token, fold
    from pbem.signup.table import ADMIN_WORDS

    folded = [fold(clean_token(w)) for w in line.split()[:2]]
    if " ".join(folded) in ADMIN_WORDS or (folded and folded[0] in ADMIN_WORDS):
        return
    keywords = ", ".join(dict.fromkeys(v.upper() for v in ADMIN_WORDS.values()))
    word = line.split()[0] if line.split() else line
    raise PbemError(
        f"game {game} is taking sign-ups: {word!r} is not a command before its start "
        f"(commands: {keywords})"
    )
