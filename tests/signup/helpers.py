"""Shared by the sign-up tests: a lobby setup and mail from volunteers."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from itertools import count
from typing import Any

from pbem.signup.table import SignupTable
from pbem.table import Outgoing, Step
from pbem.tools.simulate import EPOCH

GM = "gm@example.org"
LIST = "village@lists.example.org"
_ids = count(1)


def lobby_setup(
    game: str = "lupus-in-tabula",
    seats: tuple[int, int] = (8, 8),
    *,
    deadline: timedelta | None = timedelta(days=2),
    when_full: bool = True,
    count_every: float = 0,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "game": game,
        "game_id": "village",
        "seed": 7,
        "lang": "fr",
        "moderator": "mj@example.org",
        "list": LIST,
        "admins": [GM],
        "signup": {
            "seats": list(seats),
            "deadline": (EPOCH + deadline).isoformat() if deadline else None,
            "when_full": when_full,
            "count_every_seconds": count_every,
        },
        **extra,
    }


def opened(**kw: Any) -> tuple[SignupTable, Step]:
    table, step = SignupTable.open(lobby_setup(**kw), EPOCH)
    table.apply(step)
    return table, step


def mail(sender: str, body: str, subject: str = "") -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = "mj+village@example.org"
    m["Subject"] = subject
    m["Message-ID"] = f"<t{next(_ids)}@example.org>"
    m.set_content(body)
    return m


def send(table: SignupTable, sender: str, body: str, now: Any = EPOCH) -> Step:
    step = table.receive(mail(sender, body), channel="private", now=now)
    table.apply(step)
    return step


def to(step: Step, address: str) -> list[Outgoing]:
    return [o for o in step.outgoing if address in o.to]


def public(step: Step) -> list[Outgoing]:
    return [o for o in step.outgoing if o.public]


def names(n: int) -> list[str]:
    """``n`` playable names, none a reserved word of any game."""
    base = ["Anne", "Bruno", "Chloé", "Denis", "Élise", "Fabien", "Gaëlle", "Hervé", "Inès"]
    base += ["Julien", "Karine", "Lucas", "Manon", "Nadia", "Olivier", "Pascale", "Quentin"]
    return base[:n]
