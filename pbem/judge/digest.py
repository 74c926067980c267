"""RESUME QUOTIDIEN / DIGEST (issue 25 item 6, 18xx's daily digest): one mail a day with the
day's public posts, for the players who read once a day.

``DIGEST oui|non`` / ``DIGEST on|off`` is the seat's choice, a :class:`DigestChosen` event in the
log (a substitute keeps it until he says otherwise); ``DIGEST`` alone says where it stands.
What the subscriber still gets at once: his private prompts and results, and the game
master's posts with their deadlines. When the daemon is the list it keeps the list's talk for
his digest instead of copying it to him (pbem/daemon/digests.py); with an external list pbem
cannot stop the list's copies, and the reply says so.

The daemon's daily job (pbem/daemon/digests.py, at ``[daemon] digest_hour`` in the game's
time zone) calls :func:`digest_step`, a pure function of the table and the day: the public
posts of the log since the previous digest (since the seat's choice for his first one), one
mail per subscriber with each post in its own section, and a :class:`DigestSent` event
committed with those mails: a digest goes out once, even across a crash or a restart (the
day's event is in the log; the mails' keys, and so their Message-IDs, are the day's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.core.commands import Command
from pbem.core.errors import InvalidSyntax
from pbem.core.events import DigestChosen, DigestSent, Event, Notice, voided
from pbem.core.ids import PlayerId
from pbem.core.match import fold
from pbem.mail.dates import DAYS, MONTHS, day_of_month
from pbem.mail.plain_text import plain_text
from pbem.record.story import RUNNING_POSTS, Mark, phase_marks
from pbem.seats.handover import notice_section
from pbem.table.step import Outgoing, Step

if TYPE_CHECKING:
    from pbem.core.game import PlayerSpec
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Reply

ON = frozenset({"oui", "on", "yes", "o", "y"})
OFF = frozenset({"non", "off", "no", "n"})


def choice(text: str) -> bool | None:
    """The seat's answer: True (on), False (off), None (no word: where it stands); raises
    :class:`InvalidSyntax` (``digest_choice``) for any other word."""
    words = [fold(w) for w in text.split()]
    if not words:
        return None
    if len(words) == 1 and words[0] in ON:
        return True
    if len(words) == 1 and words[0] in OFF:
        return False
    raise InvalidSyntax("digest_choice", text=text)


def subscribers(
    events: Sequence[Event], start: int = 0, known: Mapping[str, int] | None = None
) -> dict[str, int]:
    """The seats whose digest is on, each with the log index of its choice; ``known``: those
    of ``events[:start]`` already (the daemon reads on from where it stopped)."""
    chosen: dict[str, int] = dict(known or {})
    for index in range(start, len(events)):
        event = events[index]
        if isinstance(event, DigestChosen):
            if event.on:
                chosen[str(event.seat)] = index
            else:
                chosen.pop(str(event.seat), None)
    return chosen


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
    """Turn the seat's digest on or off (an event when it changes), or say where it stands."""
    seat = str(player.name)
    wanted = choice(command.text)
    on = seat in subscribers([*table.events, *events])
    if wanted is not None and wanted != on:
        events.append(DigestChosen(PlayerId(seat), wanted))
        on = wanted
    if wanted is not None:
        keyword = next(s for s in table.rules.all_commands if s.verb == "digest")
        word = ("ON" if on else "OFF") if player.lang == "en" else ("OUI" if on else "NON")
        reply.accepted.append(
            {"line": f"{keyword.keyword(player.lang)} {word}", "deadline": None, "final": False}
        )
    reply.extra.append(
        table.renderer.text("common/digest", player.lang, {"on": on, "asked": wanted is not None})
    )
    return state


def last_digest(events: Sequence[Event]) -> DigestSent | None:
    """The latest digest the log says went out."""
    return next((e for e in reversed(events) if isinstance(e, DigestSent)), None)


