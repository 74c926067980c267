"""What the Table asks of every event it applies, answered once per event class (issue 23):
whether it is a kernel event (the rules never fold it) and whether a step rolls back."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from pbem.core.events import KERNEL_EVENTS, Event, Paused, RolledBack, rolls_back
from pbem.desk.kernel import is_kernel
from pbem.games import GAME_MODULES, rules_for


def every_event_class() -> list[type[Event]]:
    found, todo = [], [Event]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return found


def test_is_kernel_is_isinstance_of_the_kernel_events_for_every_class() -> None:
    for game in GAME_MODULES:  # every game's own events, subclasses of Event once imported
        rules_for(game)
    classes = every_event_class()
    assert len(classes) > 40
    for cls in classes:
        event = object.__new__(cls)
        assert is_kernel(event) is isinstance(event, KERNEL_EVENTS), cls
        assert is_kernel(event) is isinstance(event, KERNEL_EVENTS), cls  # kept: the same


def test_rolls_back_finds_a_rollback_anywhere_and_nothing_derives_from_it() -> None:
    # rolls_back compares classes: a subclass of RolledBack would go unseen
    assert RolledBack.__subclasses__() == []
    assert dataclasses.is_dataclass(RolledBack)
    other = Paused(datetime(2026, 12, 1, tzinfo=UTC))
    assert not rolls_back([other, other])
    assert rolls_back([other, RolledBack(0, 1)])
    assert rolls_back(iter([RolledBack(0, 1)]))
    assert not rolls_back([])
