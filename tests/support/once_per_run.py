"""A value computed once per test run, shared by the pytest-xdist workers.

Every worker collects the whole suite, so a value computed at collection (the template
parameters that bot games send, ``tests/test_templates.py``) would be computed once per worker.
The controller makes a directory for the run (:func:`make_run_dir`, from ``tests/conftest.py``)
and names it in the environment the workers inherit; the first worker to ask computes the
value under a file lock and leaves it there, pickled, for the others. Without xdist the value
is simply computed. A value made of independent pieces (:func:`once_per_run_pieces`) is
computed by all the workers at once, each taking the pieces nobody has taken yet, rather than
by one while the others wait.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

RUN_DIR = "PBEM_TESTS_RUN_DIR"
"""The environment variable naming the run's directory (``PBEM_``: the install tests strip it
from the environment of the installed pbem, as every variable of the checkout)."""


def make_run_dir() -> None:
    """On the controller, before the workers start: a fresh directory for this run
    (world-traversable: other uids run the pbem installed there, tests/install)."""
    path = tempfile.mkdtemp(prefix="pbem-tests-run-")
    os.chmod(path, 0o755)
    os.environ[RUN_DIR] = path


def run_dir() -> Path | None:
    """The run's shared directory, on an xdist worker; None without xdist."""
    path = os.environ.get(RUN_DIR)
    return Path(path) if path is not None and Path(path).is_dir() else None


def remove_run_dir() -> None:
    """On the controller, once the workers are gone."""
    path = os.environ.pop(RUN_DIR, None)
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def once_per_run(name: str, compute: Callable[[], T]) -> T:
    """``compute()``, or the value another worker of this run already computed under ``name``."""
    shared = run_dir()
    if shared is None:
        return compute()
    path = shared / f"{name}.pickle"
    with open(shared / f"{name}.lock", "ab") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if path.exists():
            value: T = pickle.loads(path.read_bytes())
            return value
        value = compute()
        _store(path, value)
        return value


def once_per_run_pieces(name: str, pieces: Sequence[Callable[[], T]]) -> list[T]:
    """``[piece() for piece in pieces]``, each piece computed once per run: a worker computes
    every piece no other worker holds, then reads (or waits for) the ones others computed."""
    shared = run_dir()
    if shared is None:
        return [piece() for piece in pieces]
    for i, piece in enumerate(pieces):
        path = shared / f"{name}-{i}.pickle"
        with open(shared / f"{name}-{i}.lock", "ab") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # another worker is computing it
            if not path.exists():
                _store(path, piece())
    return [once_per_run(f"{name}-{i}", piece) for i, piece in enumerate(pieces)]


def _store(path: Path, value: object) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(value))
    tmp.replace(path)  # whole: a reader never sees half a pickle
