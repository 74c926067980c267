"""The HTML alternative of an outgoing mail, made from its text part (issue 15).

Pure. The templates write text only, in a few plain conventions that read well as text; this
module reads those conventions back and writes the same content as small, inline-styled HTML,
so no template is written twice and the two parts always say the same thing:

- ``Title`` over a line of ``=``: a heading (a merged mail's parts);
- a line ending in ``:`` followed by lines indented by two spaces: a label and its list; when
  every item is ``voter → target`` the list is a two-column table (a tally's votes);
- ``Décompte : Alice 3, Bob 1`` (every item a player's name and a number): a small table;
- ``-- `` starts the signature, ``----- English -----`` the English half of a bilingual mail;
- players' names are bold, deadlines (as :meth:`pbem.mail.render.Renderer.when` writes them)
  are highlighted.

The page is what mail clients keep: no ``<style>`` block (Gmail strips it), no script, no
external image; tables for layout (Outlook), system fonts, at most 600 px wide, and colours set
in pairs (text and background) so that a client's dark mode never leaves dark text on dark.
A mail that asks for a command gets quick actions: one ``mailto:`` link per legal choice
(RFC 6068), built by :func:`mailto` and placed before the signature.

Read on a phone (tests/tools/test_html_screenshot.py measures it in Chromium at 390 and 360
px): no text under 14 px, quick actions 44 px high and 8 px apart with a space between two
links (a client that drops the styles still shows them as words), a table of votes shared in
halves (a long name wraps in its half, never cuts its neighbours' names).
"""

from __future__ import annotations

import functools
import html
import itertools
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple
from urllib.parse import quote

from pbem.mail.dates import DAYS, MONTHS

FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"
INK = "#1f2328"  # text
PAPER = "#ffffff"  # background
MUTED = "#57606a"  # signature, notes
RULE = "#d0d7de"  # table borders, separators
HIGHLIGHT = "background-color:#fff3bf;color:#3b2f00"  # a deadline: a pair, dark-mode safe
BUTTON = (
    # 44 px high (24 px of line and 10 px above and below) and 8 px apart: a thumb's target
    # on a phone (Apple's and WCAG 2.5.5's 44 px), not a neighbour's
    "display:inline-block;margin:0 8px 8px 0;padding:10px 14px;min-width:16px;"
    "text-align:center;border-radius:6px;"
    "background-color:#0b5cad;color:#ffffff;text-decoration:none;font-weight:600"
)

ENGLISH_MARK = "----- English -----"  # pbem.mail.render.bilingual's separator
SIGNATURE_MARK = "-- "


class QuickAction(NamedTuple):
    """One tap: ``command`` mailed to ``address`` (the link's text is ``label``). A named
    tuple: a prompt's page is kept by its actions (pbem.table.mailpages), hashed and compared
    at every prompt in C, not by a dataclass's Python ``__hash__`` (issue 23)."""

    group: str
    """What the link does, shown above its row of links (``TUER``, ``VOTE``)."""
    label: str
    """The link's text: usually the target's name."""
    address: str
    subject: str
    command: str
    """The body of the mail the link opens: exactly what the parser accepts."""

    @property
    def href(self) -> str:
        """The link's ``mailto:`` URL: the address, the subject and the command as the body."""
        return mailto(self.address, self.subject, self.command)


@functools.lru_cache(maxsize=4096)  # every reader of a notice gets the same links
def mailto(address: str, subject: str, body: str) -> str:
    """A ``mailto:`` URI (RFC 6068): every octet outside the unreserved set is
    percent-encoded from UTF-8 in the header values, line breaks as ``%0D%0A``."""
    to = quote(address, safe="@+.-_~!$'()*,;:")
    query = f"subject={quote(subject, safe='')}&body={quote(body.replace(chr(10), chr(13) + chr(10)), safe='')}"
    return f"mailto:{to}?{query}"


