"""The archive's orders show what counted: an order a later one of the same kind replaced, one
ANNULER withdrew, one that left with its seat stays in the phase's log, struck and said so
(LUP-603, CAS-603, AMB-007), so a reader never takes it for one that stood."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.record.archive import archive_files
from tests.desk.desk_game import DeskGame
from tests.support.game_by_mail import Game, lupus_roles

WORDS = {
    "fr": {
        "kill": "TUER",
        "scan": "SONDER",
        "cancel": "ANNULER",
        "pass": "RIEN",
        "sent": "{} a envoyé « {} ».",
        "cancels": "{} a envoyé « ANNULER {} ».",
        "replaced": "[Remplacé par un ordre suivant.]",
        "cancelled": "[Annulé ensuite.]",
        "summary": "Les ordres (6, dont 3 remplacés ou annulés)",
    },
    "en": {
        "kill": "KILL",
        "scan": "SCAN",
        "cancel": "CANCEL",
        "pass": "PASS",
        "sent": '{} sent "{}".',
        "cancels": '{} sent "CANCEL {}".',
        "replaced": "[Replaced by a later order.]",
        "cancelled": "[Cancelled later.]",
        "summary": "The orders (6, 3 of them replaced or cancelled)",
    },
}


def night_one(text: str, lang: str) -> list[str]:
    """The lines of night 1's story in the text archive."""
    heading = "== Nuit 1" if lang == "fr" else "== Night 1"
    story = text.split(heading, 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in story.splitlines()[1:]]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_replaced_or_cancelled_order_is_struck_not_told_as_standing_lup_603(lang: str) -> None:
    """LUP-603: p1's first kill is replaced by his second, p2's is withdrawn by ANNULER, the
    seer's scan by RIEN (Lupus's RIEN takes back the night's orders). Each stays in the log,
    marked; the kill that stood is not; the night resolves on it."""
    w = WORDS[lang]
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.mail("p1", f"{w['kill']} p4")
    g.mail("p1", f"{w['kill']} p5")
    g.mail("p2", f"{w['kill']} p6")
    g.mail("p2", f"{w['cancel']} {w['kill']}")
    g.mail("p3", f"{w['scan']} p4")
    g.mail("p3", w["pass"])
    g.deadline()
    assert not g.alive("p5") and g.alive("p4") and g.alive("p6")
    files = archive_files(g.table, lang)
    assert night_one(files["text"], lang)[:6] == [
        f"- {w['sent'].format('p1', w['kill'] + ' p4')} {w['replaced']}",
        f"- {w['sent'].format('p1', w['kill'] + ' p5')}",
        f"- {w['sent'].format('p2', w['kill'] + ' p6')} {w['cancelled']}",
        f"- {w['cancels'].format('p2', w['kill'])}",
        f"- {w['sent'].format('p3', w['scan'] + ' p4')} {w['replaced']}",
        f"- {w['sent'].format('p3', w['pass'])}",
    ]
    html = files["html"].replace("&#34;", '"')
    assert f"<summary>{w['summary']}</summary>" in html
    struck = w["sent"].format("p1", w["kill"] + " p4")
    assert f'<li class="void"><s>{struck}</s> {w["replaced"][1:-1]}</li>' in html
    assert f"<li>{w['sent'].format('p1', w['kill'] + ' p5')}</li>" in html


def test_an_order_of_a_removed_seat_is_said_gone_with_it_not_cancelled_by_him() -> None:
    """A seat the game master removes has its orders withdrawn (pbem.games.village.withdraw):
    the archive says why the order had no effect, never an ANNULER he did not send."""
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.mail("p1", "TUER p4")
    g.admin("RETIRER p1 parti")
    g.deadline()
    lines = night_one(archive_files(g.table, "fr")["text"], "fr")
    assert lines[0] == "- p1 a envoyé « TUER p4 ». [Sans effet : p1 a quitté la partie.]"
    assert not any("ANNULER" in line for line in lines), lines


