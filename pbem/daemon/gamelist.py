"""A game's list as the daemon sees it: its address, who reads it, its graveyard, the headers the
daemon adds when it is the list itself, and whom a list post is shown from.

Apart from :mod:`pbem.daemon.relay` (the relayed copies, which answer through the replies and the
bounces): the replies, the threads, the routing and the sender of game mail all read these, and
with the relay in one module they made an import circle.
"""

from __future__ import annotations

from collections.abc import Mapping
from email.message import Message
from typing import Any

from pbem.daemon.config import Config
from pbem.daemon.message import header_addresses
from pbem.daemon.ports import Game
from pbem.daemon.seats import shown_name
from pbem.judge.observer import graveyard_address, observer_addresses
from pbem.mail.relay import list_id_for


def relaying(cfg: Config) -> bool:
    """The daemon distributes the list itself (``[list] mode = relay``)."""
    return cfg.list_mode == "relay"


def game_list_address(cfg: Config, setup: Mapping[str, Any]) -> str:
    """The game's list: its own (setup ``list``), else the configured one."""
    return str(setup.get("list") or cfg.list_address or "")


def list_members(setup: Mapping[str, Any], player_emails: Mapping[str, str]) -> list[str]:
    """Who a relayed post or a public result reaches when the daemon is the list: every
    player, dead or alive (the dead may read), and the game's administrators."""
    admins = [str(a) for a in setup.get("admins", [])]
    return sorted({*player_emails.values(), *admins})


def list_readers(game: Game) -> list[str]:
    """:func:`list_members`, and the game's observers (issue 25, pbem/judge/observer.py)."""
    members = list_members(game.store.setup, game.table.player_emails)
    watching = observer_addresses(game.table)  # type: ignore[arg-type]
    return sorted({*members, *watching}) if watching else members


def graveyard_of(cfg: Config, setup: Mapping[str, Any]) -> str:
    """The game's graveyard address (``[list] graveyard``, issue 25), else empty."""
    if not (relaying(cfg) and cfg.list_graveyard):
        return ""
    return graveyard_address(game_list_address(cfg, setup))


def list_headers(cfg: Config, setup: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """What a list adds to what it distributes, when the daemon is the list; else nothing."""
    if not relaying(cfg):
        return ()
    address = game_list_address(cfg, setup)
    return (
        ("List-Id", list_id_for(address, cfg.list_id)),
        ("List-Post", f"<mailto:{address}>"),
    )


def poster_of(game: Game, msg: Message) -> str:
    """Who a list post is shown from: the seat's shown name (a newcomer's, issue 13),
    otherwise a game administrator."""
    sender = (header_addresses(msg, "From") or [""])[0]
    names = {a.lower(): n for n, a in game.table.player_emails.items()}
    return str(shown_name(game.table, names[sender])) if sender in names else "MJ"
