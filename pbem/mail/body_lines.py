"""A text part to normalised lines, with the runs set in bold.

Plain text marks bold with ``**x**`` or ``*x*``; HTML with ``<b>``, ``<strong>`` or a CSS
``font-weight`` (forums and word processors). A ``<blockquote>`` (the quoted older mail) and
hidden content are dropped. Lines come lazily, so that reading stops at the line cap.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

from pbem.core.frozen import quick_init
from pbem.mail.normalise import normalise

# HTML is converted in slices so that parsing stops once the line cap is hit.
_HTML_SLICE = 64 * 1024


@quick_init  # one a line of every mail (issue 23): pbem.core.frozen
@dataclass(frozen=True)
class Line:
    """One normalised body line, and the bold runs an HTML source marked in it."""

    text: str
    bold: tuple[str, ...] = ()  # HTML only: plain-text bold is read from the markers
    after_break: bool = False
    """A blank line or a quoted passage stood before it (plain text): a new paragraph, where a
    relayed text ends (DRA-421)."""


def plain_lines(text: str, complete: bool) -> Iterator[Line]:
    """Plain text to lines; when ``text`` was cut short, its partial last line is left out."""
    lines = text.splitlines()
    if not complete and lines:
        lines.pop()
    for raw in lines:
        yield Line(normalise(raw))


def html_lines(html: str, complete: bool) -> Iterator[Line]:
    """HTML to lines, lazily, so that the caller can stop reading at the line cap.

    When ``html`` was cut short, the line still open at the cut is left out.
    """
    parser = _HtmlToLines()
    for start in range(0, len(html), _HTML_SLICE):
        parser.feed(html[start : start + _HTML_SLICE])
        yield from parser.take()
    if complete:
        parser.close()
        yield from parser.take()


_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt"),
        *("fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "li", "main"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "nav", "ol", "p", "pre", "section"),
        *("table", "tbody", "tfoot", "thead", "tr", "ul"),
    }
)
_CELL_TAGS = frozenset({"td", "th"})
_HIDDEN_TAGS = frozenset({"script", "style", "template", "title"})
_BOLD_TAGS = frozenset({"b", "strong"})
# Elements without an end tag: never pushed on the open-element stacks.
_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
# CSS font-weight in a style attribute, as forums and word processors paste bold.
_FONT_WEIGHT = re.compile(r"(?:^|;)\s*font-weight\s*:\s*([a-z0-9]+)", re.IGNORECASE)


def _css_weight(attrs: list[tuple[str, str | None]]) -> bool | None:
    """True for a bold ``font-weight`` (``bold``, ``bolder``, 600 and more), False for a normal
    one (Google Docs wraps pasted text in ``<b style="font-weight:normal">``), None for none."""
    for name, value in attrs:
        if name != "style" or not value:
            continue
        found = _FONT_WEIGHT.findall(value)
        if found:
            weight = found[-1].lower()
            if weight.isdigit():
                return int(weight) >= 600
            return weight in ("bold", "bolder")
    return None


class _HtmlToLines(HTMLParser):
    """Collects text lines from HTML with their bold runs; drops blockquotes and hidden content.

    A ``<blockquote>`` holds the quoted older mail, whose commands must not run again.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._done: list[Line] = []
        self._chunks: list[str] = []
        self._bolds: list[str] = []
        self._bold_chunks: list[str] = []
        self._bold_depth = 0
        # per tag name, whether each open element made its text bold: an end tag undoes
        # exactly what its start tag did (<span style="font-weight:bold">...</span>)
        self._open: dict[str, list[bool]] = {}
        self._quote_depth = 0
        self._hidden_depth = 0

    def take(self) -> list[Line]:
        """The lines completed so far (each returned once)."""
        done, self._done = self._done, []
        return done

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open the tag: a block breaks the line, a cell adds a space, a quote or hidden part
        starts, and a bold run (by its tag or its CSS weight)."""
        self._tag(tag, +1)
        weight = _css_weight(attrs)
        bold = weight if weight is not None else tag in _BOLD_TAGS
        if tag not in _VOID_TAGS:
            self._open.setdefault(tag, []).append(bold)
        if bold:
            self._bold_depth += 1

    def handle_endtag(self, tag: str) -> None:
        """Close the tag (a block breaks the line), ending its bold run if it opened one; a stray
        end tag changes nothing else."""
        self._tag(tag, -1)
        opened = self._open.get(tag)
        # a stray end tag (common in mail HTML) changes nothing
        if opened and opened.pop() and self._bold_depth:
            self._bold_depth -= 1
            if not self._bold_depth:
                self._end_bold()

    def handle_data(self, data: str) -> None:
        """Keep visible text for the current line (and its bold run); quoted or hidden text is
        dropped."""
        if self._quote_depth or self._hidden_depth:
            return
        self._chunks.append(data)
        if self._bold_depth:
            self._bold_chunks.append(data)

    def close(self) -> None:
        """Parse what is left and complete the last line."""
        super().close()
        self._break_line()

    def _tag(self, tag: str, step: int) -> None:
        # Depths never go below zero: stray closing tags are common in mail HTML.
        if tag in _BLOCK_TAGS:
            self._break_line()
        elif tag in _CELL_TAGS:
            self._chunks.append(" ")
        if tag == "blockquote":
            self._quote_depth = max(0, self._quote_depth + step)
        elif tag in _HIDDEN_TAGS:
            self._hidden_depth = max(0, self._hidden_depth + step)

    def _end_bold(self) -> None:
        run = bold_run(normalise("".join(self._bold_chunks)))
        self._bold_chunks.clear()
        if run:
            self._bolds.append(run)

    def _break_line(self) -> None:
        # A bold run that spans a line break counts as one run on each line.
        self._end_bold()
        self._done.append(Line(normalise("".join(self._chunks)), tuple(self._bolds)))
        self._chunks.clear()
        self._bolds.clear()


# "**x**" or "*x*" with no space just inside the stars, so "* item" bullets and "a * b" are
# not bold; a single star must not touch a word outside ("2*3*4").
_MARKED_BOLD = re.compile(
    r"\*\*(?=[^\s*])(?P<double>.+?)(?<=[^\s*])\*\*"
    r"|(?<![\w*])\*(?=[^\s*])(?P<single>[^*]+?)(?<=[^\s*])\*(?![\w*])"
)


def marked_bold(line: str) -> list[str]:
    """The runs a plain-text line marks bold with ``**x**`` or ``*x*``, trimmed by
    :func:`bold_run`."""
    runs = (bold_run(m.group("double") or m.group("single")) for m in _MARKED_BOLD.finditer(line))
    return [run for run in runs if run]


def bold_run(text: str) -> str:
    """A bold run without the punctuation that often ends up inside the bold ("<b>Dave,</b>",
    "**Dave.**"): no player name starts or ends with it (pbem.core.names)."""
    return text.strip(" .,;:!?")
