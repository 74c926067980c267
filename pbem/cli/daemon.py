"""The daemon's verbs, registered in ``pbem``'s order, and their standalone entry
``python -m pbem.cli.daemon`` (the tests' ``pbem`` process).

Each verb group is its own module: ``serve``/``check-config`` (server.py), ``new-game``
(newgame.py), ``open-game`` (signup.py), ``status``/``deadline``/``shunt`` (monitor.py),
``reachable``/``admin`` (requests.py), ``seat`` (seat.py). Only ``serve`` writes existing state
(it holds the data directory's lock); the others create a new game directory or drop a request
file the daemon acts on, so there is one writer per file (requirement 3).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from pbem.cli import monitor, newgame, requests, seat, server, signup
from pbem.cli.common import config_everywhere, verbs_named
from pbem.cli.newgame import create_game

__all__ = ["add_commands", "create_game", "main", "parse_args"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the daemon's verbs on ``pbem``'s subparsers."""
    server.add_commands(sub)  # serve, check-config
    newgame.add_commands(sub)
    signup.add_commands(sub)  # open-game: sign-ups by mail (issue 13)
    monitor.add_commands(sub)  # status, deadline, shunt
    requests.add_commands(sub)  # reachable, admin
    seat.add_commands(sub)  # seat replace (issue 13)


def build_parser() -> argparse.ArgumentParser:
    """The daemon's verbs alone, parsed as ``pbem`` parses them."""
    parser = argparse.ArgumentParser(prog="pbem")
    add_commands(parser.add_subparsers(dest="command", required=True))
    return verbs_named(config_everywhere(parser))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The daemon's verbs, parsed as ``pbem`` parses them."""
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry (``python -m pbem.cli.daemon``), same verbs as ``pbem``."""
    args = parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
