"""Outbox rows are typed (issue 11): a dataclass the daemon builds and the sender reads, kept by
the stores as the same JSON document as before."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from pbem.adapters.store import DaemonStore
from pbem.daemon.outbox import OutboxRow, make_row

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _row() -> OutboxRow:
    return make_row(
        message_id="<k@example.test>",
        raw="Subject: é\n\nbody\n".encode(),
        rcpts=["alice@example.test"],
        mail_from="moderator@example.test",
        now=NOW,
        kind="reply",
        game="g1",
        seq=3,
    )


def test_a_row_is_stored_as_the_same_document_and_read_back_equal(tmp_path: Path) -> None:
    row = _row()
    store = DaemonStore(tmp_path)
    store.commit(outbox=[row])
    (record,) = store.outbox()
    # the document the stores have always kept: these keys in this order, JSON lists
    assert list(record) == [
        "message_id",
        "raw",
        "rcpts",
        "mail_from",
        "created",
        "next_try",
        "attempts",
        "status",
        "kind",
        "game",
        "bypass_cap",
        "seq",
        "last_error",
    ]
    assert record["rcpts"] == ["alice@example.test"] and record["status"] == "pending"
    assert json.loads(json.dumps(record)) == record
    assert OutboxRow.from_record(record) == row
    assert row.raw.encode("latin-1") == "Subject: é\n\nbody\n".encode()  # lossless
