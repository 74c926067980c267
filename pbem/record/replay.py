"""``pbem verify`` on an exported record: the seed, the deal, the chain, the replay, the results.

Checks, in order, each naming where it fails (docs/verify.md):

1. the seed matches its commitment, and the chain starts from it (H_0);
2. the sealed deal matches its digest and is the deal the log holds;
3. every link of the chain, recomputed from the log, equals the digest recorded for it, and
   each fingerprint a player kept from the result posts (``--posts``) equals the record's: a
   changed order, act or hash shows at its phase;
4. the replay: the deal dealt again from the seed, then every phase's close run again by the
   rules (with the draws of the seed, pbem/record/seed.py) on the recorded orders and acts,
   must give the recorded resolution (deaths, lynches, roles, the end); the times it gives are
   not compared (a close's hour is not in the log: the game master may close early);
5. the record's own views (deaths, winners) say what the log says.

A draw made by the game master's desk outside a close (a Mayor drawn for a removed one) is
taken as recorded, not redrawn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.core.draws import SCHEMES
from pbem.record.chain import links, public_form
from pbem.record.seed import commitment

_WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d:\d\d|Z)?")


@dataclass
class Verdict:
    """What ``pbem verify`` found: the checks passed, the first failure and where."""

    passed: list[str] = field(default_factory=list)
    failure: str | None = None
    phase: int | None = None
    """The first phase (link number; 0: the opening) where something differs."""

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return self.failure is None

    def fail(self, phase: int | None, what: str) -> Verdict:
        """Record a failure and its phase, unless one was recorded already (the first is kept)."""
        if self.failure is None:
            self.failure, self.phase = what, phase
        return self


def _masked(value: Any) -> Any:
    """``value`` with its times blanked (a replay does not know the hour of a close)."""
    if isinstance(value, str):
        return _WHEN.sub("*", value)
    if isinstance(value, Mapping):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(v) for v in value]
    if isinstance(value, float):  # a duration the resolution derived from now
        return value
    return value


_POSTED = re.compile(
    r"(?:Empreinte n° (?P<fr>\d+) de la partie :|Game fingerprint no\. (?P<en>\d+):)"
    r"\s*(?P<digest>[0-9a-f]{64})"
)


def posted_digests(text: str) -> dict[int, str]:
    """The fingerprints the result posts carried (``common/chain_line``), from any text
    holding them: plain text, a saved mail or an mbox (each message's text parts decoded:
    quoted-printable would cut the line), an HTML page."""
    import email
    import email.policy

    found = {int(m["fr"] or m["en"]): m["digest"] for m in _POSTED.finditer(text)}
    for raw in re.split(r"(?m)^From \S.*\n", text):
        if not raw.strip():
            continue
        message = email.message_from_string(raw, policy=email.policy.default)
        for part in message.walk():
            if part.get_content_type() in ("text/plain", "text/html"):
                try:
                    body = part.get_content()
                except (LookupError, ValueError):
                    continue
                found.update({int(m["fr"] or m["en"]): m["digest"] for m in _POSTED.finditer(body)})
    return found


def verify_record(record: Mapping[str, Any], posted: Mapping[int, str] | None = None) -> Verdict:
    """Check an exported record (pbem/record/export.py) as the module's docstring says;
    ``posted``: the fingerprints a player kept from the list's posts, by link number."""
    verdict = Verdict()
    try:
        seed = int(record["seed"]["value"])
        scheme = int(record["seed"]["scheme"])
        events: list[dict[str, Any]] = [dict(e) for e in record["events"]]
        chain = record["chain"]
    except (KeyError, TypeError, ValueError) as exc:
        return verdict.fail(None, f"not a pbem record: {exc}")
    if scheme not in SCHEMES:
        return verdict.fail(0, f"seed scheme {scheme} is unknown to this pbem")
    if commitment(seed) != record["seed"]["commitment"] or chain["start"] != commitment(seed):
        return verdict.fail(0, "the opening: the seed does not match its commitment (H_0)")
    verdict.passed.append(f"the seed matches its commitment {commitment(seed)}")
    if not _deal_ok(record, events, verdict):
        return verdict
    if not _chain_ok(seed, events, chain["links"], record, verdict):
        return verdict
    for n, digest in sorted((posted or {}).items()):
        links_ = chain["links"]
        if n > len(links_) or links_[n - 1]["digest"] != digest:
            return verdict.fail(n, f"phase {n}: the fingerprint posted differs from the record's")
    if posted:
        verdict.passed.append(f"the {len(posted)} fingerprints posted are the record's")
    if not _replay_ok(record, seed, events, verdict):
        return verdict
    _views_ok(record, events, verdict)
    return verdict


def _deal_ok(record: Mapping[str, Any], events: list[dict[str, Any]], verdict: Verdict) -> bool:
    from pbem.record.deal import Reveal, canonical_deal

    deal = record.get("deal")
    if deal is None:
        verdict.passed.append("no sealed deal (the game was created without a salt)")
        return True
    shown = Reveal(deal["salt"], deal["canonical"], deal["digest"])
    opening = []
    for event in events:
        if event.get("type") == "PhaseStarted":
            break
        opening.append(event)
    committed = next((e for e in events if e.get("type") == "DealCommitted"), None)
    if not shown.verifies or committed is None or committed.get("digest") != shown.digest:
        verdict.fail(0, "the opening: the deal does not match its commitment")
        return False
    dealt = [e for e in opening if e.get("type") not in {"GameCreated", "Notice"}]
    if canonical_deal(dealt, record["game"]) != shown.canonical:
        verdict.fail(0, "the opening: the log's deal is not the sealed one")
        return False
    verdict.passed.append(f"the deal matches its commitment {shown.digest}")
    return True