def _deadline_pattern() -> re.Pattern[str]:
    """A deadline as :meth:`pbem.mail.render.Renderer.when` writes it, in either language.
    Each weekday starts its own alternative (``lundi \\d{1,2} (?:janvier|...) à ``...), the
    same ones tried in the same order as « any weekday, then the rest »: a pattern whose
    every alternative starts with a letter lets ``re`` skip to the positions starting one,
    not try each character of every line (issue 23)."""
    dated = [
        rf"{day} \d{{1,2}}(?:er)? (?:{'|'.join(MONTHS[lang])}){after}"
        for lang, after in (("fr", " à "), ("en", " "))
        for day in DAYS[lang]
    ]
    return re.compile(rf"(?:{'|'.join(dated)})\d{{2}}:\d{{2}}(?::\d{{2}})?(?: [A-Za-z][\w+-]*)?")


_DEADLINE = _deadline_pattern()
_UNDERLINE = re.compile(r"=+\Z")


def to_html(
    subject: str,
    body: str,
    *,
    lang: str = "fr",
    names: Iterable[str] = (),
    actions: Sequence[QuickAction] = (),
    actions_title: str = "",
    carried: Sequence[str] = (),
) -> str:
    """The HTML page of a mail whose Subject is ``subject`` and text part ``body``.

    ``names`` are set in bold wherever they appear; ``actions`` are listed, under
    ``actions_title``, before the signature (or at the end); ``carried``: quick-action blocks
    of other pages, as :func:`merged` takes them from the parts of a merged mail."""
    names = _longest_first(names if type(names) is tuple else tuple(names))
    text, _mark, signature = body.partition(_SIGNATURE_LINE)
    if body.startswith(_SIGNATURE_START):
        text, signature = "", body[len(SIGNATURE_MARK) + 1 :]
    halves = text.split(_ENGLISH_LINE) if ENGLISH_MARK in text else (text,)
    # the page's parts in one list, joined once: a page is kilobytes, and each nested join
    # or f-string copied all of it again (issue 23)
    parts = [
        _head(subject, lang, names),
        f'<div lang="{lang}">',
    ]
    parts += [_run(run, names) for run in halves[0].strip("\n").split("\n\n")]
    parts.append("</div>")
    for half in halves[1:]:  # the bilingual mails: French first, English after
        parts.append(_ENGLISH_HALF)
        parts += [_run(run, names) for run in half.strip("\n").split("\n\n")]
        parts.append("</div>")
    if actions:
        kept = type(actions) is tuple  # hashable: a prompt's (pbem.table.mailpages)
        parts.append(
            _actions_kept(actions, actions_title) if kept else _actions(actions, actions_title)
        )
    if carried:
        parts += [f"{_ACTIONS_START}{block}{_ACTIONS_END}" for block in carried]
    if signature.strip():
        parts.append(_signature(signature.strip(), names))
    parts.append(_END_CLOSE)
    return "".join(parts)


_ENGLISH_HALF = f'<hr style="border:0;border-top:1px solid {RULE};margin:20px 0"><div lang="en">'


_SIGNATURE_LINE, _SIGNATURE_START = f"\n{SIGNATURE_MARK}\n", f"{SIGNATURE_MARK}\n"
_ENGLISH_LINE = f"\n{ENGLISH_MARK}\n"


@functools.lru_cache(maxsize=1024)  # a notice's Subject, the same for each of its readers
def _head(subject: str, lang: str, names: tuple[str, ...]) -> str:
    """The page up to its heading (the Subject without its tag) included."""
    return (
        f'<!DOCTYPE html><html lang="{lang}">{_META}<title>{html.escape(subject)}</title>'
        f"{_BODY}{_inline(_title(subject), names)}</h1>"
    )


@functools.lru_cache(maxsize=64)  # the game master's signature, under every mail
def _signature(signature: str, names: tuple[str, ...]) -> str:
    return (
        f'<p style="margin:20px 0 0;font-size:14px;color:{MUTED}">'
        f"{_inline(signature, names).replace(chr(10), '<br>')}</p>"
    )


