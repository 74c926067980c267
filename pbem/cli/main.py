"""The ``pbem`` command: argument parsing and wiring only."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pbem import __version__
from pbem.cli import offline
from pbem.cli.common import about, config_everywhere, verbs_named, without_config


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

    offline.add_commands(sub)  # simulate, demo, games
    completion = without_config(
        sub.add_parser(
            "completion",
            help="print the shell completion script",
            **about(
                "Print the completion script for a shell: every verb, option and choice of "
                "this pbem completes on Tab (docs/install-debian.md installs it).",
                "pbem completion bash > /etc/bash_completion.d/pbem",
            ),
        )
    )
    completion.add_argument("shell", choices=("bash",))
    completion.set_defaults(func=_completion)
    try:  # the daemon's verbs, when the daemon is installed alongside
        daemon_cli = importlib.import_module("pbem.cli.daemon")
    except ImportError:
        pass
    else:
        daemon_cli.add_commands(sub)
    importlib.import_module("pbem.cli.archive").add_commands(sub)  # archive, verify, stats
    importlib.import_module("pbem.cli.install_files").add_commands(sub)
    importlib.import_module("pbem.cli.balance").add_commands(sub)  # simulated win rates
    return verbs_named(config_everywhere(parser))


def _games_epilog() -> str:
    from pbem.games import GAME_IDS

    ids = ", ".join(GAME_IDS)
    return f"games: {ids}\n`pbem games` lists each game's options, defaults and allowed values."


def _completion(args: argparse.Namespace) -> int:
    from pbem.cli.completion import bash_completion

    sys.stdout.write(bash_completion(build_parser()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
