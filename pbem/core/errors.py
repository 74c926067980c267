"""The error taxonomy.

Every problem with a player's input is a :class:`CommandError` subclass carrying a ``reason``
(a template key under ``templates/<lang>/reasons/``) and the ``params`` that template needs, so
the reply is rendered in the player's language and never reveals hidden information
(LUP-606). The rules raise them; they never change state (an exception means no events).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class PbemError(Exception):
    """Base class of every error pbem raises on purpose."""


class SetupError(PbemError):
    """A game cannot be set up as asked (player count, unknown role, deck mismatch...)."""


class TranscriptError(PbemError):
    """A `pbem simulate` transcript line is malformed."""


class MailError(PbemError):
    """An inbound email cannot be read at all (no usable text, broken structure)."""


class CommandError(PbemError):
    """A command that is rejected; nothing changes.

    ``reason`` names the explanation template; ``params`` fill it.
    """

    default_reason = "rejected"

    def __init__(self, reason: str | None = None, **params: Any) -> None:
        self.reason = reason or self.default_reason
        self.params: Mapping[str, Any] = params
        # the message is written when read, not at each raise: a mail's quick actions ask the
        # rules about every choice, and most refusals are never shown (issue 23)
        super().__init__(self.reason)

    def __str__(self) -> str:
        return f"{self.reason} {dict(self.params)}" if self.params else self.reason

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


def refuse(refusal: CommandError | None) -> None:
    """Raise ``refusal``, if any: for a check that returns its refusal (a trial asks it
    without raising). Pass the check's answer straight in: an error held in a local of a
    frame it is raised through is a reference cycle (frame, error, traceback, frame) that
    keeps the frame's locals (states, events) until the collector runs; it was a third of
    a simulated Lupus game's CPU (issue 23). This frame lets go of it as it raises."""
    if refusal is not None:
        try:
            raise refusal
        finally:
            del refusal


class PartlyRefused(CommandError):
    """Part of a command is taken and the rest refused: ``events`` are the taken part's (the
    one exception that carries events), ``kept`` the targets it keeps, ``refused`` the names
    the ``reason`` explains (Dracula: curses beyond two distinct targets a night, AMB-053)."""

    def __init__(
        self,
        reason: str,
        *,
        events: Sequence[Any],
        kept: Sequence[str],
        refused: Sequence[str],
        **params: Any,
    ) -> None:
        super().__init__(reason, **params)
        self.events = tuple(events)
        self.kept = tuple(kept)
        self.refused = tuple(refused)


class Amended(PartlyRefused):
    """A command taken otherwise than it reads, and nothing of it refused: ``events`` are what
    is taken, ``kept`` the targets it keeps, ``refused`` the names it could not honour as asked
    and the ``reason`` explains how it is taken instead (Dracula: a flee towards a vampire is a
    flee whose flame goes to chance, AMB-063). The receipt shows it accepted, the reason beside
    it, never under « Refusées »: an accepted order's parts are not refused."""


class UnknownCommand(CommandError):
    """The first word of the line is not a keyword of this game."""

    default_reason = "unknown_command"


class InvalidSyntax(CommandError):
    """A known keyword with arguments that do not fit its syntax."""

    default_reason = "invalid_syntax"


class IllegalNow(CommandError):
    """A well-formed command the rules do not allow now (phase, role, dead actor...)."""

    default_reason = "illegal_now"


class ListClosed(IllegalNow):
    """The list is closed to this player for now and will reopen (night silence).

    A daemon that relays the list itself holds such a post and relays it once the list reopens
    (LG-D35, CAS-D28, Dracula AMB-009); with an external list it is refused like any IllegalNow.
    """


class NotAPlayer(CommandError):
    """The sender is not a player of this game."""

    default_reason = "not_a_player"


class TargetError(CommandError):
    """A name in the command does not designate exactly one player."""

    def __init__(self, reason: str | None = None, *, name: str, **params: Any) -> None:
        self.name = name
        super().__init__(reason, name=name, **params)


class AmbiguousTarget(TargetError):
    """The name is a prefix of several players' names."""

    default_reason = "ambiguous_target"

    def __init__(self, *, name: str, candidates: Sequence[str]) -> None:
        self.candidates = tuple(candidates)
        super().__init__(name=name, candidates=list(self.candidates))


class UnknownTarget(TargetError):
    """The name matches no player; ``suggestions`` holds close names, if any."""

    default_reason = "unknown_target"

    def __init__(self, *, name: str, suggestions: Sequence[str] = ()) -> None:
        self.suggestions = tuple(suggestions)
        super().__init__(name=name, suggestions=list(self.suggestions))
