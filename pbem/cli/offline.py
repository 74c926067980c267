"""The verbs that read no configuration: ``simulate``, ``demo``, ``games``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pbem.cli.common import about, fail, without_config
from pbem.core.errors import PbemError


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``simulate``, ``demo`` and ``games``."""
    sim = without_config(
        sub.add_parser(
            "simulate",
            help="play a JSON Lines transcript on a virtual clock",
            **about(
                "Play a transcript (JSON Lines: one setup line, then mail and deadline lines; "
                "tests/transcripts/ and docs/design.md) through the daemon's own parsing, rules "
                "and rendering on a virtual clock: one JSON line per mail sent, then the final "
                "state. A bad transcript is one line naming the problem, exit status 2.",
                "pbem simulate partie.jsonl",
                "pbem simulate tests/transcripts/lupus-night1.jsonl",
            ),
        )
    )
    sim.add_argument("transcript", help="the transcript file, or - for standard input")
    sim.set_defaults(func=_simulate)

    demo = without_config(
        sub.add_parser(
            "demo",
            help="watch bots play a whole game by email with the real daemon (or --offline)",
            **about(
                "Bots play a whole game by email with the real daemon, an embedded SMTP "
                "server on loopback and local Maildirs; the public thread is printed as it "
                "goes. Every game is played by email (Dracula: one round); --offline plays in "
                "memory.",
                "pbem demo",
                "pbem demo --game loup-garou --lang en --list relay",
                "pbem demo --offline --game dracula --seed 7",
            ),
        )
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

    games = without_config(
        sub.add_parser(
            "games",
            help="list the games and each game's options (default and allowed values)",
            **about(
                "The game ids pbem runs and, for each, the options a setup file, "
                '`pbem new-game --option key=value` or the config\'s [games."<id>"] table '
                "accept, with their defaults and allowed values.",
                "pbem games",
                "pbem games dracula --json",
            ),
        )
    )
    games.add_argument("game", nargs="?", help="only this game")
    games.add_argument("--json", action="store_true", help="machine-readable output")
    games.set_defaults(func=_games)


def _games(args: argparse.Namespace) -> int:
    from pbem.games.info import games

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

    if args.dir:  # a file, an unwritable place: one line, before anything starts (issue 21)
        try:
            Path(args.dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return fail("demo", f"--dir {args.dir}: {exc.strerror or exc}")
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
    if args.dir:  # nor mailboxes nor game data: an empty folder would look like a failed run
        print(
            f"pbem demo: --dir {args.dir} left empty: the offline demo writes no mailbox and "
            "no game data",
            file=sys.stderr,
        )
    try:
        return run_demo(args.game, args.players, args.seed, args.lang)
    except PbemError as exc:
        print(f"pbem demo: {exc}", file=sys.stderr)
        return 2
