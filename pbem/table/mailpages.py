"""The HTML alternative of a game's mails: names bold, quick actions where a mail asks for a
command (issue 15). One per table; the pages themselves are made by :mod:`pbem.mail.html`."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from pbem.core.game import Rules
from pbem.core.ids import PlayerId
from pbem.mail.html import QuickAction, to_html
from pbem.mail.quickactions import game_address, quick_actions
from pbem.mail.render import Renderer

BEFORE_DEADLINE = timedelta(seconds=1)
"""The moment a prompt's choices are checked at: just before the phase it announces closes
(the rules' ``decide`` takes a time; any moment of the phase gives the same answer)."""


@dataclass(frozen=True)
class MailPages:
    """Makes the HTML page of each mail of one game."""

    rules: Rules[Any]
    renderer: Renderer
    names: tuple[str, ...]
    """Every player's name: set in bold wherever a mail names them."""
    moderator: str
    game_id: str
    list_address: str
    renamed: Mapping[str, str] = field(default_factory=dict)
    """Seats shown under a newcomer's name (issue 13): seat -> shown name, for the quick
    actions' labels and lines."""

    @functools.cached_property  # asked by every prompt (issue 23)
    def private_address(self) -> str:
        """The game's plus-address, where a private quick action is sent."""
        return game_address(self.moderator, self.game_id)

    def page(self, subject: str, body: str, lang: str) -> str:
        """A mail that asks for nothing (a receipt, a result)."""
        return _page(subject, body, lang, self.names)

    def prompt(
        self,
        subject: str,
        body: str,
        lang: str,
        state: Any,
        readers: Sequence[PlayerId],
        *,
        public: bool,
    ) -> str:
        """A game's notice, with a quick action per legal choice of the commands it names,
        checked on ``state`` (the one the notice announces; None: no quick actions, and none
        either once the phase has no deadline: the game is over)."""
        deadlines = self.rules.deadlines(state) if state is not None else {}
        actions: tuple[QuickAction, ...] = ()
        if deadlines and readers:
            actions = quick_actions(
                self.rules,
                state,
                body,
                readers=readers,
                lang=lang,
                now=min(deadlines.values()) - BEFORE_DEADLINE,
                subject=subject,
                private_address=self.private_address,
                list_address=self.list_address,
                public=public,
                shown=self.renamed,
            )
        if not actions:  # most notices (a tally, a result): the page of a mail asking nothing
            return _page(subject, body, lang, self.names)
        title = _actions_title(self.renderer, lang)
        return _prompt_page(subject, body, lang, self.names, actions, title)


@functools.lru_cache(maxsize=16)  # a fixed text, above the quick actions of every prompt
def _actions_title(renderer: Renderer, lang: str) -> str:
    return renderer.text("common/quick_actions", lang, {})


@functools.lru_cache(maxsize=512)  # a receipt says the same to each player who sent that line
def _page(subject: str, body: str, lang: str, names: tuple[str, ...]) -> str:
    return to_html(subject, body, lang=lang, names=names)


# not kept: a prompt's text names its reader or its moment, so that 4 % of them were found
# kept, while each lookup hashed the whole text and every link (issue 23)
def _prompt_page(
    subject: str,
    body: str,
    lang: str,
    names: tuple[str, ...],
    actions: tuple[QuickAction, ...],
    title: str,
) -> str:
    return to_html(subject, body, lang=lang, names=names, actions=actions, actions_title=title)
