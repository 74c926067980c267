"""The judges' services in ``pbem simulate`` (issue 25): HISTORIQUE/HISTORY and
RESUME QUOTIDIEN/DIGEST by mail, in French and English, and the daily digest's own line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.core.errors import TranscriptError
from pbem.tools.simulate import simulate

TRANSCRIPT = Path(__file__).parents[1] / "transcripts" / "lupus-services.jsonl"


def test_history_and_digest_in_a_transcript() -> None:
    """LUP-004: night 1's result is the day's public post the digest tells; the second digest
    line of the same day sends nothing (once a day); a wolf's history has the pack's mails."""
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    mails = [o["mail"] for o in simulate(lines) if "mail" in o]
    digests = [m for m in mails if "Résumé du" in m["subject"] or "Digest of" in m["subject"]]
    assert [m["to"] for m in digests] == [["dave@example.org"], ["erin@example.org"]]
    assert "Jour 1 : l'aube" in digests[1]["body"] and "hugo" in digests[1]["body"]
    (alice,) = [
        m for m in mails if m["to"] == ["alice@example.org"] and "Historique" in m["subject"]
    ]
    assert "Pour vous — Nuit : la meute chasse" in alice["body"]
    assert "Vos ordres\n----------\n  TUER hugo" in alice["body"]
    (erin,) = [m for m in mails if m["to"] == ["erin@example.org"] and "Historique" in m["subject"]]
    assert "la meute chasse" not in erin["body"] and "TUER" not in erin["body"]
    dave = mails[-1]
    assert dave["to"] == ["dave@example.org"]
    assert 'The game has had no phase "day 7"' in dave["body"]
    assert '✗ DIGEST maybe — I do not understand "maybe"' in dave["body"]


def test_a_digest_line_is_true() -> None:
    lines = [*TRANSCRIPT.read_text(encoding="utf-8").splitlines()[:1], '{"digest": 1}']
    with pytest.raises(TranscriptError, match=re.escape('a digest line is {"digest": true}')):
        list(simulate(lines))
