"""A game of any of the four, with a game master, driven by mail through the Table."""

from __future__ import annotations

from typing import Any

from pbem.table import Outgoing, Table
from pbem.tools.simulate import EPOCH
from tests.chasse.scenario import DEAL, LEFTOVER
from tests.dracula.scenario import NAMES as DRACULA_NAMES
from tests.loupgarou.scenario import ROLES as LG_ROLES
from tests.support.game_by_mail import Game, address, lupus_roles

ADMIN = "gm@example.org"
GAMES = ("lupus-in-tabula", "loup-garou", "dracula", "chasse-aux-sorcieres")

_DRACULA = tuple(n.lower() for n in DRACULA_NAMES)


def deal(game: str) -> dict[str, Any]:
    """A fixed deal and its options, per game."""
    if game == "lupus-in-tabula":
        return {"roles": lupus_roles(8)}
    if game == "loup-garou":
        return {"roles": LG_ROLES}
    if game == "dracula":
        return {"roles": {n: ("dracula" if n == "ana" else "human") for n in _DRACULA}}
    return {
        "roles": dict(DEAL),
        "leftover": list(LEFTOVER),
        "options": {"penny_player": "peggy"},
    }


class DeskGame(Game):
    """The shared harness's game, with ``gm@example.org`` as the game's administrator."""

    def __init__(
        self,
        game: str,
        lang: str = "en",
        seed: int = 1,
        options: dict[str, Any] | None = None,
        genders: dict[str, str] | None = None,
    ) -> None:
        dealt = deal(game)
        setup: dict[str, Any] = {
            "game": game,
            "seed": seed,
            "lang": lang,
            "players": [
                {
                    "name": n,
                    "email": address(n),
                    **({"gender": genders[n]} if n in (genders or {}) else {}),
                }
                for n in dealt["roles"]
            ],
            "roles": dealt["roles"],
            "options": {**dealt.get("options", {}), **(options or {})},
            "admins": [ADMIN],
            "list": "list@example.org",
        }
        if "leftover" in dealt:
            setup["leftover"] = dealt["leftover"]
        self.game = game
        self.names = list(dealt["roles"])
        self.now = EPOCH
        self.table, step = Table.new(setup, self.now)
        self.sent: list[Outgoing] = []
        self.last: list[Outgoing] = []
        self._commit(step)

    def admin(self, body: str) -> list[Outgoing]:
        """The game master mails the moderator."""
        return self.mail(ADMIN, body)

    def admin_reply(self) -> str:
        replies = [m for m in self.last if m.to == (ADMIN,) and m.auto == "auto-replied"]
        assert len(replies) == 1, self.last
        return replies[0].body

    def earliest(self) -> tuple[str, Any]:
        return min(self.table.deadlines().items(), key=lambda kv: kv[1])
