"""Observers and the graveyard by mail, at the table (issue 25, item 5; pbem/judge/observer.py):
OBSERVER/SPECTATE and its refusals in French and English, the game master's OBSERVERS desk
command, the graveyard's verdicts, and the rules' own silence per game (LUP-005, LUP-502,
LUP-505, CAS-005, CAS-232, CAS-321, LG-241, LG-D36, DRA-326, AMB-075)."""

from __future__ import annotations

from dataclasses import replace
from email.message import EmailMessage
from typing import Any

import pytest

from pbem.judge.observer import (
    graveyard_address,
    graveyard_members,
    graveyard_welcomes,
    observer_addresses,
)
from pbem.table import Outgoing
from tests.chasse.scenario import DEAL, LEFTOVER
from tests.loupgarou.scenario import LG
from tests.lupus.scenario import kill
from tests.support.game_by_mail import Game, address, lupus_roles

GM = "gm@example.org"
GRAVE = "village+cimetiere@lists.example"
ZOE = "zoe@elsewhere.example"


def send(
    g: Game, sender: str, body: str, channel: str = "private", *, relay: bool = True
) -> list[Outgoing]:
    """A mail to the game as the daemon delivers it when it relays the list."""
    msg = EmailMessage()
    msg["From"] = sender if "@" in sender else address(sender)
    msg["To"] = "moderator"
    msg["Subject"] = ""
    msg["Message-ID"] = f"<o{len(g.sent)}@test>"
    msg.set_content(body)
    step = g.table.receive(
        msg,
        channel=channel,
        now=g.now,
        relay=relay,
        admins=[GM],
        graveyard=GRAVE,  # type: ignore[arg-type]
    )
    g._commit(step)
    g.verdict = step.post  # type: ignore[attr-defined]
    return g.last


def body_to(mails: list[Outgoing], who: str) -> str:
    return "\n".join(m.subject + "\n" + m.body for m in mails if who in m.to)


def lupus(lang: str = "en", **options: Any) -> Game:
    return Game(lupus_roles(8), options=options, lang=lang)


@pytest.mark.parametrize(
    ("lang", "word", "stop", "told"),
    [
        ("fr", "OBSERVER", "OBSERVER STOP", "passée au meneur"),
        ("en", "SPECTATE", "SPECTATE STOP", "passed on to the game master"),
    ],
)
def test_a_request_waits_for_the_game_master_who_accepts_it(
    lang: str, word: str, stop: str, told: str
) -> None:
    """The default option (``approve``): the request goes to the game master, whose OBSERVERS
    ACCEPT makes the address an observer, told by mail; STOP ends it."""
    g = lupus(lang)
    mails = send(g, ZOE, word)
    assert "transmise au meneur" in body_to(mails, ZOE) or told in body_to(mails, ZOE)
    accept = "OBSERVERS ACCEPT" if lang == "en" else "SPECTATEURS ACCEPTER"
    assert f"{accept} zoe@elsewhere.example" in body_to(mails, GM)
    assert observer_addresses(g.table) == []
    mails = send(g, GM, "OBSERVERS ACCEPT zoe@elsewhere.example")
    assert observer_addresses(g.table) == [ZOE]
    assert ("accepts your request" if lang == "en" else "accepte votre demande") in body_to(
        mails, ZOE
    )
    send(g, GM, "SPECTATEURS")
    assert "zoe@elsewhere.example" in g.reply()
    send(g, ZOE, stop)
    assert observer_addresses(g.table) == []
    assert ("no longer follow" if lang == "en" else "ne suivez plus") in g.reply()


def test_an_open_game_takes_an_observer_at_once_and_names_its_graveyard() -> None:
    g = lupus("fr", observers="open")
    send(g, ZOE, "SPECTATEUR")
    assert observer_addresses(g.table) == [ZOE]
    assert "au cimetière : village+cimetiere@lists.example" in g.reply()
    assert "OBSERVER STOP" in g.reply()


def test_the_game_master_refuses_or_removes_an_observer() -> None:
    g = lupus("en", observers="open")
    send(g, ZOE, "SPECTATE")
    mails = send(g, GM, "OBSERVERS REFUSE zoe@elsewhere.example")
    assert observer_addresses(g.table) == []
    assert "will not follow the game" in body_to(mails, ZOE)
    send(g, GM, "OBSERVERS ACCEPT nobody@example.net")
    assert "No request and no observer at this address" in g.reply()
    send(g, GM, "OBSERVERS MAYBE zoe@elsewhere.example")
    assert "OBSERVERS ACCEPT address" in g.reply()


