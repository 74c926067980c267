"""A moment written as the templates and receipts show it (ISO 8601), kept per UTC moment.

A game writes the same few deadlines over and over (every prompt, receipt and schedule says
them), and ``isoformat`` of an aware datetime costs some fifty dictionary lookups (issue 23).
"""

from __future__ import annotations

from datetime import UTC, datetime

_TEXTS: dict[datetime, str] = {}
"""The texts of the UTC moments written lately; emptied when it holds :data:`_BOUND`."""

_BOUND = 256


def iso(moment: datetime) -> str:
    """``moment.isoformat()``; kept for a UTC moment only: equal moments in other zones print
    different offsets (12:00+00:00 == 13:00+01:00), and a zone's repeated hour its two folds,
    while equal UTC moments print one text."""
    if moment.tzinfo is not UTC:
        return moment.isoformat()
    text = _TEXTS.get(moment)
    if text is None:
        if len(_TEXTS) >= _BOUND:
            _TEXTS.clear()
        text = _TEXTS[moment] = moment.isoformat()
    return text
