"""Through the real pipeline: ``pbem simulate`` transcripts and the mail layer."""

from __future__ import annotations

import json
from typing import Any

from pbem.tools.simulate import simulate
from tests.dracula.scenario import NAMES


def transcript(
    lines: list[dict[str, Any]], options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    setup = {
        "setup": {
            "game": "dracula",
            "seed": 3,
            "lang": "fr",
            "players": [{"name": n, "email": f"{n.lower()}@example.org"} for n in NAMES],
            "roles": {n: ("dracula" if n == "Ana" else "human") for n in NAMES},
            "options": {"rounds": 1, **(options or {})},
        }
    }
    text = [json.dumps(setup)] + [json.dumps(x) for x in lines]
    return list(simulate(text))


def private(sender: str, body: str) -> dict[str, Any]:
    return {"mail": {"from": f"{sender.lower()}@example.org", "to": "moderator", "body": body}}


def post(sender: str, body: str) -> dict[str, Any]:
    return {"mail": {"from": f"{sender.lower()}@example.org", "to": "list", "body": body}}


DEADLINE = {"deadline": True}


def night1_lines() -> list[dict[str, Any]]:
    rooms = {"Bob": "BOUDOIR", "Cid": "SALLE DE BAL", "Dan": "GEOLES"}
    lines: list[dict[str, Any]] = [DEADLINE]
    lines += [private(n, f"PIECE {rooms.get(n, 'TORTURE')}") for n in NAMES if n != "Ana"]
    lines += [DEADLINE, private("Ana", "PIECE BOUDOIR"), DEADLINE, private("Ana", "MORDRE Bob")]
    lines += [DEADLINE]
    return lines


def test_a_night_by_mail_in_the_seven_steps_order() -> None:
    """DRA-020, DRA-080, DRA-110, DRA-140, DRA-162, DRA-180: day, dusk, room choice by
    private mail, bites, conversion notices, dawn pickups, morning, in that order."""
    out = transcript(night1_lines())
    mails = [o["mail"] for o in out if "mail" in o]
    state = out[-1]["state"]
    assert state["game"] == "dracula" and state["round"] == 1 and "scores" in state
    assert {p["name"]: p["role"] for p in state["players"]}["Bob"] == "vampire"
    subjects = [m["subject"] for m in mails if "Vos commandes" not in m["subject"]]

    def first(word: str) -> int:
        return next(i for i, s in enumerate(subjects) if word in s)

    order = [
        first("crépuscule"),  # 2 dusk
        first("nuit 1"),  # 3 night falls: room choice
        first("choisir"),  # Dracula's counts
        first("morsures")
        if any("morsures" in s.lower() for s in subjects)
        else first("Les morsures"),
        first("un changement pour vous"),  # 5 conversion notices
        first("vous trouvez"),  # 6 dawn
        first("matin 1"),  # 7 morning
    ]
    assert order == sorted(order)
    morning = next(m for m in mails if "matin 1" in m["subject"])
    assert morning["public"] and "Bob" in morning["body"]
    converted = next(m for m in mails if "un changement pour vous" in m["subject"])
    assert converted["to"] == ["bob@example.org"] and not converted["public"]


def test_public_mails_never_leak_roles() -> None:
    """DRA-003, DRA-017: no public mail before the end names Dracula or tells who bit whom."""
    out = transcript(night1_lines())
    for o in out:
        if "mail" in o and o["mail"]["public"]:
            body = o["mail"]["body"]
            assert "Dracula était" not in body
            assert "a mordu" not in body


def test_player_text_cannot_break_headers_or_templates() -> None:
    """DESIGN.md: painted/waltz/telepathy text is data: no header injection, no template code."""
    evil = "{{ 7*7 }}\nBcc: all@example.org\nSubject: pwned"
    lines = [DEADLINE, private("Ana", f"TELEPATHIE {evil}")]
    out = transcript(lines)
    mails = [o["mail"] for o in out if "mail" in o]
    for m in mails:
        assert "\n" not in m["subject"] and "pwned" not in m["subject"]
    reply = [m for m in mails if m["to"] == ["ana@example.org"]][-1]
    assert "49" not in reply["body"]


def test_multiline_text_up_to_fin() -> None:
    """CMD-09 … CMD-15: a text argument runs over the following lines up to FIN."""
    lines = [DEADLINE, private("Ana", "TELEPATHIE première ligne\nseconde ligne\nFIN\nPIECE BAL")]
    out = transcript(lines)
    reply = [o["mail"] for o in out if "mail" in o][-1]
    assert "seconde ligne" in reply["body"]


def test_list_vote_with_bold_and_invalid_vote_reason() -> None:
    """DRA-044, AMB-014, AMB-081: a bold name is a vote; an invalid one is explained privately."""
    lines = [*night1_lines(), post("Cid", "Je vote pour **Dan**"), post("Dan", "VOTE Zorglub")]
    out = transcript(lines, {"fill_empty_seats": "none"})
    mails = [o["mail"] for o in out if "mail" in o]
    assert mails[-1]["to"] == ["dan@example.org"] and not mails[-1]["public"]
    lines += [DEADLINE]
    out = transcript(lines, {"fill_empty_seats": "none"})
    dusk = [o["mail"] for o in out if "mail" in o and "crépuscule" in o["mail"]["subject"]][-1]
    assert "Dan (1 voix)" in dusk["body"]


def test_public_talk_by_day_is_never_checked() -> None:
    """DRA-040, DRA-430: any text may be posted by day; claims are not checked."""
    quiet = transcript(night1_lines())
    talk = transcript([*night1_lines(), post("Cid", "Je suis Dracula, croyez-moi.")])
    assert len(talk) == len(quiet)  # no reply, no notice: the claim is just talk
    assert talk[-1] == quiet[-1]  # and the state did not change


def test_cli_simulate_transcript(capsys: Any) -> None:
    """`pbem simulate` plays the shipped Dracula transcript; the state line has round/scores."""
    from pathlib import Path

    from pbem.cli.main import main

    path = Path(__file__).parents[1] / "transcripts" / "dracula-night1.jsonl"
    assert main(["simulate", str(path)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    state = lines[-1]["state"]
    assert state["round"] == 1 and state["day"] == 2 and set(state["scores"]) == set(NAMES)
    roles = {p["name"]: p["role"] for p in state["players"]}
    assert roles["Ana"] == "dracula" and roles["Bob"] == "vampire"
    picked = [x["mail"] for x in lines[:-1] if "trouvez" in x["mail"]["subject"]]
    assert {m["to"][0] for m in picked} == {"cid@example.org", "dan@example.org", "eve@example.org"}


def test_a_receipt_restates_the_room_in_the_players_language() -> None:
    """DRA-011 (the rooms and their keywords, section 0.3): a French receipt names the room
    in French (« ✓ PIECE SALLE DE BAL »), an English one in English. Before: « ✓ PIECE
    BALLROOM » to a French player, the room's internal id."""
    out = transcript([DEADLINE, private("Cid", "PIECE BAL"), private("Dan", "salle geoles")])
    receipts = [
        o["mail"]["body"] for o in out if "mail" in o and "Vos commandes" in o["mail"]["subject"]
    ]
    text = "\n".join(receipts)
    assert "PIECE SALLE DE BAL" in text and "PIECE GEÔLES" in text
    assert "BALLROOM" not in text and "DUNGEONS" not in text
