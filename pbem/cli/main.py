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
    """The ``pbem`` command; returns its exit status."""
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


def build_parser() -> argparse.ArgumentParser:
    """The whole command line (also read by the man page and completion generators)."""
    parser = argparse.ArgumentParser(
        prog="pbem",
        description="Automated game master for play-by-email werewolf games.",
        epilog=_games_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    demo.add_argument("--game", default="lupus-in-tabula", help="the game id (see pbem games)")
    demo.add_argument(
        "--players",
        type=int,
        default=0,
        help="number of players (default: 10 for Lupus by email, the game's usual offline; "
        "Loup-Garou, Chasse aux sorcières and Dracula are played by 16, 14 and 13)",
    )
    demo.add_argument("--seed", type=int, default=None, help="RNG seed (default: random)")
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

    games = sub.add_parser(
        "games",
        help="list the games and each game's options (default and allowed values)",
        description="The game ids pbem runs and, for each, the options a setup file, "
        '`pbem new-game --option key=value` or the config\'s [games."<id>"] table accept, '
        "with their defaults and allowed values.",
    )
    games.add_argument("game", nargs="?", help="only this game")
    games.add_argument("--json", action="store_true", help="machine-readable output")
    games.set_defaults(func=_games)

    completion = sub.add_parser(
        "completion",
        help="print the shell completion script",
        description="Print the completion script for a shell, e.g. "
        "`pbem completion bash > /etc/bash_completion.d/pbem`.",
    )
    completion.add_argument("shell", choices=("bash",))
    completion.set_defaults(func=_completion)

    try:  # the daemon's subcommands, when the daemon is installed alongside
        daemon_cli = importlib.import_module("pbem.cli.daemon")
    except ImportError:
        pass
    else:
        daemon_cli.add_global_options(parser)
        daemon_cli.add_commands(sub)
    importlib.import_module("pbem.cli.archive").add_commands(sub)  # archive, verify, stats
    importlib.import_module("pbem.cli.balance").add_commands(sub)  # simulated win rates
    return parser


def _games_epilog() -> str:
    from pbem.games import GAME_IDS

    ids = ", ".join(GAME_IDS)
    return f"games: {ids}\n`pbem games` lists each game's options, defaults and allowed values."


def _games(args: argparse.Namespace) -> int:
    from pbem.gameinfo import games

    listed = [g for g in games() if args.game in (None, g[0])]
    if not listed:
        known = ", ".join(g[0] for g in games())
        print(f"pbem games: unknown game {args.game!r} (known: {known})", file=sys.stderr)
        return 2
    if args.json:
        data = [
            {"id": gid, "title": title, "options": [o.as_json() for o in options]}
            for gid, title, options in listed
        ]
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    for n, (gid, title, options) in enumerate(listed):
        if n:
            print()
        print(f"{gid}  ({title})")
        width = max((len(o.name) for o in options), default=0)
        dwidth = max((len(o.shown_default()) for o in options), default=0)
        for o in options:
            print(f"  {o.name:<{width}}  {o.shown_default():<{dwidth}}  {o.allowed()}")
    return 0


def _completion(args: argparse.Namespace) -> int:
    from pbem.cli.completion import bash_completion

    sys.stdout.write(bash_completion(build_parser()))
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from pbem.tools.simulate import simulate

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
    from pbem.tools.demo import run_demo

    if not args.offline:
        try:
            from pbem.tools.maildemo import MAIL_DEMO_GAMES, run_mail_demo
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