# the page's fixed parts, joined once
_META = (
    '<head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width,initial-scale=1">'
    '<meta name="color-scheme" content="light only">'
)
_BODY = (
    "</head>"
    f'<body style="margin:0;padding:0;background-color:{PAPER};color:{INK}">'
    f'<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" '
    f'style="background-color:{PAPER}"><tr><td align="center" style="padding:12px">'
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" '
    'style="max-width:600px"><tr>'
    f'<td style="font-family:{FONT};font-size:16px;line-height:1.5;color:{INK};'
    'text-align:left;word-wrap:break-word;overflow-wrap:anywhere">'
    f'<h1 style="margin:0 0 12px;font-size:20px;line-height:1.3;color:{INK}">'
)
_CLOSE = "</td></tr></table></td></tr></table></body></html>\n"


def alternative(subject: str, body: str, *, enabled: bool, lang: str = "fr") -> str:
    """The HTML alternative of one of the daemon's own mails (an alert, a reminder, a notice,
    a confirmation request): the same page as a game's mails, with no name to set in bold and
    no quick action; "" when ``[smtp] html`` is off (``enabled``), so the mail stays text only."""
    return to_html(subject, body, lang=lang) if enabled else ""


_END = "<!--end-->"
_END_CLOSE = _END + _CLOSE


def with_paragraph(page: str, text: str, names: Iterable[str] = ()) -> str:
    """``page`` with ``text`` added as a last paragraph (a note added to a mail's text after
    it was rendered: the deal's commitment, the reply budget's last word)."""
    if not page or _END not in page:
        return page
    ordered = tuple(sorted(set(names), key=len, reverse=True))
    added = f'<div style="margin:12px 0 0">{_blocks(text, ordered)}</div>'
    return page.replace(_END, added + _END, 1)


def _title(subject: str) -> str:
    """The Subject without its ``[game]`` tag and the ``(×2)`` of a merged mail."""
    title = subject.split("] ", 1)[1] if subject.startswith("[") and "] " in subject else subject
    return _MERGED_COUNT.sub("", title) if "×" in title else title


_MERGED_COUNT = re.compile(r" \(×\d+\)\Z")


@functools.lru_cache(maxsize=4096)  # a notice's lines, the same for each of its readers
def _inline(text: str, names: tuple[str, ...]) -> str:
    """Escaped text with ``**bold**`` (the rules pages, a player's chat) and the names in
    bold, and the deadlines highlighted."""
    parts = _MARKED_BOLD.split(text) if "**" in text else (text,)
    if len(parts) > 1:  # odd parts were between the markers
        return "".join(
            f"<b>{_inline(part, ())}</b>" if odd else _inline(part, names)
            for odd, part in zip(itertools.cycle((False, True)), parts, strict=False)
        )
    if not _clock(text):  # every deadline holds its hour: none to highlight
        return _bold_names(text, names)
    out: list[str] = []
    pos = 0
    for m in _DEADLINE.finditer(text):
        out.append(_bold_names(text[pos : m.start()], names))
        out.append(f'<span style="{HIGHLIGHT};padding:0 2px">{_escape(m.group())}</span>')
        pos = m.end()
    out.append(_bold_names(text[pos:], names))
    return "".join(out)


def _clock(text: str) -> bool:
    """Whether ``text`` holds a colon between two digits, as every deadline's hour does
    (:data:`_DEADLINE`): found with ``str.find``, where the deadline's pattern tried each of
    the line's letters that may start a weekday's name (issue 23)."""
    at = text.find(":", 1)
    while at != -1:
        if text[at - 1].isdecimal() and text[at + 1 : at + 2].isdecimal():  # as ``\d`` reads
            return True
        at = text.find(":", at + 1)
    return False


@functools.lru_cache(maxsize=4096)  # a template's words between two names recur in each mail
def _escape(text: str) -> str:
    """HTML-escaped, the space before a French « : ; ! ? », inside « » and after a count
    unbreakable (a narrow column must not start a line with the colon)."""
    # html.escape(text, quote=False), without its call (every piece of every line, issue 23)
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _NBSP.sub("\u00a0", escaped)


