"""Issue 13, substitutes: per game, a newcomer takes a living seat mid-game by the game
master's REMPLACER, receives the hand-over packet and plays on; the old address is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.tools.simulate import simulate

TRANSCRIPTS = Path(__file__).parent.parent / "transcripts"
GM = "gm@example.org"


def opening(name: str, upto: int, lang: str = "fr") -> list[str]:
    """The first ``upto`` meaningful lines of a stored transcript, the setup given a GM."""
    lines = [
        line
        for line in (TRANSCRIPTS / name).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ][:upto]
    setup = json.loads(lines[0])
    setup["setup"]["admins"] = [GM]
    setup["setup"]["lang"] = lang
    return [json.dumps(setup), *lines[1:]]


def mail(sender: str, body: str, to: str = "moderator") -> str:
    return json.dumps({"mail": {"from": sender, "to": to, "body": body}})


def run(lines: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    out = list(simulate(lines))
    return [o["mail"] for o in out if "mail" in o], out[-1]["state"]


def replies_to(mails: list[dict[str, Any]], address: str) -> list[dict[str, Any]]:
    return [m for m in mails if m["to"] == [address]]


# game transcript, lines kept, seat replaced, its old address, the newcomer's command
SCENARIOS = {
    # LUP-610: the seer's probe, sent by the newcomer in the seat's place
    "lupus": ("lupus-night1.jsonl", 1, "carol", "carol@example.org", "SONDER alice"),
    # LG-500: the Mayor election by private vote
    "loupgarou": ("loupgarou-day1.jsonl", 3, "bob", "bob@example.org", "MAIRE nick"),
    # CAS-330: Coop designates the Lovers, himself by his new name
    "chasse": ("chasse-partie.jsonl", 3, "carol", "carol@example.org", "AMOUREUX zoe judy"),
    # DRA-011: the night's room
    "dracula": ("dracula-night1.jsonl", 2, "Bob", "bob@example.org", "PIECE BOUDOIR"),
}


@pytest.mark.parametrize("game", sorted(SCENARIOS))
def test_substitute_mid_game_gets_the_packet_and_plays_on(game: str) -> None:
    transcript, upto, seat, old, command = SCENARIOS[game]
    before = opening(transcript, upto)
    earlier, _ = run(before)
    private = [m["subject"] for m in replies_to(earlier, old) if "commandes" not in m["subject"]]
    assert private, "the seat received private mail before the substitution"
    lines = [
        *before,
        mail(GM, f"REMPLACER {seat} par zoe@example.net Zoe elle"),
        mail("zoe@example.net", command),
        mail(old, command),
    ]
    mails, state = run(lines)
    after = mails[len(earlier) :]
    gm_reply = after[0]
    assert gm_reply["to"] == [GM] and "✓ REMPLACER" in gm_reply["body"]
    announce = next(m for m in after if m["public"])
    assert f"Zoe remplace {seat}" in announce["subject"]
    packet = next(m for m in after if m["to"] == ["zoe@example.net"])
    assert "dossier" in packet["subject"]
    # every private mail the seat had received, in order, then what is awaited now
    positions = [packet["body"].index(subject) for subject in private]
    assert positions == sorted(positions)
    assert "Votre situation" in packet["body"] and "Maintenant" in packet["body"]
    newcomer = replies_to(after, "zoe@example.net")[-1]
    assert "Acceptées" in newcomer["body"] and "Refusées" not in newcomer["body"], newcomer["body"]
    refused = replies_to(after, old)[-1]
    assert "ne joue plus dans cette partie" in refused["body"]
    assert f"({seat})" in refused["body"]
    assert "Zoe" in [p["name"] for p in state["players"]]


def test_the_seat_keeps_its_name_with_substitute_name_kept() -> None:
    before = opening("lupus-night1.jsonl", 1, "en")
    setup = json.loads(before[0])
    setup["setup"]["options"] = {"substitute_name": "kept"}
    mails, state = run(
        [
            json.dumps(setup),
            mail(GM, "REMPLACER carol par zoe@example.net Zoe"),
            mail("zoe@example.net", "SCAN alice"),
        ]
    )
    assert "carol" in [p["name"] for p in state["players"]]
    announce = next(m for m in mails if m["public"] and "carol" in m["subject"])
    assert "carol changes hands" in announce["subject"]
    assert "SCAN alice" in replies_to(mails, "zoe@example.net")[-1]["body"]


def test_the_seat_gets_its_results_at_the_new_address() -> None:
    """The seer's vision of the night (LUP roles) reaches the newcomer, not the old address."""
    before = opening("lupus-night1.jsonl", 1, "en")
    mails, _ = run(
        [
            *before,
            mail(GM, "REPLACE carol WITH zoe@example.net Zoe"),
            mail("zoe@example.net", "SCAN alice"),
            mail("alice@example.org", "KILL dave"),
            json.dumps({"deadline": True}),
        ]
    )
    vision = [m for m in mails if m["subject"].endswith("] Your vision")]
    assert vision and all(m["to"] == ["zoe@example.net"] for m in vision)


def test_a_target_named_by_the_newcomers_name_is_the_seat() -> None:
    """``KILL zoe`` designates the seat Zoe took: its card (the seer) dies, shown as Zoe."""
    before = opening("lupus-night1.jsonl", 1, "en")
    mails, state = run(
        [
            *before,
            mail(GM, "REPLACE carol WITH zoe@example.net Zoe she"),
            mail("alice@example.org", "KILL zoe"),
            json.dumps({"deadline": True}),
        ]
    )
    zoe = next(p for p in state["players"] if p["name"] == "Zoe")
    assert zoe["role"] == "seer" and not zoe["alive"]
    dawn = [m for m in mails if m["public"]][-1]
    assert "Zoe" in dawn["body"] and "carol" not in dawn["body"]


def test_the_stored_substitute_transcript_plays_through_pbem_simulate() -> None:
    """tests/transcripts/lupus-substitute.jsonl: the bench, REMPLACER, the packet, the old
    address refused, the newcomer voting and voted for in bold by his name (LUP-D28 names)."""
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pbem.cli.main",
            "simulate",
            str(TRANSCRIPTS / "lupus-substitute.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    mails = [json.loads(line)["mail"] for line in out[:-1]]
    state = json.loads(out[-1])["state"]
    packet = next(m for m in mails if m["subject"].endswith("le dossier de votre siège"))
    assert packet["to"] == ["zoe@example.net"] and "Votre vision" in packet["body"]
    assert "ne joue plus" in replies_to(mails, "carol@example.org")[-1]["body"]
    assert "✓ VOTE Zoé" in replies_to(mails, "bob@example.org")[-1]["body"]
    zoe = next(p for p in state["players"] if p["name"] == "Zoé")
    assert zoe["role"] == "seer" and zoe["alive"]


def test_the_french_texts_elide_before_a_vowel() -> None:
    """« la place d'Alice », « sous le nom d'Inès » (the grammar filters, never by hand)."""
    setup = json.loads(opening("lupus-night1.jsonl", 1)[0])
    for player in setup["setup"]["players"]:
        if player["name"] == "alice":
            player["name"] = "Alice"
    setup["setup"]["roles"] = {
        k.capitalize() if k == "alice" else k: v for k, v in setup["setup"]["roles"].items()
    }
    mails, _ = run([json.dumps(setup), mail(GM, "REMPLACER Alice par ines@example.net Inès")])
    packet = replies_to(mails, "ines@example.net")[0]["body"]
    assert "la place d'Alice" in packet and "sous le nom d'Inès" in packet
    assert "le siège d'Alice" in replies_to(mails, GM)[0]["body"]
