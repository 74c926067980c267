"""Random legal play (the bots) through the real pipeline: properties of every game."""

from __future__ import annotations

import random
import re
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.events import ActionSet, GameEnded, VoteSet
from pbem.table import Outgoing, Table
from pbem.tools.bots import bot_mails
from pbem.tools.demo import demo_setup
from pbem.tools.simulate import EPOCH
from tests.support.examples import examples

SECRET = re.compile(
    r"identité|identity|Envoûté|Charmed|Jeune loup|Young wolf|Amoureux|Lover", re.IGNORECASE
)
DEAD_TRIES = ("VOTE {n}", "TUER {n}", "SONDER {n}", "EMPOISONNER {n}", "MAIRE {n}", "RIEN")


def _dead_try(table: Table, rng: random.Random) -> tuple[EmailMessage, str] | None:
    dead = [p for p in table.state.order if not table.state.seat(p).alive]
    if not dead:
        return None
    who = rng.choice(dead)
    line = rng.choice(DEAD_TRIES).format(n=rng.choice(table.state.order))
    msg = EmailMessage()
    msg["From"] = table.player_emails[who]
    msg["Subject"] = ""
    msg.set_content(line + "\n")
    return msg, "list" if line.startswith("VOTE") else "private"


def _check_public(table: Table, mails: tuple[Outgoing, ...]) -> None:
    """LG-101, LG-102: no public mail before the end ties a living player to a secret."""
    if table.finished:
        return
    state = table.state
    # LG-252, LG-446, LG-750: the idiot spared by the village is public from then on, and the
    # post that says so also tells the burned Mayor's conditions (a lover's, say)
    public = {state.idiot} if state.idiot_revealed else set()
    living = [p for p in state.order if state.seat(p).alive and p not in public]
    for mail in mails:
        if not mail.public:
            continue
        for line in mail.body.splitlines():
            if not SECRET.search(line):
                continue
            for p in living:
                assert not re.search(rf"(?<!\w){re.escape(p)}(?!\w)", line), (p, line)


OPTIONS: tuple[dict[str, object], ...] = (
    {},
    {"early_close": True, "early_close_day": True},
    {"election_concurrent_with_night1": True},
    {"mayor_election_tie": "runoff", "lovers_if_missing": "random"},
    {"seer_result_timing": "immediate", "wolves_tie_fallback": "no_victim"},
    {"idiot_after_bite": True, "parity_counts_piper": True, "charmed_know_each_other": True},
)


def play_out(seed: int, lang: str, options: dict[str, object] | None = None) -> Table:
    setup = demo_setup("loup-garou", 16, seed, lang)
    setup["options"] = dict(options or {})
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    rng = random.Random(seed)
    now = EPOCH
    for _ in range(600):
        if table.finished:
            break
        mails = list(bot_mails(table, rng))
        tried = _dead_try(table, rng)
        if tried:
            mails.append(tried)
        for msg, channel in mails:
            if table.finished:
                break
            sender = str(msg["From"])
            who = next(n for n, e in table.player_emails.items() if e == sender)
            was_alive = table.state.seat(who).alive
            step = table.receive(msg, channel=channel, now=now)  # type: ignore[arg-type]
            if not was_alive:  # LG-606, LG-241: the dead never act (only SASH)
                kinds = {e["type"] for e in step.events}
                # (and the stamp of the mail's accepted SASH, issue 24)
                assert kinds <= {"MayorChanged", "Notice", "OrdersReceived"}, (who, kinds)
            _apply(table, step)
        if table.finished:
            break
        key, when = min(table.deadlines().items(), key=lambda kv: kv[1])
        now = max(now, when)
        _apply(table, table.on_deadline(key, now))
    return table


def _apply(table: Table, step: object) -> None:
    table.apply(step)  # type: ignore[arg-type]
    _check_public(table, step.outgoing)  # type: ignore[attr-defined]


@settings(
    max_examples=examples(8, soak=25), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    seed=st.integers(0, 10**6),
    lang=st.sampled_from(["fr", "en"]),
    options=st.sampled_from(OPTIONS),
)
@pytest.mark.slow(5)
def test_random_play_ends_with_exactly_one_outcome(
    seed: int, lang: str, options: dict[str, object]
) -> None:
    """LG-117, LG-116: every random game ends once, with one side (or the draw of LG-D27)."""
    table = play_out(seed, lang, options)
    assert table.finished
    ended = [e for e in table.events if isinstance(e, GameEnded)]
    assert len(ended) == 1
    outcome = table.rules.outcome(table.state)
    assert outcome is not None
    assert outcome.side in ("villagers", "wolves", "pied_piper", "lovers", None)
    # the winners are exactly the side's players (LG-D28)
    state = table.state
    if outcome.side in ("villagers", "wolves"):
        assert set(outcome.winners) == {
            p for p in state.order if state.seat(p).team == outcome.side
        }
    if outcome.side == "lovers":
        assert set(outcome.winners) == set(state.lovers)
    # the dead never act: every action and vote came from a living player (LG-606)
    replay = table.rules.new_state()
    for event in table.events:
        if isinstance(event, ActionSet | VoteSet):
            actor = event.actor if isinstance(event, ActionSet) else event.voter
            assert replay.seat(actor).alive
        replay = table.rules.evolve(replay, event)
    # a victory ends the public mails: the last public mail is the victory (LG-760)
    assert not table.deadlines()


def test_replay_is_deterministic_and_never_calls_the_rng() -> None:
    """DESIGN: state = fold(events); the log rebuilt from its encoding gives the same state."""
    table = play_out(4, "fr")
    encoded = [table.rules.codec.encode(e) for e in table.events]
    again = Table.load(demo_setup("loup-garou", 16, 4, "fr"), encoded)
    assert again.summary() == table.summary()
