"""The text/plain reading of a Markdown page (the players' rules pages, ``REGLES``): what a
reader of the text part sees, with no Markdown mark left; the HTML part keeps the marks' form
(:mod:`pbem.mail.html`)."""

from __future__ import annotations

import re

_HEADING = re.compile(r"(#{1,6})\s+(.+?)\s*#*\s*\Z")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_CODE = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")


def _link(m: re.Match[str]) -> str:
    text, address = m.group(1), m.group(2)
    shown = address.removeprefix("mailto:")
    return shown if text in (address, shown) else f"{text} ({shown})"


def _inline(line: str) -> str:
    line = _LINK.sub(_link, line)
    line = _CODE.sub(r"\1", line)
    return _BOLD.sub(lambda m: m.group(1) or m.group(2), line)


def plain_text(markdown: str) -> str:
    """``markdown`` as plain text: ``# Title`` underlined with ``=`` (``##`` and below with
    ``-``), bold and code marks dropped, ``[text](address)`` as ``text (address)``; lists and
    paragraphs as they are."""
    out: list[str] = []
    for line in markdown.split("\n"):
        heading = _HEADING.match(line)
        if heading:
            title = _inline(heading.group(2))
            out += [title, ("=" if len(heading.group(1)) == 1 else "-") * len(title)]
        else:
            out.append(_inline(line))
    return "\n".join(out)


__all__ = ["plain_text"]
