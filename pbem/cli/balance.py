"""``pbem balance``: a game's setup played many times by bots, through the rules only, and
what the games say (win rate per camp and role with intervals, length, first deaths). The
heavy modules are imported when the command runs (tests/cli/test_startup_imports.py)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pbem.cli.common import about, fail, without_config


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``pbem balance`` (it reads no configuration)."""
    p = sub.add_parser(
        "balance",
        help="simulate a setup many times with bots: win rate per camp and role",
        **about(
            "Play GAME's setup many times with bots through the rules only (no mail) "
            "and report each camp's win rate with its 95 % Wilson interval, each role's win "
            "rate, survival and day of death, the games' length and who dies first "
            "(docs/balance.md: the bots' assumptions). A progress bar shows on a terminal.",
            "pbem balance lupus-in-tabula --players 12",
            "pbem balance lupus-in-tabula --players 10 --deck seer,medium,bodyguard",
            "pbem balance lupus-in-tabula --vary wolves_tie=random,no_victim --games 2000",
        ),
    )
    p.add_argument("game", help="the game id (see pbem games)")
    p.add_argument("--players", type=int, default=0, help="players (default: the usual table)")
    p.add_argument("--option", action="append", default=[], help="an option key=value (repeat)")
    p.add_argument("--deck", help="a custom deck: comma-separated roles (Lupus: the specials)")
    p.add_argument("--games", type=int, default=10000, help="games to play (default: 10000)")
    p.add_argument("--bots", choices=("random", "informed"), default="random")
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: one a core)")
    p.add_argument("--seed", type=int, default=0, help="the first game's seed (default: 0)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--vary", help="option=a,b,c: the same games for each value of one option (sensitivity)"
    )
    without_config(p).set_defaults(func=cmd_balance)


def cmd_balance(args: argparse.Namespace) -> int:
    """``pbem balance``: play that many bot games of a setup (or of each value of ``--vary``) and
    print the report, as text or JSON."""
    from pbem.balance.report import analyse, render, render_vary
    from pbem.balance.run import Setup, deck_options, play_many
    from pbem.core.errors import PbemError
    from pbem.games import GAME_IDS

    if args.game not in GAME_IDS:
        return fail("balance", f"unknown game {args.game!r} ({', '.join(GAME_IDS)})")
    if args.games < 1:
        return fail("balance", "--games must be at least 1")
    if args.jobs < 0:
        return fail(
            "balance", f"--jobs {args.jobs}: give 1 or more worker processes (0: one a core)"
        )
    try:
        options = dict(_pair(o, "--option") for o in args.option)
        if args.deck:
            options.update(deck_options(args.game, [c.strip() for c in args.deck.split(",")]))
        values: list[tuple[str, Any]] = [("", None)]
        if args.vary:
            key, raw = _pair(args.vary, "--vary", parse=False)
            values = [(v.strip(), _value(v.strip())) for v in str(raw).split(",") if v.strip()]
        setups = [
            Setup(args.game, args.players, {**options, key: v} if args.vary else options, args.bots)
            for _, v in values
        ]
        reports = []
        with _progress(args.games * len(setups)) as bar:
            for setup in setups:
                results = play_many(
                    setup, args.games, jobs=args.jobs, first_seed=args.seed, progress=bar.update
                )
                reports.append(analyse(setup, results))
    except PbemError as exc:
        return fail("balance", exc)
    if args.json:
        out: Any = reports[0] if not args.vary else {"vary": key, "reports": reports}
        print(json.dumps(out, ensure_ascii=False, indent=1, default=str))
    elif args.vary:
        print(render_vary(key, [(label, r) for (label, _), r in zip(values, reports, strict=True)]))
    else:
        print(render(reports[0]), end="")
    return 0


def _progress(total: int) -> Any:
    """A progress bar on a terminal (stderr), none when piped (tqdm's ``disable=None``)."""
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=None, file=sys.stderr, leave=False)


def _value(text: str) -> Any:
    """An option's value: JSON when it parses (numbers, true/false, lists), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _pair(text: str, flag: str, *, parse: bool = True) -> tuple[str, Any]:
    from pbem.core.errors import PbemError

    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise PbemError(f"{flag} {text!r}: expected key=value")
    return key.strip(), _value(value.strip()) if parse else value
