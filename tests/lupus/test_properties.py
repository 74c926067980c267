"""Property tests: random legal play, hostile mail, and secrecy (hypothesis)."""

from __future__ import annotations

import random
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.errors import MailError
from pbem.core.events import ActionSet, GameEnded, Notice, PlayerDied, VoteSet
from pbem.mail.inbound import parse_bytes
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.support.examples import examples

ROLE_WORDS = (
    "Werewolf",
    "Seer",
    "Medium",
    "Possessed",
    "Bodyguard",
    "Mason",
    "Werehamster",
    "Mythomaniac",
    "Villager",
)


def bot_game(seed: int, players: int, options: dict[str, object]) -> Table:
    setup = demo_setup("lupus-in-tabula", players, seed, "en")
    setup["options"] = options
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    play(table, random.Random(seed))
    return table


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "ghost_variant": st.booleans(),
        "wolves_tie": st.sampled_from(["random", "no_victim"]),
        "nomination_tie": st.sampled_from(["random", "all_tied"]),
        "single_nominee": st.sampled_from(["lynch", "no_lynch"]),
        "round2_tie": st.sampled_from(["round1_then_random", "random", "no_lynch"]),
        "seer_result_timing": st.sampled_from(["dawn", "immediate"]),
        "early_close": st.booleans(),
    },
)


@pytest.mark.slow(5)
@settings(
    max_examples=examples(12, soak=40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(seed=st.integers(0, 10**6), players=st.integers(8, 24), options=OPTIONS)
def test_random_legal_play_ends_with_exactly_one_outcome(
    seed: int, players: int, options: dict[str, object]
) -> None:
    """LUP-110, LUP-111, LUP-112, LUP-114, LUP-750: every game ends, once, with its winners."""
    table = bot_game(seed, players, options)
    ended = [e for e in table.events if isinstance(e, GameEnded)]
    assert len(ended) == 1
    assert table.finished and not table.deadlines()
    summary = table.summary()
    assert summary["status"] == "finished"
    victories = [e for e in table.events if isinstance(e, Notice) and e.template == "lupus/victory"]
    assert len(victories) == 1


@settings(
    max_examples=examples(10, soak=30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10**6), players=st.integers(8, 24), ghosts=st.booleans())
def test_the_dead_never_act(seed: int, players: int, ghosts: bool) -> None:
    """LUP-005, LUP-607, LUP-502: after death, only a ghost's round-1 vote is accepted."""
    table = bot_game(seed, players, {"ghost_variant": ghosts})
    dead: set[str] = set()
    ballot = ""
    for event in table.events:
        if isinstance(event, PlayerDied):
            dead.add(event.player)
        elif isinstance(event, ActionSet):
            assert event.actor not in dead
        elif isinstance(event, VoteSet):
            ballot = event.ballot
            if event.voter in dead:
                assert ghosts and ballot == "round1"


@settings(
    max_examples=examples(10, soak=30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(seed=st.integers(0, 10**6), players=st.integers(8, 24))
def test_no_public_mail_before_the_end_names_a_role(seed: int, players: int) -> None:
    """LUP-103, LUP-606, LUP-608, LUP-D20: roles are public only in the opening deck and the end."""
    setup = demo_setup("lupus-in-tabula", players, seed, "en")
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    sent = list(step.outgoing) + play(table, random.Random(seed))
    public = [m for m in sent if m.public]
    assert "new game" in public[0].subject and "game is over" in public[-1].subject
    for mail in public[1:-1]:
        for word in ROLE_WORDS:
            assert word not in mail.body, (word, mail.subject, mail.body)


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=3000), channel=st.sampled_from(["private", "list"]))
def test_any_bytes_get_an_answer_or_nothing_never_a_crash(raw: bytes, channel: str) -> None:
    """Whatever arrives, the pipeline replies or ignores; state changes only by rules."""
    table = TABLE
    try:
        msg = parse_bytes(raw)
    except MailError:
        return
    del msg["From"]
    msg["From"] = "p3@example.org"
    before = table.state
    step = table.receive(msg, channel=channel, now=EPOCH)  # type: ignore[arg-type]
    assert table.state is before
    # At most the one reply to the sender; night commands cause no public mail.
    assert all(m.to == ("p3@example.org",) and not m.public for m in step.outgoing)
    assert len(step.outgoing) <= 1


@pytest.mark.slow(1)
@settings(max_examples=examples(60, soak=200), deadline=None)
@given(body=st.text(max_size=400), subject=st.text(max_size=60))
def test_any_text_is_parsed_into_replies_only(body: str, subject: str) -> None:
    """Bad commands never raise out of the pipeline and never change the state."""
    msg = EmailMessage()
    msg["From"] = "p3@example.org"
    msg["Subject"] = " ".join(subject.splitlines())
    msg.set_content(body)
    before = TABLE.state
    TABLE.receive(msg, channel="private", now=EPOCH)
    assert TABLE.state is before  # receive computes a step; nothing changes until apply


def _table() -> Table:
    from tests.support.game_by_mail import lupus_roles

    roles = lupus_roles(8)
    setup = {
        "game": "lupus-in-tabula",
        "seed": 1,
        "lang": "en",
        "players": [{"name": n, "email": f"{n}@example.org"} for n in roles],
        "roles": roles,
    }
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    return table


TABLE = _table()
