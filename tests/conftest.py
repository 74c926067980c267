"""Suite-wide settings: hypothesis never fails on timing (a loaded CI machine is slow), and the
slowest tests start first.

``make test`` spreads the tests over a few worker processes (pytest-xdist, ``--dist load
--maxschedchunk 1``: one test at a time to the first free worker, in collection order). A long
test started last would leave one worker running alone at the end, so the collection is sorted
longest first (the classic longest-processing-time rule): the tests marked ``slow(seconds)`` by
how long they take, then the tests against real servers, then the rest in their usual order.
"""

from __future__ import annotations

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


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    # on the controller, before any child starts (the xdist workers, the daemons)
    share_bytecode()
    if config.getoption("numprocesses", None):
        make_run_dir()  # the workers' shared directory
        compile_for_workers(config)  # once here, not once a worker


def pytest_unconfigure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        remove_run_dir()
        drop_bytecode()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # a stable sort: every xdist worker collects the same order, which the scheduler requires
    items.sort(key=expected_seconds, reverse=True)
