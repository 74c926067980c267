"""ABSENCE / ABSENT (issue 25 item 1): a declared absence by mail in both languages, listed,
cancelled, refused with a reason; the absent seat is not counted idle nor warned; in
``extend`` mode the deadlines falling in it move past it, the list told; the game master
declares one by mail (``pbem admin`` runs the same lines)."""

from __future__ import annotations

import pytest

from pbem.core.absences import may_excuse
from pbem.core.events import AbsenceCancelled, AbsenceDeclared, DeadlineMoved, PhaseClosed
from pbem.core.idle import idle_streaks
from tests.desk.desk_game import ADMIN, DeskGame
from tests.support.game_by_mail import Game, address, lupus_roles


def receipt(g: DeskGame, name: str) -> str:
    (mail,) = [m for m in g.last if m.to == (address(name),)]
    return mail.body


def to_gm(g: DeskGame) -> str:
    (mail,) = [m for m in g.last if m.to == (ADMIN,)]
    return mail.subject + "\n" + mail.body


def test_absence_by_mail_in_french_is_noted_listed_and_cancelled_and_the_gm_told() -> None:
    g = DeskGame("lupus-in-tabula", lang="fr", genders={"p3": "f"})  # 2026-01-05, Monday
    g.mail("p3", "ABSENCE du 12/01 au 14/01 vacances")
    body = receipt(g, "p3")
    assert "✓ ABSENCE du 12/01 au 14/01 vacances" in body
    assert "Absence notée du lundi 12 janvier au mercredi 14 janvier" in body
    assert "ne vous sera comptée comme inactive" in body
    assert "Jours pris : 3 sur 7 permis dans cette partie." in body
    gm = to_gm(g)
    assert "Absence de p3" in gm
    assert "p3 a déclaré une absence du lundi 12 janvier au mercredi 14 janvier (vacances)" in gm
    g.mail("p3", "ABSENCES")
    assert "  - du lundi 12 janvier au mercredi 14 janvier (vacances)" in receipt(g, "p3")
    g.mail("p3", "ABSENCE ANNULER 13/01")
    assert "Absence du lundi 12 janvier annulée ; ses jours vous sont rendus." in receipt(g, "p3")
    assert "Jours pris : 0 sur 7" in receipt(g, "p3")
    assert "p3 annule son absence à partir du lundi 12 janvier" in to_gm(g)
    kinds = [type(e) for e in g.table.events]
    assert AbsenceDeclared in kinds and AbsenceCancelled in kinds


def test_absent_in_english_with_iso_dates_and_a_single_day() -> None:
    g = DeskGame("loup-garou", lang="en")
    g.mail("alice", "ABSENT from 2026-01-12 to 2026-01-14 travelling\nABSENT on 20/01")
    body = receipt(g, "alice")
    assert "Absence noted from Mon 12 Jan to Wed 14 Jan." in body
    assert "Absence noted for Tue 20 Jan." in body
    assert "Days taken: 4 of the 7 this game allows." in body
    assert (
        "alice declared an absence on Tue 20 Jan."
        in [m for m in g.last if m.to == (ADMIN,)][-1].body
    )


