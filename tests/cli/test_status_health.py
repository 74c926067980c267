"""``pbem status`` for a monitor (issue 21, item 8): its exit status is the health (0 running
and healthy, 1 degraded, 2 stopped or not responding, 3 no data), the header's outbox count is
the sum of the daemon's and the games', the requests the daemon has not taken are shown, and
an empty ``shunt list`` says so."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbem.adapters.store import GameStore
from pbem.daemon import heartbeat
from pbem.daemon.outbox import make_row
from tests.support.cli_in_process import pbem_in_process

PLAYERS = [f"--player=P{i} <p{i}@example.org>" for i in range(8)]


def config(tmp_path: Path, data: bool = True) -> Path:
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        '[moderator]\naddress = "mj@example.org"\n'
        '[imap]\nhost = "127.0.0.1"\nuser = "mj"\n[smtp]\nhost = "127.0.0.1"\n'
        f'[daemon]\ndata_dir = "{tmp_path / "data"}"\nheartbeat_seconds = 10\n'
    )
    if data:
        (tmp_path / "data").mkdir()
    return cfg


def beat(tmp_path: Path, age: float = 0, stopped: bool = False) -> None:
    at = datetime.now(UTC) - timedelta(seconds=age)
    record = {"at": at.isoformat(), "pid": 4242, "started": at.isoformat(), "stopped": stopped}
    heartbeat.write(tmp_path / "data", record)


def test_the_exit_status_is_the_daemon_s_health(tmp_path: Path) -> None:
    cfg = config(tmp_path, data=False)
    r = pbem_in_process(cfg, "status")
    assert (r.returncode, r.stdout) == (3, ""), r  # no data directory: no data
    (tmp_path / "data").mkdir()
    assert pbem_in_process(cfg, "status").returncode == 3  # never started
    beat(tmp_path)
    r = pbem_in_process(cfg, "status")
    assert r.returncode == 0 and "DEGRADED" not in r.stdout, r
    beat(tmp_path, age=3600)
    r = pbem_in_process(cfg, "status")
    assert r.returncode == 2 and "NOT RESPONDING" in r.stdout, r
    beat(tmp_path, stopped=True)
    assert pbem_in_process(cfg, "status").returncode == 2
    assert pbem_in_process(cfg, "status", "--json").returncode == 2


def test_mail_failing_to_send_is_degraded(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    now = datetime.now(UTC)
    row = make_row(
        message_id="<m1@example.org>",
        raw=b"Subject: x\r\n\r\nx\r\n",
        rcpts=["p0@example.org"],
        mail_from="mj@example.org",
        now=now,
        kind="reply",
        game="g1",
    )
    failing = dataclasses.replace(row, attempts=2, last_error="421 try later")
    setup = {"game": "lupus-in-tabula", "players": []}
    GameStore.create(tmp_path / "data", "g1", setup, [], [dict(failing)])
    beat(tmp_path)
    r = pbem_in_process(cfg, "status")
    assert r.returncode == 1, r
    assert "health: DEGRADED: 1 mail(s) failing to send" in r.stdout
    data = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
    assert data["health"]["state"] == "degraded" and data["outbox_failing"] == 1


def test_the_header_counts_the_games_outboxes_and_shows_queued_requests(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    assert pbem_in_process(cfg, "new-game", "--id", "g1", *PLAYERS).returncode == 0
    assert pbem_in_process(cfg, "admin", "g1", "PAUSE").returncode == 0
    beat(tmp_path)
    data = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
    queued = data["games"][0]["outbox_pending"]
    assert queued > 0 and data["outbox_pending"] == queued
    assert [(r["kind"], r["game"], r["lines"]) for r in data["requests"]] == [
        ("admin", "g1", ["PAUSE"])
    ]
    text = pbem_in_process(cfg, "status").stdout
    assert f"outbox: {queued} pending" in text and f"  outbox: {queued} pending" in text
    assert "requests queued for the daemon: 1\n  admin g1: PAUSE" in text


def test_an_empty_shunt_list_says_so(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    r = pbem_in_process(cfg, "shunt", "list")
    assert (r.returncode, r.stdout) == (0, "no shunted mail\n")