def digest_step(
    table: AnsweringTable, day: str, kept: Sequence[Mapping[str, Any]] = (), *, final: bool = False
) -> Step:
    """The digest of ``day`` (the game's local date, ISO): one mail per reader who has posts
    to read since his last digest, and the :class:`DigestSent` event; an empty step when
    ``day``'s digest went already, or there is nothing to tell. ``kept``: the list posts the
    daemon relayed and kept for their readers (``index``, ``for``, ``poster``, ``subject``,
    ``body``; pbem/daemon/digests.py), each told to the seats it was kept for, even one whose
    digest is off since. ``final``: the game is over; what was kept goes now, whatever
    the day (a last digest, its own keys)."""
    log = table.events
    last = last_digest(log)
    if last is not None and last.day >= day and not final:
        return Step()
    since = last.upto if last is not None else 0
    seats = {seat: max(since, chosen) for seat, chosen in subscribers(log).items()}
    for post in kept:
        seats.update({str(s): seats.get(str(s), len(log)) for s in post.get("for", ())})
    if not seats:
        return Step()
    posts = public_posts(table, log, min(seats.values()))
    marks = phase_marks(log, "round" in table.summary())
    talk = [_kept(post, marks) for post in kept]
    outgoing = []
    for seat, start in sorted(seats.items()):
        mine = [p for p in posts if p["index"] >= start]
        mine += [p for p in talk if seat in p["for"]]
        mine.sort(key=lambda p: (p["index"], 0 if p["poster"] else 1))
        holder = next((h for h in table.roster.holders if h.seat == seat), None)
        if not mine or holder is None:
            continue
        outgoing.append(_mail(table, holder.email, holder.lang, seat, day, mine, final))
    if not outgoing:
        return Step()
    event = DigestSent(day, len(log))
    return Step((table.rules.codec.encode(event),), tuple(outgoing), (event,))


def _kept(post: Mapping[str, Any], marks: Sequence[Mark]) -> dict[str, Any]:
    """A kept list post with the phase it was posted in."""
    index = int(post["index"])
    mark = marks[min(index, len(marks)) - 1] if marks and index > 0 else Mark("setup", 0, 0)
    return {
        **post,
        "for": [str(s) for s in post.get("for", ())],
        "phase": mark.phase,
        "number": mark.number,
        "round": mark.round,
    }


def public_posts(table: AnsweringTable, log: Sequence[Event], start: int) -> list[dict[str, Any]]:
    """The public posts of ``log`` from index ``start``, as the list got them (the running
    tallies and what a rollback voided left out), each with its phase."""
    void = voided(log)
    rounds = "round" in table.summary()
    marks = phase_marks(log, rounds)
    posts = []
    for index in range(start, len(log)):
        event = log[index]
        if index in void or not isinstance(event, Notice) or not event.public:
            continue
        if event.template.rpartition("/")[2] in RUNNING_POSTS:
            continue
        section = notice_section(table, table.roster, event, table.setup.lang)
        mark = marks[index]
        posts.append(
            {
                "index": index,
                "subject": re.sub(r"^\[[^\]]*\]\s*", "", section["subject"]),
                "body": section["body"].strip("\n"),
                "phase": mark.phase,
                "number": mark.number,
                "round": mark.round,
                "poster": "",
            }
        )
    return posts


def _mail(
    table: AnsweringTable,
    email: str,
    lang: str,
    seat: str,
    day: str,
    posts: Sequence[Mapping[str, Any]],
    final: bool = False,
) -> Outgoing:
    params = {
        "game": table.rules.title,
        "game_id": table.rules.id,
        "name": table.roster.shown(seat),
        "day": _date(day, lang),
        "posts": list(posts),
    }
    subject, body = table.renderer.mail("common/digest_mail", lang, params)
    markdown = body
    pages = table.pages
    return Outgoing(
        f"{table.game_id}/digest/{day}{'/final' if final else ''}/{seat}",
        (email,),
        False,
        subject,
        plain_text(markdown),
        None,
        f"{table.game_id}/digest",
        html=lambda: pages.page(subject, markdown, lang),
    )


def _date(day: str, lang: str) -> str:
    """« mardi 6 janvier » / « Tue, Jan 6 »: the day a digest tells."""
    date = datetime.fromisoformat(day).date()
    weekday, month = DAYS[lang][date.weekday()], MONTHS[lang][date.month - 1]
    return (
        f"{weekday} {day_of_month(date.day, lang)} {month}"
        if lang == "fr"
        else f"{weekday}, {month} {date.day}"
    )
