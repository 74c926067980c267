"""Which nicknames can be played: a name a reply, a vote or a bold run can designate.

Pure. Mail clients and players add and remove characters around a word (``_Neo_`` is how a
plain-text client shows underlined *Neo*, ``**Bob**,`` is a bold vote with a comma), so the
command grammar strips them (:func:`pbem.core.match.clean_token`) and the inbound parser turns
typographic quotes, dashes and guillemets into ASCII. A name made of such characters could
never be targeted; and a player called ``Fin`` or ``End`` would end the text of a mail where
his name stands alone on a line (a bold vote). Such names are refused at setup with the
reason, and a playable spelling where there is one (issue 10, item 18).
"""

from __future__ import annotations

import re
import unicodedata

from pbem.core.match import clean_token, fold

__all__ = ["CONTROL_PROBLEM", "END_WORDS", "JOINERS", "MAX_NAME_CHARS", "name_problem"]

CONTROL_PROBLEM = "holds a line break or another control character"

MAX_NAME_CHARS = 30
"""The longest nickname (it must fit a line of a tally): the same cap for a setup, ``--player``
and a sign-up (issue 21)."""

END_WORDS = frozenset({"fin", "end"})
"""A line holding only one of these ends the command text of a mail (pbem.mail.inbound)."""

# Letters and digits, joined by single inner hyphens, apostrophes, dots, underscores or
# spaces: « Jean-Pierre », « Marie Claire » (the matcher reads a name of several words whole).
_PLAYABLE = re.compile(r"[^\W_]+(?:[-'._ ][^\W_]+)*")

JOINERS = frozenset({"et", "and"})
"""Words that separate two names in a command (``AMOUREUX Jean et Marie``): never in a name."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's nickname, or None when it can: the one check of a
    setup file's players, ``pbem new-game --player`` and a sign-up by mail (issue 21)."""
    if not name.isprintable():
        return CONTROL_PROBLEM
    if len(name) > MAX_NAME_CHARS:
        return f"is longer than {MAX_NAME_CHARS} characters"
    if name != unicodedata.normalize("NFC", name):
        return "is not in Unicode NFC form (the parser reads every mail in NFC)"
    if fold(name) in END_WORDS:
        return "ends the text of a mail when it stands alone on a line (a bold vote): pick another"
    if any(fold(word) in JOINERS for word in name.split()):
        return "holds « et »/« and », which separates two names in a command: pick another"
    if _PLAYABLE.fullmatch(name):
        return None
    cleaned = clean_token(name)
    hint = f" (write it {cleaned!r})" if cleaned and _PLAYABLE.fullmatch(cleaned) else ""
    return (
        "could never be targeted: only letters and digits, joined by single inner hyphens, "
        f"apostrophes, dots, underscores or spaces, are read back from a mail{hint}"
    )
