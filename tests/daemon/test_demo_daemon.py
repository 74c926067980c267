"""`pbem demo-daemon`: a whole game through the real daemon, embedded SMTP, local Maildirs."""

from __future__ import annotations

import subprocess
import sys

from tests.daemon.harness import ROOT, env


def test_demo_daemon_plays_a_whole_game() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pbem.cli_daemon", "demo-daemon", "--seed", "3", "--lang", "en"],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = r.stdout
    assert "Winners: " in out
    posts = [line for line in out.splitlines() if line.startswith("┌─ ")]
    assert len(posts) >= 5, "the public thread was printed as it went"
    assert "the game master" in posts[0]
    # the result posts of one step come out in the engine's order: the victory is last
    assert "Thank you for playing" in out.split("┌─ ")[-1]
