"""``pbem demo``: the real daemon, the embedded SMTP server, Maildirs and mail-reading bots play a
whole Lupus game; the daemon is stopped by its own SIGTERM path at the end."""

from __future__ import annotations

import asyncio
import io
import mailbox
import random
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import aiosmtplib
import pytest

from pbem.games import rules_for
from pbem.maildemo import (
    LIST,
    LIST_ID,
    MODERATOR,
    MailSystem,
    View,
    choose,
    email_of,
    play_by_mail,
    print_summary,
    read_reply,
    render_post,
)

QUICK = {
    "night_duration": 3,
    "debate_duration": 0.5,
    "round1_duration": 3,
    "defence_duration": 0.5,
    "round2_duration": 3,
}


def _subjects(path: Path) -> list[str]:
    out = []
    box = mailbox.Maildir(path, create=False)
    for key in list(box.iterkeys()):
        raw = box.get_bytes(key)
        out.append(str(BytesParser(policy=policy.default).parsebytes(raw)["Subject"]))
    return out


def test_a_whole_game_by_email_with_the_real_daemon(tmp_path: Path) -> None:
    out = io.StringIO()
    result = asyncio.run(
        play_by_mail(tmp_path, players=8, seed=4, lang="en", options=QUICK, out=out, timeout=150)
    )
    text = out.getvalue()
    assert result.finished, text[-3000:]
    assert result.daemon_status == 0  # stopped by SIGTERM, cleanly
    assert result.summary["status"] == "finished" and result.summary["winners"]
    names = [p["name"] for p in result.summary["players"]]
    assert len(names) == 8
    mail = tmp_path / "mail"
    for name in names:
        subjects = _subjects(mail / email_of(name) / "Maildir")
        assert any("Your role" in s for s in subjects), (name, subjects)
        # and every player got the public thread through the list
        assert any("The game is over" in s for s in subjects), name
    victory = [
        p
        for p in result.posts
        if b"The game is over" in p and f"<{LIST_ID}>".encode() in p.split(b"\r\n\r\n")[0]
    ]
    assert len(victory) == 1
    assert any("The game is over" in s for s in _subjects(mail / LIST / "Maildir"))
    assert "The game is over" in text and "Winners:" in text  # printed as it went
    # the bots played by mail: orders to the moderator, votes on the list
    assert sum(b.sent for b in result.bots) > 2 * len(names)
    assert any(b"VOTE " in p or b"**" in p for p in result.posts)
    # the daemon consumed its whole INBOX and moved it all to Processed, nothing quarantined
    box = mail / MODERATOR / "Maildir"
    assert not list((box / "new").iterdir()) and not list((box / "cur").iterdir())
    assert list((box / ".Processed" / "new").iterdir())
    assert not list((box / ".Quarantine" / "new").iterdir())


def _messages(path: Path) -> list[bytes]:
    box = mailbox.Maildir(path, create=False)
    return [box.get_bytes(key) for key in list(box.iterkeys())]


