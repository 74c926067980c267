"""``pbem status`` answers the game master (issue 12): per game its phase, next deadline in
the configured zone, who has not acted or voted yet, finished or not and the outcome, held
posts; whether the daemon is running (its heartbeat file); words by default, JSON for scripts;
a missing data directory is an error."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.daemon import heartbeat
from pbem.daemon.config import load
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, pbem, wait_for, write_config
from tests.support.mailstack import MailStack

NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi")


def _lupus_config(stack: MailStack, tmp: Path) -> Path:
    cfg = write_config(stack, tmp, engine="pbem.table:Table")
    cfg.write_text(cfg.read_text().replace('timezone = "UTC"', 'timezone = "Europe/Paris"'))
    return cfg


def _new_lupus(cfg: Path, game_id: str) -> None:
    players = [f"--player={n} <{n.lower()}@example.test>" for n in NAMES]
    argv = ("new-game", "--game", "lupus-in-tabula", "--id", game_id, "--seed", "7", *players)
    r = pbem_in_process(cfg, *argv)  # the game is what these tests need, not the process
    assert r.returncode == 0, r.stderr


def daemon_seen(cfg: Path) -> dict[str, object]:
    """The daemon as ``pbem status`` describes it (the same library calls), without starting a
    process: what a test waits on, before it runs the real command once for its assertion."""
    config = load(cfg)
    record = heartbeat.read(config.data_dir)
    return heartbeat.describe(record, datetime.now(UTC), config.heartbeat_seconds)


@pytest.mark.slow(20)
def test_status_answers_the_game_master_with_the_daemon_running(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = _lupus_config(stack, tmp_path)
    # beats every 10 s, "not responding" after 35 s without one: a daemon starved by a busy
    # machine for the 8 s that a beat of a second allows is still running
    cfg.write_text(cfg.read_text().replace("heartbeat_seconds = 1", "heartbeat_seconds = 10"))
    _new_lupus(cfg, "village1")
    r = pbem_in_process(cfg, "status")  # no data yet: 3 for a monitor (issue 21)
    assert r.returncode == 3 and "daemon: never started" in r.stdout, r.stdout
    d = Daemon(cfg).start()
    try:
        # the mailbox's first round trip is in the heartbeat file at once, not at the next
        # beat: the sysadmin's `pbem status` right after `systemctl start` (whose Type=notify
        # waits for the mailbox) said "mailbox reached never" for up to 10 s
        wait_for(lambda: "start-up drain done" in d.log(), what="the first fetch", log=d.log)
        assert daemon_seen(cfg)["mailbox_ok"], d.log()
        wait_for(
            lambda: (seen := daemon_seen(cfg))["state"] == "running" and seen["mailbox_ok"],
            what="the daemon running, the mailbox read",
            log=d.log,
        )
        # then the operator's command, as a process
        r = pbem(cfg, "status")
        text = r.stdout
        assert r.returncode == 0, r  # running and healthy
        assert re.search(rf"daemon: running \(pid {d.proc.pid}\), last heartbeat \d+ s ago", text)
        assert "village1  lupus-in-tabula  8 players  phase: night, day 1" in text, text
        # December in Paris: the deadline is shown in CET, the configured zone
        assert re.search(r"next deadline: \S+ at \w{3} \d\d \w{3} \d{4} \d\d:\d\d CET \(in ", text)
        assert "{" not in text and "'" not in text  # words, no dict reprs

        data = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
        game = data["games"][0]
        gs = GameStore(tmp_path / "data" / "games" / "village1", readonly=True)
        table = Table.load(gs.setup, gs.events())
        assert game["awaiting"] == sorted(table.awaiting()) and game["awaiting"]
        assert f"not acted or voted yet: {', '.join(game['awaiting'])}" in text
        assert game["finished"] is False and game["phase"] == "night"
        due = min(table.deadlines().values())
        assert datetime.fromisoformat(game["next_deadline"]["at"]) == due.astimezone(UTC)
        assert data["daemon"]["state"] == "running" and data["daemon"]["mailbox_ok"]
        assert d.stop() == 0
    finally:
        d.kill()
    assert "daemon: stopped" in pbem_in_process(cfg, "status").stdout


@pytest.mark.slow(15)
def test_status_reports_a_killed_daemon_as_not_responding(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    d = Daemon(cfg).start()
    try:
        wait_for(lambda: daemon_seen(cfg)["state"] == "running", what="running", log=d.log)
    finally:
        d.kill()
    # the beat only ages from now on: once stale, it stays stale for the real command
    wait_for(lambda: daemon_seen(cfg)["state"] == "not responding", what="the stale heartbeat")
    line = pbem(cfg, "status").stdout
    assert f"daemon: NOT RESPONDING (pid {d.proc.pid}): last heartbeat" in line, line


def test_status_exits_non_zero_on_a_missing_data_dir(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    (tmp_path / "data").rmdir()  # write_config makes it, as the unit's StateDirectory= does
    r = pbem(cfg, "status")
    assert r.returncode == 3  # no data, for a monitor (issue 21)
    assert f"pbem status: data directory {tmp_path / 'data'} does not exist" in r.stderr
    assert r.stdout == ""


def test_status_shows_a_finished_game_and_its_outcome(stack: MailStack, tmp_path: Path) -> None:
    cfg = _lupus_config(stack, tmp_path)
    setup = {**demo_setup("lupus-in-tabula", 9, 3, "fr"), "game_id": "done"}
    table, step = Table.new(setup, datetime(2026, 1, 1, tzinfo=UTC))
    table.apply(step)
    play(table, random.Random(3))
    assert table.finished
    events = [table.rules.codec.encode(e) for e in table.events]
    GameStore.create(tmp_path / "data", "done", setup, events, [])
    data = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
    game = data["games"][0]
    summary = table.summary()
    assert game["finished"] is True
    assert game["outcome"] == {"winners": summary["winners"], "side": summary["side"]}
    assert "next_deadline" not in game and "awaiting" not in game
    text = pbem_in_process(cfg, "status").stdout
    won = ", ".join(summary["winners"]) or "nobody"
    assert f"done  lupus-in-tabula  9 players  finished: won by {won} ({summary['side']})" in text
