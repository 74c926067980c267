"""The seed's game by email, end to end, through the ``pbem simulate`` command line (CAS-001,
CAS-004, CAS-101, CAS-104, CAS-750), in French."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TRANSCRIPT = Path(__file__).parents[1] / "transcripts" / "chasse-partie.jsonl"


def test_cas_001_a_whole_french_game_by_email_through_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pbem.cli.main", "simulate", str(TRANSCRIPT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    items = [json.loads(line) for line in out]
    state = items[-1]["state"]
    mails = [i["mail"] for i in items[:-1]]
    public = [m["subject"].removeprefix("[Chasse aux sorcières] ") for m in mails if m["public"]]
    assert public == [
        "La partie commence : San Francisco s'endort bientôt",
        "Nuit 1 : c'est la nuit",
        "Jour 1 : c'est le jour",
        "Jour 1 : décompte provisoire",
        "Jour 1 : le verdict",
        "Nuit 2 : c'est la nuit",
        "Jour 2 : c'est le jour",
        "La vengeance de Prue",
        "Fin de la partie : victoire des Forces du Bien",
    ]
    assert state["status"] == "finished" and state["side"] == "good"
    assert "erin" not in state["winners"] and "judy" in state["winners"]
    players = {p["name"]: p for p in state["players"]}
    assert players["peggy"] == {
        "name": "peggy",
        "role": "cole",
        "team": "good",
        "alive": True,
        "conditions": ["penny"],
    }
    assert players["carol"]["conditions"] == ["lover"] and players["judy"]["conditions"] == [
        "lover"
    ]
    assert players["mallory"]["role"] == "innocent" and players["ivan"]["role"] == "leo"
    dawn2 = next(m["body"] for m in mails if m["subject"].endswith("Jour 2 : c'est le jour"))
    assert "bob, qui était Prue\n  frank, qui était un Démon" in dawn2
    assert "Piper a utilisé son pouvoir cette nuit." in dawn2 and "Paige" not in dawn2
    assert all(not m["public"] for m in mails if "Conseil" in m["subject"])