# before « : ; ! ? », after « and between a count and its word (« 1 Voleur »): each case is
# the one space, written first so that ``re`` skips from space to space (issue 23)
#
# In the HTML part only; the text/plain part keeps ordinary spaces, on purpose (polish6,
# item 9). Gmail, Apple Mail and Outlook show the HTML alternative when there is one, where
# U+00A0 keeps « : » off the start of a wrapped line; U+202F (the narrow one French print
# uses) is not taken, some Windows fonts draw no glyph for it. The text part is read by
# plain-text readers (mutt, Thunderbird's plain view, screen readers, previews), is what a
# plain-text reply quotes back and what list archives and digests keep: there a U+00A0 whose
# charset is lost shows as « Â » before every colon (its UTF-8 bytes C2 A0 read as Latin-1,
# a known mailing-list archive artefact), and a monospace reader gains no typography from
# it. Cost measured on 3,346 French mails of 8 bot games: 2.8 such spaces a mail, the text
# part's quoted-printable +6.8 % (=C2=A0 for a space), +0.7 % of the whole mail: not the
# reason, the readers are.
_NBSP = re.compile(r" (?:(?=[:;!?»])|(?<=« )|(?<=\d )(?=[^\W\d]))")


@functools.lru_cache(maxsize=64)  # one game's names, for every mail of the game
def _longest_first(names: tuple[str, ...]) -> tuple[str, ...]:
    """The names to set in bold, longest first: "Anne" is tried before "Ann"."""
    return tuple(sorted({n for n in names if n}, key=len, reverse=True))


@functools.lru_cache(maxsize=64)  # one game's names, for every mail of the game
def _name_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    # a whole name only: never the "Ann" of "Anne". What precedes it is checked after each
    # name (of that name's width), not before all of them: a pattern whose alternatives start
    # with their names' letters lets ``re`` skip to the positions starting one (issue 23)
    whole = (f"{re.escape(n)}(?<![\\w-]{re.escape(n)})" for n in names)
    return re.compile(f"({'|'.join(whole)})(?![\\w-])")


@functools.lru_cache(maxsize=4096)  # the words of a line around a deadline recur in each mail
def _bold_names(text: str, names: tuple[str, ...]) -> str:
    if not names:
        return _escape(text)
    pattern = _name_pattern(tuple(names))
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(_escape(text[pos : m.start()]))
        out.append(f"<b>{_escape(m.group())}</b>")
        pos = m.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def _blocks(text: str, names: tuple[str, ...]) -> str:
    """The body's paragraphs, headings, lists and tables."""
    # an empty line closes every block: each run between two is made alone, and kept (a
    # template's paragraphs are the same in each reader's mail but the one naming him)
    return "".join([_run(run, names) for run in text.strip("\n").split("\n\n")])


@functools.lru_cache(maxsize=4096)
def _run(text: str, names: tuple[str, ...]) -> str:
    """The blocks of lines that hold no empty line (:func:`_blocks`)."""
    lines = text.split("\n")
    count = len(lines)
    out: list[str] = []
    paragraph: list[str] = []  # its lines, made a paragraph where a block or the run ends
    i = 0
    while i < count:
        line = lines[i]
        following = lines[i + 1] if i + 1 < count else ""
        if not line.strip():
            block = None
            i += 1
        elif (
            following[:1] == "="
            and _UNDERLINE.match(following)
            and line.strip()
            and not line.startswith(" ")
        ):
            block = _heading(line, names)
            i += 2
        elif line[:1] == "#" and _HASH_HEADING.match(line):  # a rules page's « # Title »
            block = _heading(line.lstrip("#").strip(), names)
            i += 1
        elif line.startswith("- "):  # a rules page's list
            items = []
            while i < count and lines[i].startswith("- "):
                items.append("  " + lines[i][2:])
                i += 1
            block = _list(items, names)
        elif line.startswith("  "):
            if paragraph and paragraph[-1].endswith(":"):  # « Votes : » over its list
                label: str | None = paragraph.pop()
            else:
                label = None
            start = i
            i += 1
            while i < count and lines[i].startswith("  "):
                i += 1
            block = _list(lines[start:i], names)
            if label is not None:  # the list's caption, after the paragraph before it
                block = _label(label, names) + block
        elif (counts := _counts(line, names)) is not None:
            block = counts
            i += 1
        else:
            paragraph.append(line)
            i += 1
            continue
        if paragraph:  # what a block ends: the paragraph before it
            out.append(_paragraph(paragraph, names))
            paragraph = []
        if block is not None:
            out.append(block)
    if paragraph:
        out.append(_paragraph(paragraph, names))
    return "".join(out)


