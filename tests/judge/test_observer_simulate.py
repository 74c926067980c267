"""Observers and the graveyard in ``pbem simulate`` (issue 25, item 5): a French transcript with
``"list_mode": "relay"`` and ``"graveyard": true`` (tests/transcripts/lupus-observer.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.core.errors import TranscriptError
from pbem.tools.simulate import simulate

TRANSCRIPT = Path(__file__).resolve().parents[1] / "transcripts" / "lupus-observer.jsonl"
ZOE = "zoe@ailleurs.example"


def _mails(lines: list[dict[str, Any]], who: str) -> list[dict[str, Any]]:
    return [o["mail"] for o in lines if "mail" in o and who in o["mail"]["to"]]


def test_the_transcript_shows_an_observer_and_the_graveyard() -> None:
    """LUP-005: the dead's graveyard post goes to the dead, the observer and the game master
    only; the observer's list post, a player's OBSERVER and a living player's graveyard post are
    refused with their reasons."""
    out = list(simulate(TRANSCRIPT.read_text(encoding="utf-8").splitlines()))
    zoe = "\n".join(m["body"] for m in _mails(out, ZOE))
    assert "transmise au meneur" in zoe and "Le meneur accepte votre demande" in zoe
    assert "Le cimetière de Lupus in Tabula vous est ouvert : village+cimetiere@" in zoe
    assert "Un spectateur lit la liste sans y écrire" in zoe
    assert "vous ne suivez plus Lupus in Tabula" in zoe
    (copy,) = [o["mail"] for o in out if "mail" in o and "alice est une louve" in o["mail"]["body"]]
    assert copy["to"] == ["dave@example.org", "mj@example.org", ZOE]
    assert any("Le cimetière" in m["subject"] for m in _mails(out, "dave@example.org"))
    erin = "\n".join(m["body"] for m in _mails(out, "erin@example.org"))
    assert "vous ne pouvez pas la suivre en spectateur" in erin
    carol = "\n".join(m["body"] for m in _mails(out, "carol@example.org"))
    assert "un joueur vivant ne peut pas y écrire" in carol


def test_a_graveyard_line_needs_a_graveyard() -> None:
    setup = json.loads(TRANSCRIPT.read_text(encoding="utf-8").splitlines()[0])
    setup["setup"]["graveyard"] = False
    line = {"mail": {"from": "dave@example.org", "to": "graveyard", "body": "hello"}}
    with pytest.raises(TranscriptError, match="no graveyard"):
        list(simulate([json.dumps(setup), json.dumps(line)]))


def test_on_an_external_list_spectate_names_the_list_in_english() -> None:
    """The default list mode: the list is someone else's, its subscription is the way in."""
    setup = json.loads(TRANSCRIPT.read_text(encoding="utf-8").splitlines()[0])
    for key in ("list_mode", "graveyard"):
        del setup["setup"][key]
    setup["setup"]["lang"] = "en"
    line = {"mail": {"from": ZOE, "to": "moderator", "subject": "[x]", "body": "SPECTATE"}}
    out = list(simulate([json.dumps(setup), json.dumps(line)]))
    (reply,) = _mails(out, ZOE)
    assert (
        "(village@listes.example.org): to follow it, subscribe to the list itself"
        in (reply["body"])
    )
    assert "observers" not in out[-1]["state"]
