"""Small helpers shared by the Lupus scenario tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pbem.table import Table
from pbem.tools.simulate import EPOCH
from tests.support.game_by_mail import Game, address, lupus_roles

# The full 16-player deck of LUP-017 with fixed seats: wolves p1 p2 p3, Seer p4.
FULL16 = lupus_roles(
    16,
    p5="medium",
    p6="possessed",
    p7="bodyguard",
    p8="owl",
    p9="mason",
    p10="mason",
    p11="werehamster",
    p12="mythomaniac",
)


def names(n: int) -> list[str]:
    return [f"p{i}" for i in range(1, n + 1)]


def new_table(
    n: int, options: Mapping[str, Any] | None = None, seed: int = 1, **extra: Any
) -> Table:
    """A table set up by the daemon itself (random deal), for the deck tests."""
    setup: dict[str, Any] = {
        "game": "lupus-in-tabula",
        "seed": seed,
        "lang": "en",
        "players": [{"name": p, "email": address(p)} for p in names(n)],
        "options": dict(options or {}),
        **extra,
    }
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    return table


def unchanged(g: Game, act: Callable[[], object]) -> str:
    """Run ``act`` and check it added no event, changed no state and mailed nobody publicly."""
    count, state = len(g.table.events), g.state
    act()
    assert len(g.table.events) == count
    assert g.state == state
    assert not g.public()
    return g.reply()


def rejected(g: Game, sender: str, body: str, *, post: bool = False) -> str:
    """Send ``body``; it must be refused with a private reply and change nothing."""
    reply = unchanged(g, lambda: (g.post if post else g.mail)(sender, body))
    assert "✗ " in reply  # "Rejected (nothing was changed)" in the player's language
    assert [m.to for m in g.last] == [(address(sender),)]
    return reply


def kill(g: Game, victim: str, wolves: Iterable[str] = ("p1", "p2")) -> None:
    for wolf in wolves:
        g.mail(wolf, f"KILL {victim}")


def votes(g: Game, ballot: Mapping[str, str]) -> None:
    for voter, target in ballot.items():
        g.post(voter, f"VOTE {target}")


def all_text(g: Game, name: str) -> str:
    """Every private mail ``name`` ever received."""
    return g.text_to(name, g.sent)
