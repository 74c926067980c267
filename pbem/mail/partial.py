"""The text of a large mail without its attachments (issue 10 item 5), pure.

A mail over ``imap.max_size`` is usually a short order with a photo. Its IMAP ``BODYSTRUCTURE``
says which parts are text; :func:`text_plan` keeps the ``text/plain`` and ``text/html`` parts
that are not attachments (and the multiparts holding them), :func:`sections` lists what to
fetch (``BODY.PEEK[<part>.MIME]`` and ``BODY.PEEK[<part>]``), and :func:`assemble` puts the
fetched bytes back together under the original header and boundaries: the same mail, minus
everything that is not text, which the daemon then handles like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TEXT_SUBTYPES = frozenset({"plain", "html"})
#: more text parts than this is not a phone's mail: it is read no further
MAX_TEXT_PARTS = 20


@dataclass(frozen=True)
class Part:
    """A node of the pruned structure: ``section`` is its IMAP part number ("" for the root)."""

    section: str
    size: int = 0  # the encoded size of a text leaf
    boundary: bytes = b""  # a multipart's
    children: tuple[Part, ...] = ()

    @property
    def multipart(self) -> bool:
        """Whether the part is a multipart (it has a boundary)."""
        return bool(self.boundary)

    def leaves(self) -> list[Part]:
        """The part's leaf parts, in order (itself if it is not multipart)."""
        if not self.multipart:
            return [self]
        return [leaf for c in self.children for leaf in c.leaves()]


def _s(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("ascii", "replace").lower()
    return str(value or "").lower()


def _param(params: Any, name: str) -> bytes:
    if not isinstance(params, Sequence) or isinstance(params, bytes | str):
        return b""
    items = list(params)
    for k, v in zip(items[::2], items[1::2], strict=False):
        if _s(k) == name and isinstance(v, bytes):
            return v
    return b""


def _child(parent: str, n: int) -> str:
    return f"{parent}.{n}" if parent else str(n)


def text_plan(structure: Any, section: str = "") -> Part | None:
    """The text parts of a ``BODYSTRUCTURE`` (imapclient's ``BodyData``), or None if none.

    A leaf is kept when it is ``text/plain`` or ``text/html`` and not ``Content-Disposition:
    attachment``; a multipart when one of its children is. A forwarded ``message/rfc822`` is
    not entered (its text is not the sender's)."""
    if not isinstance(structure, Sequence) or not structure:
        return None
    if isinstance(structure[0], list):  # multipart: ([children], subtype, params, ...)
        boundary = _param(structure[2] if len(structure) > 2 else None, "boundary")
        if not boundary:
            return None
        kept = []
        for n, child in enumerate(structure[0], 1):
            part = text_plan(child, _child(section, n))
            if part is not None:
                kept.append(part)
        return Part(section, boundary=boundary, children=tuple(kept)) if kept else None
    if _s(structure[0]) != "text" or _s(structure[1]) not in TEXT_SUBTYPES:
        return None
    # text leaf: type, subtype, params, id, description, encoding, size, lines, md5, disposition
    disposition = structure[9] if len(structure) > 9 else None
    if isinstance(disposition, Sequence) and disposition and _s(disposition[0]) == "attachment":
        return None
    size = structure[6] if len(structure) > 6 and isinstance(structure[6], int) else 0
    return Part(section or "", size=size)


def text_size(plan: Part) -> int:
    """The encoded size of the text the plan would fetch."""
    return sum(leaf.size for leaf in plan.leaves())


def sections(plan: Part) -> list[str]:
    """The ``BODY.PEEK[...]`` sections to fetch (the header is fetched apart, as ``HEADER``)."""
    out: list[str] = []

    def walk(p: Part) -> None:
        if p.section:
            out.append(f"{p.section}.MIME")
        if p.multipart:
            for c in p.children:
                walk(c)
        else:
            out.append(p.section or "TEXT")

    walk(plan)
    return out


def assemble(header: bytes, plan: Part, fetched: Mapping[str, bytes]) -> bytes:
    """The mail rebuilt from its header and the fetched sections (keys as :func:`sections`).

    Raises KeyError if a section is missing (the mail changed or was expunged meanwhile)."""
    head = header if header.endswith(b"\r\n\r\n") else header.rstrip(b"\r\n") + b"\r\n\r\n"

    def body(p: Part) -> bytes:
        if not p.multipart:
            return fetched[p.section or "TEXT"]
        out = b""
        for c in p.children:
            out += b"--" + p.boundary + b"\r\n" + fetched[f"{c.section}.MIME"] + body(c) + b"\r\n"
        return out + b"--" + p.boundary + b"--\r\n"

    return head + body(plan)
