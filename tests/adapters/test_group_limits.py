"""The rate-limit windows of a group's commits are stored once, just before the group's write
(issue 23: one tinydb update a group instead of one a mail), and the head holds what one write
per commit would have stored."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import pbem.adapters.store.game as game_module
from pbem.adapters.store import GameStore, read_file

HITS = [
    {"auto:a@example.org": [100.0], "cap": [100.0]},
    {"auto:b@example.org": [101.0], "cap": [100.0, 101.0]},
    {"auto:a@example.org": [100.0, 102.0], "cap": [100.0, 101.0, 102.0]},
]


def store(tmp_path: Path, name: str) -> tuple[GameStore, Callable[[], Any]]:
    gs = GameStore.create(tmp_path / name, "g1", {"game": "x"}, [], [])
    hits: Iterator[dict[str, list[float]]] = iter(HITS)
    gs.limits_hook = lambda: next(hits, {})
    return gs, lambda: read_file(gs.dir / "head.json")["limits"]


def commit(gs: GameStore, n: int) -> None:
    row = {"message_id": f"<r{n}@pbem.test>", "raw": "x", "rcpts": ["a@example.org"]}
    gs.commit(events=[{"e": n}], outbox=[row], ledger_key=f"k{n}")


def test_a_groups_windows_are_stored_once_as_one_write_a_commit_stores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, alone_limits = store(tmp_path, "alone")
    for n in range(3):
        commit(alone, n)
    grouped, grouped_limits = store(tmp_path, "grouped")
    stored = []
    write = game_module.write_limits
    monkeypatch.setattr(
        game_module, "write_limits", lambda db, hook: stored.append(1) or write(db, hook)
    )
    with grouped.head.group():
        for n in range(3):
            commit(grouped, n)
    assert len(stored) == 1, "one update of the windows for the group"
    # the same windows, in the same order (the file's bytes): each window's newest copy
    assert json.dumps(grouped_limits()) == json.dumps(alone_limits())
    assert grouped.limit_windows() == {
        "auto:a@example.org": [100.0, 102.0],
        "cap": [100.0, 101.0, 102.0],
        "auto:b@example.org": [101.0],
    }


def test_a_failed_group_stores_no_window(tmp_path: Path) -> None:
    gs, limits = store(tmp_path, "g")
    commit(gs, 0)
    with pytest.raises(KeyError), gs.head.group():
        commit(gs, 1)
        raise KeyError("the group fails")
    assert limits() == {"1": {"windows": HITS[0], "pruned": 0.0}}
    assert GameStore(gs.dir).limit_windows() == HITS[0]