def test_a_whole_game_by_email_with_the_daemon_relaying_the_list(tmp_path: Path) -> None:
    """``--list relay``: the list address lands in the moderator's mailbox and every post the
    players read is the daemon's own copy, which names its poster only by his game name."""
    out = io.StringIO()
    result = asyncio.run(
        play_by_mail(
            tmp_path,
            players=8,
            seed=4,
            lang="en",
            options=QUICK,
            out=out,
            timeout=150,
            list_mode="relay",
        )
    )
    text = out.getvalue()
    assert result.finished, text[-3000:]
    assert result.daemon_status == 0
    assert result.summary["status"] == "finished" and result.summary["winners"]
    assert 'mode = "relay"' in (tmp_path / "pbem.toml").read_text(encoding="utf-8")
    mail = tmp_path / "mail"
    assert not (mail / LIST).exists()  # no list server: the daemon is the list
    names = [p["name"] for p in result.summary["players"]]
    emails = {email_of(n) for n in names}
    parser = BytesParser(policy=policy.default)
    # what the players posted reached the daemon by the list address, in the moderator's box
    processed = [
        parser.parsebytes(raw) for raw in _messages(mail / MODERATOR / "Maildir" / ".Processed")
    ]
    to_list = [m for m in processed if LIST in str(m["To"]).lower()]
    assert to_list and all(str(m["From"]).split("<")[-1].rstrip(">") in emails for m in to_list)
    relayed_votes = 0
    for name in names:
        me = email_of(name)
        raws = _messages(mail / me / "Maildir")
        # a copy never names another player's address: not in From, Return-Path, anywhere
        for raw in raws:
            for other in emails - {me}:
                assert other.encode() not in raw.lower(), (name, other, raw[:600])
        msgs = [parser.parsebytes(raw) for raw in raws]
        listed = [m for m in msgs if str(m.get("List-Id", "")) == f"<{LIST_ID}>"]
        relayed = [m for m in listed if " via demo" in str(m["From"])]
        assert relayed, name  # everyone read the others' posts, relayed by the daemon
        for m in relayed:
            assert str(m["From"]).endswith(f"<{LIST}>") and str(m["Reply-To"]) == LIST
            assert str(m["List-Post"]) == f"<mailto:{LIST}>"
            assert str(m["Subject"]).startswith("[demo]")
        relayed_votes += sum(1 for m in relayed if "VOTE " in str(m.get_body(("plain",))))
        # the daemon's own public posts carry the List-Id it adds as the list
        assert any("The game is over" in str(m["Subject"]) for m in listed), name
    assert relayed_votes
    # the printed thread shows the copies as the players received them
    assert " via demo: " in text and "→ list:" not in text
    assert "The game is over" in text
    summary = io.StringIO()
    print_summary(result, summary)
    assert f"{len(result.posts)} posts relayed by the daemon" in summary.getvalue()
    assert all(b"List-Id: <" + LIST_ID.encode() in p for p in result.posts)
    box = mail / MODERATOR / "Maildir"
    assert not list((box / "new").iterdir()) and not list((box / "cur").iterdir())
    assert not list((box / ".Quarantine" / "new").iterdir())


ROSTER = ("Alice", "Bruno", "Chloé", "Damien", "Hugo", "Ugo")
EN_REPLY = """Commands you can use now:
  KILL
  PACK
  HELP
  STATUS
  PASS
  CANCEL
Names may be shortened to a unique beginning; case and accents do not matter.

Your situation, Alice: Werewolf (the Werewolves), alive.
You know: Damien.
Phase: night 1, ends Tue 6 Jan 12:00 UTC.
Living players: Alice, Chloé, Damien and Hugo.
"""


def test_a_bot_reads_help_and_status_and_picks_a_legal_move() -> None:
    specs = rules_for("lupus-in-tabula").all_commands
    keywords = [s.keyword("en") for s in specs]
    view = read_reply(EN_REPLY, ROSTER, keywords, "en")
    assert view == View(
        commands=("KILL", "PACK", "HELP", "STATUS", "PASS", "CANCEL"),
        phase="night 1",
        living=("Alice", "Chloé", "Damien", "Hugo"),  # "Ugo" is not read inside "Hugo"
        nominees=(),
        partners=("Damien",),
    )
    rng = random.Random(1)
    for _ in range(50):
        move = choose(view, "Alice", specs, "en", rng)
        assert move is not None
        channel, text = move
        assert channel == "private"
        kill = text.splitlines()[0].split()
        assert kill[0] == "KILL" and kill[1] in ("Chloé", "Hugo")  # not herself, not Damien
    assert read_reply("Accepted:\n  ✓ PASS\n", ROSTER, keywords, "en") is None


