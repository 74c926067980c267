"""Posts as real lists deliver them, through the real daemon (issue 10 items 2, 3 and 6).

Real Dovecot + aiosmtpd, ``pbem serve`` with the fake engine (each ``CMD <word>`` line of an
accepted mail is one event, list posts included), game ``g1`` on the external list
``game@lists.example.test``. The fixtures under ``tests/fixtures/mail/`` are shaped like each
list manager's output (headers and footers) and delivered into the moderator's INBOX by LMTP,
as the list's copy reaches it.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon_process import (
    Daemon,
    game_state,
    mail,
    new_fake_game,
    outbox_empty,
    wait_for,
    write_config,
)
from tests.support.mailstack import ADMIN, DOMAIN, LIST, MODERATOR, MailStack

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mail"
PLAYERS = ["alice", "bob", "carol", "dave", "erin"]


def start(stack: MailStack, tmp_path: Path) -> tuple[Daemon, Path]:
    cfg = write_config(
        stack,
        tmp_path,
        extra_daemon="errors_per_hour = 100\nautos_per_day = 100",
        extra_smtp="coalesce_replies = false",
    )
    new_fake_game(cfg, "g1", PLAYERS)
    return Daemon(cfg).start(), tmp_path / "data"


def played(data: Path) -> list[tuple[str, str]]:
    """(player, word) of every command applied, in order."""
    return [(e["player"], e["word"]) for e in game_state(data, "g1")[0] if e.get("type") == "cmd"]


def fixture(name: str, **replace: str) -> bytes:
    raw = (FIXTURES / name).read_bytes()
    for old, new in replace.items():
        raw = raw.replace(old.encode(), new.encode())
    return raw


def list_copy(direct: bytes) -> bytes:
    """The copy a Mailman 3 list sends of a post whose direct copy is ``direct``: more trace
    headers, the list headers, the footer; the author's Message-ID kept."""
    head = (
        b"Received: from mail.lists.example.test (mail.lists.example.test [192.0.2.20])\r\n"
        b"\tby mx.example.test (Postfix) with ESMTPS id 4Tq2Wd0yXkz9t\r\n"
        b"\tfor <moderator@example.test>; Tue,  1 Dec 2026 17:21:05 +0000 (UTC)\r\n"
        b"X-Mailman-Version: 3.3.8\r\nPrecedence: list\r\n"
        b"List-Id: Game <game.lists.example.test>\r\n"
        b"List-Post: <mailto:game@lists.example.test>\r\n"
    )
    footer = (
        b"\r\n_______________________________________________\r\n"
        b"Game mailing list -- game@lists.example.test\r\n"
        b"To unsubscribe send an email to game-leave@lists.example.test\r\n"
    )
    return head + direct.replace(b"\n", b"\r\n").replace(b"\r\r\n", b"\r\n") + footer


def bodies(stack: MailStack, user: str) -> str:
    return "\n".join(str(m.get_body(("plain",)).get_content()) for m in stack.messages(user))


# ---- item 2: From rewritten by the list for DMARC ------------------------------------------


def test_dmarc_rewritten_list_posts_are_attributed_to_their_authors(
    stack: MailStack, tmp_path: Path
) -> None:
    """Google Groups (author in Reply-To / X-Original-Sender), Mailman 3 munge_from (Reply-To),
    Mailman 2.1 munge_from with replies to the list (author in Cc) and Sympa dmarc_protection
    (X-Original-From): each post has the list's address in From and counts as its author's.
    Before: all four were taken for the list's own, a spectator's, and nothing counted."""
    d, data = start(stack, tmp_path)
    try:
        for name in (
            "googlegroups-dmarc.eml",
            "mailman3-munge-from.eml",
            "mailman21-munge-from.eml",
            "sympa-dmarc-protection.eml",
        ):
            stack.inject(fixture(name), MODERATOR)
        want = [
            ("alice", "googlegroups"),
            ("bob", "mailman3"),
            ("carol", "mailman21"),
            ("dave", "sympa"),
        ]
        wait_for(lambda: sorted(played(data)) == want, what="the four posts", log=d.log)
        # the receipts go to the authors' registered addresses, never to the list
        wait_for(lambda: "accepted: sympa" in bodies(stack, "dave@example.test"), log=d.log)
    finally:
        d.stop()


def test_unattributable_list_post_tells_the_game_master_once_per_sender(
    stack: MailStack, tmp_path: Path
) -> None:
    """A rewritten post whose author is no player (Sympa names mallory@elsewhere.test): its
    commands do not count, and the game master is told once for that sender, not per post."""
    d, data = start(stack, tmp_path)
    try:
        stack.inject(fixture("sympa-dmarc-stranger.eml"), MODERATOR)
        stack.inject(fixture("sympa-dmarc-stranger.eml", GA4712="GA4713"), MODERATOR)
        stack.inject(fixture("sympa-dmarc-protection.eml"), MODERATOR)  # a sentinel after them
        wait_for(lambda: played(data) == [("dave", "sympa")], what="the sentinel", log=d.log)

        def alerts() -> list[str]:
            return [
                str(m["Subject"])
                for m in stack.messages(ADMIN)
                if "attribu" in str(m["Subject"]).lower()
            ]

        wait_for(alerts, what="the game master's notice", log=d.log)
        wait_for(lambda: "accepted: sympa" in bodies(stack, "dave@example.test"), log=d.log)
        assert len(alerts()) == 1, alerts()
        assert "mallory@elsewhere.test" in bodies(stack, ADMIN)
    finally:
        d.stop()


