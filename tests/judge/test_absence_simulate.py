"""ABSENCE in ``pbem simulate`` (issue 25): a game master dry-runs a transcript where a
player declares an absence and goes silent; the transcript shows the receipt, the game
master's notice, no idle warning, and in ``extend`` mode the list told of the moved deadline."""

from __future__ import annotations

import json
from typing import Any

from tests.desk.desk_game import ADMIN
from tests.idle.transcripts import run, setup_line
from tests.support.game_by_mail import address


def transcript(lang: str, body: str, deadlines: int, **options: Any) -> list[str]:
    mail = {"mail": {"from": address("p1"), "to": "moderator", "body": body}}
    setup = setup_line("lupus-in-tabula", lang=lang, options=options)
    return [json.dumps(setup), json.dumps(mail), *[json.dumps({"deadline": True})] * deadlines]


def test_simulate_shows_an_absence_noted_the_gm_told_and_no_warning() -> None:
    mails, _ = run(transcript("fr", "ABSENCE du 05/01 au 08/01 déménagement", 4))
    (receipt,) = [
        m for m in mails if m["to"] == [address("p1")] and "Vos commandes" in m["subject"]
    ]
    assert "Absence notée du lundi 5 janvier au jeudi 8 janvier." in receipt["body"]
    (told,) = [m for m in mails if m["to"] == [ADMIN] and "Absence de p1" in m["subject"]]
    assert "(déménagement)" in told["body"]
    assert not [m for m in mails if m["to"] == [address("p1")] and "joué depuis" in m["subject"]]
    warned = [m for m in mails if m["to"] == [address("p2")] and "joué depuis" in m["subject"]]
    assert warned  # the other silent wolf is warned as ever


def test_simulate_in_extend_mode_shows_the_list_told_of_the_moved_deadline() -> None:
    mails, _ = run(transcript("en", "ABSENT on 2026-01-06", 1, absence_mode="extend"))
    (moved,) = [m for m in mails if m["public"] and m["subject"].endswith("Deadline extended")]
    assert "Absence declared that day: p1." in moved["body"]
    assert "Wed 7 Jan 12:00 UTC" in moved["body"]
