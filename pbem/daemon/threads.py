# mypy: disable-error-code="misc"
# why: a part of the service takes ``self: Service`` (the whole of which it is a mixin); mypy
# wants a supertype of the mixin there and says so under "misc".
"""The daemon's side of threads (issue 15; the pure part is :mod:`pbem.mail.threads`): how a
game's mail is addressed, the game a mail naming none answers, and the note saying so."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from email.message import Message
from typing import TYPE_CHECKING, Any

from pbem.daemon.config import Config
from pbem.daemon.ports import Game
from pbem.daemon.relay import game_list_address
from pbem.mail.envelope import build
from pbem.mail.html import alternative
from pbem.mail.threads import Addressing, addressed, plus_address, thread_game

if TYPE_CHECKING:
    from pbem.daemon.service import Service

_THREAD_HEADERS = ("In-Reply-To", "References")


def game_addressing(cfg: Config, setup: Mapping[str, Any]) -> Addressing:
    """How a game's mail is addressed and threaded (``[moderator] from_name``, ``[list]
    reply_to``)."""
    gid = str(setup.get("game_id") or setup.get("game", ""))
    return Addressing(
        gid, cfg.moderator, game_list_address(cfg, setup), cfg.from_name, cfg.list_reply_to
    )


class ThreadsMixin:
    """The service's part for threads (a mixin of :class:`~pbem.daemon.service.Service`)."""

    def thread_game(self: Service, msg: Message, sender: str) -> Game | None:
        """The game of the pbem mail ``msg`` answers (its In-Reply-To, then References), if
        it runs and ``sender`` is in it: a reply to an old game's mail is how many write to us
        anew, and it must not take them away from their running game."""
        answered = thread_game([str(msg.get(h, "") or "") for h in _THREAD_HEADERS], self.id_key)
        for gid, game in self.games.items():
            if gid.lower() == answered and not game.table.finished:
                return game if sender in self._members(game) else None
        return None

    def from_game(self: Service, game: Game, *, public: bool = False) -> dict[str, Any]:
        """The From, Reply-To and Message-ID of the daemon's own mail about ``game``, like
        the game's (:func:`pbem.mail.threads.addressed`)."""
        return addressed(game_addressing(self.cfg, game.store.setup), public=public)

    def game_notice(
        self: Service,
        game: Game,
        *,
        key: str,
        to: str,
        subject: str,
        body: str,
        lang: str,
        now: datetime,
        in_reply_to: str | None,
    ) -> tuple[str, bytes]:
        """One of the daemon's own answers about ``game`` to one address (a confirmation
        request, a lapsed confirmation, a refused post, a forgery warning): an automatic reply
        under the mail it answers, addressed like the game's mail, with its HTML alternative."""
        return build(
            key=key,
            sender=self.cfg.moderator,
            to=(to,),
            subject=subject,
            body=body,
            html=alternative(subject, body, enabled=self.cfg.html_mail, lang=lang),
            date=now,
            id_key=self.id_key,
            auto="auto-replied",
            in_reply_to=in_reply_to,
            **self.from_game(game),
        )

    def routed_note(self: Service, game: Game, sender: str) -> str:
        """The note that a mail reached ``game`` only through the mail it answered."""
        address = plus_address(self.cfg.moderator, game.id)
        params = {"game": game.id, "address": address}
        return self.texts.text("daemon/thread_routed", self._lang(game, sender), params)
