"""Compiled bytecode for the Python processes a test run starts, when the environment says not
to write it next to the sources.

With ``PYTHONDONTWRITEBYTECODE`` set (as on the developers' machines), every Python the suite
starts compiled the modules it imports from source again: each pytest-xdist worker, and each
``pbem serve`` and ``pbem new-game`` of the daemon tests (hundreds of them), about half a
second of CPU per start for pbem alone. The controller compiles pbem once, before the workers
start, into a directory of the run's own (``PYTHONPYCACHEPREFIX``), and lets its children read
and add to it; the tree still gets no ``__pycache__``, and the directory goes with the run.
Without ``PYTHONDONTWRITEBYTECODE`` nothing changes: Python caches next to the sources as usual.
"""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pbem

PREFIX = "PYTHONPYCACHEPREFIX"
_made: list[tuple[str, str]] = []
"""The directory made for this run, and the value of PYTHONDONTWRITEBYTECODE it replaced."""


def share_bytecode() -> None:
    """On the controller, before any child starts: a bytecode directory for the run, with pbem
    compiled into it, named in the environment the children inherit."""
    forbidden = os.environ.get("PYTHONDONTWRITEBYTECODE")
    if not forbidden or os.environ.get(PREFIX):
        return
    path = tempfile.mkdtemp(prefix="pbem-tests-bytecode-")
    _made.append((path, forbidden))
    saved = sys.pycache_prefix
    sys.pycache_prefix = path
    try:
        compileall.compile_dir(Path(pbem.__file__).parent, quiet=1)
    finally:
        sys.pycache_prefix = saved
    os.environ[PREFIX] = path
    del os.environ["PYTHONDONTWRITEBYTECODE"]


def drop_bytecode() -> None:
    """On the controller, once the children are gone: the environment and the directory as
    they were."""
    while _made:
        path, forbidden = _made.pop()
        if os.environ.get(PREFIX) == path:
            del os.environ[PREFIX]
            os.environ["PYTHONDONTWRITEBYTECODE"] = forbidden
        shutil.rmtree(path, ignore_errors=True)
