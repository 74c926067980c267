"""Run a ``pbem`` command in the test process, for a test that needs only its effect.

A test that creates its game before the daemon starts, or queues an admin request, does not
test the ``pbem`` process: starting one costs over half a second of CPU (the interpreter and
pbem's imports), which the suite paid about a hundred times per run. :func:`pbem_in_process`
calls the same entry as ``python -m pbem.cli.daemon`` (:func:`pbem.cli.daemon.main`) with the
same arguments and returns what :func:`tests.support.daemon_process.pbem` returns: the exit
status, standard output and standard error.

The command must leave the test process as it found it: the process-wide state a command
could change (working directory, umask, environment, signal handlers, the root logger) is
compared before and after, and a change is undone and reported as a failure, so that a
command that starts changing it is moved back to a real process rather than leaking into the
next tests. ``serve`` is refused: the daemon is always a real process.

Tests of the command itself (its exit status, its messages, ``pbem status`` of a running
daemon as the operator sees it) keep running it as a process.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.cli.daemon import main

IN_PROCESS_REFUSED = {"serve"}
"""Commands that are never run in the test process: they are the process under test."""


@dataclass(frozen=True)
class ProcessState:
    """What a command could change for the whole process."""

    cwd: str
    umask: str
    environ: dict[str, str]
    signals: dict[int, Any]
    root_level: int
    root_handlers: list[logging.Handler]

    @classmethod
    def now(cls) -> ProcessState:
        root = logging.getLogger()
        return cls(
            cwd=os.getcwd(),
            umask=_umask(),
            environ=dict(os.environ),
            signals={s: signal.getsignal(s) for s in _signals()},
            root_level=root.level,
            root_handlers=list(root.handlers),
        )

    def differences(self, before: ProcessState) -> list[str]:
        return [
            name
            for name in ("cwd", "umask", "environ", "signals", "root_level", "root_handlers")
            if getattr(self, name) != getattr(before, name)
        ]

    def restore(self) -> None:
        """Put this state back (after a command changed it)."""
        os.chdir(self.cwd)
        os.umask(int(self.umask, 8))
        os.environ.clear()
        os.environ.update(self.environ)
        for s, handler in self.signals.items():
            if handler is not None:
                with contextlib.suppress(OSError, ValueError):
                    signal.signal(s, handler)
        root = logging.getLogger()
        root.setLevel(self.root_level)
        root.handlers[:] = self.root_handlers


def _umask() -> str:
    """The umask, read without setting it (``os.umask`` sets it: a race with other threads)."""
    status = Path("/proc/self/status").read_text()
    return next(ln.split()[1] for ln in status.splitlines() if ln.startswith("Umask:"))


def _signals() -> Iterator[int]:
    for s in signal.valid_signals():
        if s not in (signal.SIGKILL, signal.SIGSTOP):
            yield s


def _exit_status(exc: SystemExit) -> int:
    """The status the interpreter would exit with (a text is printed to stderr, status 1)."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    print(exc.code, file=sys.stderr)
    return 1


def pbem_in_process(cfg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pbem ARGS -c CFG`` run in this process, as :func:`tests.support.daemon_process.pbem`
    runs it in a child: the exit status (argparse's ``SystemExit`` included), the standard
    output and error. The paths given must be absolute: this process's working directory is
    not the child's."""
    if args and args[0] in IN_PROCESS_REFUSED:
        raise ValueError(f"pbem {args[0]} runs as a process (tests.support.daemon_process)")
    for path in (cfg, *(a for a in args if a.endswith((".json", ".toml")))):
        if not Path(path).is_absolute():
            raise ValueError(f"{path}: a relative path would depend on this process's cwd")
    argv = [*args, "-c", str(cfg)]
    out, err = io.StringIO(), io.StringIO()
    before = ProcessState.now()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's errors and --help, as in the process
                code = _exit_status(exc)
    finally:
        changed = ProcessState.now().differences(before)
        if changed:
            before.restore()
    if changed:
        raise AssertionError(
            f"pbem {' '.join(args)} changed the test process ({', '.join(changed)}): "
            "run it as a process (tests.support.daemon_process.pbem)"
        )
    return subprocess.CompletedProcess(["pbem", *argv], code, out.getvalue(), err.getvalue())
