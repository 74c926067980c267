"""A step's events are encoded when first read (issue 23): a table folds a step from its
decoded events without encoding them; whoever reads ``Step.events`` (the store) gets the
encoding the codec gives, once."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.core.events import EventCodec
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


def test_a_game_played_encodes_nothing_and_a_step_read_is_encoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table, step = Table.new(demo_setup("lupus-in-tabula", 8, 2, "en"), EPOCH)
    table.apply(step)
    encoded: list[Any] = []
    real = EventCodec.encode

    def counted(self: EventCodec, event: Any) -> dict[str, Any]:
        encoded.append(event)
        return real(self, event)

    monkeypatch.setattr(EventCodec, "encode", counted)
    steps: list[Any] = []
    real_apply = Table.apply

    def apply(self: Table, step: Any) -> None:
        steps.append(step)
        real_apply(self, step)

    monkeypatch.setattr(Table, "apply", apply)
    play(table, random.Random(2))
    assert table.finished and not encoded  # folded from the facts: nothing encoded
    codec = table.rules.codec
    for step in steps:
        assert step.size == len(step.facts)
        assert step.events == tuple(codec.encode(e) for e in step.facts)
    encodes = len(encoded)
    assert all(step.events for step in steps if step.facts) and len(encoded) == encodes