def _paragraph(lines: list[str], names: tuple[str, ...]) -> str:
    """Plain lines, one paragraph: a line break between two."""
    inner = "<br>".join([_inline(line, names) for line in lines])
    return f'<p style="margin:0 0 12px">{inner}</p>'


def _heading(text: str, names: tuple[str, ...]) -> str:
    return (
        f'<h2 style="margin:18px 0 8px;font-size:17px;line-height:1.3;color:{INK}">'
        f"{_inline(text, names)}</h2>"
    )


_HASH_HEADING = re.compile(r"#{1,4} \S")
_MARKED_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")


def _list(items: Sequence[str], names: tuple[str, ...]) -> str:
    """Indented lines: a table of ``a → b`` rows, else a list (deeper lines continue an item)."""
    rows: list[str] = []  # every item a « voter → target » line, none deeper: a table
    for item in items:
        line = item.strip()
        if item.startswith("    ") or " → " not in line:
            break
        rows.append(_arrow_row(line, names))
    else:
        if rows:
            return _table("".join(rows), halves=True)
    # each item's line, then the deeper lines that continue it; made in one pass (issue 23)
    parts: list[str] = []
    marked = True  # every item starts with a mark (« ✗ line »): its mark, no bullet
    for item in items:
        if item.startswith("    ") and parts:
            parts.insert(
                -1, f'<br><span style="color:{MUTED}">{_inline(item.strip(), names)}</span>'
            )
            continue
        line = item.strip()
        if line[:1] not in _MARKERS:
            marked = False
        parts += ('<li style="margin:0 0 4px">', _inline(line, names), "</li>")
    lis = "".join(parts)
    if marked:
        return f'<ul style="margin:0 0 12px;padding-left:4px;list-style:none">{lis}</ul>'
    return f'<ul style="margin:0 0 12px;padding-left:22px">{lis}</ul>'


@functools.lru_cache(maxsize=4096)  # a vote's row, the same in each tally of its round
def _arrow_row(item: str, names: tuple[str, ...]) -> str:
    """One ``voter → target`` line as a row of :func:`_list`'s table."""
    left, _arrow, right = item.partition(" → ")
    return f"<tr>{_cell(left, names)}{_ARROW_CELL}{_cell(right, names)}</tr>"


_ARROW_CELL = (
    f'<td style="padding:4px 0;border-bottom:1px solid {RULE};color:{MUTED};width:20px">→</td>'
)
"""The arrow's column of a table of votes: as narrow as its arrow (:func:`_table`'s halves)."""

_MARKERS = frozenset("✓✗·•–—*→")
"""Marks a text list's lines start with (a receipt's ✓ accepted, ✗ refused, · ignored): the
HTML list then shows them and no bullet of its own, one mark per line (issue 22)."""


def _counts(line: str, names: tuple[str, ...]) -> str | None:
    """``Label : Alice 3, Bob 1.`` (only players' names with a number) as a small table."""
    if not names or not line.rstrip(".").rstrip()[-1:].isdecimal():  # the last count's digit
        return None
    label, colon, rest = line.partition(" : ") if " : " in line else line.partition(": ")
    if not colon or not rest:
        return None
    items: list[tuple[str, str]] = []
    for part in rest.rstrip(".").split(", "):  # the first that is no « name count » says no
        # « name count »: the count is what follows the last space, all decimal digits (as
        # ``(.+?) (\d+)\Z`` reads it, without a regex per item, issue 23)
        name, space, count = part.strip().rpartition(" ")
        if not space or not count.isdecimal() or name not in names:
            return None
        items.append((name, count))
    rows = "".join(
        [f"<tr>{_cell(name, names)}{_cell(count, names, right=True)}</tr>" for name, count in items]
    )
    return _label(label, names) + _table(rows)