def test_a_bot_votes_for_a_nominee_on_the_list_in_french() -> None:
    specs = rules_for("lupus-in-tabula").all_commands
    keywords = [s.keyword("fr") for s in specs]
    body = (
        "Commandes possibles maintenant :\n  VOTE   (à poster sur la liste)\n  RETIRER\n  AIDE\n\n"
        "Phase : second tour 1, jusqu'au mar. 6 janv. à 12:00 UTC.\n"
        "Nommés : Bruno et Chloé.\nJoueurs vivants : Alice, Bruno, Chloé et Hugo.\n"
    )
    view = read_reply(body, ROSTER, keywords, "fr")
    assert view is not None and view.nominees == ("Bruno", "Chloé")
    rng = random.Random(2)
    for _ in range(30):
        move = choose(view, "Alice", specs, "fr", rng)
        assert move is not None and move[0] == "list"
        assert "Bruno" in move[1] or "Chloé" in move[1]
    assert choose(view, "Bruno", specs, "fr", rng) is None  # a nominee does not vote


def test_posts_are_rendered_as_a_thread() -> None:
    raw = (
        f"From: {MODERATOR}\r\nTo: {LIST}\r\nSubject: [Lupus in Tabula] Day 1: dawn\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\nDawn rises.\r\n\r\n  Alice: Werewolf\r\n"
    ).encode()
    text = render_post(raw, {}, 3.25)
    assert text.splitlines()[0] == "┌─   3.2 s ─ [Lupus in Tabula] Day 1: dawn"
    assert "│   Alice: Werewolf" in text
    vote = f"From: Bob <bob@x.example>\r\nTo: {LIST}\r\nSubject: \r\n\r\nVOTE Alice\r\n".encode()
    assert render_post(vote, {"bob@x.example": "Bob"}) == "   Bob → list: VOTE Alice"
    # relay mode: the daemon's copy names the poster only by his game name
    copy = (
        f'From: "Bob via demo" <{LIST}>\r\nTo: {LIST}\r\nSubject: [demo]\r\n'
        f"List-Id: <{LIST_ID}>\r\n\r\nVOTE Alice\r\n"
    ).encode()
    assert render_post(copy, {"bob@x.example": "Bob"}) == "   Bob via demo: VOTE Alice"


def _send(port: int, sender: str, to: str, body: str, **headers: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "test"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    asyncio.run(aiosmtplib.send(msg, hostname="127.0.0.1", port=port, timeout=10))


def test_in_relay_mode_the_list_address_is_an_alias_of_the_moderator(tmp_path: Path) -> None:
    """No list runs in the mail system: a post to the list lands, as it is, in the moderator's
    Maildir only; what the daemon distributes with the List-Id is the thread, kept once."""
    alice, bruno = email_of("Alice"), email_of("Bruno")
    mail = MailSystem(tmp_path, [MODERATOR, alice, bruno], [alice, bruno, MODERATOR], "relay")
    mail.start()
    try:
        _send(mail.port, alice, LIST, "VOTE Bruno")
        assert len(_messages(mail.maildir(MODERATOR))) == 1
        assert _messages(mail.maildir(bruno)) == [] and not (tmp_path / LIST).exists()
        assert mail.posts == []  # a post is in the thread once the daemon has relayed it
        copy = {"Message_ID": "<c1@lists.village.example>", "List_Id": f"<{LIST_ID}>"}
        for rcpt in (alice, bruno):  # one copy per recipient: one post all the same
            _send(mail.port, f'"Alice via demo" <{LIST}>', rcpt, "VOTE Bruno", **copy)
        _send(mail.port, MODERATOR, alice, "a private reply")
        assert len(mail.posts) == 1 and b"VOTE Bruno" in mail.posts[0]
        assert len(_messages(mail.maildir(bruno))) == 1
    finally:
        mail.stop()
    with pytest.raises(ValueError):
        MailSystem(tmp_path, [], [], "moderated")


def test_the_list_mode_is_ignored_offline(capsys: pytest.CaptureFixture[str]) -> None:
    from pbem.cli import main

    assert main(["demo", "--offline", "--list", "relay", "--seed", "1", "--lang", "en"]) == 0
    captured = capsys.readouterr()
    assert "--list relay ignored" in captured.err and "Winners:" in captured.out
