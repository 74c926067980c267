"""A line of mail text as commands see it, and the folded form markers are matched on."""

from __future__ import annotations

import re
import unicodedata

# Invisible characters that would hide or reorder text: C0/C1 controls other than the
# whitespace ones (those become spaces below), soft hyphen, bidi marks and overrides, zero-width
# characters, word joiners, BOM, interlinear annotations, tag characters, lone surrogates.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)
_TO_ASCII = str.maketrans(
    {
        **dict.fromkeys("“”„‟", '"'),
        **dict.fromkeys("‘’‚‛‹›", "'"),
        **dict.fromkeys("‐‑‒–—―−", "-"),
        "…": "...",
    }
)
# French typography puts (often non-breaking) spaces inside guillemets: « Bob » means "Bob".
_GUILLEMETS = re.compile(r"«\s*|\s*»")
_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    """One line as commands see it: NFC, ASCII quotes and dashes, no invisibles, single spaces."""
    if text.isascii():  # most lines: NFC, guillemets and the typographic marks are not ASCII
        return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip()
    text = unicodedata.normalize("NFC", _INVISIBLE.sub("", text))
    text = _GUILLEMETS.sub('"', text).translate(_TO_ASCII)
    return _SPACES.sub(" ", text).strip()


def fold(text: str) -> str:
    """Case- and accent-insensitive form, for matching markers like "FIN" or "a écrit"."""
    if text.isascii():  # no accent to take off (most lines): NFD leaves ASCII as it is
        return text.casefold()
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
