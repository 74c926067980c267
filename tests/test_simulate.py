"""`pbem simulate`: the DESIGN.md contract, on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
PLAYERS = [
    {"name": n, "email": f"{n}@example.org"}
    for n in ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo"]
]


def run(lines: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", "simulate", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def setup(**extra: Any) -> str:
    return json.dumps(
        {"setup": {"game": "lupus-in-tabula", "seed": 7, "lang": "en", "players": PLAYERS, **extra}}
    )


def test_transcript_gives_mail_lines_then_a_state_line() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pbem.cli",
            "simulate",
            str(HERE / "transcripts" / "lupus-night1.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    items = [json.loads(line) for line in out]
    assert all("mail" in i for i in items[:-1]) and "state" in items[-1]
    for item in items[:-1]:
        assert set(item["mail"]) == {"to", "public", "subject", "body"}
    state = items[-1]["state"]
    assert {"game", "status", "phase", "day", "winners", "players"} <= set(state)
    assert state["game"] == "lupus-in-tabula" and state["status"] == "running"
    assert state["phase"] == "debate" and state["day"] == 1
    dave = next(p for p in state["players"] if p["name"] == "dave")
    assert dave == {"name": "dave", "role": "villager", "team": "villagers", "alive": False}
    # The Seer learned at dawn what alice is; nobody else got that mail.
    seer_mails = [i["mail"] for i in items[:-1] if "carol@example.org" in i["mail"]["to"]]
    assert any("alice is a Werewolf" in m["body"] for m in seer_mails)


def test_same_transcript_same_output(tmp_path: Path) -> None:
    lines = [setup(), json.dumps({"deadline": True}), json.dumps({"deadline": True})]
    assert run(lines, tmp_path).stdout == run(lines, tmp_path).stdout


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [json.dumps({"setup": {"game": "lupus-in-tabula", "players": PLAYERS[:7]}})],
            "8 to 24 players",
        ),
        ([setup(roles={p["name"]: "vampire" for p in PLAYERS})], "unknown role 'vampire'"),
        (
            [
                setup(
                    roles={
                        p["name"]: "werewolf" if i < 3 else "villager"
                        for i, p in enumerate(PLAYERS)
                    }
                )
            ],
            "custom deck",
        ),
        (["{not json"], "malformed JSON"),
        ([json.dumps({"mail": {"from": "a@b"}})], "must start with a setup"),
        ([json.dumps({"setup": {"game": "chess", "players": PLAYERS}})], "unknown game 'chess'"),
        ([setup(options={"ghost_variant": "maybe"})], "ghost_variant"),
        ([setup(options={"no_such_option": 1})], "unknown option"),
        (
            [setup(), json.dumps({"mail": {"from": "alice@example.org", "to": "nowhere"}})],
            "'to' must be",
        ),
        ([setup(), json.dumps({"tea": True})], "unknown line type"),
    ],
)
def test_bad_transcripts_exit_2_with_one_line(
    lines: list[str], message: str, tmp_path: Path
) -> None:
    proc = run(lines, tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert message in proc.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "simulate", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "cannot read" in proc.stderr