@pytest.mark.parametrize(
    ("lang", "line", "words"),
    [
        ("fr", "ABSENCE du 06/01 au 15/01", "il ne vous en reste que 7 sur les 7 permis"),
        ("en", "ABSENT from 06/01 to 15/01", "you have only 7 left of the 7 this game allows"),
        ("fr", "ABSENCE le 2026-01-04", "Le dimanche 4 janvier est déjà passé"),
        ("en", "ABSENT on 2026-01-04", "Sun 4 Jan is already past"),
        ("fr", "ABSENCE du 14/01 au 12/01", "La fin de l'absence (lundi 12 janvier) tombe avant"),
        ("en", "ABSENT from 14/01 to 12/01", "The absence's end (Mon 12 Jan) comes before"),
        ("fr", "ABSENCE le 31/02", "Date illisible : « 31/02 »"),
        ("en", "ABSENT from tomorrow", "Unreadable date: “tomorrow”"),
        ("fr", "ABSENCE ANNULER", "Vous n'avez pas d'absence à venir à annuler"),
        ("en", "ABSENT CANCEL", "You have no coming absence to cancel"),
    ],
)
def test_each_refusal_says_why(lang: str, line: str, words: str) -> None:
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.mail("p4", line)
    assert words in receipt(g, "p4"), receipt(g, "p4")
    assert not any(isinstance(e, AbsenceDeclared) for e in g.table.events)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_an_overlapping_absence_and_an_ambiguous_cancel_are_refused(lang: str) -> None:
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.mail("p4", "ABSENCE du 12/01 au 13/01\nABSENCE le 20/01\nABSENCE du 13/01 au 14/01")
    body = receipt(g, "p4")
    overlap = {
        "fr": "Vous avez déjà déclaré une absence du lundi 12 janvier au mardi 13 janvier",
        "en": "You already declared an absence from Mon 12 Jan to Tue 13 Jan",
    }
    assert overlap[lang] in body
    g.mail("p4", "ABSENCE ANNULER")
    which = {"fr": "précisez laquelle", "en": "say which"}
    assert which[lang] in receipt(g, "p4")


def test_the_allowance_is_the_games_option_and_zero_allows_none() -> None:
    g = DeskGame("chasse-aux-sorcieres", lang="fr", options={"absence_days": 0})
    g.mail("dave", "ABSENCE le 12/01")
    assert "Cette partie ne permet pas de déclarer d'absence" in receipt(g, "dave")


def test_help_lists_absence_in_both_languages() -> None:
    g = DeskGame("dracula", lang="fr")
    human = g.names[1]
    g.mail(human, "AIDE")
    assert "  ABSENCE [du 12/01 au 14/01 raison|ANNULER] — déclarer une absence (ou l'annuler)" in (
        receipt(g, human)
    )
    g = DeskGame("dracula", lang="en")
    g.mail(human, "HELP")
    assert "  ABSENT [from 12/01 to 14/01 reason|CANCEL] — declare an absence (or cancel it)" in (
        receipt(g, human)
    )


def test_the_game_master_declares_lists_and_cancels_a_players_absence_by_mail() -> None:
    g = DeskGame("loup-garou", lang="fr")
    g.admin("ABSENCE alice du 12/01 au 13/01 hôpital")
    assert "Absences déclarées d'alice :" in g.admin_reply()
    (told,) = [m for m in g.last if m.to == (address("alice"),)]
    assert "Le maître du jeu a noté votre absence du lundi 12 janvier au mardi 13 janvier" in (
        told.body
    )
    (declared,) = [e for e in g.table.events if isinstance(e, AbsenceDeclared)]
    assert declared.by == ADMIN and declared.reason == "hôpital"
    g.admin("ABSENCE alice ANNULER")
    assert "alice n'a déclaré aucune absence." in g.admin_reply()


def test_an_absent_seat_is_not_counted_idle_nor_warned() -> None:
    """The same silent Lupus wolf (p1, awaited every night: LUP-200) is warned after two
    phases; with an absence over those phases, he is neither counted nor warned."""
    silent = DeskGame("lupus-in-tabula", lang="fr")
    absent = DeskGame("lupus-in-tabula", lang="fr")
    absent.mail("p1", "ABSENCE du 05/01 au 08/01")
    for g in (silent, absent):
        for _ in range(4):
            g.deadline()
    assert idle_streaks(silent.table.events).get("p1", 0) >= 2
    assert "p1" not in idle_streaks(absent.table.events)
    warned = [m for m in silent.sent if m.to == (address("p1"),) and "joué depuis" in m.subject]
    assert warned
    assert not [m for m in absent.sent if m.to == (address("p1"),) and "joué depuis" in m.subject]
    closes = [e for e in absent.table.events if isinstance(e, PhaseClosed)]
    assert closes and all("p1" not in c.awaited for c in closes)