# ---- item 3: Precedence: bulk on every list post --------------------------------------------


def test_bulk_stamped_list_post_is_read_but_bulk_private_mail_is_not(
    stack: MailStack, tmp_path: Path
) -> None:
    """Majordomo stamps every post ``Precedence: bulk``: a post recognised as the game's list's
    (its address in To) is read. Bulk mail that is no list post stays unread and unanswered
    (RFC 3834). Before: the list post was dropped as bulk."""
    d, data = start(stack, tmp_path)
    try:
        private = mail("alice@example.test", "CMD private\n", to=f"moderator+g1@{DOMAIN}")
        private["Precedence"] = "bulk"
        mid = private["Message-ID"]
        stack.inject(private.as_bytes(), MODERATOR)
        stack.inject(fixture("majordomo-bulk.eml"), MODERATOR)
        wait_for(lambda: played(data) == [("erin", "majordomo")], what="erin's post", log=d.log)
        wait_for(lambda: "accepted: majordomo" in bodies(stack, "erin@example.test"), log=d.log)
        assert played(data) == [("erin", "majordomo")]
        replies = [m for m in stack.messages("alice@example.test") if m["In-Reply-To"] == mid]
        assert replies == []  # no reply to the bulk mail (alice has the list's posts only)
    finally:
        d.stop()


# ---- item 6: second copies -----------------------------------------------------------------


def test_list_copy_of_a_post_cc_to_the_moderator_is_applied_once_across_a_restart(
    stack: MailStack, tmp_path: Path
) -> None:
    """Alice posts ``CMD one`` to the list with the moderator in Cc (its direct copy arrives
    first), then orders ``CMD two`` privately; the daemon is killed and restarted; then the
    list's delayed copy of the first post arrives (other bytes: trace, list headers, footer).
    It is the same mail: not applied again, so it cannot put the older order back over the
    newer one. Before: ``one, two, one``."""
    d, data = start(stack, tmp_path)
    try:
        post = mail("alice@example.test", "CMD one\n", to=LIST, Cc=MODERATOR)
        direct = post.as_bytes()
        stack.inject(direct, MODERATOR)
        wait_for(lambda: played(data) == [("alice", "one")], log=d.log)
        stack.inject(mail("alice@example.test", "CMD two\n").as_bytes(), MODERATOR)
        wait_for(lambda: len(played(data)) == 2, log=d.log)
        d.kill()
        d.start()
        stack.inject(list_copy(direct), MODERATOR)
        stack.inject(mail("alice@example.test", "CMD three\n").as_bytes(), MODERATOR)
        wait_for(lambda: len(played(data)) >= 3, what="the sentinel", log=d.log)
        assert [w for _, w in played(data)] == ["one", "two", "three"]
    finally:
        d.stop()


def test_reply_all_to_the_list_is_applied_and_answered_once(
    stack: MailStack, tmp_path: Path
) -> None:
    """A "Reply all" to the game master's list post: To: moderator, Cc: list. The direct copy
    and the list's copy are one mail: one event, one receipt (before: applied twice and
    answered twice, « Vos commandes (×2) » when the replies were coalesced)."""
    d, data = start(stack, tmp_path)
    try:
        reply = mail("bob@example.test", "CMD vote\n", to=MODERATOR, Cc=LIST)
        reply["In-Reply-To"] = "<g1-phase-1@example.test>"
        direct = reply.as_bytes()
        stack.inject(direct, MODERATOR)
        stack.inject(list_copy(direct), MODERATOR)
        stack.inject(mail("carol@example.test", "CMD sentinel\n").as_bytes(), MODERATOR)
        wait_for(lambda: ("carol", "sentinel") in played(data), what="the sentinel", log=d.log)
        wait_for(lambda: "accepted: sentinel" in bodies(stack, "carol@example.test"), log=d.log)
        assert played(data) == [("bob", "vote"), ("carol", "sentinel")]
        # bob's receipt may come after carol's (a send retried on a busy machine): wait for it,
        # then for every answer out, before counting
        wait_for(lambda: "accepted: vote" in bodies(stack, "bob@example.test"), log=d.log)
        wait_for(lambda: outbox_empty(data), what="every answer sent", log=d.log)
        assert bodies(stack, "bob@example.test").count("accepted: vote") == 1
    finally:
        d.stop()
