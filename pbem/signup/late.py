"""Sign-up words after the start (issue 13): what a stranger's ``INSCRIPTION``/``JOIN`` or
``REMPLACANT``/``SUBSTITUTE``, and a player's ``DESINSCRIPTION``/``LEAVE``, get once the game
runs. Pure: texts and mails from the running game's Table, read through its port
(:class:`~pbem.table.ports.AnsweringTable`).

- a stranger who asks to join is told the game has started and how to volunteer as a
  substitute (``REMPLACANT``); one who volunteers is thanked and the game masters are told, so
  that they may give him a seat that frees up (the desk's ``REMPLACER``);
- a player who asks to leave keeps his seat: a seat is never emptied by its player's word
  alone, since the game's votes and night actions count on it; he is told his wish is passed
  on, and the game masters get it with the desk commands that act on it (``RETIRER`` to
  remove him, ``REMPLACER`` to hand his seat to a substitute).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pbem.core.match import fold
from pbem.mail.inbound import MailText

if TYPE_CHECKING:
    from pbem.table.ports import AnsweringTable
    from pbem.table.step import Outgoing

# folded keyword -> (verb, the language it is in)
STRANGER_WORDS: Mapping[str, tuple[str, str]] = {
    "inscription": ("join", "fr"),
    "join": ("join", "en"),
    "remplacant": ("substitute", "fr"),
    "substitute": ("substitute", "en"),
}
LEAVE_WORDS: Mapping[str, str] = {"desinscription": "fr", "leave": "en"}


def _first_word(line: str) -> str:
    words = line.split()
    return fold(words[0].strip("*_.,;:!?")) if words else ""


def stranger_request(text: MailText) -> tuple[str, str, str] | None:
    """The first sign-up word of a stranger's mail (Subject, then body): its verb, its
    language, and the words after it; None without one."""
    for line in (text.subject, *text.lines):
        found = STRANGER_WORDS.get(_first_word(line))
        if found is not None:
            return found[0], found[1], " ".join(line.split()[1:])
    return None


def take_leave(text: MailText) -> tuple[MailText, str | None]:
    """A player's mail without its ``DESINSCRIPTION``/``LEAVE`` lines (the game's parser would
    call them unknown), and the language of the first one (None: he asked nothing of it)."""
    langs = [LEAVE_WORDS[w] for w in map(_first_word, text.lines) if w in LEAVE_WORDS]
    if not langs:
        return text, None
    pairs = [(i, line) for i, line in enumerate(text.lines) if _first_word(line) not in LEAVE_WORDS]
    breaks = tuple(j for j, (i, _line) in enumerate(pairs) if i in text.breaks)
    return replace(text, lines=tuple(line for _i, line in pairs), breaks=breaks), langs[0]


def game_masters(table: AnsweringTable, admins: Sequence[str]) -> list[str]:
    """Who is told: the game's masters, else the daemon's."""
    return list(dict.fromkeys([*table.setup.admins, *(a.lower() for a in admins)]))


def stranger_text(table: AnsweringTable, verb: str, lang: str, told: bool) -> str:
    """The reply to a stranger's sign-up word once the game runs."""
    return table.renderer.text(
        "signup/late_join", lang, {"game": table.rules.title, "verb": verb, "told": told}
    )


def leave_text(table: AnsweringTable, lang: str, told: bool) -> str:
    """The reply to a player's ``DESINSCRIPTION``/``LEAVE`` once the game runs."""
    return table.renderer.text("signup/late_leave", lang, {"game": table.rules.title, "told": told})


def tell_game_masters(
    table: AnsweringTable, to: Sequence[str], key: str, params: Mapping[str, Any]
) -> list[Outgoing]:
    """The game masters' notice (``params``: ``kind`` leave|substitute, ``name``, ``address``,
    ``words``), in the game's language, with the HTML alternative of the game's mails."""
    from pbem.table.step import Outgoing  # late: pbem.table's __init__ loads the Table first

    lang = table.setup.lang
    full = {"game": table.rules.title, **params}
    subject, body = table.renderer.mail("signup/late_admin", lang, full)
    html = table.pages.page(subject, body, lang)
    thread = f"{table.game_id}/desk"
    return [
        Outgoing(
            f"{table.game_id}/late/{key}/{i}", (a,), False, subject, body, None, thread, html=html
        )
        for i, a in enumerate(to)
    ]


__all__ = ["leave_text", "stranger_request", "stranger_text", "take_leave", "tell_game_masters"]
