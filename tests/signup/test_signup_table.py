"""Sign-ups by mail to the start, one scenario per game (issue 13): receipts, the list seeing
the count move, the bench, the deadline's decision and the game master's commands, and a
start that is exactly what `pbem new-game` does with the same setup."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.signup.table import COUNT_DEADLINE, SIGNUP_DEADLINE, SignupTable, load
from pbem.table import Table
from pbem.tools.simulate import EPOCH
from tests.signup.helpers import GM, LIST, lobby_setup, mail, names, opened, public, send, to

GAMES = [
    ("lupus-in-tabula", 8, "LUP-010"),
    ("loup-garou", 16, "LG-002"),
    ("chasse-aux-sorcieres", 14, "CAS-002"),
    ("dracula", 13, "DRA-005"),
]


@pytest.mark.parametrize(("game", "seats", "rule"), GAMES)
def test_sign_ups_by_mail_to_the_start_when_full(game: str, seats: int, rule: str) -> None:
    """LUP-010, LG-002, CAS-002, DRA-005: the count the rules accept fills the seats; the last
    sign-up starts the game, every seated volunteer gets his role mail, the one beyond the
    seats is on the bench and carried into the game's setup."""
    table, opening = opened(game=game, seats=(seats, seats), deal_salt="00" * 16)
    announce = public(opening)[0]
    assert announce.to == (LIST,) and "mj+village@example.org" in announce.body
    assert "INSCRIPTION" in announce.body and f"à {seats} :" in announce.body  # the deck
    volunteers = names(seats)
    extra = "Rémi"
    send(table, "remi@example.org", f"REMPLACANT {extra} il")  # the bench, asked for
    for i, name in enumerate(volunteers[:-1]):
        step = send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
        assert "enregistrée" in to(step, f"v{i}@example.org")[0].body
        assert not table.started
    last = len(volunteers) - 1
    step = send(table, f"v{last}@example.org", f"INSCRIPTION {volunteers[-1]} elle")
    assert table.started, rule
    game_table = table.game
    assert game_table is not None
    assert list(game_table.player_emails) == volunteers
    assert game_table.setup.bench == (
        {"name": extra, "email": "remi@example.org", "lang": "fr", "pronoun": "il"},
    )
    assert game_table.genders[volunteers[-1]] == "f"  # the templates agree with « elle »
    for i in range(seats):  # each seat got its private mail(s): the role card at least
        assert to(step, f"v{i}@example.org"), f"v{i} got nothing"
    assert "banc" in to(step, "remi@example.org")[0].subject
    assert any("SHA-256" in o.body or "sha256" in o.body.lower() for o in public(step))
    # the start is what `pbem new-game` does with that setup: same events, same mails
    _fresh, new_step = Table.new(table.lobby.game_setup or {}, EPOCH)
    started = [e for e in step.events if not str(e.get("type", "")).startswith("signup.")]
    assert started == list(new_step.events)
    keys = {o.key for o in new_step.outgoing}
    assert [o for o in step.outgoing if o.key in keys] == list(new_step.outgoing)
    # reloaded from its log (a restart), the game is the plain Table of that game
    stored = [*table.events, *started]
    reloaded = load(lobby_setup(game=game, seats=(seats, seats), deal_salt="00" * 16), stored)
    assert isinstance(reloaded, Table) and reloaded.summary() == game_table.summary()


def test_every_step_gets_a_receipt_and_the_list_sees_the_count() -> None:
    table, _ = opened(seats=(8, 10))
    step = send(table, "jp@example.org", "INSCRIPTION Jean Pierre il")
    receipt = to(step, "jp@example.org")[0]
    assert "Jean Pierre" in receipt.body and "place 1 sur 10" in receipt.body
    post = public(step)[0]
    assert post.subject == "[village] Inscriptions : 1 sur 10"
    assert "Jean Pierre rejoint la partie." in post.body
    step = send(table, "jp@example.org", "INSCRIPTION Jean Pierre")
    assert "déjà" in to(step, "jp@example.org")[0].body and not public(step)
    step = send(table, "jp@example.org", "DESINSCRIPTION")
    assert "Jean Pierre se retire." in public(step)[0].body
    assert "0 sur 10" in public(step)[0].subject


def test_a_bare_sign_up_takes_the_display_name_and_english_keywords_answer_in_english() -> None:
    table, _ = opened()
    step = send(table, "Marie Curie <marie@example.org>", "JOIN")
    receipt = to(step, "marie@example.org")[0]
    assert "recorded under the name Marie Curie" in receipt.body
    assert table.player_langs["Marie Curie"] == "en"


def test_a_refused_name_is_explained_and_changes_nothing() -> None:
    table, _ = opened()
    send(table, "jean@example.org", "INSCRIPTION Jean")
    step = send(table, "jp@example.org", "INSCRIPTION jean pierre")
    assert "commencent de la même façon" in to(step, "jp@example.org")[0].body
    step = send(table, "x@example.org", "INSCRIPTION Vote")
    assert "mot de commande" in to(step, "x@example.org")[0].body
    assert [v.name for v in table.lobby.volunteers] == ["Jean"]
    assert not step.events