def test_in_extend_mode_a_deadline_in_the_absence_moves_past_it_and_the_list_is_told() -> None:
    g = DeskGame("lupus-in-tabula", lang="fr", options={"absence_mode": "extend"})
    (key, due), *_ = sorted(g.table.deadlines().items(), key=lambda kv: kv[1])
    g.mail("p1", "ABSENCE le 06/01")  # the first night's deadline: Tuesday 6 January, 12:00
    (moved,) = [e for e in g.table.events if isinstance(e, DeadlineMoved)]
    assert (moved.key, moved.due) == (key, due)
    assert moved.to.isoformat() == "2026-01-07T12:00:00+00:00"
    (told,) = g.public()
    assert "Absence déclarée ce jour-là : p1." in told.body
    assert "mercredi 7 janvier à 12:00" in told.body
    g.deadline()
    assert g.now.isoformat() == "2026-01-07T12:00:00+00:00"


def test_an_absence_begun_is_cancelled_by_its_first_day_and_ends_tonight() -> None:
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.mail("p4", "ABSENCE du 05/01 au 09/01")  # today, Monday 5 January, to Friday
    g.advance(2 * 86400)  # Wednesday 7 January
    g.mail("p4", "ABSENCE ANNULER 05/01")
    body = receipt(g, "p4")
    assert "Votre absence s'arrête aujourd'hui : elle court désormais du lundi 5 janvier au" in body
    assert "mercredi 7 janvier." in body
    assert "Jours pris : 3 sur 7" in body  # Monday to Wednesday stay taken
    assert "L'absence de p4 s'arrête aujourd'hui" in to_gm(g)


def test_the_game_master_is_told_a_refusal_in_the_players_name() -> None:
    g = DeskGame("loup-garou", lang="fr")
    g.admin("ABSENCE alice du 06/01 au 20/01")
    assert "alice n'en a plus que 7 sur les 7 permis dans cette partie" in g.admin_reply()
    g.admin("ABSENCE alice ANNULER")
    assert "alice n'a pas d'absence à venir à annuler à cette date" in g.admin_reply()


def test_an_absence_of_today_cancelled_the_same_day_gives_its_day_back() -> None:
    g = DeskGame("lupus-in-tabula", lang="en")
    g.mail("p4", "ABSENT on 05/01")
    g.mail("p4", "ABSENT CANCEL")
    assert "Absence of Mon 5 Jan cancelled; its days are given back." in receipt(g, "p4")
    assert "Days taken: 0 of the 7" in receipt(g, "p4")


def test_every_game_lists_the_absence_options() -> None:
    """``pbem games`` lists each game's options from its options type."""
    from pbem.games.info import games

    for _, _, options in games():
        names = {o.name: o for o in options}
        assert names["absence_days"].default == 7
        assert names["absence_mode"].choices == ("excuse", "extend")


def test_an_absence_declared_after_closes_that_found_none_still_excuses() -> None:
    """The table reads the log for a cause to excuse a seat only once per event (issue 23):
    an absence declared after closes that found none is found at the next close."""
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.deadline()  # night 1 closes (Tuesday 6 January): silent p1 counted, no absence yet
    assert idle_streaks(g.table.events)["p1"] == 1
    g.mail("p1", "ABSENCE du 06/01 au 12/01")
    for _ in range(4):
        g.deadline()
        assert g.table._may_excuse() is may_excuse(g.table.events) is True
    closes = [e for e in g.table.events if isinstance(e, PhaseClosed)][1:]
    assert closes and all("p1" not in c.awaited for c in closes)
    assert idle_streaks(g.table.events).get("p1", 0) <= 1


GM2 = "gm2@example.org"


