"""A moment's text (the templates' and receipts' deadlines): a kept text is what a fresh
isoformat gives, in UTC, in another zone and naive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from pbem.core import moments
from pbem.core.moments import iso


def test_iso_is_a_fresh_isoformat_for_utc_other_zones_and_naive() -> None:
    noon = datetime(2026, 1, 6, 12, 0, tzinfo=UTC)
    paris = noon.astimezone(timezone(timedelta(hours=1)))
    assert noon == paris  # equal moments, different texts: the zone's must not be the UTC one's
    for moment in (
        noon,
        paris,
        noon,
        paris,
        noon.replace(tzinfo=None),
        noon + timedelta(microseconds=7),
    ):
        assert iso(moment) == moment.isoformat()


def test_iso_keeps_a_bounded_number_of_texts() -> None:
    start = datetime(2026, 1, 6, tzinfo=UTC)
    for minutes in range(3 * moments._BOUND):
        moment = start + timedelta(minutes=minutes)
        assert iso(moment) == moment.isoformat()
        assert len(moments._TEXTS) <= moments._BOUND