def test_extra_volunteers_go_on_the_bench_and_are_told_so() -> None:
    table, _ = opened(seats=(8, 8), when_full=False)
    for i, name in enumerate(names(8)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    assert not table.started  # opened to start at the deadline only
    step = send(table, "late@example.org", "INSCRIPTION Tardif")
    assert "banc des remplaçants (rang 1)" in to(step, "late@example.org")[0].body
    send(table, "v0@example.org", "DESINSCRIPTION")  # a seat frees: the first overflow takes it
    assert "Tardif" in [v.name for v in table.lobby.seated]


def test_the_deadline_starts_a_legal_count() -> None:
    """LUP-010: 9 of 8 to 12 seats is a count the rules accept: the deadline starts it."""
    table, _ = opened(seats=(8, 12))
    for i, name in enumerate(names(9)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    due = table.deadlines()[SIGNUP_DEADLINE]
    assert not table.on_deadline(SIGNUP_DEADLINE, due - timedelta(seconds=1)).events
    step = table.on_deadline(SIGNUP_DEADLINE, due)
    table.apply(step)
    assert table.started and len(table.player_emails) == 9


def test_the_deadline_asks_the_game_master_who_extends_then_cancels() -> None:
    """LUP-010: 5 volunteers cannot play Lupus; the GM is asked, extends, then cancels."""
    table, _ = opened(seats=(8, 12))
    for i, name in enumerate(names(5)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    due = table.deadlines()[SIGNUP_DEADLINE]
    step = table.on_deadline(SIGNUP_DEADLINE, due)
    table.apply(step)
    ask = to(step, GM)[0]
    assert "PROLONGER 24h" in ask.body and "DEMARRER" in ask.body and "ANNULER PARTIE" in ask.body
    assert table.deadlines() == {}  # waiting for the game master
    step = send(table, GM, "DEMARRER", now=due)
    assert "les règles acceptent" in to(step, GM)[0].body and not table.started
    step = send(table, GM, "PROLONGER 24h", now=due)
    assert table.deadlines()[SIGNUP_DEADLINE] == due + timedelta(hours=24)
    assert "prolongées" in public(step)[0].subject
    step = send(table, GM, "ANNULER PARTIE", now=due)
    assert table.finished and table.lobby.status == "cancelled"
    assert all(to(step, f"v{i}@example.org") for i in range(5))  # each volunteer told
    assert "annulée" in public(step)[0].subject


def test_the_game_master_starts_with_fewer_when_the_rules_accept_the_count() -> None:
    table, _ = opened(seats=(10, 12))
    for i, name in enumerate(names(8)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    step = send(table, GM, "DEMARRER")
    assert table.started and len(table.player_emails) == 8
    assert "✓ DEMARRER" in to(step, GM)[0].body


def test_the_game_master_reads_the_lobby_and_his_help() -> None:
    table, _ = opened()
    send(table, "v0@example.org", "INSCRIPTION Anne")
    assert "Inscrit (1 sur 8) : Anne." in to(send(table, GM, "STATUT"), GM)[0].body
    assert "ANNULER PARTIE" in to(send(table, GM, "AIDE"), GM)[0].body


def test_the_count_posts_are_gathered_into_a_digest_within_the_interval() -> None:
    """One post per change would flood a list with rate limits: at most one post an hour,
    the changes in between gathered by the digest's deadline."""
    table, _ = opened(seats=(8, 12), count_every=3600)
    assert public(send(table, "v0@example.org", "INSCRIPTION Anne"))  # the first: at once
    later = EPOCH + timedelta(minutes=10)
    assert not public(send(table, "v1@example.org", "INSCRIPTION Bruno", now=later))
    assert not public(send(table, "v2@example.org", "INSCRIPTION Chloé", now=later))
    due = table.deadlines()[COUNT_DEADLINE]
    assert due == EPOCH + timedelta(hours=1)
    step = table.on_deadline(COUNT_DEADLINE, due)
    table.apply(step)
    digest = public(step)[0]
    assert "Bruno rejoint la partie." in digest.body and "Chloé rejoint" in digest.body
    assert COUNT_DEADLINE not in table.deadlines()


def test_a_lobby_survives_a_restart_from_its_events() -> None:
    """A crash loses no sign-up: the stored events rebuild the same lobby."""
    table, _ = opened(seats=(8, 12))
    for i, name in enumerate(names(3)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    again = load(lobby_setup(seats=(8, 12)), table.events)
    assert isinstance(again, SignupTable)
    assert again.summary() == table.summary() and again.deadlines() == table.deadlines()


def test_help_and_status_before_the_start() -> None:
    table, _ = opened()
    body = to(send(table, "x@example.org", "AIDE"), "x@example.org")[0].body
    assert "INSCRIPTION [nom] [il|elle]" in body and "REMPLACANT" in body
    send(table, "anne@example.org", "INSCRIPTION Anne elle")
    body = to(send(table, "anne@example.org", "STATUT"), "anne@example.org")[0].body
    assert "Vous êtes inscrite à Lupus in Tabula" in body
    body = to(send(table, "x@example.org", "bonjour"), "x@example.org")[0].body
    assert "INSCRIPTION" in body  # a mail without a command gets the help


def test_opening_refuses_seats_no_count_of_which_the_rules_accept() -> None:
    from pbem.core.errors import SetupError

    with pytest.raises(SetupError, match="LG-002"):
        SignupTable.open(lobby_setup(game="loup-garou", seats=(8, 12)), EPOCH)
    with pytest.raises(SetupError, match="has passed"):
        SignupTable.open(lobby_setup(deadline=timedelta(hours=-1)), EPOCH)
    with pytest.raises(SetupError, match="game master"):
        SignupTable.open({**lobby_setup(), "admins": []}, EPOCH)


def test_a_seated_volunteer_may_give_up_his_seat_for_the_bench() -> None:
    table, _ = opened(seats=(8, 12))
    send(table, "anne@example.org", "INSCRIPTION Anne")
    step = send(table, "anne@example.org", "REMPLACANT")
    assert "banc des remplaçants" in to(step, "anne@example.org")[0].body
    assert [v.name for v in table.lobby.bench] == ["Anne"] and not table.lobby.seated
    assert "Anne passe sur le banc des remplaçants." in public(step)[0].body
    step = send(table, "anne@example.org", "REMPLACANT")
    assert "déjà sur le banc" in to(step, "anne@example.org")[0].body


def test_the_count_post_says_a_bench_volunteer_joins_the_bench_not_the_game() -> None:
    """Issue 26 item 4: who asks for the bench, or signs up once the seats are full, is
    announced on the bench (« rejoint le banc des remplaçants »), never « rejoint la partie »."""
    table, _ = opened(seats=(8, 8), when_full=False)
    step = send(table, "ines@example.org", "REMPLACANT Inès elle")
    assert "Inès rejoint le banc des remplaçants." in public(step)[0].body
    assert "rejoint la partie" not in public(step)[0].body
    for i, name in enumerate(names(8)):
        step = send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    assert not table.started  # the deadline starts it
    step = send(table, "late@example.org", "INSCRIPTION Tardif il")
    body = public(step)[0].body
    assert "Tardif rejoint le banc des remplaçants." in body and "rejoint la partie" not in body


def test_lines_after_the_sign_up_that_starts_the_game_are_not_read_as_sign_ups() -> None:
    table, _ = opened(seats=(8, 8))
    for i, name in enumerate(names(7)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    step = send(table, "last@example.org", "INSCRIPTION Dernier\nSTATUT")
    assert table.started
    assert "· STATUT" in to(step, "last@example.org")[0].body  # listed as ignored


def test_a_game_started_from_sign_ups_mails_its_archive_when_it_ends() -> None:
    """The daemon keeps the lobby's object after the start: the game's end still mails
    everyone the archive (issue 14), as for a game made by `pbem new-game`."""
    from pbem.record.mail import archive_rows

    table, _ = opened(seats=(8, 8))
    for i, name in enumerate(names(8)):
        send(table, f"v{i}@example.org", f"INSCRIPTION {name}")
    assert table.started
    step = table.receive(mail(GM, "FIN NUL"), channel="private", now=EPOCH)  # as the daemon:
    rows = archive_rows(  # the rows are made before the step is applied
        table,
        step,
        sender="mj@example.org",
        mail_from="mj@example.org",
        now=EPOCH,
        first_seq=0,
        id_key=b"k" * 32,
    )
    assert {r for row in rows for r in row["rcpts"]} >= {f"v{i}@example.org" for i in range(8)}


def test_a_sign_up_in_the_subject_alone_counts_once() -> None:
    table, _ = opened()
    step = table.receive(
        mail("a@example.org", "", "[village] INSCRIPTION Anne elle"), channel="private", now=EPOCH
    )
    table.apply(step)
    assert [v.name for v in table.lobby.volunteers] == ["Anne"]
    step = table.receive(
        mail("b@example.org", "INSCRIPTION Bruno", "[village] inscription"),
        channel="private",
        now=EPOCH,
    )
    table.apply(step)
    assert [v.name for v in table.lobby.volunteers] == ["Anne", "Bruno"]
    assert "✗" not in to(step, "b@example.org")[0].body  # the Subject was not read twice


def test_list_posts_before_the_start_are_the_lobbys_chat() -> None:
    """A relayed list reaches the people signed up: their posts go out, a stranger's do not."""
    table, _ = opened()
    send(table, "a@example.org", "INSCRIPTION Anne")
    post = mail("a@example.org", "Bonjour à tous !")
    assert table.receive(post, channel="list", now=EPOCH, relay=True).post == "relay"
    stranger = mail("z@example.org", "Spam")
    assert table.receive(stranger, channel="list", now=EPOCH, relay=True).post == "refused"
    assert table.receive(stranger, channel="list", now=EPOCH).post is None  # external list
