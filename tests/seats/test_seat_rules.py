"""Issue 13, substitutes: the roster, the checks of REMPLACER/REPLACE and REMPLACANT, the
sealed deal unchanged, the old address refused on the list too."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any

import pytest

from pbem.core.events import BenchJoined, PlayerDied, Substituted
from pbem.core.game import PlayerSpec
from pbem.core.ids import PlayerId
from pbem.core.roster import Roster
from pbem.record.deal import digest, reveal
from pbem.table import Step, Table

NOW = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)
GM = "gm@example.org"
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo"]
ROLES = ["werewolf", "werewolf", "seer", "villager", "villager", "villager", "villager", "villager"]


def new_table(**extra: Any) -> Table:
    setup = {
        "game": "lupus-in-tabula",
        "seed": 7,
        "lang": "en",
        "admins": [GM],
        "players": [{"name": n, "email": f"{n}@example.org"} for n in NAMES],
        "roles": dict(zip(NAMES, ROLES, strict=True)),
        **extra,
    }
    table, step = Table.new(setup, NOW)
    table.apply(step)
    return table


def mail(sender: str, body: str, to: str = "moderator") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = ""
    msg["Message-ID"] = f"<{abs(hash((sender, body)))}@test>"
    msg.set_content(body)
    return msg


def admin(table: Table, line: str) -> Step:
    step = table.receive(mail(GM, line), channel="private", now=NOW)
    table.apply(step)
    return step


def test_the_roster_folds_the_setup_and_the_seat_events() -> None:
    players = [PlayerSpec(PlayerId(n), f"{n}@x.org", "fr") for n in ("alice", "bob")]
    roster = Roster.of(
        players,
        [
            BenchJoined("Zoe", "zoe@y.org", "en", "f"),
            Substituted(PlayerId("bob"), "bob", "bob@x.org", "Zoe", "zoe@y.org", "en", "f"),
        ],
    )
    assert roster.by_email("ZOE@y.org") == roster.by_seat("bob")
    assert roster.by_seat("bob").name == "Zoe" and roster.by_seat("bob").lang == "en"
    assert roster.by_email("bob@x.org") is None
    assert roster.replaced_name("bob@x.org") == "bob"
    assert roster.bench == ()  # the volunteer left the bench for the seat
    assert roster.show({"victim": "bob", "genders": {"bob": "f"}}) == {
        "victim": "Zoe",
        "genders": {"Zoe": "f"},
    }


def test_the_admin_replaces_a_seat_and_the_address_follows() -> None:
    table = new_table()
    step = admin(table, "REPLACE carol WITH Zoe@Example.net Zoe she")
    event = next(e for e in step.facts if isinstance(e, Substituted))
    assert (event.seat, event.old_email, event.email, event.gender) == (
        "carol",
        "carol@example.org",
        "zoe@example.net",
        "f",
    )
    assert table.player_emails["carol"] == "zoe@example.net"
    assert table.by_email["zoe@example.net"].name == "carol"  # the seat never changes
    assert "carol@example.org" not in table.by_email


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("REPLACE nobody WITH z@example.net", "not a player"),
        ("REPLACE carol WITH bob@example.org", "already plays in this game (bob's seat)"),
        ("REPLACE carol WITH gm@example.org", "game master's"),
        ("REPLACE carol WITH zoe@", "not an email address"),
        ("REPLACE carol WITH z@example.net alice", "already taken"),
        ("REPLACE carol WITH z@example.net vote", "will not do"),
        ("REPLACE carol WITH z@example.net Vote Bob", "will not do"),
        ("REPLACE carol WITH z@example.net bob Marley", "already taken"),
        ("REPLACE carol WITH Zoe", "neither an address nor a substitute on the bench"),
        ("REPLACE carol", "Replace with whom?"),
    ],
)
def test_a_bad_replacement_is_refused_with_its_reason(line: str, reason: str) -> None:
    table = new_table()
    step = admin(table, line)
    assert not any(isinstance(e, Substituted) for e in step.facts)
    reply = step.outgoing[0].body
    assert "Rejected" in reply and reason in reply, reply


def test_a_dead_seat_is_not_replaced() -> None:
    """Forums replace living players only (pbem/seats/substitution.py): a dead seat is refused."""
    table = new_table()
    table.apply(Step(facts=(PlayerDied(PlayerId("dave"), "wolves"),), events=({},)))
    step = admin(table, "REPLACE dave WITH z@example.net")
    assert "still in the game" in step.outgoing[0].body


def test_a_volunteer_joins_the_bench_and_the_gm_gives_him_a_seat() -> None:
    table = new_table()
    step = table.receive(mail("zed@example.net", "SUBSTITUTE Zed he"), channel="private", now=NOW)
    table.apply(step)
    assert any(isinstance(e, BenchJoined) for e in step.facts)
    offer = next(o for o in step.outgoing if o.to == (GM,))
    assert "REPLACE name WITH Zed" in offer.body
    again = table.receive(mail("zed@example.net", "SUBSTITUTE"), channel="private", now=NOW)
    assert "already on this game's bench" in again.outgoing[0].body
    taken = table.receive(mail("x@example.net", "SUBSTITUTE bob"), channel="private", now=NOW)
    assert "already taken" in taken.outgoing[0].body
    roles = admin(table, "ROLES").outgoing[0].body
    assert (
        "Bench of substitutes (REPLACE name WITH volunteer's-name): Zed <zed@example.net>" in roles
    )
    step = admin(table, "REPLACE hugo WITH zed")
    assert table.player_emails["hugo"] == "zed@example.net"
    assert table.roster.shown("hugo") == "Zed" and table.roster.bench == ()
    assert table.genders["hugo"] == "m"


def test_the_old_address_is_refused_on_the_relayed_list_too() -> None:
    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    step = table.receive(
        mail("carol@example.org", "VOTE alice", "list"), channel="list", now=NOW, relay=True
    )
    assert step.post == "refused"
    assert "no longer plays in this game" in step.outgoing[0].body


def test_the_old_address_is_refused_privately_on_an_external_list() -> None:
    """LUP-602, docs/daemon.md (Seats), issue 26 item 1: an external list has carried the old
    address's vote to the players already; it counts for nothing, and its sender is told so
    privately, as on a relayed list (a spectator's post stays unanswered talk)."""
    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    step = table.receive(mail("carol@example.org", "VOTE alice", "list"), channel="list", now=NOW)
    assert not step.facts
    (refusal,) = step.outgoing
    assert refusal.to == ("carol@example.org",) and not refusal.public
    assert "no longer plays in this game" in refusal.body
    talk = table.receive(mail("spy@example.org", "VOTE alice", "list"), channel="list", now=NOW)
    assert not talk.outgoing


def test_the_sealed_deal_does_not_change_on_a_substitution() -> None:
    """pbem/record/deal.py: the commitment covers who holds a seat's card by seat, not by address;
    a substitution adds no deal event, so the reveal still matches the opening's digest."""
    table = new_table(deal_salt="00112233445566778899aabbccddeeff")
    before = reveal(table.events, table.rules.codec.encode, table.rules.id)
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    after = reveal(table.events, table.rules.codec.encode, table.rules.id)
    assert before is not None and after is not None
    assert after.canonical == before.canonical
    assert digest(after.salt, after.canonical) == before.digest


def test_roles_tells_the_game_master_who_holds_a_seat_that_changed_hands() -> None:
    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    reply = admin(table, "ROLES").outgoing[0].body
    assert "carol (seat taken over by Zoe <zoe@example.net>): Seer" in reply
    assert "bob: Werewolf" in reply


def test_the_archive_goes_to_the_seats_holders_and_to_the_replaced_address() -> None:
    from pbem.record.mail import archive_mails

    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    end = table.receive(mail(GM, "END NONE"), channel="private", now=NOW)
    sent = archive_mails(table, end, sender="moderator@example.org", now=NOW, id_key=b"k" * 32)
    to = {rcpts[0] for _mid, _raw, rcpts in sent}
    assert {"zoe@example.net", "carol@example.org", "bob@example.org", GM} <= to


def test_a_stranger_is_told_how_to_volunteer_for_the_bench() -> None:
    table = new_table()
    step = table.receive(mail("zed@example.net", "VOTE bob"), channel="private", now=NOW)
    assert "SUBSTITUTE [your name]" in step.outgoing[0].body
    assert not step.events


def test_a_volunteer_on_the_bench_is_told_he_waits_there_in_his_language() -> None:
    """Issue 13: a volunteer of the bench who wrote AIDE (or an order) before he held a seat
    was told « écrivez REMPLACANT [votre nom] », to volunteer again."""
    table = new_table(lang="fr")
    table.apply(
        table.receive(mail("zed@example.net", "SUBSTITUTE Zed"), channel="private", now=NOW)
    )
    step = table.receive(mail("zed@example.net", "HELP\nVOTE bob"), channel="private", now=NOW)
    (reply,) = step.outgoing
    assert "You are on the bench of Lupus in Tabula, as Zed:" in reply.body
    assert "SUBSTITUTE [your name]" not in reply.body and not step.events
    table.apply(
        table.receive(mail("zoe@example.net", "REMPLACANTE Zoé elle"), channel="private", now=NOW)
    )
    step = table.receive(mail("zoe@example.net", "AIDE"), channel="private", now=NOW)
    assert "Vous êtes sur le banc des remplaçants de Lupus in Tabula, sous le nom de Zoé" in (
        step.outgoing[0].body
    )


def test_the_game_master_names_a_renamed_seat_by_either_name() -> None:
    """``pbem status`` and the operator's commands name seats; players see the new name."""
    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    admin(table, "REPLACE carol WITH yann@example.net Yann")
    assert table.player_emails["carol"] == "yann@example.net"
    admin(table, "REPLACE Yann WITH zed@example.net")
    assert table.player_emails["carol"] == "zed@example.net"
    assert table.roster.shown("carol") == "Yann"  # no name given: the seat keeps its name
    assert table.roster.replaced_name("zoe@example.net") == "Zoe"


def test_the_relayed_lists_members_follow_the_roster() -> None:
    from pbem.daemon.gamelist import list_members

    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    members = list_members({"admins": [GM]}, table.player_emails)
    assert "zoe@example.net" in members and "carol@example.org" not in members


def test_the_bench_collected_at_sign_up_is_the_rosters_bench() -> None:
    """The sign-up's setup carries a ``bench`` (name, email, lang, pronoun): its volunteers
    can be given a seat by name like a mid-game REMPLACANT."""
    from types import SimpleNamespace

    from pbem.seats.substitution import setup_bench

    setup = SimpleNamespace(
        lang="fr", bench=[{"name": "Zoé", "email": "zoe@example.net", "pronoun": "elle"}]
    )
    players = [PlayerSpec(PlayerId("alice"), "alice@x.org", "fr")]
    roster = Roster.of(players, (), setup_bench(setup))
    volunteer = roster.bench_named("zoe")
    assert volunteer is not None and (volunteer.email, volunteer.gender, volunteer.lang) == (
        "zoe@example.net",
        "f",
        "fr",
    )


def test_a_bench_offer_in_a_game_without_masters_goes_to_the_daemons_admins() -> None:
    table = new_table(admins=[])
    step = table.receive(
        mail("zed@example.net", "SUBSTITUTE Zed"),
        channel="private",
        now=NOW,
        admins=["Boss@example.org"],
    )
    offer = next(o for o in step.outgoing if o.to == ("boss@example.org",))
    assert "REPLACE name WITH Zed" in offer.body


def test_the_bench_is_capped_so_forged_offers_cannot_flood_the_masters() -> None:
    from pbem.seats.substitution import BENCH_MAX

    table = new_table()
    for i in range(BENCH_MAX):
        step = table.receive(
            mail(f"v{i}@example.net", f"SUBSTITUTE Vol{i}"), channel="private", now=NOW
        )
        table.apply(step)
    step = table.receive(mail("late@example.net", "SUBSTITUTE Late"), channel="private", now=NOW)
    assert "bench of substitutes is full (20 volunteers)" in step.outgoing[0].body
    assert not step.events and len(step.outgoing) == 1


def test_the_archive_keeps_a_replaced_seats_card_and_death() -> None:
    """The archive reads seats: a seat shown by its newcomer's name keeps its dealt card and
    its death in the cast (the summary stays by seat; only ``pbem simulate`` shows names)."""
    from pbem.record.archive import archive_model

    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    table.apply(Step(facts=(PlayerDied(PlayerId("carol"), "wolves"),), events=({},)))
    carol = next(c for c in archive_model(table)["cast"] if c["name"] == "carol")
    assert carol["fate"] and not carol["alive"] and carol["initial"] == "Seer"


def test_punctuality_counts_a_phase_for_whoever_held_the_seat_when_it_closed() -> None:
    """pbem stats (from the game's record, its tenure): the seer's night is the newcomer's,
    who probed in time (LUP-610); the replaced player keeps his game and his replacement."""
    from pbem.record.export import game_record
    from pbem.record.stats import record_stats

    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    step = table.receive(mail("zoe@example.net", "SCAN alice"), channel="private", now=NOW)
    table.apply(step)
    key, _due = min(table.deadlines().items(), key=lambda kv: kv[1])
    table.apply(table.on_deadline(key, NOW))
    admin(table, "END NONE")
    players = {p["player"]: p for p in record_stats([game_record(table)])["players"]}
    assert players["Zoe"]["in_time"] >= 1 and players["Zoe"]["substitute"] == 1
    assert players["carol"]["expected"] == 0 and players["carol"]["on_time"] is None
    assert players["carol"]["replaced"] == 1 and players["carol"]["games"] == 1


def test_the_desks_help_names_replace() -> None:
    reply = admin(new_table(), "HELP").outgoing[0].body
    assert "REPLACE name WITH address [name] [he|she|they]" in reply
    assert "REPLACE name WITH volunteer's-name" in reply


def test_the_html_quick_actions_name_the_newcomer() -> None:
    """Issue 15's quick actions (a mailto link per choice, LUP-340) write a renamed seat by
    its newcomer's name, so that the link's command parses back to the seat."""
    table = new_table(moderator="moderator@example.org", list="list@example.org")
    admin(table, "REPLACE erin WITH dan@example.net Dan")
    pages = []
    for _ in range(2):  # the night, then the debate: the vote opens with its quick actions
        key, due = min(table.deadlines().items(), key=lambda kv: kv[1])
        step = table.on_deadline(key, due)
        table.apply(step)
        pages += [o.html for o in step.outgoing if o.html and "VOTE%20" in o.html]
    assert pages and all("VOTE%20Dan" in p and "VOTE%20erin" not in p for p in pages)


def test_a_newcomers_name_may_hold_a_space_lup_d28() -> None:
    """LUP-D28 as issue 13 amends it: « Jean Pierre » is a name players can vote for."""
    table = new_table()
    admin(table, "REPLACE carol WITH jp@example.net Jean Pierre he")
    assert table.roster.shown("carol") == "Jean Pierre" and table.genders["carol"] == "m"
    step = table.receive(mail("alice@example.org", "KILL Jean Pierre"), channel="private", now=NOW)
    assert "✓ KILL Jean Pierre" in step.outgoing[0].body


def test_a_bench_volunteer_with_a_space_in_his_name_takes_a_seat() -> None:
    table = new_table()
    step = table.receive(
        mail("jp@example.net", "SUBSTITUTE Jean Pierre"), channel="private", now=NOW
    )
    table.apply(step)
    admin(table, "REPLACE hugo WITH Jean Pierre")
    assert table.player_emails["hugo"] == "jp@example.net"


def test_a_volunteer_benched_at_sign_up_takes_a_seat_by_name() -> None:
    """The sign-ups carry their bench into the setup: the game master gives a seat from it."""
    table = new_table(bench=[{"name": "Zoé", "email": "zoe@example.net", "pronoun": "elle"}])
    admin(table, "REPLACE dave WITH zoe")
    assert table.player_emails["dave"] == "zoe@example.net" and table.genders["dave"] == "f"
    assert table.roster.shown("dave") == "Zoé" and table.roster.bench == ()


def test_the_substitution_mails_have_their_html_and_the_packet_its_buttons() -> None:
    """Issue 22: the list's « Zoe replaces carol », the hand-over packet and the goodbye came
    as text only, so the newcomer had no buttons; each has its HTML alternative now, the
    packet with a tap-to-send link per command the seat may send (the Seer's SCAN)."""
    table = new_table(moderator="mj@example.org", list="list@example.org")
    step = admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    mails = {o.key.rsplit("/", 1)[1]: o for o in step.outgoing if o.to != (GM,)}
    assert {"list", "handover", "farewell"} <= set(mails)
    for which in ("list", "handover", "farewell"):
        assert mails[which].html.startswith("<!DOCTYPE html>") or "<html" in mails[which].html
    assert "mailto:" in mails["handover"].html and "SCAN" in mails["handover"].html


def test_pbem_seat_replace_queues_its_line_in_the_games_language() -> None:
    """``pbem seat replace`` queues the desk's line in the game's language: the game master's
    receipt quotes it, and a French receipt read « ✓ REPLACE Hugo WITH … » (issue 22: no
    English word in a French mail). The French line is one the desk applies."""
    from pbem.cli.seat import replace_line

    line = replace_line("carol", "Zoe@Example.net", "Zoé  Martin", "elle", "fr")
    assert line == "REMPLACER carol par Zoe@Example.net Zoé Martin elle"
    assert replace_line("carol", "z@example.net", None, None) == "REPLACE carol WITH z@example.net"
    table = new_table(lang="fr")
    step = admin(table, line)
    event = next(e for e in step.facts if isinstance(e, Substituted))
    assert (event.email, event.name, event.gender) == ("zoe@example.net", "Zoé Martin", "f")
    receipt = next(o.body for o in step.outgoing if o.to == (GM,))
    assert "REMPLACER carol par" in receipt and "REPLACE" not in receipt