def test_leos_card_chosen_again_replaces_the_first_choice_cas_603() -> None:
    """CAS-603, CAS-610/611: Léo's GARDER after PRENDRE replaces it (the rules withdraw the
    PRENDRE on the way): told replaced, with no ANNULER he never sent."""
    g = DeskGame("chasse-aux-sorcieres", lang="fr")
    g.mail("ivan", "PRENDRE DEMON")
    g.mail("ivan", "GARDER")
    g.deadline()
    text = archive_files(g.table, "fr")["text"]
    orders = [line.strip() for line in text.splitlines() if line.startswith("  - ivan")]
    assert orders == [
        "- ivan a envoyé « PRENDRE Démon ». [Remplacé par un ordre suivant.]",
        "- ivan a envoyé « GARDER ».",
    ]


@pytest.mark.parametrize(
    ("lang", "order", "cancel", "sent", "cancelled"),
    [
        ("fr", "GARDER", "ANNULER GARDER", "a envoyé « {} ».", "[Annulé ensuite.]"),
        ("fr", "PRENDRE DEMON", "ANNULER PRENDRE", "a envoyé « {} ».", "[Annulé ensuite.]"),
        ("en", "KEEP", "CANCEL KEEP", 'sent "{}".', "[Cancelled later.]"),
    ],
)
def test_leos_cancel_is_told_as_he_sent_it_cas_603_611(
    lang: str, order: str, cancel: str, sent: str, cancelled: str
) -> None:
    """CAS-603, CAS-610/611: Léo's ANNULER GARDER takes back his GARDER (it was refused, and
    an ANNULER GARDER after a PRENDRE took the PRENDRE back and was told « ANNULER
    PRENDRE »): the archive shows the command he sent, the order it withdrew struck."""
    g = DeskGame("chasse-aux-sorcieres", lang=lang)
    g.mail("ivan", order)
    g.mail("ivan", cancel)
    g.deadline()
    text = archive_files(g.table, lang)["text"]
    orders = [line.strip() for line in text.splitlines() if line.startswith("  - ivan")]
    shown = order.replace("DEMON", "Démon")
    assert orders == [f"- ivan {sent.format(shown)} {cancelled}", f"- ivan {sent.format(cancel)}"]


def test_dracula_orders_changed_before_the_deadline_amb_007() -> None:
    """AMB-007 with ``private_orders_final = false``: bob's second room replaces his first,
    cid's CANCEL withdraws his (the room drawn for him at the deadline is the one that
    counts); Dracula's withdrawal events are read as the village games' ANNULER."""
    g = DeskGame("dracula", lang="en", options={"private_orders_final": False})
    g.deadline()  # to the night's room choice
    g.mail("bob", "ROOM BOUDOIR")
    g.mail("bob", "ROOM DUNGEONS")
    g.mail("cid", "ROOM BOUDOIR")
    g.mail("cid", "CANCEL ROOM")
    g.deadline()
    text = archive_files(g.table, "en")["text"]
    orders = [line.strip() for line in text.splitlines() if line.startswith(("  - bob", "  - cid"))]
    assert orders[:4] == [
        '- bob sent "ROOM BOUDOIR". [Replaced by a later order.]',
        '- bob sent "ROOM DUNGEONS".',
        '- cid sent "ROOM BOUDOIR". [Cancelled later.]',
        '- cid sent "CANCEL ROOM".',
    ]
    assert orders[4].endswith("(default choice).") and "[" not in orders[4], orders


def test_a_second_reply_to_a_waltz_is_in_the_orders_amb_058() -> None:
    """AMB-058 ``dance_replies`` > 1: the rules log the second reply as « reply#2 »; the
    archive showed only the first. Each is told, and neither replaces the other."""
    from pbem.games.dracula import Dracula
    from pbem.games.dracula.events import Order
    from pbem.record.archive import _action, _Orders

    keywords = {s.verb: s.keyword("en") for s in Dracula().all_commands}
    phase: dict[str, Any] = {"entries": []}
    orders = _Orders(keywords, pass_withdraws=False)
    for verb, text in (("reply", "yes"), ("reply#2", "and more")):
        action = _action(Order("Cid", verb, (), None, text), keywords, {}, None)  # type: ignore[arg-type]
        assert action is not None, verb
        orders.sent(phase, action)
    assert [(e["verb"], e["text"], e["void"]) for e in phase["entries"]] == [
        ("REPLY", "yes", None),
        ("REPLY", "and more", None),
    ]


