"""The daemon's side of threads (issue 15; the pure part is :mod:`pbem.mail.threads`): how a
game's mail is addressed. The game a mail naming none answers is found by
:class:`pbem.daemon.routing.Router`, the note saying so written by
:meth:`pbem.daemon.replies.Replies.routed_note`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.daemon.config import Config
from pbem.daemon.gamelist import game_list_address
from pbem.mail.threads import Addressing


def game_addressing(cfg: Config, setup: Mapping[str, Any]) -> Addressing:
    """How a game's mail is addressed and threaded (``[moderator] from_name``, ``[list]
    reply_to``)."""
    gid = str(setup.get("game_id") or setup.get("game", ""))
    return Addressing(
        gid, cfg.moderator, game_list_address(cfg, setup), cfg.from_name, cfg.list_reply_to
    )
