"""A step's events are folded once (issue 23): the state a step folded for its prompts, or its
commands for the next command, is the one :meth:`Table.apply` takes, and it must be the state
the rules fold from the log, game after game."""

from __future__ import annotations

import random

import pytest

from pbem.core.events import DeskNotice, SeatRemoved
from pbem.desk.kernel import is_kernel
from pbem.table import Table
from pbem.table.step import Step
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH


@pytest.mark.parametrize(("game", "players"), [("lupus-in-tabula", 9)])
def test_the_state_a_table_keeps_is_the_fold_of_its_log(
    game: str, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = demo_setup(game, players, 5, "fr")
    table, step = Table.new(data, EPOCH)
    taken: list[Step] = []
    real = Table.apply

    def apply(self: Table, step: Step) -> None:
        if step.folded is not None and step.folded[0] is self.state:
            taken.append(step)
        real(self, step)

    monkeypatch.setattr(Table, "apply", apply)
    table.apply(step)
    play(table, random.Random(5))
    assert taken  # the kept fold was taken, and it is the log's own
    assert table.state == table.rules.fold(table.ruled)
    reloaded = Table.load(data, [table.rules.codec.encode(e) for e in table.events])
    assert reloaded.state == table.state


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("lupus-in-tabula", {}),
        ("loup-garou", {"on_idle": "remove", "idle_act_after": 2}),
        ("chasse-aux-sorcieres", {"on_idle": "remove", "idle_act_after": 2}),
        ("dracula", {}),
    ],
)
def test_a_close_folds_its_resolution_once_and_right(
    game: str, options: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A close folds its resolution once: the idle policy reads that state, the notices'
    quick actions are checked on it and apply takes it (issue 23); it is the fold of the
    close's own events, warnings and removals by the idle policy included (docs/seats.md)."""
    data = {**demo_setup(game, 0, 3, "en"), "options": options}
    table, step = Table.new(data, EPOCH)
    closes: list[Step] = []
    real_close, rules = Table.close, type(table.rules)
    folds: list[int] = []
    closing: list[str] = []
    real_fold = rules.fold

    real_on_deadline = rules.on_deadline

    def fold(self: object, *args: object) -> object:
        if closing and closing[-1]:
            folds[-1] += 1
        return real_fold(self, *args)  # type: ignore[arg-type]

    def on_deadline(self: object, *args: object) -> object:
        closing.append("")  # the rules' own folds, as they resolve, are theirs
        try:
            return real_on_deadline(self, *args)  # type: ignore[arg-type]
        finally:
            closing.pop()

    def close(self: Table, key: str, now: object) -> Step:
        folds.append(0)
        closing.append(key)
        made = real_close(self, key, now)  # type: ignore[arg-type]
        closing.pop()
        closes.append(made)
        if made.folded is not None:
            assert made.folded[0] is self.state
            ruled = [e for e in made.facts if not is_kernel(e)]
            assert made.folded[1] == self.rules.fold(ruled, self.state)
        return made

    monkeypatch.setattr(Table, "close", close)
    monkeypatch.setattr(rules, "fold", fold)
    monkeypatch.setattr(rules, "on_deadline", on_deadline)
    table.apply(step)
    play(table, random.Random(3))
    assert sum(s.folded is not None for s in closes) > len(closes) // 2
    # the table folds once per close; the idle policy's acts fold what they add
    assert all(n <= 1 for n, s in zip(folds, closes, strict=True) if not idle_acts(s))
    if options:  # the idle policy removed a silent seat at least once: folded with it
        assert any(isinstance(e, SeatRemoved) for e in table.events)
    assert table.state == table.rules.fold(table.ruled)


def idle_acts(step: Step) -> bool:
    """Whether the idle policy acted in a close: a removal, a question to the game masters."""
    return any(
        isinstance(e, SeatRemoved)
        or (isinstance(e, DeskNotice) and e.template in ("seats/idle_ask", "seats/idle_offer"))
        for e in step.facts
    )


@pytest.mark.parametrize("game", ["lupus-in-tabula", "dracula"])
def test_a_close_the_rules_folded_as_they_resolved_is_recalled_not_refolded(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resolution the rules folded in a batch (Lupus's night and votes, LUP-300, LUP-400;
    Dracula's night) is not folded again by the table (pbem.core.folded, issue 23): the state
    it recalls is the one a fresh fold of the close's events builds."""
    table, step = Table.new(demo_setup(game, 0, 4, "fr"), EPOCH)
    rules = type(table.rules)
    real_close, real_fold, real_on_deadline = Table.close, rules.fold, rules.on_deadline
    deciding: list[bool] = []
    refolded: list[int] = []
    recalled: list[Step] = []

    def fold(self: object, *args: object) -> object:
        if deciding and not deciding[-1]:
            refolded[-1] += 1
        return real_fold(self, *args)  # type: ignore[arg-type]

    def on_deadline(self: object, *args: object) -> object:
        deciding.append(True)
        try:
            return real_on_deadline(self, *args)  # type: ignore[arg-type]
        finally:
            deciding.pop()

    def close(self: Table, key: str, now: object) -> Step:
        refolded.append(0)
        deciding.append(False)
        made = real_close(self, key, now)  # type: ignore[arg-type]
        deciding.pop()
        if made.folded is not None and not refolded[-1]:
            recalled.append(made)
            ruled = [e for e in made.facts if not is_kernel(e)]
            assert made.folded[1] == real_fold(self.rules, ruled, self.state)
        return made

    monkeypatch.setattr(Table, "close", close)
    monkeypatch.setattr(rules, "fold", fold)
    monkeypatch.setattr(rules, "on_deadline", on_deadline)
    table.apply(step)
    play(table, random.Random(4))
    assert recalled  # the nights at least: the rules' own fold, taken
    assert table.state == table.rules.fold(table.ruled)
