"""``ABSENCE du 12/01 au 14/01 [raison]`` / ``ABSENT from 2027-01-12 to 2027-01-14 [reason]``:
a declared absence, as njudge's SET ABSENCE (issue 25).

Whole days in the game's time zone (``le 12/01``: one day); dates as ``12/01``, ``12/01/27``,
``12.01.2027`` or ``2027-01-12`` in either language, a year left out being the date's next
occurrence. Within the game's allowance (``absence_days``), the seat is not counted idle for a
phase whose close falls in it and is not warned (pbem/core/absences.py); with ``absence_mode =
"extend"`` a deadline falling in it moves past it and the list is told. ``ABSENCES`` (or a bare
``ABSENCE``) lists one's absences; ``ABSENCE ANNULER [date]`` / ``ABSENT CANCEL [date]`` cancels
one (one in progress ends with today). The game masters are told of each declaration and
cancellation; they declare one for a player with ``ABSENCE nom du … au …`` (pbem/desk/absence.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from pbem.core.absences import Absence, absences, day_range, days_used
from pbem.core.errors import CommandError, IllegalNow, InvalidSyntax
from pbem.core.events import (
    AbsenceCancelled,
    AbsenceDeclared,
    DeskNotice,
    Event,
    SeatRemoved,
)
from pbem.core.game import ADMIN
from pbem.core.idle import IdleOptions
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.games.idle import deadline_moves
from pbem.games.removal import alive

if TYPE_CHECKING:
    from pbem.core.commands import Command
    from pbem.core.game import PlayerSpec
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Reply

_FROM = frozenset({"du", "de", "le", "from", "on", "since"})
_TO = frozenset({"au", "a", "jusquau", "jusqua", "to", "until", "till", "-", "->"})
_CANCEL = frozenset({"annuler", "annule", "cancel"})
_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_DAY_MONTH = re.compile(r"(\d{1,2})[/.](\d{1,2})(?:[/.](\d{4}|\d{2}))?")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("janvier", "janv", "january", "jan"),
            ("fevrier", "fevr", "fev", "february", "feb"),
            ("mars", "march", "mar"),
            ("avril", "avr", "april", "apr"),
            ("mai", "may"),
            ("juin", "june", "jun"),
            ("juillet", "juil", "july", "jul"),
            ("aout", "august", "aug"),
            ("septembre", "sept", "sep", "september"),
            ("octobre", "oct", "october"),
            ("novembre", "nov", "november"),
            ("decembre", "dec", "december"),
        ),
        1,
    )
    for name in names
}
"""A month in words, French or English, whole or shortened (folded, without its dot)."""
_DAY = re.compile(r"(\d{1,2})(?:er|st|nd|rd|th)?,?")


@dataclass(frozen=True)
class Asked:
    """What the command's text asks: a range of days and its reason, a cancellation (of the
    absence holding ``first`` when given), or the list."""

    kind: str  # "declare" | "cancel" | "list"
    first: date | None = None
    last: date | None = None
    reason: str = ""


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
    """ABSENCE from a player: its events added to ``events``, the receipt's line to ``reply``;
    the rules' state is unchanged. A CommandError refuses it (the table says why)."""
    new, text = act(table, state, player.name, command.text, now, events, by=player.name)
    events += new
    if new:
        reply.accepted.append({"line": line.strip(), "deadline": None, "final": False})
    reply.extra.append(text(player.lang))
    return state


