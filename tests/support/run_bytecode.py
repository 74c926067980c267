"""Compiled bytecode for the Python processes a test run starts, when the environment says not
to write it next to the sources.

With ``PYTHONDONTWRITEBYTECODE`` set (as on the developers' machines), every Python the suite
starts compiled the modules it imports from source again: each pytest-xdist worker, and each
``pbem serve`` and ``pbem new-game`` of the daemon tests (hundreds of them), about half a
second of CPU per start for pbem alone. The controller compiles pbem once, before the workers
start, into a directory of the run's own (``PYTHONPYCACHEPREFIX``), and lets its children read
and add to it; the tree still gets no ``__pycache__``, and the directory goes with the run.
Without ``PYTHONDONTWRITEBYTECODE`` nothing changes: Python caches next to the sources as usual.

Under pytest-xdist the workers start together and import the same modules in the same order:
on a clean clone (or in a fresh run directory) each compiled the standard library, pbem and
its dependencies, and rewrote the asserts of every test module, at the same moment as the
others, none finding another's bytecode yet. :func:`compile_for_workers` does it once on the
controller, before the workers start.
"""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
import threading
import types
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

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
        _seed(Path(path))
        compileall.compile_dir(Path(pbem.__file__).parent, quiet=1)
    finally:
        sys.pycache_prefix = saved
    os.environ[PREFIX] = path
    del os.environ["PYTHONDONTWRITEBYTECODE"]


UNUSED = frozenset({"test", "idlelib", "tkinter", "turtledemo", "lib2to3"})
"""Packages of the standard library that no process of the test run imports (its own test
suite alone is 800 modules): not linked (were one imported, its first import compiles it)."""


def _seed(prefix: Path) -> None:
    """The bytecode the standard library and the installed packages have beside their sources,
    linked into ``prefix``: Python reads only there once it is named, and every process of the
    run (each xdist worker at once) would compile them all again.

    Only what an import can reach: the folders below a path entry whose names are identifiers
    (a ``site-packages`` below the standard library's folder is the base interpreter's, out of
    a venv's reach: 11,500 of the 13,300 modules linked on the developers' machines, 2-3 s of
    the controller's CPU before any worker could start). The venv's own packages are linked
    even when the venv is inside the checkout (as ``make`` makes it): each worker compiled
    those it imports, all at once (about 1.5 s of CPU each)."""
    tag = f".{sys.implementation.cache_tag}.pyc"
    repo = Path(pbem.__file__).parents[1]
    ours = (repo / "pbem", repo / "tests")
    for entry in {Path(os.path.abspath(p)) for p in sys.path if p and os.path.isdir(p)}:
        if entry == repo or any(entry == p or p in entry.parents for p in ours):
            continue  # pbem and the tests: compiled by the run itself (not a venv in the checkout)
        for folder, dirs, files in os.walk(entry):
            dirs[:] = [
                d
                for d in dirs
                if d == "__pycache__"
                or (d.isidentifier() and not (folder == str(entry) and d in UNUSED))
            ]
            if os.path.basename(folder) != "__pycache__":
                continue
            for name in files:
                if not name.endswith(tag):  # not the optimized (.opt-N) ones
                    continue
                source = Path(folder).parent / (name[: -len(tag)] + ".py")
                target = prefix / source.parent.relative_to(source.anchor) / name
                if target.exists() or not source.is_file():
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    os.link(os.path.join(folder, name), target)
                except OSError:  # another file system
                    shutil.copyfile(os.path.join(folder, name), target)


def drop_bytecode() -> None:
    """On the controller, once the children are gone: the environment and the directory as
    they were."""
    while _made:
        path, forbidden = _made.pop()
        if os.environ.get(PREFIX) == path:
            del os.environ[PREFIX]
            os.environ["PYTHONDONTWRITEBYTECODE"] = forbidden
        shutil.rmtree(path, ignore_errors=True)