def test_a_line_replaced_by_a_later_line_of_the_same_mail_never_shows_as_standing() -> None:
    """LUP-603 in one mail: « TUER p4 / TUER p5 » is played without its first line (it never
    stood, pbem/table/receive.py), so the archive has the second alone; with a service in the
    same mail (ADRESSE) both lines are logged, and the first is struck."""
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.mail("p1", "TUER p4\nTUER p5")
    g.mail("p3", "SONDER p4\nSONDER p5\nADRESSE")
    g.deadline()
    lines = night_one(archive_files(g.table, "fr")["text"], "fr")
    assert lines[:3] == [
        "- p1 a envoyé « TUER p5 ».",
        "- p3 a envoyé « SONDER p4 ». [Remplacé par un ordre suivant.]",
        "- p3 a envoyé « SONDER p5 ».",
    ]


def test_a_cancel_then_rien_in_one_mail_is_told_as_a_cancel_lup_603() -> None:
    """« ANNULER SONDER / RIEN » in one mail: the scan was cancelled (the player's ANNULER
    is told), not « replaced » by a RIEN the story does not show."""
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.mail("p3", "SONDER p4")
    g.mail("p3", "ANNULER SONDER\nRIEN")
    g.deadline()
    lines = night_one(archive_files(g.table, "fr")["text"], "fr")
    assert lines[:2] == [
        "- p3 a envoyé « SONDER p4 ». [Annulé ensuite.]",
        "- p3 a envoyé « ANNULER SONDER ».",
    ]


def test_the_wolves_who_chose_the_victim_are_named_lup_300_lup_d05() -> None:
    """LUP-300, LUP-D05: the night's trace names the Werewolves who voted for the victim, as
    the other kills name their actors (« (par …) »); the archive is read after the game."""
    g = DeskGame("lupus-in-tabula", lang="fr")
    g.mail("p1", "TUER p4")
    g.mail("p2", "TUER p4")
    g.deadline()
    lines = night_one(archive_files(g.table, "fr")["text"], "fr")
    assert "Les loups ont attaqué p4 (par p1 et p2) : succès." in lines, lines


@pytest.mark.parametrize(
    ("lang", "kills", "poison", "told"),
    [
        (
            "fr",
            ("TUER ivan", "TUER ivan"),
            "EMPOISONNER judy",
            [
                "Les loups ont attaqué ivan (par alice et bob) : succès.",
                "La potion de mort visait judy (par eve) : succès.",
            ],
        ),
        (
            "en",
            ("KILL ivan", "KILL judy"),
            "POISON ivan",
            ["The wolves and the death potion aimed at ivan (by alice and eve): it worked."],
        ),
    ],
)
def test_the_wolves_and_the_witch_who_killed_are_named_lg_510_lg_353(
    lang: str, kills: tuple[str, str], poison: str, told: list[str]
) -> None:
    """LG-510, LG-512, LG-513, LG-224, LG-353: the trace names the council members who named
    the victim fixed at T_A (alice, the Master wolf, breaks the tie, LG-513: bob named
    someone else) and the Witch who poured the death potion."""
    g = DeskGame("loup-garou", lang=lang)
    while "council" not in g.table.deadlines():
        g.deadline()
    g.mail("alice", kills[0])
    g.mail("bob", kills[1])
    g.deadline()
    g.mail("eve", poison)
    g.deadline()
    lines = night_one(archive_files(g.table, lang)["text"], lang)
    assert all(line in lines for line in told), lines


@pytest.mark.parametrize(
    ("lang", "told"),
    [
        ("fr", "Un sondage visait p4 (par p3) : succès."),
        ("en", "A probe aimed at p4 (by p3): it worked."),
    ],
)
def test_the_seer_whose_probe_kills_the_werehamster_is_named_lup_372(lang: str, told: str) -> None:
    """LUP-372: the Seer's probe kills the Werehamster; the night's trace named nobody (« Un
    pouvoir de la nuit visait p4 : succès. »), where the wolves' kill names the pack (LUP-300):
    it names the Seer who probed, in a sentence of its own."""
    g = Game(lupus_roles(8, p4="werehamster"), lang=lang)
    w = WORDS[lang]
    g.mail("p1", f"{w['kill']} p5")
    g.mail("p2", f"{w['kill']} p5")
    g.mail("p3", f"{w['scan']} p4")
    g.deadline()
    assert not g.alive("p4")
    assert told in night_one(archive_files(g.table, lang)["text"], lang)