def act(
    table: AnsweringTable,
    state: Any,
    seat: str,
    text: str,
    now: datetime,
    earlier: Sequence[Event] = (),
    *,
    by: str,
) -> tuple[list[Event], Any]:
    """The events of ``seat``'s ABSENCE ``text`` (``earlier``: the events the same mail or
    lines already gave), and the answer's maker (``lang -> text``); CommandError to refuse."""
    zone = ZoneInfo(table.setup.timezone)
    today = now.astimezone(zone).date()
    mine = [a for a in absences([*table.events, *earlier]) if a.seat == seat]
    options = getattr(state, "options", None)
    allowed = options.absence_days if isinstance(options, IdleOptions) else 0
    try:
        asked = read(text, today)
        if asked.kind == "list":
            return [], _answer(table, "absence/list", seat, mine, allowed, today)
        if table.rules.outcome(state) is not None:
            raise IllegalNow("game_over")
        if not in_play(table, state, seat):
            raise IllegalNow("absence_out")
        if asked.kind == "cancel":
            new = _cancel(mine, asked.first, today, zone, seat, by)
        else:
            new = _declare(asked, mine, allowed, today, zone, seat, by)
    except CommandError as exc:  # told to the seat (« vous ») or to a game master (its name)
        raise type(exc)(exc.reason, **{**exc.params, "seat": seat, "gm": by != seat}) from None
    after = absences([*table.events, *earlier, *new])
    declared = next((e for e in new if isinstance(e, AbsenceDeclared)), None)
    gone = next((e for e in new if isinstance(e, AbsenceCancelled)), None)
    first = declared.start if declared is not None else gone.start if gone is not None else now
    params: dict[str, Any] = {
        "player": seat,
        "first": first.astimezone(zone).date().isoformat(),
        "reason": asked.reason,
        "cancelled": declared is None or gone is not None,
        "shortened": declared is not None and gone is not None,
        "by_gm": by != seat,
    }
    if declared is not None:
        params["last"] = (declared.end.astimezone(zone).date() - timedelta(days=1)).isoformat()
    new.append(DeskNotice("absence/to_gm", (ADMIN,), False, params, "desk"))
    if by != seat:  # declared by the game master: the player hears of it
        new.append(DeskNotice("absence/to_player", (PlayerId(seat),), False, params, "desk"))
    if extends(state) and declared is not None:
        moved = {**table.desk.moves}
        new += deadline_moves(table.rules, state, [a for a in after if a.seat == seat], moved)
    template = (
        "absence/cancelled"
        if params["cancelled"] and not params["shortened"]
        else "absence/declared"
    )
    return new, _answer(
        table, template, seat, [a for a in after if a.seat == seat], allowed, today, params
    )


def standing(table: AnsweringTable, now: datetime) -> list[dict[str, Any]]:
    """The absences not over at ``now``, soonest first, as the game master reads them (his
    ``STATUT``, ``pbem status``): the seat, its first and last days in the game's zone, its
    reason, and whether it has begun."""
    zone = ZoneInfo(table.setup.timezone)
    return [
        {"player": a.seat, **_span(a, zone), "current": a.start <= now}
        for a in sorted(absences(table.events), key=lambda a: (a.start, a.seat))
        if a.end > now
    ]


def extends(state: Any) -> bool:
    """Whether a declared absence moves the deadlines that fall in it (``absence_mode =
    "extend"``), rather than only excusing the seat."""
    options = getattr(state, "options", None)
    return isinstance(options, IdleOptions) and options.absence_mode == "extend"


def in_play(table: AnsweringTable, state: Any, seat: str) -> bool:
    """Whether ``seat`` still has a part the rules may await: alive, or a Lupus ghost who still
    votes in round 1 (LUP-502); never a seat the game master or the idle policy removed."""
    if any(isinstance(e, SeatRemoved) and e.player == seat for e in table.events):
        return False
    if alive(table.rules, state, PlayerId(seat)):
        return True
    ghosts = getattr(state, "ghosts", None)
    return callable(ghosts) and seat in ghosts()