@pytest.mark.parametrize(
    ("lang", "setup", "sender", "body", "relay", "why"),
    [
        ("en", {}, "p4", "SPECTATE", True, "You play (or played) in this game"),
        ("fr", {}, "p4", "OBSERVER", True, "Vous jouez (ou avez joué) dans cette partie"),
        ("en", {"observers": "closed"}, ZOE, "SPECTATE", True, "This game takes no observers"),
        ("fr", {"observers": "closed"}, ZOE, "OBSERVER", True, "n'accepte pas de spectateurs"),
        ("en", {}, ZOE, "SPECTATE", False, "subscribe to the list itself"),
        ("fr", {}, ZOE, "OBSERVER", False, "abonnez-vous à la liste elle-même"),
        ("en", {}, ZOE, "SPECTATE STOP", True, "there is nothing to stop"),
    ],
)
def test_each_refusal_says_why(
    lang: str, setup: dict[str, str], sender: str, body: str, relay: bool, why: str
) -> None:
    """A player observing his own game, a closed game, an external list (its subscription is
    the way in), a STOP from nobody: refused with the reason, nothing recorded."""
    g = lupus(lang, **setup)
    send(g, sender, body, relay=relay)
    assert why in g.reply()
    assert observer_addresses(g.table) == []


def test_an_external_list_is_named_in_the_refusal() -> None:
    g = Game(lupus_roles(8), lang="en")
    g.table.setup = replace(g.table.setup, list_address="v@l.example")
    send(g, ZOE, "SPECTATE", relay=False)
    assert "(v@l.example): to follow it, subscribe to the list itself" in g.reply()


def test_a_strangers_reply_offers_observing_only_where_it_is_possible() -> None:
    """A stranger's mail to a game is answered with what he may do: volunteer, and follow the
    game as an observer when pbem relays its list and the game takes observers (the game
    master answering, or at once); never on an external list nor in a closed game."""
    g = lupus("fr")
    send(g, ZOE, "Bonjour, je peux regarder ?")
    assert (
        "Pour suivre la partie en spectateur, répondez à ce message par OBSERVER : le meneur "
        "accepte ou refuse la demande." in g.reply()
    )
    g = lupus("en", observers="open")
    send(g, ZOE, "Hello, may I watch?")
    assert "To follow the game as an observer, reply to this mail with SPECTATE: you will " in (
        g.reply()
    )
    for game, relay in ((lupus("fr", observers="closed"), True), (lupus("fr"), False)):
        send(game, ZOE, "Bonjour", relay=relay)
        assert "n'est pas inscrite comme joueur" in game.reply()
        assert "OBSERVER" not in game.reply() and "spectateur" not in game.reply()


def test_an_observer_never_posts_on_the_living_list() -> None:
    g = lupus("fr", observers="open")
    send(g, ZOE, "SPECTATE")
    send(g, ZOE, "I think p1 is a wolf", "list")
    assert g.verdict == "refused"  # type: ignore[attr-defined]
    assert "An observer reads the list and never writes to it" in g.reply()  # in his language


@pytest.mark.parametrize(
    ("gender", "said"), [("f", "la suivre en spectatrice."), (None, "la suivre en spectateur.")]
)
def test_a_player_s_own_observer_line_is_refused_in_words_that_agree_with_her(
    gender: str | None, said: str
) -> None:
    """A player cannot observe the game she plays: the refusal is told to her (« en
    spectatrice » when she said « elle »)."""
    g = Game(lupus_roles(8), lang="fr", genders={"p4": gender} if gender else {})
    send(g, "p4", "OBSERVER")
    assert f"Vous jouez (ou avez joué) dans cette partie : vous ne pouvez pas {said}" in g.reply()


def test_a_former_holder_cannot_observe_the_seat_he_gave_up() -> None:
    g = lupus("en", observers="open")
    send(g, GM, "REPLACE p5 WITH newbie@example.net Newbie")
    send(g, "p5", "SPECTATE")
    assert "You play (or played) in this game" in g.reply()


# -- the graveyard ----------------------------------------------------------------------


def test_graveyard_address_follows_the_list() -> None:
    assert graveyard_address("village@lists.example") == GRAVE
    assert graveyard_address("list") == ""


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_graveyard_takes_the_dead_and_observers_never_the_living(lang: str) -> None:
    """LUP-005: the dead take no part in the debate; the graveyard never reaches it. A living
    player's post there is refused with the reason; the dead and observers are its members."""
    g = lupus(lang, observers="open")
    send(g, ZOE, "SPECTATE")
    kill(g, "p8")
    g.until("debate")
    send(g, "p4", "hello the dead", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]
    assert ("a living player cannot write there" if lang == "en" else "un joueur vivant") in (
        g.reply()
    )
    for poster in ("p8", ZOE, GM):
        send(g, poster, "hello", "graveyard")
        assert g.verdict == "relay"  # type: ignore[attr-defined]
    assert graveyard_members(g.table) == sorted(["p8@example.org", ZOE])
    send(g, "stranger@example.net", "hello", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]


