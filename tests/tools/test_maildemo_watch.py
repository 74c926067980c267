"""The mail demo's driver watches the game as the daemon commits it: it folds only the events
committed since its last look, instead of replaying the whole log every 0.2 s (a tenth of a
Loup-Garou game's CPU went to those replays), and reads the store only once the daemon has
written to it."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pbem.adapters.store import GameStore
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.demo_mail import GAME_ID
from pbem.tools.demo_watch import GameWatch


def finished_game() -> tuple[dict[str, Any], Table, list[dict[str, Any]]]:
    setup = {**demo_setup("lupus-in-tabula", 9, 3, "en"), "game_id": GAME_ID}
    table, step = Table.new(setup, datetime(2026, 1, 1, tzinfo=UTC))
    table.apply(step)
    play(table, random.Random(3))
    assert table.finished
    return setup, table, [table.rules.codec.encode(e) for e in table.events]


def test_the_demo_driver_folds_only_the_new_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup, table, events = finished_game()
    half = len(events) // 2
    store = GameStore.create(tmp_path, GAME_ID, setup, events[:half], [])
    loads: list[int] = []
    real_load = Table.load

    def counting_load(*args: object, **kw: object) -> Table:
        loads.append(1)
        return real_load(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Table, "load", counting_load)
    watch = GameWatch(tmp_path)
    assert not watch.poll() and not watch.poll()  # the game goes on
    store.commit(events=events[half:], ledger_key="rest")  # the daemon commits the rest
    assert watch.poll(), "the end of the game is seen"
    assert len(loads) == 1, "the log was replayed at each poll"
    assert watch.table.summary() == table.summary()


def test_the_demo_driver_reads_the_store_only_after_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup, table, events = finished_game()
    half = len(events) // 2
    store = GameStore.create(tmp_path, GAME_ID, setup, events[:half], [])
    reads: list[int] = []  # the head's events are read at each look at the store
    real_head_events = GameStore.head_events

    def counting_head_events(self: GameStore) -> list[dict[str, Any]]:
        reads.append(1)
        return real_head_events(self)

    monkeypatch.setattr(GameStore, "head_events", counting_head_events)
    watch = GameWatch(tmp_path)
    assert not any(watch.poll() for _ in range(5))  # the game goes on, nothing written
    assert len(reads) == 1, "the store was read again though nothing was written"
    store.commit(events=events[half:], ledger_key="rest")
    assert watch.poll(), "the end of the game is seen"
    assert len(reads) == 2 and watch.table.summary() == table.summary()