def read(text: str, today: date) -> Asked:
    """What ``text`` (the words after ABSENCE) asks; InvalidSyntax(``absence_date``) when its
    dates cannot be read, IllegalNow(``absence_order``) for an end before the start."""
    words = _months_as_numbers(text.split())
    if not words:
        return Asked("list")
    if _word(words[0]) in _CANCEL:
        rest = [w for w in words[1:] if _word(w) not in _FROM]
        # the first day of one already begun may be past: a month back still reads this year's
        return Asked("cancel", _date(rest[0], today - timedelta(days=31)) if rest else None)
    at = 1 if _word(words[0]) in _FROM else 0
    if at >= len(words):
        raise InvalidSyntax("absence_date", text=text.strip())
    first = _date(words[at], today)
    at += 1
    last = first
    if at < len(words) and _word(words[at]) in _TO:
        if at + 1 >= len(words):
            raise InvalidSyntax("absence_date", text=text.strip())
        last = _date(words[at + 1], today)  # 30/12 to 02/01: the next 2 January
        at += 2
    if last < first:
        raise IllegalNow("absence_order", first=first.isoformat(), last=last.isoformat())
    return Asked("declare", first, last, " ".join(words[at:]))


def _months_as_numbers(words: list[str]) -> list[str]:
    """The words with each date written with its month in words (« 12 janvier », « 1er
    mars 2027 », « January 12 ») as ``12/01`` (``01/03/2027``), up to where the reason
    begins; in « du 12 au 14 janvier » the first day takes the second's month and year (the
    month before when its day is later: « du 30 au 2 janvier » is from 30 December)."""
    if not any(_month(w) for w in words):
        return words
    out: list[str] = []
    at = dates = 0
    while at < len(words) and dates < 2:
        word = words[at]
        day, month = _DAY.fullmatch(word), _month(word)
        after = _month(words[at + 1]) if at + 1 < len(words) else None
        following = _DAY.fullmatch(words[at + 1]) if at + 1 < len(words) else None
        if _word(word) in _FROM | _TO | _CANCEL:
            out.append(word)
        elif (day and after) or (month and following):
            if day and after:
                d, m = day[1], after
            else:
                assert following is not None and month is not None
                d, m = following[1], month
            at += 1
            year = words[at + 1] if at + 1 < len(words) else ""
            at += 1 if re.fullmatch(r"\d{4}", year) else 0
            out.append(f"{d}/{m}" + (f"/{year}" if re.fullmatch(r"\d{4}", year) else ""))
            dates += 1
        elif day or _DAY_MONTH.fullmatch(word) or _ISO.fullmatch(word):
            out.append(word)
            dates += 1
        else:
            break  # the reason
        at += 1
    for i in range(len(out) - 2):  # du 12 au 14/01: the first day takes the second's month
        bare, later = _DAY.fullmatch(out[i]), _DAY_MONTH.fullmatch(out[i + 2])
        if bare and _word(out[i + 1]) in _TO and later:
            back = int(bare[1]) > int(later[1])
            its_month, its_year = int(later[2]) - back, int(later[3]) if later[3] else None
            if its_month == 0:
                its_month, its_year = 12, its_year - 1 if its_year else None
            out[i] = f"{bare[1]}/{its_month}" + (f"/{its_year}" if its_year else "")
    for i in range(2, len(out)):  # January 12 to 14: the last day takes the first's month
        earlier, bare = _DAY_MONTH.fullmatch(out[i - 2]), _DAY.fullmatch(out[i])
        if bare and _word(out[i - 1]) in _TO and earlier:
            on = int(bare[1]) < int(earlier[1])  # du 30 janvier au 2: the month after
            its_month, its_year = int(earlier[2]) + on, int(earlier[3]) if earlier[3] else None
            if its_month == 13:
                its_month, its_year = 1, its_year + 1 if its_year else None
            out[i] = f"{bare[1]}/{its_month}" + (f"/{its_year}" if its_year else "")
    return out + words[at:]


def _month(word: str) -> int | None:
    """The month ``word`` names in French or English, whole or shortened (« janv. »)."""
    return _MONTHS.get(fold(word).rstrip(".,"))


def _word(token: str) -> str:
    return fold(token).replace("'", "").replace("’", "")


