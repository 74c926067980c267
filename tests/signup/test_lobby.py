"""The lobby's pure rules: seats derived from the sign-ups, the bench, the name checks
(LUP-D28 as amended by issue 13), the deadline's decision."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.signup import lobby as lb

T = datetime(2026, 1, 5, tzinfo=UTC)
KEYWORDS = ["VOTE", "TUER", "KILL", "SALLE DE BAL"]


def _lobby(*names: str, seats: tuple[int, int] = (3, 3), bench: tuple[str, ...] = ()) -> lb.Lobby:
    lobby = lb.opened(lb.Terms(seats[0], seats[1], T + timedelta(days=1)))
    for name in names:
        event = lb.join(
            lobby,
            name=name,
            email=f"{name.lower().replace(' ', '.')}@x.org",
            pronoun=None,
            lang="fr",
            bench=name in bench,
            keywords=KEYWORDS,
            reserved=("Léo",),
        )
        lobby = lb.evolve(lobby, event)
    return lobby


def test_volunteers_beyond_the_seats_wait_on_the_bench_and_take_a_freed_seat() -> None:
    lobby = _lobby("Anne", "Bob", "Carl", "Dora", "Eve")
    assert [v.name for v in lobby.seated] == ["Anne", "Bob", "Carl"]
    assert [v.name for v in lobby.bench] == ["Dora", "Eve"]
    lobby = lb.evolve(lobby, lb.leave(lobby, "bob@x.org"))
    assert [v.name for v in lobby.seated] == ["Anne", "Carl", "Dora"]  # the first overflow
    assert [v.name for v in lobby.bench] == ["Eve"]


def test_a_volunteer_for_the_bench_never_takes_a_seat_by_himself() -> None:
    lobby = _lobby("Anne", "Hugo", "Bob", bench=("Hugo",))
    assert [v.name for v in lobby.seated] == ["Anne", "Bob"]
    assert [v.name for v in lobby.bench] == ["Hugo"]
    lobby = lb.evolve(lobby, lb.to_bench(lobby, "anne@x.org"))
    assert [v.name for v in lobby.seated] == ["Bob"]
    assert [v.name for v in lobby.bench] == ["Anne", "Hugo"]  # in the order they joined


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("anne", "signup_name_taken"),  # case
        ("ÂNNE", "signup_name_taken"),  # accents
        ("Jean Pierre", "signup_name_clash"),  # « Jean » plays: VOTE Jean Pierre is ambiguous
        ("Vote", "signup_name_keyword"),
        ("Tuer Bob", "signup_name_keyword"),  # a bold « **Tuer Bob** » would read as a command
        ("Salle de bal", "signup_name_keyword"),
        ("Léo", "signup_name_reserved"),  # CAS-D30: a role's name
        ("Jean et Marie", "signup_name_unreadable"),
        ("(Zoé)", "signup_name_unreadable"),
        ("X" * 31, "signup_name_long"),
    ],
)
def test_a_name_is_refused_with_its_reason_lup_d28(name: str, reason: str) -> None:
    """LUP-D28 (amended): unique after folding, no keyword, no reserved word, no clash."""
    lobby = _lobby("Anne", "Jean")
    with pytest.raises(lb.LobbyRefusal) as exc:
        lb.name_refusal(name, lobby, KEYWORDS, ("Léo",))
    assert exc.value.reason == reason


def test_names_with_spaces_accents_and_hyphens_are_taken_lup_d28() -> None:
    lobby = _lobby("Jean Pierre", "Marie-Ève", "Zoé d'Arc", seats=(3, 3))
    assert [v.name for v in lobby.seated] == ["Jean Pierre", "Marie-Ève", "Zoé d'Arc"]


def test_the_same_sender_twice_is_told_he_is_already_signed_up() -> None:
    lobby = _lobby("Anne")
    with pytest.raises(lb.LobbyRefusal) as exc:
        lb.join(
            lobby,
            name="Annie",
            email="ANNE@x.org",
            pronoun=None,
            lang="fr",
            bench=False,
            keywords=(),
            reserved=(),
        )
    assert exc.value.reason == "signup_already"
    assert exc.value.params["name"] == "Anne"


def test_leaving_or_benching_needs_a_sign_up() -> None:
    lobby = _lobby("Anne")
    for decide in (lb.leave, lb.to_bench):
        with pytest.raises(lb.LobbyRefusal, match="signup_not_joined"):
            decide(lobby, "nobody@x.org")


def test_a_pronoun_ends_the_sign_up_line() -> None:
    assert lb.parse_pronoun(["Jean", "Pierre", "elle"]) == (["Jean", "Pierre"], "elle")
    assert lb.parse_pronoun(["Sam", "They"]) == (["Sam"], "they")
    assert lb.parse_pronoun(["Jean"]) == (["Jean"], None)


def test_the_deadline_starts_within_the_seats_and_a_legal_count_else_asks() -> None:
    lobby = _lobby("Anne", "Bob", seats=(2, 4))
    assert lb.at_deadline(lobby, legal=[2, 3, 4]) == "start"
    assert lb.at_deadline(lobby, legal=[3, 4]) == "ask"  # the rules refuse 2
    assert lb.at_deadline(_lobby("Anne", seats=(2, 4)), legal=[1, 2, 3, 4]) == "ask"  # < min
    with pytest.raises(lb.LobbyRefusal, match="signup_count_illegal"):
        lb.check_start(lobby, legal=[3, 4])


def test_extending_moves_a_pending_deadline_or_restarts_from_now() -> None:
    lobby = _lobby("Anne")
    moved = lb.evolve(lobby, lb.extend(lobby, timedelta(hours=24), T))
    assert moved.deadline == T + timedelta(days=2)
    later = T + timedelta(days=3)  # the deadline has passed: from now
    assert lb.evolve(lobby, lb.extend(lobby, timedelta(hours=24), later)).deadline == later + (
        timedelta(hours=24)
    )


def test_nothing_changes_once_started_or_cancelled() -> None:
    lobby = _lobby("Anne")
    cancelled = lb.evolve(lobby, lb.cancel(lobby, T))
    with pytest.raises(lb.LobbyRefusal, match="signup_cancelled"):
        lb.leave(cancelled, "anne@x.org")
    started = lb.evolve(lobby, {"type": "signup.started", "at": T.isoformat(), "setup": {}})
    with pytest.raises(lb.LobbyRefusal, match="signup_started"):
        lb.extend(started, timedelta(hours=1), T)


def test_the_lobby_is_the_fold_of_its_events() -> None:
    """A crash loses no sign-up: the state is rebuilt from the stored events alone."""
    terms = lb.Terms(3, 3, T)
    events = [
        {"type": "signup.joined", "name": "Anne", "email": "a@x.org", "pronoun": "elle"},
        {"type": "signup.joined", "name": "Bob", "email": "b@x.org", "pronoun": None},
        {"type": "signup.left", "email": "a@x.org"},
    ]
    lobby = lb.fold_events(terms, events)
    assert [v.name for v in lobby.volunteers] == ["Bob"]
    assert lobby.changes == (("joined", "Anne"), ("joined", "Bob"), ("left", "Anne"))
