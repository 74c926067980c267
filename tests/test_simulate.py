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
        [sys.executable, "-m", "pbem.cli.main", "simulate", str(path)],
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
            "pbem.cli.main",
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
    lines: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # in this process (half a second of CPU less a case): that `main`'s status is the
    # process's is test_missing_file_exits_2's, through a real process
    code, out, err = run_inproc(lines, tmp_path, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert message in err


def test_missing_file_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pbem.cli.main", "simulate", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def run_inproc(
    lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """``pbem simulate`` in this process (no interpreter start-up per case)."""
    from pbem.cli.main import main

    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["simulate", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


DEADLINE = json.dumps({"deadline": True})


def mail_line(**fields: Any) -> str:
    return json.dumps({"mail": {"from": "alice@example.org", "body": "KILL dave", **fields}})


def bad_player(name: str, email: str) -> str:
    return setup(players=[*PLAYERS[:7], {"name": name, "email": email}])


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        # issue 10, item 19: header injection, overflowing durations and dates, timezones
        ([setup(), mail_line(**{"from": "alice@example.org\r\nBcc: x@y.org"})], "CR or LF"),
        ([setup(), mail_line(subject="hi\nBcc: x@y.org")], "CR or LF"),
        ([setup(), mail_line(body="KILL \ud800dave")], "not valid Unicode"),
        ([setup(options={"night_duration": "99999999999d"}), DEADLINE], "longer than 365 days"),
        ([setup(options={"night_duration": 10**15}), DEADLINE], "longer than 365 days"),
        ([setup(options={"night_duration": 10**400}), DEADLINE], "longer than 365 days"),
        ([setup(start="9999-12-31T23:00:00+00:00"), DEADLINE], "out of range"),
        ([setup(timezone="Mars/Olympus")], "unknown timezone 'Mars/Olympus'"),
        ([setup(timezone="../../etc/passwd")], "unknown timezone"),
        ([setup(), json.dumps({"deadline": False})], '{"deadline": true}'),
        ([setup(), json.dumps({"deadline": "soon"})], '{"deadline": true}'),
        # item 12: an empty or domain-less address would be matched by a mail without a From
        ([bad_player("hugo", "")], "'' is not a mail address"),
        ([bad_player("hugo", "hugo")], "'hugo' is not a mail address"),
        ([bad_player("hugo", "hugo@")], "'hugo@' is not a mail address"),
        ([setup(admins=["root"])], "admin 'root' is not a mail address"),
        # item 18: names that can never be targeted, or that end a mail's text
        ([bad_player("_Neo_", "neo@example.org")], "write it 'Neo'"),
        ([bad_player("(Zoe)", "zoe@example.org")], "write it 'Zoe'"),
        ([bad_player("[Kira]", "kira@example.org")], "write it 'Kira'"),
        ([bad_player("«Lou»", "lou@example.org")], "write it 'Lou'"),
        ([bad_player("Jean–Luc", "jl@example.org")], "could never be targeted"),
        ([bad_player("Fin", "fin@example.org")], "ends the text of a mail"),
        ([bad_player("END", "end@example.org")], "ends the text of a mail"),
    ],
)
def test_bad_input_is_one_line_and_status_2_never_a_traceback(
    lines: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_inproc(lines, tmp_path, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert message in err


@pytest.mark.parametrize("sender", ["frank@", "", "<>", "alice", "@example.org"])
def test_mail_from_a_malformed_or_domainless_sender_is_no_ones_and_unanswered(
    sender: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 10, items 8, 12 and 20: the mail is nobody's (no kill counted), nothing is sent
    to its non-address, and the simulation goes on."""
    quiet = [setup(), DEADLINE]
    lines = [setup(), mail_line(**{"from": sender}), DEADLINE]
    code, out, err = run_inproc(lines, tmp_path, capsys)
    assert code == 0 and err == ""
    assert run_inproc(quiet, tmp_path, capsys)[1] == out  # exactly as if it had never come


def test_a_finished_game_shows_the_archive_mail_it_sends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dry run shows every mail (issue 22): the game ends (the game master's END) and the
    archive mail the daemon sends each player and game master is in the output, after the
    step's own mails, with its text body and the names of the HTML page and the record
    attached (issue 24)."""
    end = json.dumps({"mail": {"from": "gm@example.org", "body": "END none"}})
    code, out, _err = run_inproc([setup(admins=["gm@example.org"]), end], tmp_path, capsys)
    assert code == 0
    mails = [json.loads(line)["mail"] for line in out.splitlines()[:-1]]
    archives = [m for m in mails if m.get("attachments")]
    assert sorted(a for m in archives for a in m["to"]) == sorted(
        [p["email"] for p in PLAYERS] + ["gm@example.org"]
    )
    attached = ["lupus-in-tabula.html", "lupus-in-tabula.record.json"]
    assert all(m["attachments"] == attached for m in archives), archives
    assert mails.index(archives[0]) > max(i for i, m in enumerate(mails) if m["public"])
    assert "alice" in archives[0]["body"]
