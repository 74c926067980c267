"""Who holds each seat: the setup's players folded with the seat events (issue 11, issue 13).

A seat is a :class:`~pbem.core.ids.PlayerId`: the rules know only seats, and a seat never
changes (its card, its votes and its history stay when it changes hands). The roster says who
holds it now: by which address it is reached, by which name it is shown and matched, in which
language and with which agreement its texts are written. Everything that maps an address to a
seat (the table's routing, the daemon's authentication, bounces, the relayed list's members,
direct alerts, the desk's ``ROLES``) asks the roster, so that one ``Substituted`` event moves
all of it at once. Pure: no I/O, no clock.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.core.commands import Command
from pbem.core.events import AddressChanged, BenchJoined, Event, Substituted
from pbem.core.frozen import compact, quick_init
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.match import fold


@quick_init  # each seat of every game created or loaded (1,000 created: issue 23)
@dataclass(frozen=True)
class Holder:
    """Who holds a seat now."""

    seat: PlayerId
    name: str
    """The name the seat is shown and matched by (the seat's own, or its newcomer's)."""
    email: str
    lang: str
    gender: str | None = None

    @functools.cached_property  # frozen: asked for every mail the seat gets or sends
    def spec(self) -> PlayerSpec:
        """The holder as the table's players are described: the seat, this address."""
        return PlayerSpec(self.seat, self.email, self.lang, self.gender)


