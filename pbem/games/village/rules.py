"""The reading every werewolf-family game's rules share: the outcome, the names at the table and
the summary (its head, then each game's own keys and players)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from pbem.core.commands import Command, find_spec
from pbem.core.errors import IllegalNow, InvalidSyntax
from pbem.core.events import ActionCleared, Event
from pbem.core.game import Rules
from pbem.core.ids import PlayerId
from pbem.core.outcome import Outcome
from pbem.games.village.state import V


class VillageRules(Rules[V]):
    """The base of the Lupus, Loup-Garou and Chasse aux sorcières rules."""

    state_type: type[V]
    """The game's state class; its defaults are the state before the game is created."""

    fold_event: Callable[[V, Event], V]
    """The game's pure ``evolve(state, event)`` (a ``staticmethod`` in the class body)."""

    def __init__(self) -> None:
        super().__init__()
        # the game's pure evolve itself, without the frame of :meth:`evolve` around it: asked
        # of every event folded (issue 23)
        self.evolve = self.fold_event  # type: ignore[method-assign,assignment]
        self._empty = self.state_type()

    def new_state(self) -> V:
        """The state before any event: one object for every game of these rules (a state is
        frozen), so that a setup's fold, traced from it (:class:`~pbem.core.folded.Batch`), is recalled by a caller who starts from it too (issue 23)."""
        return self._empty

    def evolve(self, state: V, event: Event) -> V:
        return self.fold_event(state, event)

    def outcome(self, state: V) -> Outcome | None:
        return state.outcome

    def names(self, state: V) -> Sequence[PlayerId]:
        return state.order

    def summary(self, state: V) -> dict[str, Any]:
        """The game's progress, then :meth:`summary_extra`, then every player as
        :meth:`player_summary` gives him."""
        return {
            "game": self.id,
            "status": "finished" if state.outcome else "running",
            "phase": state.phase,
            "day": state.number,
            "winners": list(state.outcome.winners) if state.outcome else [],
            "side": state.outcome.side if state.outcome else None,
            **self.summary_extra(state),
            "players": [self.player_summary(state, p) for p in state.order],
        }

    def cancelled_verb(self, command: Command, state: V, actor: PlayerId) -> str:
        """The verb ``ANNULER <mot-clé>`` names (LUP-603, LG-603, CAS-603); InvalidSyntax if
        its text names no command, with an example naming an order ``actor`` has standing."""
        found = find_spec(command.text.split(), self.all_commands)
        if found is None:
            raise InvalidSyntax("cancel_what", **self._cancel_example(state, actor))
        return found[0].verb

    def _cancel_example(self, state: V, actor: PlayerId) -> dict[str, str]:
        """The keyword, in both languages, of an order ``actor`` has standing (his vote
        first), else of VOTE: a bare ANNULER's example names his own command, not another
        card's."""
        verbs = ["vote"] if actor in state.votes else []
        verbs += [verb for (who, verb) in state.actions if who == actor]
        for verb in (*verbs, "vote"):
            for spec in self.all_commands:
                if spec.verb == verb:
                    return {"standing_fr": spec.keyword("fr"), "standing_en": spec.keyword("en")}
        return {"standing_fr": "VOTE", "standing_en": "VOTE"}

    @staticmethod
    def cleared(state: V, actor: PlayerId, verb: str) -> list[Event]:
        """``ANNULER verb`` withdraws the actor's pending action of that verb; IllegalNow if
        he has none (LUP-603, LG-603, CAS-603)."""
        if state.action(actor, verb) is None:
            raise IllegalNow("nothing_to_cancel")
        return [ActionCleared(actor, verb)]

    def summary_extra(self, state: V) -> dict[str, Any]:
        """The game's own keys of the summary, between the progress and the players."""
        return {}

    @abstractmethod
    def player_summary(self, state: V, player: PlayerId) -> dict[str, Any]:
        """One player in the summary: at least name, role, team and alive."""
