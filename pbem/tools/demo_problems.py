"""What makes the mail demo fail (``pbem demo``, issue 21): a bot's move refused because its
step had closed before the move was read, or a vote round closed before anyone voted. Pure
checks over the bots' notes and the game's event log."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pbem.tools.mailbots import MailBot


def empty_rounds(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each vote round (a step whose key names a ballot of the game) that closed without a
    single vote while voters were awaited: the bots were not given the time to vote."""
    ballots = {str(e.get("ballot")) for e in events if e.get("type") == "VoteSet"}
    out, votes, started = [], 0, ""
    for e in events:
        kind = e.get("type")
        if kind == "PhaseStarted":
            votes, started = 0, f"{e.get('phase')} {e.get('number')}"
        elif kind == "VoteSet":
            votes += 1
        elif kind == "PhaseClosed" and e.get("key") in ballots:
            if not votes and len(e.get("awaited") or ()) >= 2:
                out.append(f"round {e['key']} ({started}) closed with no vote")
            votes = 0
    return out


#: The refusals that say a command came outside its step (``pbem/templates/*/reasons/``): a
#: bot sends only what HELP offered in the step in play, so one of these means the step closed
#: before its move was read. A refusal of a random pick the rules forbid (a target out of
#: reach) is no contradiction: the bot tries again.
OUT_OF_STEP = (
    "no_vote_now",
    "nothing_to_pass",
    "night_only",
    "round2_not_open",
    "voting_not_open",
    "bite_closed",
    "council_closed",
    "election_closed",
    "subphase_only",
    "no_pairing_now",
    "no_revenge_now",
    "no_tiebreak",
)


def out_of_step_wording() -> tuple[str, ...]:
    """The fixed words each :data:`OUT_OF_STEP` reason starts with, in every language."""
    root = Path(__file__).resolve().parents[1] / "templates"
    out = []
    for lang in ("fr", "en"):
        for name in OUT_OF_STEP:
            text = (root / lang / "reasons" / f"{name}.txt").read_text(encoding="utf-8")
            fixed = re.sub(r"\{%.*?%\}", "", text).split("{{")[0].strip()
            out.append(fixed)
    return tuple(w for w in out if w)


def demo_problems(bots: Sequence[MailBot], events: Sequence[Mapping[str, Any]]) -> list[str]:
    """Everything that contradicts the demo: a bot's move refused as outside its step (the
    step closed before its move was read), a vote round closed before anyone voted."""
    wording = out_of_step_wording()
    refused = [
        f"a bot's move refused after its step closed: {r}"
        for b in bots
        for r in b.refusals
        if any(w in r for w in wording)
    ]
    return refused + empty_rounds(events)
