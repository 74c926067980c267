"""Where each event of a game's log falls in the story players read: its phase, the phase's
number and, in a game of rounds (Dracula), its round. Pure; shared by the archive
(:mod:`pbem.record.archive`) and a player's history (:mod:`pbem.judge.history`), so both name a
phase the same way (the templates' ``archive/_phases.jinja``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbem.core.events import Event, PhaseStarted

RUNNING_POSTS = frozenset({"tally"})
"""Public posts that only tell a vote as it runs (the running tallies): the archive's vote
timeline tells them, a history leaves them out (each day's result gives the final count)."""

NIGHT_PHASES = frozenset({"night", "L", "C", "W1", "W2"})
DAY_PHASES = frozenset({"debate", "round1", "defence", "round2", "day", "tiebreak", "revenge"})
"""The phase ids of the village games that are a night or a day (Dracula: its ``day`` is a
day, every other phase of a round a night's)."""


@dataclass(frozen=True)
class Mark:
    """The phase an event falls in: ``setup`` (0) before the first phase; ``round``: its round
    in a game of rounds, else 0."""

    phase: str
    number: int
    round: int

    @property
    def period(self) -> tuple[str, int]:
        """``("day", n)`` or ``("night", n)`` as players count them (« jour 2 », « nuit 1 »):
        a phase before the first night (Loup-Garou's election) is night 1's; ``("setup", 0)``
        before the game."""
        if self.phase == "setup":
            return ("setup", 0)
        if self.phase in DAY_PHASES:
            return ("day", self.number)
        return ("night", max(self.number, 1))


def phase_marks(events: Sequence[Event], rounds: bool) -> list[Mark]:
    """Per event of ``events``, the phase it falls in; ``rounds``: a game of rounds, whose
    days count from 1 again at each new round."""
    marks = []
    mark = Mark("setup", 0, 1 if rounds else 0)
    for event in events:
        if isinstance(event, PhaseStarted):
            round_ = mark.round
            if rounds and mark.phase != "setup" and event.number < mark.number:
                round_ += 1
            mark = Mark(event.phase, event.number, round_)
        marks.append(mark)
    return marks
