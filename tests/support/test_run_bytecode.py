"""The run's bytecode directory, where the environment forbids writing it beside the sources
(issue 11: every daemon a test started compiled pbem from source again)."""

from __future__ import annotations

import hashlib
import json.decoder
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pluggy
import pytest

import pbem
from tests.support import run_bytecode

ROOT = Path(__file__).resolve().parents[2]


def test_children_of_the_run_import_pbem_compiled_once_outside_the_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "yes")
    monkeypatch.delenv(run_bytecode.PREFIX, raising=False)
    run_bytecode.share_bytecode()
    prefix = Path(os.environ[run_bytecode.PREFIX])
    try:
        assert "PYTHONDONTWRITEBYTECODE" not in os.environ
        package = Path(pbem.__file__).parent
        compiled = (
            prefix / package.relative_to("/") / f"__init__.{sys.implementation.cache_tag}.pyc"
        )
        assert compiled.is_file()
        # the standard library's own bytecode is there too: no worker compiles it again
        decoder = Path(json.decoder.__file__)
        cached = (
            prefix / decoder.parent.relative_to("/") / f"decoder.{sys.implementation.cache_tag}.pyc"
        )
        assert cached.is_file()
        # and the installed packages' (from a venv inside the checkout too, as `make` makes it)
        plugins = Path(pluggy.__file__)
        cached = (
            prefix
            / plugins.parent.relative_to("/")
            / f"__init__.{sys.implementation.cache_tag}.pyc"
        )
        assert cached.is_file()
        child = subprocess.run(
            [sys.executable, "-c", "import pbem; print(pbem.__cached__)"],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        )
        assert child.stdout.strip() == str(compiled)
    finally:
        run_bytecode.drop_bytecode()
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "yes"
    assert run_bytecode.PREFIX not in os.environ
    assert not prefix.exists()


def test_only_the_bytecode_an_import_can_reach_is_linked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder below a path entry whose name is no identifier (the base interpreter's
    site-packages below its standard library) is out of an import's reach: not linked."""
    tag = sys.implementation.cache_tag
    # outside the checkout (a --basetemp may be inside it: the checkout is never linked)
    tmp_path = Path(tempfile.mkdtemp(prefix="pbem-tests-seed-"))
    entry = tmp_path / "lib"
    for package in ("json_like", "site-packages/other", "test"):
        cache = entry / package / "__pycache__"
        cache.mkdir(parents=True)
        (entry / package / "module.py").write_text("")
        (cache / f"module.{tag}.pyc").write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(entry)])
    prefix = tmp_path / "prefix"
    run_bytecode._seed(prefix)
    linked = sorted(p.relative_to(prefix / entry.relative_to("/")) for p in prefix.rglob("*.pyc"))
    shutil.rmtree(tmp_path)
    assert linked == [Path("json_like") / f"module.{tag}.pyc"]


def test_nothing_changes_where_bytecode_may_be_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv(run_bytecode.PREFIX, raising=False)
    run_bytecode.share_bytecode()
    assert run_bytecode.PREFIX not in os.environ


def test_the_workers_find_the_test_modules_rewritten(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The controller rewrites a test module's asserts into pytest's cache, where a worker's
    import reads it instead of rewriting it at the same moment as the other workers."""
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    here = Path(__file__)
    run_bytecode.compile_tests(pytestconfig, here.parent)
    folder = tmp_path / here.parent.relative_to("/")
    assert _read_pyc(here, folder / f"{here.stem}{PYC_TAIL}") is not None
    helper = folder / f"once_per_run.{sys.implementation.cache_tag}.pyc"
    assert helper.is_file()  # a helper module: compiled as any import compiles it


def test_the_compiling_is_shared_with_a_forked_child_and_every_job_is_done(tmp_path: Path) -> None:
    # in a Python of its own: this worker has threads (execnet's), and in_two forks none then
    script = f"""
import os, pathlib
from tests.support.run_bytecode import in_two
jobs = [pathlib.Path({str(tmp_path)!r}) / f"module{{i}}.py" for i in range(7)]
def run(some):
    for job in some:  # the child's half is seen only through what it leaves on disk
        job.write_text(str(os.getpid()))
in_two(jobs, run)
print(os.getpid())
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )
    doers = {job.read_text() for job in sorted(tmp_path.glob("module*.py"))}
    assert len(list(tmp_path.glob("module*.py"))) == 7
    assert len(doers) == 2 and done.stdout.strip() in doers


def test_hypothesis_finds_the_constants_of_pbem_in_its_cache(tmp_path: Path) -> None:
    """What each worker's Hypothesis reads of the local modules is in its cache before the
    workers start (its cache is keyed by the source's hash: a module of this test's own)."""
    from hypothesis.configuration import storage_directory

    source = tmp_path / "warmed_module.py"
    source.write_text(f"LIMIT = {os.getpid()}\nNAME = 'warmed {tmp_path}'\n")
    cached = (
        storage_directory("constants").path / hashlib.sha1(source.read_bytes()).hexdigest()[:16]
    )
    assert not cached.exists()
    run_bytecode.warm_hypothesis_constants([source])
    assert str(os.getpid()) in cached.read_text()