@pytest.mark.parametrize(
    ("lang", "line", "listed", "told"),
    [
        ("fr", "ABSENCE p1 le 24/12", "Absences déclarées de p1", "Absence de p1"),
        ("en", "ABSENT p1 on 24/12", "p1's declared absences", "p1's absence"),
    ],
)
def test_the_game_master_who_declares_an_absence_gets_his_reply_alone(
    lang: str, line: str, listed: str, told: str
) -> None:
    """The game master who declares an absence had his reply and the game masters' notice
    saying the same: one mail now, his reply; the other game master is still told, and the
    player (issue 25 item 1)."""
    g = Game(lupus_roles(8), lang=lang, admins=[ADMIN, GM2])
    g.mail(ADMIN, line)
    (reply,) = [m for m in g.last if m.to == (ADMIN,)]
    assert listed in reply.body
    (other,) = [m for m in g.last if m.to == (GM2,)]
    assert told in other.subject
    assert [m for m in g.last if m.to == (address("p1"),)]


def test_pbem_admin_answers_every_game_master_once_for_an_absence() -> None:
    """``pbem admin`` runs the lines with the reply to every game master: none of them gets
    the game masters' notice besides it."""
    g = Game(lupus_roles(8), lang="fr", admins=[ADMIN, GM2])
    step = g.table.admin_lines(["ABSENCE p1 le 24/12"], ADMIN, g.now, "k", reply_to=[ADMIN, GM2])
    to_masters = [m for m in step.outgoing if {ADMIN, GM2} & set(m.to)]
    assert len(to_masters) == 1 and set(to_masters[0].to) == {ADMIN, GM2}
    assert "Absences déclarées de p1" in to_masters[0].body


def test_a_game_master_who_plays_a_seat_gets_his_reply_alone_for_his_absence() -> None:
    """A game master who also holds a seat (his address is a player's) declares his own
    absence: his reply, not also the game masters' notice; the other game master is told."""
    g = Game(lupus_roles(8), lang="fr", admins=[address("p3"), GM2])
    g.mail("p3", "ABSENCE du 12/01 au 14/01 vacances")
    (mine,) = [m for m in g.last if m.to == (address("p3"),)]
    assert "Absence notée du lundi 12 janvier au mercredi 14 janvier" in mine.body
    (other,) = [m for m in g.last if m.to == (GM2,)]
    assert "Absence de p3" in other.subject


@pytest.mark.parametrize(
    ("lang", "line", "noted"),
    [
        (
            "fr",
            "ABSENCE du 12 au 14 janvier vacances",
            "du lundi 12 janvier au mercredi 14 janvier",
        ),
        ("fr", "ABSENCE le 1er février", "pour le dimanche 1er février"),
        ("fr", "ABSENCE du 30 janv. au 2 févr. 2026", "du vendredi 30 janvier au lundi 2 février"),
        ("fr", "ABSENCE du 30 au 2 février", "du vendredi 30 janvier au lundi 2 février"),
        ("en", "ABSENT from January 12 to January 14 trip", "from Mon 12 Jan to Wed 14 Jan"),
        ("en", "ABSENT from 12 to 14 January", "from Mon 12 Jan to Wed 14 Jan"),
        ("en", "ABSENT on 3rd February", "for Tue 3 Feb"),
        ("en", "ABSENT from January 30 to 2", "from Fri 30 Jan to Mon 2 Feb"),
        # a reason after the dates keeps its words, a month in them too
        (
            "fr",
            "ABSENCE du 20/01 au 21/01 mariage le 3 mai",
            "au mercredi 21 janvier (mariage le 3",
        ),
    ],
)
def test_a_date_with_its_month_in_words_is_read(lang: str, line: str, noted: str) -> None:
    """« ABSENCE du 12 au 14 janvier » was refused « Date illisible : « 12 » »: a forum player
    writes the month in words as often as « 12/01 »; the first day of « du 12 au 14 janvier »
    takes the second's month, and a reason after the dates keeps its words."""
    g = DeskGame("lupus-in-tabula", lang=lang)  # 2026-01-05, Monday
    g.mail("p3", line)
    assert noted in receipt(g, "p3")