def _label(text: str, names: tuple[str, ...]) -> str:
    return f'<p style="margin:0 0 4px;font-weight:600">{_inline(text, names)}</p>'


def _cell(text: str, names: tuple[str, ...], *, right: bool = False) -> str:
    style = f"padding:4px 10px;border-bottom:1px solid {RULE}"
    if right:
        style += ";text-align:right"
    return f'<td style="{style}">{_inline(text, names)}</td>'


def _table(rows: str, *, halves: bool = False) -> str:
    """A small table of ``rows``; ``halves``: a table of votes, the page's width shared by
    its two names' columns (a fixed layout). A table laid out by its content gives a long
    name (« Marie-Charlotte-Dubreuil ») the room its neighbours' names need, and the page's
    « break anywhere » then cuts them at a letter (« Alic|e ») on a phone."""
    layout = ";width:100%;table-layout:fixed" if halves else ""
    return (
        '<table role="presentation" cellpadding="0" cellspacing="0" border="0" '
        f'style="border-collapse:collapse;margin:0 0 12px;color:{INK}{layout}">{rows}</table>'
    )


@functools.lru_cache(maxsize=256)  # each tally of a round, each wolf of the pack: one block
def _actions_kept(actions: tuple[QuickAction, ...], title: str) -> str:
    """:func:`_actions` of a tuple of actions, kept: the same choices are offered under many
    pages whose text differs (the reader's name, the tally's votes so far), issue 23."""
    return _actions(actions, title)


def _actions(actions: Sequence[QuickAction], title: str) -> str:
    """The quick actions, one row of links per command."""
    groups: dict[str, list[str]] = {}
    link = _link
    for a in actions:  # _button's link, without a call per link
        groups.setdefault(a.group, []).append(link(a.address, a.subject, a.command, a.label))
    rows = "".join(
        [
            f'<p style="margin:8px 0 4px;font-weight:600">{html.escape(group)}</p>'
            # a space between two links: where a client drops the styles (Outlook's padding
            # and margins), the names stay words apart, and the row wraps between them
            f"<div>{' '.join(links)}</div>"
            for group, links in groups.items()
        ]
    )
    heading = (
        f'<p style="margin:0 0 4px;font-size:14px;color:{MUTED}">{html.escape(title)}</p>'
        if title
        else ""
    )
    return (
        f'{_ACTIONS_START}<div style="margin:16px 0 0;padding:12px;border:1px solid {RULE};'
        f'border-radius:8px">{heading}{rows}</div>{_ACTIONS_END}'
    )


def _button(action: QuickAction) -> str:
    """One quick action's link."""
    return _link(action.address, action.subject, action.command, action.label)


@functools.lru_cache(maxsize=4096)  # a vote's links are the same in each tally and prompt
def _link(address: str, subject: str, command: str, label: str) -> str:
    # kept by its strings: a QuickAction's own hash and == are Python code, run per hit
    href = mailto(address, subject, command)
    return f'<a href="{html.escape(href)}" style="{BUTTON}">{html.escape(label)}</a>'


_ACTIONS_START, _ACTIONS_END = "<!--actions-->", "<!--/actions-->"
_CARRIED = re.compile(re.escape(_ACTIONS_START) + "(.*?)" + re.escape(_ACTIONS_END), re.S)
_BOLD = re.compile(r"<b>([^<]*)</b>")
_LANG = re.compile(r'<html lang="([a-z]+)"')


def merged(subject: str, body: str, pages: Sequence[str]) -> str:
    """The page of a merged mail (:func:`pbem.mail.envelope.digest`): its text made HTML as
    any mail's, the names bold where the parts' pages had them bold, and their quick actions
    kept (after the last part, above the signature)."""
    names = {html.unescape(n) for page in pages for n in _BOLD.findall(page)}
    lang = next((m.group(1) for page in pages if (m := _LANG.search(page))), "fr")
    blocks = [block for page in pages for block in _CARRIED.findall(page)]
    return to_html(subject, body, lang=lang, names=names, carried=blocks)
