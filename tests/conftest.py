"""Suite-wide settings: hypothesis never fails on timing (a loaded CI machine is slow), the
slowest tests start first, and the tests' files live in memory where the machine has room.

``make test`` spreads the tests over a few worker processes (pytest-xdist, ``--dist load
--maxschedchunk 1``: one test at a time to the first free worker, in collection order). A long
test started last would leave one worker running alone at the end, so the collection is sorted
longest first (the classic longest-processing-time rule): the tests marked ``slow(seconds)`` by
how long they take, then the tests against real servers, then the rest in their usual order.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.once_per_run import make_run_dir, remove_run_dir
from tests.support.run_bytecode import compile_for_workers, drop_bytecode, share_bytecode

settings.register_profile(
    "pbem", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile("pbem")

REAL_SERVER_FIXTURES = {"stack", "installed"}
"""Fixtures that start real servers or builds: a test using one takes seconds, not milliseconds."""


def expected_seconds(item: pytest.Item) -> float:
    """About how long ``item`` takes on an idle machine: its ``slow`` mark, else a guess by its
    fixtures (the ordering needs only the rank)."""
    mark = item.get_closest_marker("slow")
    if mark is not None:
        return float(mark.args[0])
    if REAL_SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return 1.0
    return 0.0


TMPFS = Path("/dev/shm")
TMPFS_ROOM = 2 * 1024**3
"""The room a run's files need on :data:`TMPFS`, with a wide margin (a whole run leaves about
160 MB); a smaller one (a container's 64 MB) leaves them on the disk."""
ON_DISK = "PBEM_TESTS_ON_DISK"
"""Set (to anything) to keep the run's files in the usual temporary directory."""
_tmpfs_basetemp: list[str] = []
_kept: list[str] = []  # a failing run's, named at the end of its report


def basetemp_on_tmpfs(config: pytest.Config) -> None:
    """The run's ``tmp_path`` directories on a tmpfs when there is one with room, unless a
    ``--basetemp`` is given: the daemons' stores fsync each commit (issue 10's durability),
    and on a virtual machine's ext4 those fsyncs cost a Dracula mail demo 45 s alone against
    27 s on a tmpfs at a load of 9 (20.4 against 17.9 s at a load of 2), and a whole run 75 s
    of system CPU against 54 s. What an fsync makes durable is the power-loss tests' concern,
    and they model it whatever the file system (tests/support/lazyfs.py)."""
    if config.option.basetemp is not None or os.environ.get(ON_DISK):
        return
    try:
        room = os.statvfs(TMPFS)
    except OSError:
        return
    if (
        room.f_bavail * room.f_frsize < TMPFS_ROOM
        or room.f_flag & os.ST_NOEXEC  # a test may run what it wrote there
        or not os.access(TMPFS, os.W_OK | os.X_OK)
    ):
        return
    path = tempfile.mkdtemp(prefix="pbem-tests-", dir=TMPFS)
    _tmpfs_basetemp.append(path)
    config.option.basetemp = path  # the xdist workers get theirs below it


@pytest.hookimpl(tryfirst=True)  # before pytest's tmp_path factory reads the option
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    # on the controller, before any child starts (the xdist workers, the daemons)
    basetemp_on_tmpfs(config)
    share_bytecode()
    if config.getoption("numprocesses", None):
        make_run_dir()  # the workers' shared directory
        compile_for_workers(config)  # once here, not once a worker


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        remove_run_dir()
        drop_bytecode()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A passing run's files leave the memory with it; a failing run's stay for a look."""
    if hasattr(session.config, "workerinput") or not _tmpfs_basetemp:
        return
    path = _tmpfs_basetemp.pop()
    if exitstatus == 0:
        shutil.rmtree(path, ignore_errors=True)
    else:
        _kept.append(path)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for path in _kept:
        terminalreporter.write_line(f"the run's files, kept for a look: {path}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # a stable sort: every xdist worker collects the same order, which the scheduler requires
    items.sort(key=expected_seconds, reverse=True)