def compile_for_workers(config: pytest.Config) -> None:
    """On the controller, before the workers start: the modules they import compiled, and the
    test modules' asserts rewritten into pytest's own cache, where each worker finds them.
    Nothing when the children may not write bytecode (they would not read it either)."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") or config.getoption("assertmode") != "rewrite":
        return
    saved = sys.pycache_prefix
    sys.pycache_prefix = os.environ.get(PREFIX) or None
    try:
        compileall.compile_dir(Path(pbem.__file__).parent, quiet=1)
        compile_tests(config, Path(__file__).resolve().parents[1])
    finally:
        sys.pycache_prefix = saved
    warm_hypothesis_constants(sorted(Path(pbem.__file__).parent.rglob("*.py")))


def warm_hypothesis_constants(sources: list[Path]) -> None:
    """Hypothesis's constants of each of ``sources`` in its cache, once, before the workers
    start. Hypothesis reads the constants of every local module a worker has imported (about
    a second of CPU each worker on a clean clone, all at the same moment, none finding another's
    yet), from its cache when one is there (a quarter of that). Its own functions: a Hypothesis
    without them leaves the work to the workers, as before."""
    try:
        from hypothesis.errors import HypothesisSideeffectWarning
        from hypothesis.internal.constants_ast import constants_from_module, is_local_module_file
    except ImportError:
        return

    def warm(some: list[Path]) -> None:
        with warnings.catch_warnings():
            # its warning that a plugin reads its storage while pytest starts: on purpose here,
            # once, so that the workers do not each do it
            warnings.simplefilter("ignore", HypothesisSideeffectWarning)
            for source in some:
                if is_local_module_file(str(source)):
                    module = types.ModuleType(source.stem)
                    module.__file__ = str(source)
                    constants_from_module(module)  # cached on disk, keyed by the source's hash

    in_two(sources, warm)


def compile_tests(config: pytest.Config, folder: Path) -> None:
    """Every module under ``folder`` compiled where ``sys.pycache_prefix`` says, the test
    modules (and conftests) with their asserts rewritten, as pytest caches them."""
    # pytest's cache of rewritten modules, in the format its workers read (its own functions:
    # a pytest without them leaves the rewriting to the workers, as before, and the test of
    # this function says so)
    from _pytest.assertion import rewrite
    from _pytest.pathlib import fnmatch_ex

    try:
        read, rewrite_test, write = rewrite._read_pyc, rewrite._rewrite_test, rewrite._write_pyc
        tail, cache_dir = rewrite.PYC_TAIL, rewrite.get_cache_dir
    except AttributeError:
        return
    patterns = [*config.getini("python_files"), "conftest.py"]
    state = config.stash[rewrite.assertstate_key]

    def compile_some(sources: list[Path]) -> None:
        for source in sources:
            if not any(fnmatch_ex(p, source) for p in patterns):
                compileall.compile_file(source, quiet=2)
                continue
            pyc = cache_dir(source) / (source.name[:-3] + tail)
            if read(source, pyc) is not None:
                continue
            pyc.parent.mkdir(parents=True, exist_ok=True)
            source_hash, code = rewrite_test(source, config)
            write(state, code, source_hash, pyc)

    in_two(sorted(folder.rglob("*.py")), compile_some)


def in_two(jobs: list[Path], run: Callable[[list[Path]], None]) -> None:
    """``run(jobs)``, half of them in a forked child: the workers wait for this, one core
    would idle (about 7 s of CPU for the suite's test modules). A job the child could not do
    is done by the worker that needs it, as without this step."""
    if len(jobs) < 2 or not hasattr(os, "fork") or threading.active_count() > 1:
        run(jobs)  # a process with threads is not forked (only the thread forking survives)
        return
    pid = os.fork()
    if pid == 0:  # the child: its half, then out without pytest's exit handlers
        try:
            run(jobs[1::2])
        finally:
            os._exit(0)
    try:
        run(jobs[0::2])
    finally:
        os.waitpid(pid, 0)
