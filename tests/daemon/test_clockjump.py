"""F14 against real servers: the daemon's wall clock moved by libfaketime (RELIABILITY §7.4).

The daemon runs under ``LD_PRELOAD=libfaketime`` with its offset in a file re-read on every call
(``FAKETIME_TIMESTAMP_FILE`` + ``FAKETIME_NO_CACHE=1``); ``FAKETIME_DONT_FAKE_MONOTONIC=1`` keeps
``CLOCK_MONOTONIC`` real, as an NTP step or a VM resume would. Dovecot and the SMTP sink run on
real time. Two cases: the daemon is stopped across a deadline and restarted three (fake) days
later; and the clock jumps three days under the running daemon, then back. Either way the passed
deadline is extended (outage policy), the players are told, and it is resolved exactly once.
"""

from __future__ import annotations

import glob
import shutil
import time
from pathlib import Path

import pytest

from pbem.adapters.store import DaemonStore, GameStore
from tests.support.daemon_process import Daemon, game_state, new_fake_game, wait_for, write_config
from tests.support.mailstack import ADMIN, MailStack

GRACE_HOURS = 0.0015  # 5.4 s: the extended deadline then resolves within the test


def _libfaketime() -> str:
    for pat in ("/usr/lib/*/faketime/libfaketimeMT.so.1", "/usr/lib/faketime/libfaketimeMT.so.1"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    pytest.skip(
        "libfaketime is not installed (apt-get install faketime; "
        "scripts/install-mailstack.sh does it)"
        + ("" if shutil.which("apt-get") else ": no apt-get here")
    )


def _faked(offset_file: Path) -> dict[str, str]:
    return {
        "LD_PRELOAD": _libfaketime(),
        "FAKETIME_TIMESTAMP_FILE": str(offset_file),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }


def _subjects(stack: MailStack, user: str) -> list[str]:
    return [str(m["Subject"]) for m in stack.messages(user)]


def _count(stack: MailStack, user: str, needle: str) -> int:
    return sum(needle in s.lower() for s in _subjects(stack, user))


def _phases(data: Path) -> list[int]:
    return [int(e["n"]) for e in game_state(data, "g1")[0] if e["type"] == "phase"]


def _deadline_records(data: Path) -> list[dict[str, object]]:
    return list(GameStore(data / "games" / "g1", readonly=True).deadline_states().values())


def _setup(stack: MailStack, tmp_path: Path) -> tuple[Path, Path, Path]:
    cfg = write_config(stack, tmp_path, extra_daemon=f"outage_grace_hours = {GRACE_HOURS}")
    new_fake_game(cfg, "g1", ["alice", "bob"], phase_minutes=60)
    offset = tmp_path / "faketime.rc"
    offset.write_text("+0\n")
    return cfg, tmp_path / "data", offset


def _extended_then_resolved_once(stack: MailStack, data: Path, d: Daemon) -> None:
    wait_for(
        lambda: _count(stack, "alice@example.test", "deadline extended") >= 1,
        timeout=90,  # a busy machine: the jump is seen, drained, extended, mailed
        what="the extension notice to the players",
        log=d.log,
    )
    # (the extended deadline is only GRACE_HOURS away: on a busy machine it may already be
    # resolved when the notice is read, so what is checked is the record, not the moment)
    wait_for(lambda: _phases(data) == [1, 2], what="the extended deadline resolved", log=d.log)
    wait_for(
        lambda: _count(stack, "alice@example.test", "phase 1 result") == 1,
        what="one result mail",
        log=d.log,
    )
    (rec,) = [r for r in _deadline_records(data) if str(r.get("key", "")).startswith("phase-1@")]
    assert rec["state"] == "resolved"
    assert rec.get("extended_to"), "extended, then resolved: not resolved at the jump"
    assert _count(stack, "alice@example.test", "deadline extended") == 1


@pytest.mark.slow(20)
def test_restarted_three_days_later_extends_and_resolves_once(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg, data, offset = _setup(stack, tmp_path)
    d = Daemon(cfg, **_faked(offset)).start()
    try:
        wait_for(lambda: "ready" in d.log(), what="the daemon up", log=d.log)
        # its heartbeat (last_seen), written on fake time, from which the outage is measured
        wait_for(lambda: DaemonStore(data, readonly=True).get_meta("last_seen"), what="a heartbeat")
        assert d.stop() == 0
        offset.write_text("+3d\n")  # the daemon is down across the deadline for 3 days
        d.start()
        _extended_then_resolved_once(stack, data, d)
        assert _phases(data) == [1, 2]
        assert d.stop() == 0
    finally:
        d.kill()


@pytest.mark.slow(15)
def test_clock_jumps_three_days_under_the_running_daemon_then_back(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg, data, offset = _setup(stack, tmp_path)
    d = Daemon(cfg, **_faked(offset)).start()
    try:
        wait_for(lambda: "ready" in d.log(), what="the daemon up", log=d.log)
        time.sleep(0.5)
        offset.write_text("+3d\n")  # an NTP step / VM resume: wall +3 days, monotonic not
        _extended_then_resolved_once(stack, data, d)
        assert "clock jump" in d.log()
        wait_for(
            lambda: _count(stack, ADMIN, "clock jumped") == 1,
            what="the admin alert",
            log=d.log,
        )
        offset.write_text("+0\n")  # and back: nothing may be resolved again
        wait_for(
            lambda: _count(stack, ADMIN, "clock jumped") == 2,
            what="the admin alert for the backward jump",
            log=d.log,
        )
        time.sleep(1.5)
        assert _phases(data) == [1, 2]
        assert _count(stack, "alice@example.test", "phase 1 result") == 1
        assert d.stop() == 0
        assert d.log().count("clock jump:") == 2
    finally:
        d.kill()
