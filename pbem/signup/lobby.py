"""The lobby of a game taking sign-ups: its terms, its events, its state and its checks.

Pure (no I/O, no clock: ``now`` comes in). A game opened by ``pbem open-game`` has no players
yet; volunteers join, leave or ask for the bench by mail, and each such fact is an event
appended to the game's log, so a crash loses no sign-up and the state is a fold of the log.
The seats are derived, never stored: the first ``seats_max`` volunteers who did not ask for the
bench hold them, in the order they joined; every other volunteer is on the bench. So a seat
freed by a departure goes to the first volunteer who overflowed, with no event of its own.

Events are plain JSON objects (``type`` plus fields), as the store keeps them:

``signup.joined``     name, email, pronoun, lang, bench (asked for the bench)
``signup.left``       email
``signup.benched``    email (a seated volunteer who asks for the bench)
``signup.posted``     at (the list was told the count: the pending changes are cleared)
``signup.extended``   deadline (the game master moved the sign-up deadline)
``signup.asked``      at (the deadline passed with a count the rules refuse: the GMs are asked)
``signup.started``    at, setup (the game's full setup: the deal is made from it)
``signup.cancelled``  at
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from pbem.core.errors import CommandError
from pbem.core.match import fold
from pbem.core.names import MAX_NAME_CHARS, name_problem

Status = Literal["open", "asked", "started", "cancelled"]

PRONOUNS = {"il": "il", "elle": "elle", "he": "he", "she": "she", "they": "they", "iel": "iel"}
"""How a volunteer may ask to be addressed (the setup's ``pronoun`` key reads them all)."""


class LobbyRefusal(CommandError):
    """A sign-up command refused; ``reason`` names a template under ``signup/reasons/``."""


@dataclass(frozen=True)
class Terms:
    """What the game master opened: the seats, the deadline, when to start, how often the
    list is told the count."""

    seats_min: int
    seats_max: int
    deadline: datetime | None
    when_full: bool = True
    count_every: timedelta = timedelta(hours=1)
    """The list sees the count move at most this often (0: every change; see docs/daemon.md)."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Terms:
        """The terms as stored in the game's setup (see :meth:`to_mapping`)."""
        seats = data["seats"]
        deadline = data.get("deadline")
        return cls(
            seats_min=int(seats[0]),
            seats_max=int(seats[1]),
            deadline=datetime.fromisoformat(deadline) if deadline else None,
            when_full=bool(data.get("when_full", True)),
            count_every=timedelta(seconds=float(data.get("count_every_seconds", 3600))),
        )

    def to_mapping(self) -> dict[str, Any]:
        """The terms as JSON-ready data, for the game's setup."""
        return {
            "seats": [self.seats_min, self.seats_max],
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "when_full": self.when_full,
            "count_every_seconds": self.count_every.total_seconds(),
        }


@dataclass(frozen=True)
class Volunteer:
    """One sign-up: the nickname, the address, how to address him, his language, and whether
    he asked for the bench (a substitute) rather than a seat."""

    name: str
    email: str
    pronoun: str | None
    lang: str
    bench: bool = False

    def entry(self) -> dict[str, Any]:
        """As the game's setup lists a player or a bench volunteer."""
        out: dict[str, Any] = {"name": self.name, "email": self.email, "lang": self.lang}
        if self.pronoun:
            out["pronoun"] = self.pronoun
        return out


@dataclass(frozen=True)
class Lobby:
    """The lobby's state: the fold of its events over its terms."""

    terms: Terms
    volunteers: tuple[Volunteer, ...] = ()
    deadline: datetime | None = None
    status: Status = "open"
    last_post: datetime | None = None
    changes: tuple[tuple[str, str], ...] = ()
    """What the list has not been told yet: (``joined``|``left``|``bench``, name)."""
    game_setup: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def seated(self) -> tuple[Volunteer, ...]:
        """Who holds a seat: the first volunteers who did not ask for the bench."""
        return tuple(v for v in self.volunteers if not v.bench)[: self.terms.seats_max]

    @property
    def bench(self) -> tuple[Volunteer, ...]:
        """Everyone else, in the order they joined: the overflow, then who asked for it."""
        seated = {v.email for v in self.seated}
        return tuple(v for v in self.volunteers if v.email not in seated)

    @property
    def full(self) -> bool:
        """Whether every seat is taken."""
        return len(self.seated) >= self.terms.seats_max

    def find(self, email: str) -> Volunteer | None:
        """The volunteer with this address (case-insensitive), or None."""
        wanted = email.lower()
        return next((v for v in self.volunteers if v.email.lower() == wanted), None)

    def count_due(self) -> datetime | None:
        """When the pending changes are posted as one digest (None: nothing pending)."""
        if not self.changes or self.status != "open" or self.last_post is None:
            return None
        return self.last_post + self.terms.count_every


def opened(terms: Terms) -> Lobby:
    """The lobby as ``pbem open-game`` leaves it."""
    return Lobby(terms, deadline=terms.deadline)


def evolve(lobby: Lobby, event: Mapping[str, Any]) -> Lobby:
    """Fold one event; total (an unknown type changes nothing)."""
    kind = event.get("type")
    if kind == "signup.joined":
        v = Volunteer(
            str(event["name"]),
            str(event["email"]),
            event.get("pronoun"),
            str(event.get("lang", "fr")),
            bool(event.get("bench", False)),
        )
        after = replace(lobby, volunteers=(*lobby.volunteers, v))
        # who asked for the bench, or came once the seats were full, joins the bench, not
        # the game (issue 26 item 4)
        benched = v.bench or all(s.email != v.email for s in after.seated)
        change = ("joined_bench" if benched else "joined", v.name)
        return replace(after, changes=(*lobby.changes, change))
    if kind == "signup.left":
        gone = lobby.find(str(event["email"]))
        kept = tuple(v for v in lobby.volunteers if v is not gone)
        changes = (*lobby.changes, ("left", gone.name)) if gone else lobby.changes
        return replace(lobby, volunteers=kept, changes=changes)
    if kind == "signup.benched":
        who = lobby.find(str(event["email"]))
        moved = tuple(replace(v, bench=True) if v is who else v for v in lobby.volunteers)
        changes = (*lobby.changes, ("bench", who.name)) if who else lobby.changes
        return replace(lobby, volunteers=moved, changes=changes)
    if kind == "signup.posted":
        return replace(lobby, last_post=_at(event["at"]), changes=())
    if kind == "signup.extended":
        return replace(lobby, deadline=_at(event["deadline"]), status="open")
    if kind == "signup.asked":
        return replace(lobby, status="asked")
    if kind == "signup.started":
        return replace(lobby, status="started", game_setup=dict(event["setup"]))
    if kind == "signup.cancelled":
        return replace(lobby, status="cancelled")
    return lobby


def fold_events(terms: Terms, events: Iterable[Mapping[str, Any]]) -> Lobby:
    """The lobby the terms open, after ``events`` in order."""
    lobby = opened(terms)
    for event in events:
        lobby = evolve(lobby, event)
    return lobby


def _at(value: Any) -> datetime:
    return datetime.fromisoformat(str(value))


# -- checks -----------------------------------------------------------------------------------


def name_refusal(name: str, lobby: Lobby, keywords: Iterable[str], reserved: Iterable[str]) -> None:
    """Raise :class:`LobbyRefusal` when ``name`` cannot be a new volunteer's nickname.

    LUP-D28 (as amended by issue 13): a name may hold spaces, accents and hyphens, but it must
    be one the parser reads back, unique after accent and case folding, not a command keyword
    (nor start with one: a bold vote « **Vote Machin** » alone on a line would read as a
    command), not a reserved word (CAS-D30 role names, LG-D42), and no word-prefix of another
    name nor the other way round: with a « Jean » and a « Jean Pierre », « VOTE Jean Pierre
    est louche » and « VOTE Jean, Pierre ment » are told apart only by punctuation, which a
    forum post does not keep.
    """
    if len(name) > MAX_NAME_CHARS:
        raise LobbyRefusal("signup_name_long", name=name, limit=MAX_NAME_CHARS)
    problem = name_problem(name)
    if problem is not None:
        raise LobbyRefusal("signup_name_unreadable", name=name)
    words = fold(name).split()
    for keyword in keywords:
        kw = fold(keyword).split()
        if words[: len(kw)] == kw:
            raise LobbyRefusal("signup_name_keyword", name=name, keyword=keyword)
    folded_reserved = {fold(w) for w in reserved}
    if fold(name) in folded_reserved or any(w in folded_reserved for w in words):
        raise LobbyRefusal("signup_name_reserved", name=name)
    for other in lobby.volunteers:
        theirs = fold(other.name).split()
        if theirs == words:
            raise LobbyRefusal("signup_name_taken", name=name)
        shorter, longer = sorted((theirs, words), key=len)
        if longer[: len(shorter)] == shorter:
            raise LobbyRefusal("signup_name_clash", name=name, other=other.name)


def parse_pronoun(words: Sequence[str]) -> tuple[list[str], str | None]:
    """The name's words and the pronoun a sign-up line ends with, if any (``elle``)."""
    if words and fold(words[-1]) in PRONOUNS:
        return list(words[:-1]), PRONOUNS[fold(words[-1])]
    return list(words), None


# -- decisions ----------------------------------------------------------------------------------


def join(
    lobby: Lobby,
    *,
    name: str,
    email: str,
    pronoun: str | None,
    lang: str,
    bench: bool,
    keywords: Iterable[str],
    reserved: Iterable[str],
) -> dict[str, Any]:
    """A volunteer's sign-up (for a seat, or for the bench); the ``signup.joined`` event."""
    _still_open(lobby)
    known = lobby.find(email)
    if known is not None:
        raise LobbyRefusal("signup_already", name=known.name, bench=known.bench)
    name_refusal(name, lobby, keywords, reserved)
    return {
        "type": "signup.joined",
        "name": name,
        "email": email,
        "pronoun": pronoun,
        "lang": lang,
        "bench": bench,
    }


def leave(lobby: Lobby, email: str) -> dict[str, Any]:
    """A volunteer leaves before the start; the ``signup.left`` event."""
    _still_open(lobby)
    if lobby.find(email) is None:
        raise LobbyRefusal("signup_not_joined")
    return {"type": "signup.left", "email": email}


def to_bench(lobby: Lobby, email: str) -> dict[str, Any]:
    """A seated volunteer (or one waiting for a seat) asks for the bench."""
    _still_open(lobby)
    who = lobby.find(email)
    if who is None:
        raise LobbyRefusal("signup_not_joined")
    if who.bench:
        raise LobbyRefusal("signup_already_bench")
    return {"type": "signup.benched", "email": email}


def extend(lobby: Lobby, by: timedelta, now: datetime) -> dict[str, Any]:
    """``PROLONGER 24h``: the deadline moves that much later (from now when it has passed or
    there was none)."""
    _still_open(lobby)
    base = lobby.deadline if lobby.deadline and lobby.deadline > now else now
    return {"type": "signup.extended", "deadline": (base + by).isoformat()}


def check_start(lobby: Lobby, legal: Sequence[int]) -> None:
    """``DEMARRER``: refused unless the count is one the rules accept."""
    _still_open(lobby)
    if len(lobby.seated) not in legal:
        raise LobbyRefusal(
            "signup_count_illegal",
            count=len(lobby.seated),
            legal=list(legal),
            seated=[v.name for v in lobby.seated],  # « 3 inscrites » agrees with who they are
        )


def cancel(lobby: Lobby, now: datetime) -> dict[str, Any]:
    """The event that cancels the sign-up; refused if it has started or was cancelled."""
    _still_open(lobby)
    return {"type": "signup.cancelled", "at": now.isoformat()}


def at_deadline(lobby: Lobby, legal: Sequence[int]) -> Literal["start", "ask", "none"]:
    """What the sign-up deadline does: start when the count is within the seats the game
    master opened and one the rules accept, else ask the game masters."""
    if lobby.status != "open":
        return "none"
    n = len(lobby.seated)
    if lobby.terms.seats_min <= n <= lobby.terms.seats_max and n in legal:
        return "start"
    return "ask"


def starts_now(lobby: Lobby, legal: Sequence[int]) -> bool:
    """Whether the lobby starts at once: full, and opened to start when full."""
    return (
        lobby.status in ("open", "asked")  # full while the game masters decide: it starts
        and lobby.terms.when_full
        and lobby.full
        and len(lobby.seated) in legal
    )


def _still_open(lobby: Lobby) -> None:
    if lobby.status == "started":
        raise LobbyRefusal("signup_started")
    if lobby.status == "cancelled":
        raise LobbyRefusal("signup_cancelled")
