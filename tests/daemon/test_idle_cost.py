"""The idle daemon's cost at many games (issue 23): the scans for new games stat no loaded
game, once every game is loaded the heap is frozen out of the cyclic collector's sight, and
the strings every game's state repeats are held once."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.adapters.store import list_games
from pbem.adapters.store.atomic_file import atomic_write, read_file
from pbem.daemon.service import Service


def test_a_scan_for_new_games_stats_no_loaded_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("g1", "g2", "g3"):
        (tmp_path / "games" / name).mkdir(parents=True)
        (tmp_path / "games" / name / "head.json").write_text("{}")
    looked: list[str] = []
    real_stat = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        looked.append(str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)
    found = list_games(tmp_path, known={"g1", "g3"})
    assert [d.name for d in found] == ["g2"]
    assert not [p for p in looked if "/g1" in p or "/g3" in p], looked
    assert [d.name for d in list_games(tmp_path)] == ["g1", "g2", "g3"]


def test_settle_heap_freezes_the_loaded_games() -> None:
    before = gc.get_freeze_count()
    try:
        Service.settle_heap(SimpleNamespace(games={}))  # type: ignore[arg-type]
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_the_strings_state_files_repeat_are_held_once(tmp_path: Path) -> None:
    doc = {"events": [{"type": "Notice", "template": "lupus/role", "to": ["Alice"]}] * 2}
    atomic_write(tmp_path / "a.json", doc, keep_bak=False)
    atomic_write(tmp_path / "b.json", doc, keep_bak=False)
    a, b = read_file(tmp_path / "a.json"), read_file(tmp_path / "b.json")
    assert a == b == doc
    assert a["events"][0]["template"] is b["events"][1]["template"]
    assert a["events"][1]["to"][0] is b["events"][0]["to"][0]


def test_a_games_rearm_touches_its_own_jobs_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime, timedelta

    from pbem.adapters.scheduler import DeadlineScheduler
    from pbem.daemon.jobs import DeadlineJob

    sched = DeadlineScheduler()

    async def fire() -> None:
        pass

    when = datetime.now(UTC) + timedelta(days=1)
    for game in ("g1", "g2"):
        for key in ("night", "debate"):
            sched.arm(DeadlineJob(game, key), when, fire)

    def every_job() -> None:
        raise AssertionError("a rearm lists every game's jobs")

    monkeypatch.setattr(sched.sched, "get_jobs", every_job)
    sched.disarm_game("g1", keep={DeadlineJob("g1", "night")})
    monkeypatch.undo()
    assert sorted(sched.jobs()) == sorted(
        str(DeadlineJob(g, k)) for g, k in (("g1", "night"), ("g2", "night"), ("g2", "debate"))
    )


def test_no_cyclic_collection_while_the_games_load() -> None:
    from pbem.daemon import service

    seen: list[bool] = []
    with service.no_cyclic_gc():
        seen.append(gc.isenabled())
    assert seen == [False] and gc.isenabled()


def test_a_settled_games_directory_is_not_listed_again(tmp_path: Path) -> None:
    from pbem.adapters.store import games_stamp

    games = tmp_path / "games"
    (games / "g1").mkdir(parents=True)
    assert games_stamp(tmp_path) is None  # just changed: not trusted yet
    old = 1_000_000_000_000_000_000  # 2001: long settled
    os.utime(games, ns=(old, old))
    assert games_stamp(tmp_path) == old
    (games / "g2").mkdir()  # a game renamed into place changes it
    assert games_stamp(tmp_path) != old