def _date(token: str, base: date) -> date:
    """A date as written: ISO, or day/month[/year]; without a year, its first occurrence on or
    after ``base``."""
    try:
        iso = _ISO.fullmatch(token)
        if iso:
            return date(int(iso[1]), int(iso[2]), int(iso[3]))
        dm = _DAY_MONTH.fullmatch(token.rstrip(",;"))
        if dm is None:
            raise InvalidSyntax("absence_date", text=token)
        day, month = int(dm[1]), int(dm[2])
        if dm[3]:
            year = int(dm[3]) + (2000 if len(dm[3]) == 2 else 0)
            return date(year, month, day)
        found = date(base.year, month, day) if (month, day) != (2, 29) else None
        if found is None or found < base:
            for year in range(base.year + 1, base.year + 9):
                try:
                    found = date(year, month, day)
                    break
                except ValueError:
                    continue
        assert found is not None
        return found
    except ValueError:
        raise InvalidSyntax("absence_date", text=token) from None


def _declare(
    asked: Asked,
    mine: Sequence[Absence],
    allowed: int,
    today: date,
    zone: ZoneInfo,
    seat: str,
    by: str,
) -> list[Event]:
    assert asked.first is not None and asked.last is not None
    if asked.first < today:
        raise IllegalNow("absence_past", first=asked.first.isoformat())
    start, end, days = day_range(asked.first, asked.last, zone)
    clash = next((a for a in mine if a.overlaps(start, end)), None)
    if clash is not None:
        raise IllegalNow("absence_overlap", **_span(clash, zone))
    used = days_used(mine, PlayerId(seat))
    if used + days > allowed:
        raise IllegalNow(
            "absence_allowance", days=days, left=max(allowed - used, 0), allowed=allowed
        )
    return [AbsenceDeclared(PlayerId(seat), start, end, days, asked.reason, by)]


def _cancel(
    mine: Sequence[Absence],
    when: date | None,
    today: date,
    zone: ZoneInfo,
    seat: str,
    by: str,
) -> list[Event]:
    """Cancel the absence holding ``when`` (or the one not over yet, if it is the only one);
    one begun before today ends with today, its days past kept."""
    midnight = datetime.combine(today, datetime.min.time(), zone)
    tonight = datetime.combine(today + timedelta(days=1), datetime.min.time(), zone)
    open_ = [a for a in mine if a.end > tonight or a.start >= midnight]
    if when is not None:
        moment = datetime.combine(when, datetime.min.time(), zone)
        open_ = [a for a in open_ if a.covers(moment)]
    if not open_:
        raise IllegalNow("absence_none")
    if len(open_) > 1:
        raise IllegalNow("absence_which", dates=[_span(a, zone) for a in open_])
    (absence,) = open_
    events: list[Event] = [AbsenceCancelled(PlayerId(seat), absence.start, by)]
    if absence.start < midnight:  # begun before today: today and the days before stay taken
        days = (today - absence.start.astimezone(zone).date()).days + 1
        events.append(
            AbsenceDeclared(PlayerId(seat), absence.start, tonight, days, absence.reason, by)
        )
    return events


def _span(absence: Absence, zone: ZoneInfo) -> dict[str, Any]:
    first = absence.start.astimezone(zone).date()
    last = absence.end.astimezone(zone).date() - timedelta(days=1)
    return {"first": first.isoformat(), "last": last.isoformat(), "why": absence.reason}


def _answer(
    table: AnsweringTable,
    template: str,
    seat: str,
    mine: Sequence[Absence],
    allowed: int,
    today: date,
    extra: dict[str, Any] | None = None,
) -> Any:
    """The answer's text in the reader's language: what was done, the seat's absences, the
    days left of the allowance."""
    zone = ZoneInfo(table.setup.timezone)
    params = {
        **(extra or {}),
        "player": seat,
        "genders": table.genders,
        "absences": [_span(a, zone) for a in mine],
        "used": days_used(mine, PlayerId(seat)),
        "allowed": allowed,
        "today": today.isoformat(),
    }
    shown = table.roster.show(params)

    def text(lang: str, for_gm: bool = False) -> str:
        return table.renderer.text(template, lang, {**shown, "for_gm": for_gm})

    return text
