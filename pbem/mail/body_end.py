"""Where the command text of a mail ends: a signature (with or without ``-- ``), an END/FIN
line, or the start of a quoted or forwarded older message; ``>`` quotes are skipped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Literal

from pbem.core.names import END_WORDS
from pbem.mail.body_lines import Line
from pbem.mail.normalise import fold

# The patterns below run on fold()ed text: lowercase, accents removed.
_END_WORDS = END_WORDS  # the setup refuses these as player names (a bold name on its own line)
_ATTRIBUTION_START = re.compile(r"(?:on|le) ")
_ATTRIBUTION_END = re.compile(r"(?:wrote|a ecrit) ?:$")
# Outlook, Thunderbird, Gmail, Orange and Apple Mail separators before an older message.
_DIVIDER = re.compile(
    r"-{2,} ?(?:original message|message d'origine|message original|mail original"
    r"|forwarded message|message transfere) ?-{2,}$"
    r"|(?:begin forwarded message|debut du message reexpedie) ?:$"
)
_HEADER_FROM = re.compile(r"(?:from|de) ?:")
_HEADER_NEXT = re.compile(r"(?:sent|envoye|date) ?:")
# Signatures without the "-- " line (issue 10, item 14; DRA-421: a relayed Dracula text must not
# carry its sender's name): what phones and mail apps append ("Envoyé de mon iPhone", "Sent from
# my Galaxy", "Get Outlook for Android"), and a closing salutation ("Cordialement,").
_DEVICE_SIGNATURE = re.compile(
    r"(?:(?:sent|envoye|expedie)e? (?:from|de|depuis|a partir d[e']|avec|with|using|via) "
    r"|(?:get|obtenir|telechargez|telecharger) outlook (?:for|pour) )"
    r".{0,50}\b(?:iphone|ipad|android|smartphone|mobile|portable|tablette|tablet|galaxy|samsung"
    r"|outlook|yahoo|gmail|mail|proton|blackberry|huawei|xiaomi|pixel|telephone|phone|ios)\b"
    r".{0,30}$"
)
_VALEDICTION = re.compile(
    r"(?:(?:bien |tres |tres bien )?cordialement|bien a (?:vous|toi)|amities|amicalement|bises"
    r"|bisous|a\+|(?:best|kind|warm|warmest) regards|regards|cheers|sincerely|yours"
    r"|salutations(?: distinguees)?)[ ,.!]*$"
)
# A telephone number, alone or after its label: the end of a "name, number" signature block.
_PHONE = re.compile(
    r"(?:(?:tel|telephone|phone|mobile|mob|portable|port|cell|gsm|fixe|fax|[tmpf])\.? ?:? ?)?"
    r"\+?[\d(][\d ().\-/]{6,}\d"
)
# The lines before a telephone number that belong to its signature (a name, a title): short,
# without sentence punctuation; at most this many, never the mail's first line.
_SIGNATURE_LINES = 3
_SIGNATURE_LINE = re.compile(r"(?=.*[^\W\d_])[^.!?:;,]{1,50}")


def _is_phone(line: str) -> bool:
    """Whether a (folded) line is a telephone number (8 to 16 digits), possibly labelled."""
    return bool(_PHONE.fullmatch(line)) and 8 <= sum(c.isdigit() for c in line) <= 16


def _signature_start(kept: list[Line], paragraph: int) -> int:
    """Where the signature block ending at a telephone number begins in ``kept``: the short
    name-like lines just before it, within its paragraph (``paragraph``: the index of the
    paragraph's first kept line)."""
    start = len(kept)
    floor = max(1, paragraph, len(kept) - _SIGNATURE_LINES)
    while start > floor and _is_signature_line(kept[start - 1].text):
        start -= 1
    return start


def _is_signature_line(text: str) -> bool:
    return len(text.split()) <= 5 and bool(_SIGNATURE_LINE.fullmatch(text))


def _ends_body(text: str, following: str) -> bool:
    """Whether ``text`` (with the line after it) starts a signature, an END, or older mail."""
    if text == "--":  # "-- " once normalised
        return True
    line, after = fold(text), fold(following)
    return bool(
        line.rstrip(". ") in _END_WORDS
        or _DIVIDER.match(line)
        or (len(line) <= 100 and _DEVICE_SIGNATURE.match(line))
        or _VALEDICTION.match(line)
        # "On <date>, <who> wrote:", possibly wrapped over two lines; French "Le ... a écrit :".
        or (
            _ATTRIBUTION_START.match(line)
            and (_ATTRIBUTION_END.search(line) or _ATTRIBUTION_END.search(after))
        )
        # Outlook's quoted header block: "From: ..." then "Sent: ..." or "Date: ...".
        or (_HEADER_FROM.match(line) and _HEADER_NEXT.match(after))
    )


Ending = Literal["marker", "cap", "end"]


def select_lines(
    lines: Iterator[Line], max_lines: int, *, paragraphs: bool = True
) -> tuple[list[Line], Ending]:
    """The kept lines (blanks and ``>`` quotes skipped), and what ended them.

    ``paragraphs``: a blank line separates paragraphs (plain text); in HTML every ``<p>``
    makes one, so blank lines say nothing there.
    """
    kept: list[Line] = []
    paragraph = 0
    broken = False  # a blank line or a quote since the last kept line
    current = next(lines, None)
    while current is not None:
        following = next(lines, None)  # one line of lookahead, for two-line patterns
        text = current.text
        if not text and paragraphs:
            paragraph = len(kept)
            broken = True
        if text.startswith(">"):
            broken = True
        if text and not text.startswith(">"):
            if _ends_body(text, following.text if following else ""):
                return kept, "marker"
            if _is_phone(fold(text)):
                return kept[: _signature_start(kept, paragraph)], "marker"
            if len(kept) == max_lines:
                return kept, "cap"
            kept.append(replace(current, after_break=True) if broken and kept else current)
            broken = False
        current = following
    return kept, "end"
