"""A Loup-Garou table driven by mails and deadlines, for the scenario tests."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

from pbem.engine import Outgoing, Table
from pbem.simulate import EPOCH

NAMES = (
    "alice",
    "bob",
    "carol",
    "dave",
    "eve",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "nick",
    "olivia",
    "peggy",
    "rupert",
    "sybil",
)
# alice master wolf, bob werewolf, carol thief, dave seer, eve witch, frank little girl,
# grace elder, heidi pied piper, the eight others simple villagers.
ROLES: dict[str, str] = {
    "alice": "master_wolf",
    "bob": "werewolf",
    "carol": "thief",
    "dave": "seer",
    "eve": "witch",
    "frank": "little_girl",
    "grace": "elder",
    "heidi": "pied_piper",
    **{n: "villager" for n in NAMES[8:]},
}
VILLAGERS = NAMES[8:]


def email(name: str) -> str:
    return f"{name}@ex.org"


class LG:
    """A game with a fixed deal; every mail sent is kept in ``mails``."""

    def __init__(
        self,
        roles: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        lang: str = "fr",
        seed: int = 1,
        langs: Mapping[str, str] | None = None,
    ) -> None:
        names = list(roles) if roles is not None else list(NAMES)
        self.names = names
        players = [
            {"name": n, "email": email(n), **({"lang": langs[n]} if langs and n in langs else {})}
            for n in names
        ]
        setup: dict[str, Any] = {
            "game": "loup-garou",
            "seed": seed,
            "lang": lang,
            "players": players,
            "roles": dict(roles or ROLES),
            "options": dict(options or {}),
        }
        self.now = EPOCH
        self.table, step = Table.new(setup, self.now)
        self.mails: list[Outgoing] = []
        self.commit(step)

    # -- driving -------------------------------------------------------------------------

    def commit(self, step: Any) -> list[Outgoing]:
        self.table.apply(step)
        self.mails.extend(step.outgoing)
        return list(step.outgoing)

    def send(self, who: str, body: str, to: str = "moderator") -> list[Outgoing]:
        msg = EmailMessage()
        msg["From"] = email(who)
        msg["To"] = "list" if to == "list" else "moderator"
        msg["Subject"] = ""
        msg["Message-ID"] = f"<m{len(self.mails)}-{who}@ex.org>"
        msg.set_content(body + "\n")
        channel = "list" if to == "list" else "private"
        return self.commit(self.table.receive(msg, channel=channel, now=self.now))  # type: ignore[arg-type]

    def post(self, who: str, body: str) -> list[Outgoing]:
        return self.send(who, body, to="list")

    def advance(self, delta: timedelta) -> None:
        self.now += delta

    def deadline(self, key: str | None = None) -> list[Outgoing]:
        pending = self.table.deadlines()
        assert pending, "no deadline pending"
        if key is None:
            key, when = min(pending.items(), key=lambda kv: kv[1])
        else:
            when = pending[key]
        self.now = max(self.now, when)
        return self.commit(self.table.on_deadline(key, self.now))

    # -- reading -------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        return self.table.state

    @property
    def rules(self) -> Any:
        return self.table.rules

    def seat(self, name: str) -> Any:
        return self.state.seat(name)

    def alive(self, name: str) -> bool:
        return bool(self.state.seat(name).alive)

    def private_to(self, name: str, mails: list[Outgoing] | None = None) -> list[Outgoing]:
        pool = self.mails if mails is None else mails
        return [m for m in pool if not m.public and m.to == (email(name),)]

    def notices_to(self, name: str, mails: list[Outgoing] | None = None) -> list[Outgoing]:
        """Private mails to ``name`` that are not replies to his own commands."""
        return [m for m in self.private_to(name, mails) if "/reply/" not in m.key]

    def public(self, mails: list[Outgoing] | None = None) -> list[Outgoing]:
        pool = self.mails if mails is None else mails
        return [m for m in pool if m.public]

    def reply(self, mails: list[Outgoing]) -> str:
        replies = [m for m in mails if "/reply/" in m.key]
        assert len(replies) == 1, replies
        return replies[0].body

    def recipients(self, mails: list[Outgoing], subject_part: str) -> set[str]:
        return {
            m.to[0].split("@")[0]
            for m in mails
            if not m.public and subject_part in m.subject and "/reply/" not in m.key
        }

    # -- common openings -----------------------------------------------------------------

    def to_night1(self, bite: str | None = None, mayor: str = "ivan") -> None:
        """Bite (optional), then everyone elects ``mayor``; Night 1 starts."""
        if bite:
            self.send("alice", f"MORDRE {bite}")
        self.deadline("bite")
        for n in self.names:
            self.send(n, f"MAIRE {mayor}")
        self.deadline("election")
        assert self.state.phase == "night" and self.state.number == 1

    def night(self, kill: str | None = None, **orders: str) -> list[Outgoing]:
        """Council votes ``kill`` (every member), other orders as ``player=line``; to dawn."""
        out: list[Outgoing] = []
        if kill:
            for member in self.state.council:
                out += self.send(member, f"TUER {kill}")
        for who, line in orders.items():
            if not line.startswith("!"):
                out += self.send(who, line)
        out += self.deadline("council")
        for who, line in orders.items():
            if line.startswith("!"):
                out += self.send(who, line[1:])
        out += self.deadline("night")
        return out

    def day(self, votes: Mapping[str, str] | None = None) -> list[Outgoing]:
        """Votes on the list, then the day deadline (and the tie-break one, if opened)."""
        out: list[Outgoing] = []
        for who, target in (votes or {}).items():
            out += self.post(who, f"VOTE {target}")
        out += self.deadline("day")
        return out


def small_game(roles: Mapping[str, str], **options: Any) -> LG:
    """A game with a custom deck of ``roles`` (LG-D01), for short victory scenarios."""
    return LG(roles=roles, options={"custom_deck": list(roles.values()), **options})
