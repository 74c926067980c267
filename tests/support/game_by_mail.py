"""A game driven by mail, on a virtual clock, for scenario tests.

``Game`` wraps the real pipeline (:class:`pbem.table.Table`): mails in, deadlines passed,
every outgoing mail kept, so a test asserts on exactly what players would receive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from pbem.table import Outgoing, Step, Table
from pbem.tools.simulate import EPOCH


def address(name: str) -> str:
    return f"{name.lower()}@example.org"


class Game:
    """A running game with fixed roles, driven step by step."""

    def __init__(
        self,
        roles: Mapping[str, str],
        *,
        game: str = "lupus-in-tabula",
        options: Mapping[str, Any] | None = None,
        lang: str = "en",
        seed: int = 1,
        leftover: Sequence[str] | None = None,
        langs: Mapping[str, str] | None = None,
        moderator: str = "moderator",
        admins: Sequence[str] = (),
        genders: Mapping[str, str] | None = None,
    ) -> None:
        setup: dict[str, Any] = {
            "moderator": moderator,
            "game": game,
            "seed": seed,
            "lang": lang,
            "players": [
                {
                    "name": n,
                    "email": address(n),
                    "lang": (langs or {}).get(n, lang),
                    **({"gender": genders[n]} if n in (genders or {}) else {}),
                }
                for n in roles
            ],
            "roles": dict(roles),
            "options": dict(options or {}),
        }
        if leftover is not None:
            setup["leftover"] = list(leftover)
        if admins:
            setup["admins"] = list(admins)
        self.now = EPOCH
        self.table, step = Table.new(setup, self.now)
        self.sent: list[Outgoing] = []
        self.last: list[Outgoing] = []
        self._commit(step)

    # -- driving --------------------------------------------------------------------------
    def _commit(self, step: Step) -> list[Outgoing]:
        self.table.apply(step)
        self.sent += step.outgoing
        self.last = list(step.outgoing)
        return self.last

    def mail(
        self,
        sender: str,
        body: str,
        *,
        to: str = "moderator",
        subject: str = "",
        html: str | None = None,
    ) -> list[Outgoing]:
        msg = EmailMessage()
        msg["From"] = address(sender) if "@" not in sender else sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = f"<m{len(self.sent)}@test>"
        if html is not None and not body:
            msg.set_content(html, subtype="html")
        else:
            msg.set_content(body)
        channel = "list" if to == "list" else "private"
        return self._commit(self.table.receive(msg, channel=channel, now=self.now))

    def post(self, sender: str, body: str, **kw: Any) -> list[Outgoing]:
        return self.mail(sender, body, to="list", **kw)

    def deadline(self) -> list[Outgoing]:
        key, when = min(self.table.deadlines().items(), key=lambda kv: kv[1])
        self.now = max(self.now, when)
        return self._commit(self.table.on_deadline(key, self.now))

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def until(self, phase: str, number: int | None = None, *, limit: int = 40) -> None:
        """Pass deadlines until the game is in ``phase`` (of ``number``)."""
        for _ in range(limit):
            if self.phase == phase and (number is None or self.number == number):
                return
            self.deadline()
        raise AssertionError(f"never reached {phase} {number}")

    # -- reading --------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.table.state

    @property
    def phase(self) -> str:
        return str(self.state.phase)

    @property
    def number(self) -> int:
        return int(self.state.number)

    def alive(self, name: str) -> bool:
        return bool(self.state.seats[name].alive)

    def living(self) -> list[str]:
        return [str(p) for p in self.state.living()]

    def summary(self) -> dict[str, Any]:
        return self.table.summary()

    def to(self, name: str, mails: Sequence[Outgoing] | None = None) -> list[Outgoing]:
        """Mails (of ``mails``, default the last step) sent privately to ``name``."""
        return [
            m
            for m in (self.last if mails is None else mails)
            if not m.public and address(name) in m.to
        ]

    def public(self, mails: Sequence[Outgoing] | None = None) -> list[Outgoing]:
        return [m for m in (self.last if mails is None else mails) if m.public]

    def text_to(self, name: str, mails: Sequence[Outgoing] | None = None) -> str:
        return "\n".join(m.subject + "\n" + m.body for m in self.to(name, mails))

    def public_text(self, mails: Sequence[Outgoing] | None = None) -> str:
        return "\n".join(m.subject + "\n" + m.body for m in self.public(mails))

    def recipients(self, mails: Sequence[Outgoing] | None = None) -> set[str]:
        return {a for m in (self.last if mails is None else mails) if not m.public for a in m.to}

    def reply(self) -> str:
        """The reply to the last mail (the auto-replied one)."""
        replies = [m for m in self.last if m.auto == "auto-replied"]
        assert len(replies) <= 1, replies
        return replies[0].body if replies else ""


def lupus_roles(n: int = 8, **special: str) -> dict[str, str]:
    """A fixed Lupus deal: players p1..pn, wolves p1 p2 (p3 too from 16), seer p3 unless moved.

    Keyword arguments give a player a role: ``lupus_roles(9, p4="medium")``.
    """
    names = [f"p{i}" for i in range(1, n + 1)]
    roles = dict.fromkeys(names, "villager")
    roles["p1"] = roles["p2"] = "werewolf"
    if n >= 16:
        roles["p3"] = "werewolf"
        roles["p4"] = "seer"
    else:
        roles["p3"] = "seer"
    for name, role in special.items():
        roles[name] = role
    return roles


ALIAS = datetime  # keep datetime imported for type users