@quick_init
@dataclass(frozen=True)
class Roster:
    """Every seat's holder, in seating order, and the addresses that held a seat before."""

    holders: tuple[Holder, ...]
    former: Mapping[str, str] = field(default_factory=dict)
    """Lower-cased addresses that no longer hold a seat -> the name they played under (the
    polite refusal names it)."""
    bench: tuple[Holder, ...] = ()
    """Volunteers waiting for a seat (their ``seat`` is empty), in the order they came."""
    moved: frozenset[str] = frozenset()
    """Those of ``former`` its own player left for a new address (issue 25 address,
    ``AddressChanged``): refused as moved, not as replaced."""

    @classmethod
    def of(
        cls,
        players: Sequence[PlayerSpec],
        events: Iterable[Event] = (),
        bench: Iterable[Holder] = (),
    ) -> Roster:
        """The roster of a setup's ``players`` after the seat events among ``events``;
        ``bench``: the setup's volunteers collected at sign-up (pbem/seats/substitution.py)."""
        holders = tuple(
            # built once a game loaded, and kept: pbem.core.frozen.compact
            compact(
                Holder,
                {
                    "seat": p.name,
                    "name": str(p.name),
                    "email": p.email,
                    "lang": p.lang,
                    "gender": p.gender,
                },
            )
            for p in players
        )
        roster = cls(holders, bench=tuple(bench))
        for event in events:
            roster = roster.evolve(event)
        return roster

    def evolve(self, event: Event) -> Roster:
        """Fold one event (only seat events change the roster)."""
        if isinstance(event, BenchJoined):
            volunteer = Holder(PlayerId(""), event.name, event.email, event.lang, event.gender)
            return replace(self, bench=(*self.bench, volunteer))
        if isinstance(event, AddressChanged):  # issue 25: the same holder, a new address
            holder = self.by_seat(event.seat)
            moved = replace(holder, email=event.email)
            return self._moved_to(moved, event.old_email, holder.name, left=True)
        if not isinstance(event, Substituted):
            return self
        holder = Holder(event.seat, event.name, event.email, event.lang, event.gender)
        return self._moved_to(holder, event.old_email, event.old_name, left=False)

    def _moved_to(self, holder: Holder, old_email: str, old_name: str, *, left: bool) -> Roster:
        """``holder`` now holds his seat; ``old_email`` held it as ``old_name`` (``left``: its
        own player moved away from it rather than handing the seat over)."""
        new, old = holder.email.lower(), old_email.lower()
        holders = tuple(holder if h.seat == holder.seat else h for h in self.holders)
        former = {k: v for k, v in self.former.items() if k != new}
        former[old] = old_name
        bench = tuple(b for b in self.bench if b.email.lower() != new)
        moved = (self.moved - {new, old}) | ({old} if left else set())
        return Roster(holders, former, bench, frozenset(moved))

    # -- lookups --------------------------------------------------------------------------

    @functools.cached_property  # a roster never changes: once, not once per mail received
    def specs_by_email(self) -> Mapping[str, PlayerSpec]:
        """Lower-cased address -> the seat it holds now, as a player."""
        return {h.email.lower(): h.spec for h in self.holders}

    @functools.cached_property
    def specs_by_seat(self) -> Mapping[str, PlayerSpec]:
        """Seat -> its holder, as a player."""
        return {h.seat: h.spec for h in self.holders}

    def by_email(self, address: str) -> Holder | None:
        """The holder reached at ``address`` (case-insensitive), if it holds a seat now."""
        wanted = address.strip().lower()
        return next((h for h in self.holders if h.email.lower() == wanted), None)

    def by_seat(self, seat: str) -> Holder:
        """The holder of ``seat`` (KeyError if there is no such seat)."""
        found = next((h for h in self.holders if h.seat == seat), None)
        if found is None:
            raise KeyError(seat)
        return found

    def seat_named(self, name: str) -> Holder | None:
        """The holder shown as ``name`` (accent- and case-insensitive), or whose seat it is."""
        wanted = fold(name.strip())
        return next((h for h in self.holders if fold(h.name) == wanted), None) or next(
            (h for h in self.holders if fold(h.seat) == wanted), None
        )

    def bench_named(self, name: str) -> Holder | None:
        """The volunteer on the bench called ``name`` (accent- and case-insensitive)."""
        wanted = fold(name.strip())
        return next((b for b in self.bench if fold(b.name) == wanted), None)

    def on_bench(self, address: str) -> bool:
        """Whether ``address`` waits on the bench."""
        return any(b.email.lower() == address.strip().lower() for b in self.bench)

    def moved_away(self, address: str) -> bool:
        """Whether ``address`` held a seat whose own player moved to a new address since."""
        wanted = address.strip().lower()
        return wanted in self.moved and self.by_email(wanted) is None

    def replaced_name(self, address: str) -> str | None:
        """The name ``address`` played under before its seat changed hands (None if it never
        held one, or holds one now)."""
        wanted = address.strip().lower()
        if self.by_email(wanted) is not None:
            return None
        return self.former.get(wanted)

    # -- the seat's name as shown -----------------------------------------------------------

    @functools.cached_property  # a roster never changes: once, not once per name shown
    def renamed(self) -> Mapping[str, str]:
        """Seats shown under another name than their own: seat -> shown name."""
        return {h.seat: h.name for h in self.holders if h.name != h.seat}

    def shown(self, seat: str) -> str:
        """The name ``seat`` is shown by now."""
        return self.renamed.get(seat, seat)

    def show(self, value: Any) -> Any:
        """``value`` (a notice's params, a reason's, a summary) with every seat shown by its
        holder's name: a string equal to a renamed seat is replaced, in lists and mappings
        (keys too: the ``genders`` map). Names are unique and never a keyword or a role id
        (LUP-D28), so a string equal to a seat is that seat."""
        renamed = self.renamed
        if not renamed:
            return value
        return _show(value, renamed)

    def seat_of_shown(self, name: str) -> str:
        """The seat behind a shown name (the name itself when it is not a renamed seat's)."""
        return next((seat for seat, shown in self.renamed.items() if shown == name), name)

    def shown_names(self, seats: Iterable[str]) -> list[str]:
        """The names players match targets against: each seat's shown name."""
        renamed = self.renamed
        if not renamed:  # most games: every seat is shown by its own name
            return list(seats)
        return [renamed.get(seat, seat) for seat in seats]

    def desk_names(self, seats: Iterable[str]) -> list[str]:
        """The names a game master may use: the shown names, and the seats' own (the
        operator's commands and ``pbem status`` name seats). A name is never another seat's
        (pbem/seats/substitution.py), so both designate one seat."""
        seats = list(seats)
        return [*self.shown_names(seats), *(s for s in seats if s in self.renamed)]

    def to_seats(self, command: Command) -> Command:
        """A command parsed against shown names, its targets turned back into seats."""
        if not command.targets or not self.renamed:
            return command
        seats = tuple(PlayerId(self.seat_of_shown(t)) for t in command.targets)
        return replace(command, targets=seats)

    def bold_to_seats(self, bold: Sequence[str]) -> list[str]:
        """Bold texts of a post with a renamed seat's shown name written as its seat (the
        rules match bold names against their seats)."""
        folded = {fold(shown): seat for seat, shown in self.renamed.items()}
        return [folded.get(fold(b.strip()), b) for b in bold]


def _show(value: Any, renamed: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return renamed.get(value, value)
    if isinstance(value, Mapping):
        return {_show(k, renamed): _show(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_show(v, renamed) for v in value]
    if isinstance(value, tuple):
        return tuple(_show(v, renamed) for v in value)
    if isinstance(value, (set, frozenset)):
        return type(value)(_show(v, renamed) for v in value)
    return value