def test_the_dead_are_welcomed_to_the_graveyard() -> None:
    g = lupus("fr")
    kill(g, "p8")
    step = g.table.on_deadline(*min(g.table.deadlines().items(), key=lambda kv: kv[1])[:1], g.now)
    (welcome,) = graveyard_welcomes(g.table, step, GRAVE)
    assert welcome.to == ("p8@example.org",) and GRAVE in welcome.body
    assert graveyard_welcomes(g.table, step, "") == []  # no graveyard, no welcome


def test_lupus_ghosts_keep_silent_even_in_the_graveyard() -> None:
    """LUP-502, LUP-505: a ghost's round-1 vote is his only act; the dead's talk would steer
    it, so he neither posts there nor reads it, and is told why when he dies."""
    g = lupus("en", ghost_variant=True)
    kill(g, "p8")
    key, _ = min(g.table.deadlines().items(), key=lambda kv: kv[1])
    step = g.table.on_deadline(key, g.now)
    (notice,) = graveyard_welcomes(g.table, step, GRAVE)
    assert "ghosts still vote in the first round but no longer speak" in notice.body
    g.until("round1")
    send(g, "p8", "the wolf is p1", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]
    assert "Ghosts no longer speak until the end of the game" in g.reply()
    assert "p8@example.org" not in graveyard_members(g.table)


def chasse() -> Game:
    return Game(
        DEAL, game="chasse-aux-sorcieres", options={"penny_player": "peggy"}, leftover=LEFTOVER
    )


def test_chasse_prue_joins_the_graveyard_only_once_her_revenge_is_made() -> None:
    """CAS-005, CAS-232: the eliminated no longer speak to the players (the graveyard reaches
    none); CAS-321: Prue killed by the Demons still retaliates, so the dead's talk waits."""
    g = chasse()
    g.until("W1")
    g.mail("dave", "KILL bob")
    g.until("day", 1)
    assert g.state.revenge is not None
    send(g, "bob", "who are the demons?", "graveyard")
    assert "The game still awaits an action of yours" in g.reply()
    assert "bob@example.org" not in graveyard_members(g.table)
    g.mail("bob", "REVENGE erin")
    send(g, "bob", "done", "graveyard")
    assert g.verdict == "relay"  # type: ignore[attr-defined]
    assert "bob@example.org" in graveyard_members(g.table)


def test_loupgarou_dead_talk_in_the_graveyard_not_on_the_list() -> None:
    """LG-241, LG-D36: the dead take no part in the debate and nothing of theirs is relayed
    to the living; the graveyard, which reaches none of them, is theirs. LG-233, LG-404: the
    dead Mayor still passes the sash, so he joins once he has."""
    g = LG()
    g.to_night1(mayor="nick")
    g.night(kill="nick")
    assert not g.alive("nick")
    send(g, "nick", "hello", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]
    assert "Le jeu attend encore une action de votre part" in g.reply(g.last)
    assert "nick@example.org" not in graveyard_members(g.table)
    g.send("nick", "ECHARPE judy")
    send(g, "nick", "hello", "list")
    assert g.verdict != "relay"  # type: ignore[attr-defined]
    send(g, "nick", "hello", "graveyard")
    assert g.verdict == "relay"  # type: ignore[attr-defined]
    assert "nick@example.org" in graveyard_members(g.table)
    send(g, "olivia", "hello", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]
    assert "ne peut pas y écrire" in g.reply(g.last)


def test_once_the_game_is_over_everyone_talks_in_the_graveyard() -> None:
    g = lupus("en", observers="open")
    send(g, ZOE, "SPECTATE")
    send(g, GM, "END NONE")
    assert g.table.finished, g.reply()
    assert set(graveyard_members(g.table)) >= {"p1@example.org", ZOE}
    send(g, "p1", "gg", "graveyard")
    assert g.verdict == "relay"  # type: ignore[attr-defined]


