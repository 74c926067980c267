"""``python -m tests.daemon.crash_launcher POINT[:N] serve -c CONFIG``: ``pbem serve`` that
kills itself (SIGKILL) at the N-th hit of the named fault point (F1, F2 in docs/reliability.md).

The fault points are calls of the service's ``fault`` hook (``after_fetch``, ``mid_state_write``,
``after_state``, ``after_move``, ``after_send``, ``mid_resolve``...), a no-op in production: the
hook is installed here, by the tests, and production code reads no environment for it."""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Sequence

from pbem.cli.daemon import parse_args
from pbem.cli.server import cmd_serve
from pbem.daemon.ports import FaultHook

log = logging.getLogger(__name__)


def kill_at(spec: str) -> FaultHook:
    """``point[:n]``: a hook that sends SIGKILL to this process at the n-th hit of ``point``."""
    point, _, nth = spec.partition(":")
    target = int(nth) if nth else 1
    hits = {"n": 0}

    def hook(name: str) -> None:
        if name == point:
            hits["n"] += 1
            if hits["n"] >= target:
                log.warning("fault injection: SIGKILL at %s #%d", name, hits["n"])
                os.kill(os.getpid(), signal.SIGKILL)

    return hook


def main(argv: Sequence[str]) -> int:
    spec, *rest = argv
    return cmd_serve(parse_args(rest), fault=kill_at(spec))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
