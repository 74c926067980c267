"""The ``pbem`` command: argument parsing and wiring only."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from pbem import __version__
from pbem.core.errors import PbemError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pbem", description="Automated game master for play-by-email werewolf games."
    )
    parser.add_argument("--version", action="version", version=f"pbem {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="play a JSON Lines transcript on a virtual clock")
    sim.add_argument("transcript", help="the transcript file, or - for standard input")
    sim.set_defaults(func=_simulate)

    demo = sub.add_parser(
        "demo",
        help="watch bots play a whole game by email with the real daemon (or --offline)",
        description="Bots play a whole game by email with the real daemon, an embedded SMTP "
        "server on loopback and local Maildirs; the public thread is printed as it goes. "
        "Every game is played by email (Dracula: one round); --offline plays in memory.",
    )
    demo.add_argument("--game", default="lupus-in-tabula")
    demo.add_argument(
        "--players",
        type=int,
        default=0,
        help="number of players (default: 10 for Lupus by email, the game's usual offline; "
        "Loup-Garou, Chasse aux sorcières and Dracula are played by 16, 14 and 13)",
    )
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--lang", default="fr", choices=("fr", "en"))
    demo.add_argument(
        "--offline", action="store_true", help="in memory, no daemon, no mail (instant)"
    )
    demo.add_argument(
        "--dir", help="keep the mailboxes and the game data here (default: a temp dir)"
    )
    demo.add_argument(
        "--list",
        default="external",
        choices=("external", "relay"),
        dest="list_mode",
        help="who distributes the public list (the daemon's [list] mode): 'external', a "
        "mailing list run by the demo's mail system that the daemon reads like a subscriber "
        "(default); 'relay', the list address is delivered to the moderator's mailbox and the "
        "daemon relays each accepted post to the players itself",
    )
    demo.set_defaults(func=_demo)

    try:  # the daemon's subcommands, when the daemon is installed alongside
        daemon_cli = importlib.import_module("pbem.cli_daemon")
    except ImportError:
        pass
    else:
        daemon_cli.add_commands(sub)

    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


def _simulate(args: argparse.Namespace) -> int:
    from pbem.simulate import simulate

    try:
        stream = sys.stdin if args.transcript == "-" else open(args.transcript, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        print(f"pbem simulate: cannot read {args.transcript}: {exc.strerror}", file=sys.stderr)
        return 2
    out: list[str] = []
    try:
        with stream:
            for item in simulate(stream):
                out.append(json.dumps(item, ensure_ascii=False))
    except PbemError as exc:
        print(f"pbem simulate: {exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print("pbem simulate: the transcript is not UTF-8", file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from pbem.demo import run_demo

    if not args.offline:
        try:
            from pbem.maildemo import MAIL_DEMO_GAMES, run_mail_demo
        except ImportError as exc:  # aiosmtpd is the `demo` extra
            print(
                f"pbem demo: the daemon demo needs {exc.name} (pip install 'pbem[demo]'); "
                "playing offline instead",
                file=sys.stderr,
            )
        else:
            if args.game in MAIL_DEMO_GAMES:
                return run_mail_demo(
                    args.game,
                    args.players,
                    args.seed,
                    args.lang,
                    args.dir,
                    list_mode=args.list_mode,
                )
            print(
                f"pbem demo: the daemon demo plays {', '.join(MAIL_DEMO_GAMES)}; "
                f"trying {args.game} offline instead",
                file=sys.stderr,
            )
    if args.list_mode != "external":
        # the in-memory demo has no mail and no list: the mode changes nothing there
        print(
            f"pbem demo: --list {args.list_mode} ignored: it applies to the daemon demo only",
            file=sys.stderr,
        )
    try:
        return run_demo(args.game, args.players, args.seed, args.lang)
    except PbemError as exc:
        print(f"pbem demo: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
