"""The operator's requests share one spool protocol (issue 11): the CLI submits a request as
one file renamed into place in its spool, and the daemon reads back the same request."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.daemon.operator.admin import AdminCommand
from pbem.daemon.operator.reachable import Reachable
from pbem.daemon.operator.registry import REQUESTS
from pbem.daemon.operator.retry_deadline import RetryDeadline
from pbem.daemon.operator.retry_shunt import RetryShunt
from pbem.daemon.operator.spool import Request, submit


@pytest.mark.parametrize(
    "request_",
    [
        RetryShunt("0123abcd" * 8),
        RetryDeadline("g1"),
        Reachable.now("g1", "alice"),
        AdminCommand.now("g1", ["PAUSE", "PROLONGER 2h"]),
    ],
    ids=lambda r: type(r).__name__,
)
def test_a_submitted_request_is_read_back_whole_from_its_own_spool(
    tmp_path: Path, request_: Request
) -> None:
    path = submit(tmp_path, request_)
    assert path.parent == tmp_path / request_.spool
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no dot file left behind
    assert type(request_).read(path.name, path.read_text(encoding="utf-8")) == request_


def test_each_request_has_a_spool_of_its_own() -> None:
    spools = [kind.spool for kind in REQUESTS]
    assert len(set(spools)) == len(spools) == 4
    # a retry that may kill the process again is consumed before it is applied (crash loops)
    assert [kind.consume_first for kind in REQUESTS] == [True, True, False, False]
