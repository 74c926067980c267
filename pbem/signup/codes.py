"""Secret codes for players who signed up by mail (issue 13).

``pbem new-game --secrets`` prints each player's code once to the game master, who hands them
out. Nobody hands out codes for a game filled by mail, so the start does it: each seated player
gets his code in a private mail of its own (sent before his role card, so that his first
command can carry it), and the ``signup.started`` event keeps the codes scrypt-hashed, as the
head's ``secrets`` does for ``new-game`` (a 128-bit code: the hash gives nothing away). The
daemon's authentication reads them from there (:func:`started_secrets`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.adapters.codes import CodeSource, hash_secret, new_code
from pbem.signup.started import STARTED


def issue_codes(
    names: Iterable[str], source: CodeSource = new_code
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """A code for each name, and their stored (hashed) forms."""
    codes = {name: source() for name in names}
    return codes, {name: hash_secret(code) for name, code in codes.items()}


def wants_codes(signup: Mapping[str, Any]) -> bool:
    """Whether the start hands out codes: ``pbem open-game`` sets it when ``secret`` is one
    of the ``[auth]`` layers."""
    return bool(signup.get("secrets"))


def started_secrets(events: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """The hashed codes the start handed out (none before the start, or without codes)."""
    for event in events:
        if event.get("type") == STARTED:
            return dict(event.get("secrets", {}))
    return {}


__all__ = ["issue_codes", "started_secrets", "wants_codes"]
