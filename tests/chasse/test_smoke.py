"""A whole game by mail through ``pbem simulate`` (CAS-001, CAS-004, CAS-200, CAS-201, CAS-202)."""

from __future__ import annotations

from tests.chasse.scenario import DEADLINE, mail, mails_to, run, setup_line


def test_cas_001_004_a_game_by_mail_setup_night_one_and_a_day() -> None:
    """CAS-001: public list + private mails; CAS-004: L, C, W1, W2, day, then W1 of Night 2."""
    mails, state = run(
        [
            setup_line(),
            mail("ivan", "TAKE DEMON"),
            DEADLINE,  # T_L
            mail("carol", "LOVERS niaj olivia"),
            DEADLINE,  # T_C
            mail("alice", "SCAN dave"),
            mail("dave", "KILL mallory"),
            DEADLINE,  # T_W1
            DEADLINE,  # T_end: dawn
            mail("peggy", "VOTE dave", "list"),
            mail("bob", "I vote **dave**", "list"),
            DEADLINE,  # T_day
        ]
    )
    public = [m["subject"] for m in mails_to(mails, "list")]
    assert public == [
        "[Chasse aux sorcières] The game begins: San Francisco will soon fall asleep",
        "[Chasse aux sorcières] Night 1 falls",
        "[Chasse aux sorcières] Day 1: day breaks",
        "[Chasse aux sorcières] Day 1: running tally",
        "[Chasse aux sorcières] Day 1: the verdict",
        "[Chasse aux sorcières] Night 2 falls",
    ]
    players = {p["name"]: p for p in state["players"]}
    assert state["phase"] == "W1" and state["day"] == 2 and state["status"] == "running"
    assert players["ivan"]["role"] == "demon" and players["ivan"]["team"] == "demons"
    assert not players["mallory"]["alive"] and not players["dave"]["alive"]
    assert players["niaj"]["conditions"] == ["lover"]
    assert players["peggy"]["conditions"] == ["penny"]
    assert sorted(state["leftover"]) == ["innocent", "leo"]
