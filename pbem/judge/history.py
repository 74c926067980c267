"""HISTORIQUE / HISTORY (issue 25 item 3, njudge's HISTORY): the game's public posts and the
seat's own private mails again, as one mail with each in its own section, phase by phase.

Re-rendered from the game's log, never guessed: a private notice as the hand-over packet
renders it (:func:`pbem.seats.handover.notice_section`), so a substitute gets the seat's
whole history; a public post as the list got it, in the game's language. What another seat
alone received never shows: a notice is the seat's only when the seat is among its readers
(the pack's mails are a Werewolf's, never a Villager's). The phases are named and counted as
the archive names them (:mod:`pbem.record.story`, ``archive/_phases.jinja``). What a rollback
voided is left out, as the running tallies are (the day's result gives the count).

The selection a player types (:func:`selection`): nothing or ``tout``/``all`` for the whole
game; ``jour 2``/``day 2``, ``nuit 1``/``night 1``; in Dracula, a game of rounds,
``manche 2``/``round 2`` for a round, ``manche 2 jour 3``, or ``jour 3`` of the round in play.
The answer changes nothing: it is spent from the player's reply budget as AIDE's is
(``[daemon] reply_burst``, pbem/daemon/limits.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.core.errors import IllegalNow, InvalidSyntax
from pbem.core.events import Event, Notice, OrdersReceived, voided
from pbem.core.match import fold
from pbem.record.story import RUNNING_POSTS, Mark, phase_marks
from pbem.seats.handover import notice_section

if TYPE_CHECKING:
    from pbem.core.commands import Command
    from pbem.core.game import PlayerSpec
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Reply

WHOLE = frozenset({"tout", "toute", "all", "everything", "partie", "game"})
KINDS = {
    "jour": "day",
    "journee": "day",
    "day": "day",
    "nuit": "night",
    "night": "night",
}
ROUNDS = frozenset({"manche", "round"})


@dataclass(frozen=True)
class Selection:
    """The phases a player asked for: ``kind`` ``day``/``night`` and its ``number`` (None:
    every phase), within ``round`` (a game of rounds; None: every round)."""

    kind: str | None = None
    number: int = 0
    round: int | None = None

    def holds(self, mark: Mark) -> bool:
        """Whether a phase of the story is one asked for."""
        if self.round is not None and mark.round != self.round:
            return False
        return self.kind is None or mark.period == (self.kind, self.number)


def selection(text: str, *, rounds: bool, current_round: int) -> Selection:
    """What ``HISTORIQUE``'s argument asks for; raises :class:`InvalidSyntax`
    (``history_phase``) with what may be typed when it is none of it."""
    words = [fold(w) for w in re.findall(r"[^\W\d_]+|\d+", text)]
    if not words or (len(words) == 1 and words[0] in WHOLE):
        return Selection()
    round_: int | None = current_round if rounds else None
    if rounds and len(words) >= 2 and words[0] in ROUNDS and words[1].isdigit():
        round_, words = int(words[1]), words[2:]
        if not words:
            return Selection(round=round_)
    if len(words) == 2 and words[0] in KINDS and words[1].isdigit():
        return Selection(KINDS[words[0]], int(words[1]), round_)
    raise InvalidSyntax("history_phase", text=text, rounds=rounds)


def run(
    table: AnsweringTable,
    state: Any,
    player: PlayerSpec,
    command: Command,
    line: str,
    now: datetime,
    events: list[Event],
    reply: Reply,
) -> Any:
    """Answer with the history asked for (the events: none, the answer changes nothing)."""
    rounds = "round" in table.summary()
    marks = phase_marks(table.events, rounds)
    current_round = marks[-1].round if marks else 0
    wanted = selection(command.text, rounds=rounds, current_round=current_round)
    phases = history_phases(table, str(player.name), player.lang, marks, wanted)
    if not any(wanted.holds(m) for m in marks):  # a phase not (yet) played
        raise IllegalNow("history_none", text=command.text)
    reply.topic = reply.topic or "history"
    reply.markdown = True  # its headings: underlined in the text part, titles in the HTML
    reply.extra.append(
        table.renderer.text(
            "common/history",
            player.lang,
            {
                "game": table.rules.title,
                "game_id": table.rules.id,
                "asked": command.text if wanted != Selection() else "",
                "phases": phases,
                "seat": "",  # the seat's own reader: « vous »
            },
        )
    )
    return state


def history_phases(
    table: AnsweringTable, seat: str, lang: str, marks: Sequence[Mark], wanted: Selection
) -> list[dict[str, Any]]:
    """The phases asked for, each with its pieces in the order they were sent: the list's
    posts (``public``), the seat's own mails (``private``) and the orders the seat sent
    (``orders``, as its receipts showed them: the log's ``OrdersReceived`` stamps)."""
    log = table.events
    void = voided(log)
    game_lang = table.setup.lang
    phases: list[dict[str, Any]] = []
    for index, (event, mark) in enumerate(zip(log, marks, strict=True)):
        if index in void or not wanted.holds(mark):
            continue
        piece = _piece(table, event, seat, lang, game_lang)
        if piece is None:
            continue
        if not phases or phases[-1]["mark"] != mark:
            phases.append(
                {
                    "mark": mark,
                    "phase": mark.phase,
                    "number": mark.number,
                    "round": mark.round,
                    "pieces": [],
                }
            )
        pieces = phases[-1]["pieces"]
        if piece["kind"] == "order" and pieces and pieces[-1]["kind"] == "orders":
            pieces[-1]["lines"] += piece["lines"]
        elif piece["kind"] == "order":
            pieces.append({"kind": "orders", "lines": piece["lines"]})
        else:
            pieces.append(piece)
    return phases


def _piece(
    table: AnsweringTable, event: Event, seat: str, lang: str, game_lang: str
) -> dict[str, Any] | None:
    """One event as the seat saw it, or None when it is not the seat's to see."""
    if isinstance(event, Notice):
        base = event.template.rpartition("/")[2]
        if event.public and base not in RUNNING_POSTS:
            section = notice_section(table, table.roster, event, game_lang)
            return {"kind": "public", **_untagged(section)}
        if not event.public and seat in event.to:
            section = notice_section(table, table.roster, event, lang, seat)
            return {"kind": "private", **_untagged(section)}
        return None
    if isinstance(event, OrdersReceived) and event.seat == seat:
        # the receipt's own words (issue 24's stamp), a passed-on text after its line
        return {"kind": "order", "lines": list(event.lines)}
    return None


def _untagged(section: dict[str, str]) -> dict[str, str]:
    """A mail's Subject without its ``[game]`` tag: the history's own Subject has it."""
    return {**section, "subject": re.sub(r"^\[[^\]]*\]\s*", "", section["subject"])}