def _chain_ok(
    seed: int,
    events: Sequence[Mapping[str, Any]],
    recorded: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any],
    verdict: Verdict,
) -> bool:
    computed = links(commitment(seed), events)
    phases = {p["n"]: p.get("digest") for p in record.get("phases", [])}
    for n in range(1, max(len(computed), len(recorded)) + 1):
        mine = computed[n - 1].digest if n <= len(computed) else None
        theirs = recorded[n - 1].get("digest") if n <= len(recorded) else None
        if mine != theirs or phases.get(n, theirs) != theirs:
            verdict.fail(
                n,
                f"phase {n}: the chain differs (recomputed {mine}, recorded {theirs}): "
                "its orders, acts or hash were changed",
            )
            return False
    verdict.passed.append(f"the chain holds: {len(computed)} links, last {computed[-1].digest}")
    return True


def _replay_setup(record: Mapping[str, Any], seed: int) -> dict[str, Any]:
    setup = record["setup"]
    return {
        "game": record["game"],
        "game_id": record["game_id"],
        "seed": seed,
        "seed_scheme": record["seed"]["scheme"],
        "lang": setup["lang"],
        "timezone": setup["timezone"],
        "options": setup["options"],
        **({"roles": setup["roles"]} if setup.get("roles") is not None else {}),
        **({"leftover": setup["leftover"]} if setup.get("leftover") is not None else {}),
        # the rules never read an address: the replay's seats get placeholders
        "players": [
            {
                "name": p["name"],
                "email": f"seat{i}@record.invalid",
                "lang": p["lang"],
                **({"gender": p["gender"]} if p.get("gender") else {}),
            }
            for i, p in enumerate(setup["players"])
        ],
    }


def _replay_ok(
    record: Mapping[str, Any], seed: int, events: list[dict[str, Any]], verdict: Verdict
) -> bool:
    from pbem.core.errors import PbemError
    from pbem.table import Table
    from pbem.table.step import Step

    setup = _replay_setup(record, seed)
    first = next((e for e in events if e.get("type") == "PhaseStarted"), None)
    start = _start_of(first)
    try:
        table, step = Table.new(setup, start)
    except (PbemError, ValueError) as exc:
        verdict.fail(0, f"the opening: the setup does not replay ({exc})")
        return False
    dealt = [public_form(e) for e in step.events]
    if _masked(dealt) != _masked(events[: len(dealt)]):
        verdict.fail(0, "the opening: the deal does not follow from the seed")
        return False
    table.apply(step)
    position = len(dealt)
    if position < len(events) and events[position].get("type") == "DealCommitted":
        position += 1
        table.apply(Step((events[position - 1],)))
    link = 0
    now = start
    while position < len(events):
        event = events[position]
        if event.get("type") != "PhaseClosed":
            table.apply(Step((event,)))
            position += 1
            continue
        link += 1
        count = int(event.get("events", 0))
        recorded = events[position : position + 1 + count]
        key = str(event.get("key"))
        pending = table.deadlines()
        stamped = event.get("at")  # the game master's CLORE: its hour is in the log
        if stamped:
            now = datetime.fromisoformat(str(stamped))
        elif key in pending:
            now = max(now, pending[key])
        expected = [public_form(e) for e in table.close(key, now).events]
        if stamped and expected and expected[0].get("type") == "PhaseClosed":
            expected[0] = {**expected[0], "at": stamped}  # stamped by the desk, not the rules
        if _masked(expected) != _masked(recorded):
            verdict.fail(link, f"phase {link}: the close {key!r} does not follow from the rules")
            return False
        table.apply(Step(tuple(recorded)))
        position += len(recorded)
    verdict.passed.append(f"the replay gives every resolution recorded ({link} closes)")
    return True


def _start_of(first: Mapping[str, Any] | None) -> datetime:
    """A start for the replay: the earliest deadline of the first phase (any time in range
    does; the times are not compared)."""
    if first is not None:
        times = [datetime.fromisoformat(str(t)) for t in dict(first.get("deadlines", {})).values()]
        if times:
            return min(times)
    return datetime.fromisoformat("2026-01-01T00:00:00+00:00")


def _views_ok(record: Mapping[str, Any], events: list[dict[str, Any]], verdict: Verdict) -> None:
    chain = record["chain"]["links"]
    cuts = [int(link["index"]) for link in chain]

    def link_of(index: int) -> int:
        return next((n for n, cut in enumerate(cuts, 1) if index <= cut), len(cuts) + 1)

    died = [
        {"player": e["player"], "cause": e["cause"], "index": i, "link": link_of(i)}
        for i, e in enumerate(events)
        if e.get("type") == "PlayerDied"
    ]
    published = list(record.get("deaths", []))
    for mine, theirs in zip(died, published, strict=False):
        if dict(theirs) != mine:
            verdict.fail(mine["link"], f"phase {mine['link']}: a published death differs")
            return
    if len(died) != len(published):
        verdict.fail(None, "the published deaths are not the log's")
        return
    ended = next((e for e in reversed(events) if e.get("type") == "GameEnded"), None)
    result = record.get("result")
    if (ended is None) != (result is None) or (
        ended is not None
        and result is not None
        and (
            result.get("winners") != ended.get("winners") or result.get("side") != ended.get("side")
        )
    ):
        verdict.fail(len(cuts) + 1, "the published result (side, winners) is not the log's")
        return
    verdict.passed.append("the published deaths and result are the log's")
