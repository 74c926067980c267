"""The members' reply budget (issue 10 item 7, :class:`pbem.daemon.limits.TokenBucket`): a burst,
then a slower pace; persisted like the other windows; forgery notices apart. Pure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbem.daemon.limits import SenderLimits, TokenBucket, merge_windows

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ALICE = "alice@example.test"


def test_token_bucket_gives_a_burst_then_the_pace() -> None:
    b = TokenBucket(capacity=3, per_hour=6)  # one more every 10 minutes
    got = [b.take(T0) for _ in range(4)]
    assert [ok for ok, _ in got] == [True, True, True, False]
    assert got[2][1] == T0 + timedelta(minutes=10)  # the last one says when replies resume
    assert got[0][1] is None and got[1][1] is None
    assert b.take(T0 + timedelta(minutes=9))[0] is False
    assert b.take(T0 + timedelta(minutes=10))[0] is True
    # after a full refill (30 minutes of silence) the whole burst is back
    later = T0 + timedelta(minutes=41)
    assert [b.take(later)[0] for _ in range(4)] == [True, True, True, False]


def test_a_second_status_and_a_corrected_typo_are_answered() -> None:
    """Before: one error reply an hour, so the second STATUS got silence."""
    limits = SenderLimits()
    assert [limits.take(ALICE, T0 + timedelta(seconds=i))[0] for i in range(3)] == [True] * 3


def test_forgery_notices_do_not_spend_the_players_replies() -> None:
    limits = SenderLimits(reply_burst=2, replies_per_hour=1)
    assert [limits.take(ALICE, T0, notice=True)[0] for _ in range(3)] == [True, True, False]
    assert limits.take(ALICE, T0)[0] is True


def test_reply_budget_survives_a_restart() -> None:
    """The hits ride with the store writes (changes) and are restored at start-up, merged
    across stores: a restart does not refill the bucket."""
    limits = SenderLimits(reply_burst=2, replies_per_hour=1)
    limits.take(ALICE, T0)
    limits.take(ALICE, T0)
    persisted = limits.changes()
    again = SenderLimits(reply_burst=2, replies_per_hour=1)
    again.restore(merge_windows([persisted, persisted]), T0 + timedelta(minutes=5))
    assert again.take(ALICE, T0 + timedelta(minutes=5))[0] is False
    assert again.take(ALICE, T0 + timedelta(minutes=61))[0] is True