def test_dracula_dead_leave_the_graveyard_when_a_new_round_brings_them_back() -> None:
    """DRA-326: a dead vampire no longer takes part in the discussions: the graveyard is his;
    AMB-075: a new round brings the dead back to play, and so out of the graveyard."""
    from pbem.core.events import PlayerDied
    from pbem.games.dracula.events import Converted
    from tests.dracula.scenario import NAMES, QUIET, advance, table_from
    from tests.dracula.scenario import Game as Dracula
    from tests.dracula.scenario import mail as dracula_mail

    g = advance(Dracula(options={**QUIET, "rounds": 2}), 3)
    g._apply([Converted("Hal", ("Gus",)), Converted("Gus", ()), PlayerDied("Gus", "stake")])
    table = table_from(g)
    assert "gus@example.org" in graveyard_members(table)
    step = table.receive(dracula_mail("Gus", "staked!", to=GRAVE), channel="graveyard", now=g.now)
    assert step.post == "relay"
    for p in NAMES:
        if p != "Cid" and g.side(p) == "human":
            g.convert(p)
    g.night({"Bob": "boudoir", "Cid": "boudoir"}, {"Bob": "Cid"}, default="torture")
    g.finish_night()
    assert g.state.round == 2
    table = table_from(g)
    assert "gus@example.org" not in graveyard_members(table)
    step = table.receive(dracula_mail("Gus", "back!", to=GRAVE), channel="graveyard", now=g.now)
    assert step.post == "refused"
    assert "a living player cannot write there" in step.outgoing[0].body


@pytest.mark.parametrize(
    ("gender", "said"),
    [
        ("f", "une joueuse vivante ne peut pas y écrire"),
        ("m", "un joueur vivant ne peut pas y écrire"),
        (None, "un joueur vivant ne peut pas y écrire"),
    ],
)
def test_graveyard_refuses_a_living_player_in_words_that_agree_with_her(
    gender: str | None, said: str
) -> None:
    """LUP-005: the refusal of a living player's post to the graveyard is told to her: « une
    joueuse vivante » when she said « elle », the rule's generic words otherwise."""
    g = Game(lupus_roles(8), lang="fr", genders={"p4": gender} if gender else {})
    g.until("debate")
    send(g, "p4", "bonjour les morts", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]
    assert said in g.reply()


def test_an_observer_given_a_seat_is_a_player_and_out_of_the_graveyard() -> None:
    """The graveyard never reaches a living player (LUP-005), even one who observed first."""
    g = lupus("en", observers="open")
    send(g, ZOE, "SPECTATE")
    send(g, GM, f"REPLACE p5 WITH {ZOE} Zoe")
    assert g.table.by_email.get(ZOE) is not None
    assert observer_addresses(g.table) == [] and ZOE not in graveyard_members(g.table)
    send(g, ZOE, "hello", "graveyard")
    assert g.verdict == "refused"  # type: ignore[attr-defined]


def test_observers_get_the_archive_at_the_end() -> None:
    """After the end the observers receive the archive mail, in the language they asked in."""
    from pbem.record.mail import archive_mails

    g = lupus("fr", observers="open")
    send(g, ZOE, "SPECTATE")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = GM, "moderator", ""
    msg.set_content("FIN NUL")
    step = g.table.receive(msg, channel="private", now=g.now, admins=[GM])
    mails = archive_mails(g.table, step, sender="mj@example.org", now=g.now, id_key=b"k")
    (to_zoe,) = [raw for _mid, raw, rcpts in mails if rcpts == (ZOE,)]
    assert b"the story of the game" in to_zoe  # SPECTATE: English, in a French game


def test_a_game_with_observers_still_verifies() -> None:
    """The observers' events are kernel events (no game's rules read them): the exported
    record of a game with an observer replays and verifies, and names no address."""
    import json

    from pbem.record.export import game_record
    from pbem.record.replay import verify_record

    g = lupus("en", observers="open")
    send(g, ZOE, "SPECTATE")
    kill(g, "p8")
    g.deadline()
    send(g, GM, "END NONE")
    record = json.loads(json.dumps(game_record(g.table)))
    verdict = verify_record(record)
    assert verdict.ok, verdict.failure
    assert ZOE not in json.dumps(record)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_accepting_an_observer_twice_says_he_already_follows_the_game(lang: str) -> None:
    """The second SPECTATEURS ACCEPTER of the same address was refused « Aucune demande ni
    aucun spectateur à cette adresse », of an address that is an observer."""
    g = lupus(lang, observers="open")
    send(g, ZOE, "SPECTATE")
    assert observer_addresses(g.table) == [ZOE]
    # in his own words: a game master is answered in the language he writes (a French one
    # writing OBSERVERS ACCEPT is answered in English)
    send(g, GM, f"SPECTATEURS ACCEPTER {ZOE}" if lang == "fr" else f"OBSERVERS ACCEPT {ZOE}")
    reply = g.reply()
    if lang == "fr":
        assert f"{ZOE} suit déjà la partie en spectateur" in reply
    else:
        assert f"{ZOE} already follows the game as an observer" in reply
    assert observer_addresses(g.table) == [ZOE]
