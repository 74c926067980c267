"""A step's events are folded once (issue 23): the state a step folded for its prompts, or its
commands for the next command, is the one :meth:`Table.apply` takes, and it must be the state
the rules fold from the log, game after game."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from pbem.core.events import DeskNotice, SeatRemoved
from pbem.core.folded import recall
from pbem.desk.kernel import is_kernel
from pbem.games.village.events import TallyPosted
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


@dataclass
class WatchedCloses:
    """Each close a table made, the state it closed from, and how many folds the table did
    itself in it (the rules' own, while they resolve in ``on_deadline``, are theirs)."""

    closes: list[Step] = field(default_factory=list)
    states: list[object] = field(default_factory=list)
    folds: list[int] = field(default_factory=list)

    def checked(self, table: Table) -> list[Step]:
        """The closes that carry a fold, each checked to be the fold of the close's own events
        from the state it closed from."""
        carried = [(s, st) for s, st in zip(self.closes, self.states, strict=True) if s.folded]
        for made, state in carried:
            assert made.folded is not None and made.folded[0] is state
            ruled = [e for e in made.facts if not is_kernel(e)]
            assert made.folded[1] == table.rules.fold(ruled, state)
        return [made for made, _ in carried]


def watch_closes(table: Table, monkeypatch: pytest.MonkeyPatch) -> WatchedCloses:
    """Counts the folds :meth:`Table.close` does besides the rules' own."""
    rules = type(table.rules)
    real_close, real_fold, real_on_deadline = Table.close, rules.fold, rules.on_deadline
    watched = WatchedCloses()
    in_rules: list[bool] = []  # innermost last: True while the rules resolve

    def fold(self: object, *args: object) -> object:
        if in_rules and not in_rules[-1]:
            watched.folds[-1] += 1
        return real_fold(self, *args)  # type: ignore[arg-type]

    def on_deadline(self: object, *args: object) -> object:
        in_rules.append(True)
        try:
            return real_on_deadline(self, *args)  # type: ignore[arg-type]
        finally:
            in_rules.pop()

    def close(self: Table, key: str, now: object) -> Step:
        watched.folds.append(0)
        watched.states.append(self.state)
        in_rules.append(False)
        try:
            made = real_close(self, key, now)  # type: ignore[arg-type]
        finally:
            in_rules.pop()
        watched.closes.append(made)
        return made

    monkeypatch.setattr(Table, "close", close)
    monkeypatch.setattr(rules, "fold", fold)
    monkeypatch.setattr(rules, "on_deadline", on_deadline)
    return watched


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
    watched = watch_closes(table, monkeypatch)
    table.apply(step)
    play(table, random.Random(3))
    closes = watched.closes
    assert len(watched.checked(table)) > len(closes) // 2
    # the table folds once per close; the idle policy's acts fold what they add
    assert all(n <= 1 for n, s in zip(watched.folds, closes, strict=True) if not idle_acts(s))
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
    watched = watch_closes(table, monkeypatch)
    table.apply(step)
    play(table, random.Random(4))
    recalled = [
        s for s, n in zip(watched.closes, watched.folds, strict=True) if s.folded and n == 0
    ]
    assert recalled  # the nights at least: the rules' own fold, taken
    assert set(map(id, recalled)) <= set(map(id, watched.checked(table)))
    assert table.state == table.rules.fold(table.ruled)


def test_every_lupus_close_is_the_rules_own_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every close of a Lupus game, the ballots' openings too (LUP-740, LUP-742), is folded by
    the rules as they build it and recalled by the table, never folded a second time (issue
    23); the state recalled is the fresh fold of the close's events. (The idle policy's
    questions to the game masters fold what they add: not the rules'.)"""
    table, step = Table.new(demo_setup("lupus-in-tabula", 0, 4, "fr"), EPOCH)
    watched = watch_closes(table, monkeypatch)
    table.apply(step)
    play(table, random.Random(4))
    ruled = [n for n, s in zip(watched.folds, watched.closes, strict=True) if not idle_acts(s)]
    assert len(ruled) > 10 and not any(ruled)
    assert len(watched.checked(table)) == len(watched.closes)
    assert table.state == table.rules.fold(table.ruled)


def test_a_vote_with_its_tally_is_taken_as_the_rules_folded_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A vote that posts the running tally (LUP-D18) is folded by the rules as they decide
    it; the table takes that state for the next command instead of folding the stamped vote
    again (the stamp, its arrival time, changes no state), and it is the log's own fold."""
    table, step = Table.new(demo_setup("lupus-in-tabula", 16, 2, "fr"), EPOCH)
    rules = type(table.rules)
    real_decide, real_apply = rules.decide, Table.apply
    recorded: list[object] = []
    taken: list[Step] = []

    def decide(self: object, state: object, *args: object) -> object:
        new = real_decide(self, state, *args)  # type: ignore[arg-type]
        known = recall(new, state)
        if known is not None and any(type(e) is TallyPosted for e in new):
            recorded.append(known)
        return new

    def apply(self: Table, step: Step) -> None:
        if recorded and step.folded is not None and step.folded[1] is recorded[-1]:
            taken.append(step)
        real_apply(self, step)

    monkeypatch.setattr(rules, "decide", decide)
    monkeypatch.setattr(Table, "apply", apply)
    table.apply(step)
    play(table, random.Random(2))
    assert recorded and taken
    assert table.state == table.rules.fold(table.ruled)
