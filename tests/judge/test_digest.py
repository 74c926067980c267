"""RESUME QUOTIDIEN / DIGEST (issue 25 item 6): the seat's choice by mail, the day's public
posts in one mail, sent once."""

from __future__ import annotations

from pbem.judge.digest import digest_step
from tests.support.game_by_mail import Game, lupus_roles


def test_digest_on_by_mail_then_the_days_posts_once() -> None:
    """LUP-004: the night's result is a public post of the day; a subscriber's digest holds
    it in its own section, and the day's digest is made once (its event is in the log)."""
    g = Game(lupus_roles(8), lang="fr")
    g.mail("p4", "RESUME QUOTIDIEN oui")
    assert "✓ RESUME QUOTIDIEN OUI" in g.reply() and "Résumé quotidien : activé" in g.reply()
    assert "pbem ne peut pas en arrêter les copies" in g.reply()  # an external list
    g.mail("p5", "DIGEST peut-être")
    assert "✗ DIGEST peut-être — Je ne comprends pas « peut-être »" in g.reply()
    g.deadline()
    step = digest_step(g.table, "2026-01-06")
    (mail,) = step.outgoing
    assert mail.to == ("p4@example.org",) and mail.subject.endswith("Résumé du mardi 6 janvier")
    assert "Nuit 1 — Jour 1 : l'aube\n------------------------" in mail.body
    assert "<h2" in str(mail.html)
    g._commit(step)
    assert digest_step(g.table, "2026-01-06").outgoing == ()  # once a day
    g.mail("p4", "DIGEST non")
    assert "✓ RESUME QUOTIDIEN NON" in g.reply()
    g.deadline()
    assert digest_step(g.table, "2026-01-07").outgoing == ()  # off: nothing


def test_digest_in_english_says_where_it_stands() -> None:
    g = Game(lupus_roles(8), lang="en")
    g.mail("p2", "DIGEST")
    assert "Daily digest: not asked for." in g.reply()
    g.mail("p2", "DIGEST ON")
    assert "✓ DIGEST ON" in g.reply()
    g.mail("p2", "DIGEST")
    assert "Daily digest: on for you." in g.reply()
    g.mail("p2", "DIGEST maybe")
    assert '✗ DIGEST maybe — I do not understand "maybe"' in g.reply()


def test_kept_list_posts_go_to_the_seats_they_were_kept_for_and_at_the_end_at_once() -> None:
    """A list post the daemon kept for p4's digest is told to p4 even once his digest is off,
    under its poster's name; the day's digest gone, a final one (the game is over) still goes,
    with keys of its own."""
    g = Game(lupus_roles(8), lang="en")
    g.mail("p4", "DIGEST ON")
    kept = [
        {
            "index": len(g.table.events),
            "for": ["p4"],
            "poster": "p5",
            "subject": "Hi",
            "body": "I suspect p1.",
        }
    ]
    g.mail("p4", "DIGEST OFF")
    step = digest_step(g.table, "2026-01-05", kept)
    (mail,) = step.outgoing
    assert mail.to == ("p4@example.org",) and "p5: Hi" in mail.body and "I suspect p1." in mail.body
    g._commit(step)
    assert digest_step(g.table, "2026-01-05", kept).outgoing == ()
    (last,) = digest_step(g.table, "2026-01-05", kept, final=True).outgoing
    assert last.key.endswith("/2026-01-05/final/p4") and last.key != mail.key


def test_a_digest_missed_while_the_daemon_was_down_goes_into_the_next_one() -> None:
    """The decision (docs/season.md, "Daily digest"): a digest whose hour passed while the
    daemon was down is not sent late; the next day's tells the posts of both days, and
    DIGEST's help texts (its reply, AIDE's line) say so in both languages."""
    g = Game(lupus_roles(8), lang="fr")
    g.mail("p4", "RESUME QUOTIDIEN oui")
    assert "celui-ci n'est pas envoyé en retard : le suivant reprend aussi ses messages" in (
        g.reply()
    )
    g.mail("p4", "AIDE")
    assert "(un résumé manqué pendant un arrêt du serveur passe dans le suivant)" in g.reply()
    g.deadline()  # Tuesday 6 January: the dawn's post; the daemon is down at the digest's hour
    g.deadline()  # Wednesday 7 January: the day's vote and the night
    (mail,) = digest_step(g.table, "2026-01-07").outgoing
    assert "Nuit 1 — Jour 1 : l'aube" in mail.body  # Tuesday's post, told on Wednesday
    en = Game(lupus_roles(8), lang="en")
    en.mail("p4", "DIGEST ON")
    assert "that digest is not sent late: the next one tells its posts too" in en.reply()


def test_the_french_digest_reply_has_no_english_word() -> None:
    """Mailman's digest mode is « messages groupés » in a French mail, never « digest »."""
    g = Game(lupus_roles(8), lang="fr")
    g.mail("p4", "RESUME QUOTIDIEN oui")
    assert "(messages groupés, ou sans courrier)" in g.reply()
    assert "digest" not in g.reply().lower()
