"""A Loup-Garou table driven by mails and deadlines, for the scenario tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.table import Outgoing
from tests.support.game_by_mail import Game, address

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
    return address(name)


class LG(Game):
    """A Loup-Garou game on the shared harness, with a fixed deal (default: ``ROLES``)."""

    def __init__(
        self,
        roles: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        lang: str = "fr",
        seed: int = 1,
        langs: Mapping[str, str] | None = None,
    ) -> None:
        chosen = dict(roles or ROLES)
        self.names = list(chosen)
        super().__init__(
            chosen, game="loup-garou", options=options, lang=lang, seed=seed, langs=langs
        )

    # -- driving -------------------------------------------------------------------------

    @property
    def mails(self) -> list[Outgoing]:
        """Every mail sent so far."""
        return self.sent

    def commit(self, step: Any) -> list[Outgoing]:
        return self._commit(step)

    def send(self, who: str, body: str, to: str = "moderator") -> list[Outgoing]:
        return self.mail(who, body + "\n", to=to)

    def post(self, sender: str, body: str, **kw: Any) -> list[Outgoing]:
        return self.send(sender, body, to="list")

    def deadline(self, key: str | None = None) -> list[Outgoing]:
        """Pass the deadline ``key`` (default: the earliest pending one)."""
        pending = self.table.deadlines()
        assert pending, "no deadline pending"
        if key is None:
            key, when = min(pending.items(), key=lambda kv: kv[1])
        else:
            when = pending[key]
        self.now = max(self.now, when)
        return self._commit(self.table.on_deadline(key, self.now))

    # -- reading -------------------------------------------------------------------------

    @property
    def rules(self) -> Any:
        return self.table.rules

    def seat(self, name: str) -> Any:
        return self.state.seat(name)

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


def small_game(roles: Mapping[str, str], seed: int = 1, **options: Any) -> LG:
    """A game with a custom deck of ``roles`` (LG-D01), for short victory scenarios."""
    return LG(roles=roles, options={"custom_deck": list(roles.values()), **options}, seed=seed)
