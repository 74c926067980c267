"""What every ``pbem`` verb group shares: the ``-c/--config`` option (before or after any verb),
loading the configuration, and the one-line error an operator's mistake gets.

The verb groups (one module each under ``pbem/cli/``) import this module and nothing of each
other's, so the command line has no import circle (tests/cli/test_import_graph.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pbem.core.errors import PbemError

DEFAULT_CONFIG = "/etc/pbem/pbem.toml"

_CONFIG_HELP = f"the TOML configuration (default {DEFAULT_CONFIG}); before or after the verb"


EXAMPLES = "examples:\n"


class _KeepExamples(argparse.HelpFormatter):
    """Wraps a verb's description as usual, and prints its examples line by line as typed."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def about(description: str, *examples: str) -> dict[str, Any]:
    """``add_parser``'s keywords for a verb's ``--help`` (and its man page section): what it
    does, then ``examples``, each a command line as typed (a comment after ``  #``)."""
    return {
        "description": description,
        "epilog": EXAMPLES + "\n".join(f"  {e}" for e in examples),
        "formatter_class": _KeepExamples,
    }


def without_config(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Mark a verb that reads no configuration (``simulate``, ``verify``): it takes no ``-c``."""
    p.set_defaults(_reads_no_config=True)
    return p


def config_everywhere(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``-c/--config`` on ``parser`` (``pbem -c FILE status``) and on every verb and sub-verb
    under it that reads the configuration (``pbem status -c FILE``, ``pbem seat -c FILE replace
    ...``, ``pbem seat replace ... -c FILE``): the one place the rule is made, called once the
    whole tree is built, so a verb added later gets it too.

    Below the root the option's default is SUPPRESS: argparse copies a subparser's namespace
    over its parent's, and a default there would erase a value given before the verb.
    """
    _add_config(parser, DEFAULT_CONFIG)
    for p in _descendants(parser):
        if not _has_config(p):
            _add_config(p, argparse.SUPPRESS)
    return parser


def verbs_named(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Each verb group's sub-verbs named by their choices in its errors: a missing one said
    « the following arguments are required: shunt_command » (argparse names the dest) where
    the usage line shows ``{list,show,retry}``. Called once the whole tree is built."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            action.metavar = action.metavar or "{" + ",".join(action.choices) + "}"
            for sub in dict(action.choices).values():
                verbs_named(sub)
    return parser


def _descendants(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every verb and sub-verb under ``parser`` that reads the configuration."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict(action.choices).values():
                if sub.get_default("_reads_no_config"):
                    continue  # nor do its sub-verbs
                yield sub
                yield from _descendants(sub)


def _has_config(p: argparse.ArgumentParser) -> bool:
    return any("--config" in a.option_strings for a in p._actions)


def _add_config(p: argparse.ArgumentParser, default: str) -> None:
    action = p.add_argument("-c", "--config", default=default, metavar="FILE", help=_CONFIG_HELP)
    # first after -h in the usage and the man page, where an operator looks for it
    for actions in (p._actions, p._optionals._group_actions):
        actions.remove(action)
        first = 1 if actions and isinstance(actions[0], argparse._HelpAction) else 0
        actions.insert(first, action)


def config_path(args: argparse.Namespace) -> str:
    """The configuration file named by ``-c`` (or the default)."""
    return str(getattr(args, "config", DEFAULT_CONFIG))


def load_config(args: argparse.Namespace, passwords: bool = False) -> Any:
    """The configuration; the password sources are read only for the commands that log in to
    a server (``serve``, ``check-config``): an operator needs no password for the others."""
    return read_config(config_path(args), passwords=passwords)


def read_config(path: str, *, passwords: bool = False, check_paths: bool = False) -> Any:
    """:func:`pbem.daemon.config.load`, a missing file said in one line with what to do: on a
    machine where pbem is not installed yet, or with ``-c`` forgotten, the default path is no
    typo to look for. It stays a ConfigError (``serve``'s status 78: a restart cannot fix it)."""
    from pbem.daemon.config import ConfigError, load

    try:
        return load(path, passwords=passwords, check_paths=check_paths)
    except ConfigError as exc:
        if not isinstance(exc.__cause__, FileNotFoundError):
            raise
        missing = ConfigError(
            [
                f"{path}: no such file: name the configuration with -c FILE, or install one "
                "(docs/install-debian.md; pbem install-files DIR writes the example)"
            ]
        )
        missing.args = tuple(missing.problems)  # one line, not « invalid configuration: »
        raise missing from exc


def existing_data_dir(cfg: Any) -> Path:
    """The configuration's data directory, which must exist: a command never creates it (a
    mistyped ``daemon.data_dir`` would otherwise hold games no daemon reads), nor reads an
    absent one as empty."""
    root = Path(cfg.data_dir)
    if not root.is_dir():
        raise PbemError(
            f"data directory {root} does not exist: check daemon.data_dir in {cfg.path} "
            "(under systemd, $STATE_DIRECTORY), or start the daemon once"
        )
    return root


def unusable_data_dir(root: Path, create: bool) -> str | None:
    """Why this process could not keep its state in ``root``, with the fix, or None. With
    ``create`` a missing directory is made (as the daemon makes it); without, a missing one is
    no problem here (systemd's ``StateDirectory=`` makes it at the first start)."""
    try:
        if create:
            root.mkdir(parents=True, exist_ok=True)
        elif not root.exists():
            return None
    except FileExistsError:
        return f"data directory {root}: not a directory: check daemon.data_dir"
    except OSError as exc:
        fix = (
            f": make it the service's, install -d -m 2770 -o pbem -g pbem-admin {root} (under "
            "systemd StateDirectory= does it)"
            if isinstance(exc, PermissionError)
            else ""
        )
        return f"data directory {root}: cannot create it ({exc.strerror}){fix}"
    if not root.is_dir():
        return f"data directory {root}: not a directory: check daemon.data_dir"
    if os.access(root, os.W_OK | os.X_OK):
        return None
    st = root.stat()
    return (
        f"data directory {root}: cannot write in it as uid {os.getuid()} (owner uid {st.st_uid}, "
        f"gid {st.st_gid}, mode {st.st_mode & 0o7777:04o}): chown -R pbem:pbem-admin {root}; "
        f"chmod -R g+rwX {root}"
    )


def add_wait_options(p: argparse.ArgumentParser) -> None:
    """``--wait`` and ``--timeout`` for a request the running daemon answers."""
    p.add_argument(
        "--wait",
        action="store_true",
        help="wait for the running daemon's answer and print it (the reply is mailed too); "
        "refused at once when the daemon is stopped; exit status 1 when no answer came within "
        "--timeout",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help="how long --wait waits (default 60)",
    )


def daemon_down(cfg: Any) -> str | None:
    """None while the daemon runs (its heartbeat, :mod:`pbem.daemon.heartbeat`, as ``pbem
    status`` reads it), else its state in words: ``stopped``, ``not responding``, ``not
    running (never started ...)``."""
    from datetime import UTC, datetime

    from pbem.daemon import heartbeat

    record = heartbeat.read(Path(cfg.data_dir))
    state = heartbeat.describe(record, datetime.now(UTC), cfg.heartbeat_seconds)["state"]
    if state == "never started":
        return "not running (never started with this data directory)"
    return None if state == "running" else str(state)


def queued(verb: str, cfg: Any) -> str:
    """Who takes up what a command queued (a request, a new game's mail), as the subject of
    the line it prints: the running daemon, or the daemon once started, when it does not run;
    then standard error says so, with what to do (the queued work is kept for its start)."""
    down = daemon_down(cfg)
    if down is None:
        return "the running daemon"
    print(
        f"pbem {verb}: the daemon is {down}: start it (systemctl start pbem; pbem status shows it)",
        file=sys.stderr,
    )
    return "the daemon, once started,"


def wait_needs_the_daemon(cfg: Any) -> None:
    """``--wait`` with no daemon running (stopped, or never started) would wait out its whole
    timeout: refused at once, before anything is queued."""
    down = daemon_down(cfg)
    if down is not None and down != "not responding":  # hung or busy: the timeout decides
        raise PbemError(
            f"the daemon is {down}, so --wait would get no answer: start it (systemctl start "
            "pbem), or leave out --wait to queue the request for its start"
        )


def _seconds(text: str) -> float:
    """``--timeout``'s value: a number of seconds above 0 (``-5`` or ``nan`` waited for
    nothing, then said no answer came)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds above 0")
    return value


def queue_request(
    data_dir: Path, request: Any, wait: bool, timeout: float
) -> tuple[Path, dict[str, Any] | None]:
    """Drop ``request`` in its spool for the running daemon; with ``wait``, its answer (None
    when none came within ``timeout`` seconds). The pipe the answer comes through is made
    before the request is queued, so a quick daemon cannot answer into nothing."""
    from pbem.daemon.operator.spool import submit

    if not wait:
        return submit(data_dir, request), None
    from pbem.adapters import answers

    pipe, fd = answers.listen(data_dir, request.file_name())
    try:
        path = submit(data_dir, request)
    except BaseException:
        os.close(fd)
        pipe.unlink()
        raise
    return path, answers.wait(pipe, fd, timeout)


def no_answer(verb: str, timeout: float) -> int:
    """The line for a ``--wait`` that timed out, and its status 1."""
    print(
        f"pbem {verb}: no answer from the daemon within {timeout:g} s: is it running "
        "(pbem status)? The request stays queued; the reply will be mailed",
        file=sys.stderr,
    )
    return 1


def bare_seconds(game: str, key: str, value: Any) -> str | None:
    """What is wrong with ``night_duration = 18``, or None: a bare number is seconds
    (pbem.core.options), so the game master who meant 18 hours would get a night over before
    its mail arrives. Under an hour it is taken for hours without their unit; a unit says
    which was meant."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value >= 3600:
        return None
    from pbem.games.info import games

    kinds = {o.name: o.kind for gid, _title, opts in games() if gid == game for o in opts}
    if kinds.get(key) != "duration":
        return None
    return (
        f"a bare number is seconds; write {value}h for hours, {value}min for minutes or "
        f"{value}s if seconds are meant"
    )


def fail(verb: str, exc: BaseException | str) -> int:
    """One line on standard error naming the verb, and the usage-error status 2; a permission
    error names the operators' group rather than a bare ``[Errno 13]``."""
    hint = ""
    if isinstance(exc, PermissionError):
        from pbem.daemon.config import permission_hint

        hint = permission_hint(exc)
        exc = f"{exc.strerror}: {exc.filename}" if exc.filename else str(exc.strerror)
    print(f"pbem {verb}: {exc}{hint}", file=sys.stderr)
    return 2
