"""``pbem demo``: the real daemon, the embedded SMTP server, Maildirs and mail-reading bots play a
whole game of each game (Lupus in both list modes, Loup-Garou relayed by the daemon, Chasse aux
sorcières in French, a round of Dracula); the daemon is stopped by its own SIGTERM path."""

from __future__ import annotations

import asyncio
import io
import mailbox
import os
import random
import subprocess
from collections.abc import Mapping
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiosmtplib
import pytest

from pbem.games import rules_for
from pbem.tools.demo import GENDERS
from pbem.tools.demo_mail import LIST, LIST_ID, MODERATOR, email_of
from pbem.tools.demo_problems import demo_problems, empty_rounds
from pbem.tools.mailbots import MailBot, View, choose, doorbell, read_reply
from pbem.tools.maildemo import (
    FAST_OPTIONS,
    DemoResult,
    MailSystem,
    play_by_mail,
    print_summary,
    render_post,
)
from tests.archive.bot_games import whole_game
from tests.support.mailparts import parse

QUICK = {
    "night_duration": 3,
    "debate_duration": 0.5,
    "round1_duration": 3,
    "defence_duration": 0.5,
    "round2_duration": 3,
}


def _seen(msg: EmailMessage) -> str:
    """What a reader sees of a mail in a list: its Subject, and the mail's own title when the
    Subject names its thread (the title then opens its text, underlined: issue 15)."""
    subject = str(msg["Subject"]).strip()
    body = msg.get_body(("plain",))
    lines = str(body.get_content()).splitlines()[:2] if body is not None else []
    if len(lines) == 2 and lines[0] and set(lines[1]) == {"="}:
        return f"{subject} — {lines[0]}"
    return subject


GAME_BOUND = 540
"""The most a demo game may take, in seconds: a bound, not a guess of its length. The games run
on their own deadlines of a second or two and take 15 to 40 s alone; a busy machine starves the
daemon and the bots many times over (240 s seen for Chasse under a load of 12 on 2 cores)."""

pytestmark = pytest.mark.timeout(GAME_BOUND + 60)


def _subjects(path: Path) -> list[str]:
    out = []
    box = mailbox.Maildir(path, create=False)
    for key in list(box.iterkeys()):
        raw = box.get_bytes(key)
        out.append(_seen(parse(raw)))
    return out


#: A step's deadline in these tests, in seconds: only a safety net. The driver closes each step
#: once the daemon and every bot are idle (pbem.tools.demo_watch.IdleCloser), or the game closes it
#: early once everyone has acted: a step never ends on a window of a second or two that a busy
#: machine lets pass before the bots have read their prompts (they then missed their votes,
#: nobody died, and the game never ended).
PATIENT = 60
NOT_DURATIONS = ("rounds", "tally_min_interval")


def _patient(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The game's demo options with every step's duration made :data:`PATIENT`."""
    merged = {**FAST_OPTIONS[game], **options}
    return {
        k: PATIENT if isinstance(v, int | float) and not isinstance(v, bool) else v
        for k, v in merged.items()
        if k not in NOT_DURATIONS
    } | {k: merged[k] for k in NOT_DURATIONS if k in merged}


def _played(tmp_path: Path, **kw: Any) -> tuple[DemoResult, str]:
    """A whole demo game by mail, which must end with an outcome and the daemon's exit 0."""
    out = io.StringIO()
    game = kw.setdefault("game", "lupus-in-tabula")
    kw["options"] = _patient(game, kw.get("options") or {})
    result = asyncio.run(play_by_mail(tmp_path, out=out, **kw))
    text = out.getvalue()
    assert result.finished, text[-3000:]
    # issue 21 item 16: no bot's move refused, no vote round closed before the bots voted
    assert not result.problems, result.problems
    assert result.daemon_status == 0  # stopped by SIGTERM, cleanly
    assert result.summary["status"] == "finished" and result.summary["winners"]
    return result, text


@pytest.mark.slow(15)
def test_a_whole_game_by_email_with_the_real_daemon(tmp_path: Path) -> None:
    result, text = _played(
        tmp_path, players=8, seed=4, lang="en", options=QUICK, timeout=GAME_BOUND
    )
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
    assert "The game is over" in text and "Winner" in text  # printed as it went
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


@pytest.mark.slow(20)
def test_a_whole_game_by_email_with_the_daemon_relaying_the_list(tmp_path: Path) -> None:
    """``--list relay``: the list address lands in the moderator's mailbox and every post the
    players read is the daemon's own copy, which names its poster only by his game name."""
    result, text = _played(
        tmp_path, players=8, seed=4, lang="en", options=QUICK, timeout=GAME_BOUND, list_mode="relay"
    )
    assert 'mode = "relay"' in (tmp_path / "pbem.toml").read_text(encoding="utf-8")
    mail = tmp_path / "mail"
    assert not (mail / LIST).exists()  # no list server: the daemon is the list
    names = [p["name"] for p in result.summary["players"]]
    emails = {email_of(n) for n in names}
    # what the players posted reached the daemon by the list address, in the moderator's box
    processed = [parse(raw) for raw in _messages(mail / MODERATOR / "Maildir" / ".Processed")]
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
        msgs = [parse(raw) for raw in raws]
        listed = [m for m in msgs if str(m.get("List-Id", "")) == f"<{LIST_ID}>"]
        relayed = [m for m in listed if " via demo" in str(m["From"])]
        assert relayed, name  # everyone read the others' posts, relayed by the daemon
        for m in relayed:
            assert str(m["From"]).endswith(f"<{LIST}>") and str(m["Reply-To"]) == LIST
            assert str(m["List-Post"]) == f"<mailto:{LIST}>"
            assert str(m["Subject"]).startswith("[demo]")
        relayed_votes += sum(1 for m in relayed if "VOTE " in str(m.get_body(("plain",))))
        # the daemon's own public posts carry the List-Id it adds as the list
        # (filed in the game's last thread, its title opening the text: issue 15)
        assert any(str(m["Subject"]) == "[demo] End of the game" for m in listed), name
        assert any("The game is over" in str(m.get_body(("plain",))) for m in listed), name
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
        "Ce que vous pouvez envoyer maintenant :\n  VOTE nom — voter (à poster sur la liste)\n"
        "  RETIRER — retirer votre vote\n  AIDE — la liste\n\n"
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


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("fr", "Nommées : Alice et Chloé.\nJoueuses vivantes : Alice et Chloé.\n"),
        ("fr", "Nommée : Chloé.\nJoueuse en jeu : Chloé.\n"),
        ("en", "Nominee: Chloé.\nLiving players: Alice and Chloé.\n"),
    ],
)
def test_a_bot_reads_the_labels_that_agree_with_the_players(lang: str, labels: str) -> None:
    """LUP-622: the STATUS's labels agree with the players they name (« Nommées : Alice et
    Chloé », "Nominee: Chloé"); a bot reads each of their forms."""
    specs = rules_for("lupus-in-tabula").all_commands
    keywords = [s.keyword(lang) for s in specs]
    view = read_reply(
        ("Phase : jour 2.\n" if lang == "fr" else "Phase: day 2.\n") + labels,
        ROSTER,
        keywords,
        lang,
    )
    assert view is not None and "Chloé" in view.nominees and "Chloé" in view.living


def test_a_mayor_bot_breaks_a_tie_among_the_tied_players() -> None:
    # LG-251: the Mayor picks among the tied. `make demo GAME=loup-garou LIST=relay` showed
    # « Karine via demo: TRANCHER Bruno », then Alice, then Chloé, all refused, for a tie
    # between Damien and Nathan: the bot drew from every living player.
    specs = rules_for("loup-garou").all_commands
    view = View(
        commands=("TRANCHER", "AIDE"),
        phase="décision du Maire 1",
        living=("Alice", "Bruno", "Chloé", "Damien", "Karine", "Nathan"),
        nominees=(),
        partners=(),
        public=("TRANCHER",),
    )
    prompted = ("Karine", "Damien", "Nathan")  # « Karine, en tant que Maire, ... parmi ... »
    rng = random.Random(4)
    for _ in range(30):
        move = choose(view, "Karine", specs, "fr", rng, prompted=prompted)
        assert move is not None and move[0] == "list"
        assert move[1].split()[0] == "TRANCHER" and move[1].split()[1] in ("Damien", "Nathan")


def test_a_piper_bot_charms_two_players() -> None:
    # LG-620: `make demo GAME=loup-garou LIST=relay` showed « ENVOUTER Nathan » refused
    # (« Cette commande demande 2 noms de joueurs »), five times in one game
    specs = rules_for("loup-garou").all_commands
    view = View(
        commands=("ENVOUTER",),
        phase="nuit 1",
        living=("Alice", "Bruno", "Chloé", "Élodie"),
        nominees=(),
        partners=(),
    )
    rng = random.Random(5)
    for _ in range(20):
        move = choose(view, "Élodie", specs, "fr", rng)
        assert move is not None and move[0] == "private"
        charm = move[1].splitlines()[0].split()
        assert charm[0] == "ENVOUTER" and len(charm) == 3, move


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


def test_a_wrapped_french_line_never_starts_with_its_punctuation() -> None:
    # seen in `make demo`: « ... à 05:53:48 UTC » then a line « ; le second tour s'ouvre »
    line = (
        "Les nommés peuvent se défendre sur la liste jusqu'au dimanche 6 décembre à 05:53:48"
        " UTC ; le second tour s'ouvre ensuite."
    )
    raw = (
        (
            f"From: {MODERATOR}\r\nTo: {LIST}\r\nSubject: [demo] Jour 1\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        ).encode()
        + line.encode()
        + b"\r\n"
    )
    rows = [row.removeprefix("│ ") for row in render_post(raw, {}).splitlines()[1:-1]]
    assert " ".join(rows) == line
    assert not any(row.startswith((";", ":", "!", "?", "»")) for row in rows), rows


def _send(port: int, sender: str, to: str, body: str, **headers: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "test"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    asyncio.run(aiosmtplib.send(msg, hostname="127.0.0.1", port=port, timeout=10))


def test_a_bot_reads_its_mail_when_the_mail_system_delivers_it(tmp_path: Path) -> None:
    """A bot waits for the mail system's ring, not a timer (issue 21: 13 bots reading their
    Maildir every 50 ms were CPU spent on quiet mailboxes): with its safety poll an hour away,
    each mail is read all the same, and ``stop`` still ends it."""
    alice = email_of("Alice")
    mail = MailSystem(tmp_path, [MODERATOR, alice], [alice, MODERATOR])
    mail.start()

    async def two_mails() -> int:
        bot = MailBot(
            "Alice", alice, "en", mail.maildir(alice), ROSTER, (), mail.port, random.Random(1)
        )
        bot.poll = 3600.0
        mail.on_delivery = doorbell([bot])
        stop = asyncio.Event()
        task = asyncio.create_task(bot.run(stop))
        for n in (1, 2):  # the second once the bot has gone back to sleep
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = MODERATOR, alice, f"mail {n}"
            msg.set_content("hello")
            await aiosmtplib.send(msg, hostname="127.0.0.1", port=mail.port, timeout=10)
            while bot.read < n or bot.busy:
                await asyncio.sleep(0.01)
        stop.set()
        await task
        return bot.read

    try:
        assert asyncio.run(asyncio.wait_for(two_mails(), 60)) == 2
    finally:
        mail.stop()


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


@pytest.mark.parametrize(
    ("lang", "said"),
    [("fr", "Chasse aux sorcières par courriel"), ("en", "Chasse aux sorcières by email")],
)
def test_the_mail_demo_s_banner_names_the_game_by_its_title(
    lang: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make demo`` opened with « lupus-in-tabula par courriel »: the game's id in a French
    line. Its banner names the game by its title; the game itself is not played here."""
    from pbem.tools import maildemo

    async def not_played(*args: Any, **kw: Any) -> DemoResult:
        raise RuntimeError("not played")

    monkeypatch.setattr(maildemo, "play_by_mail", not_played)
    out = io.StringIO()
    with pytest.raises(RuntimeError):
        maildemo.run_mail_demo("chasse-aux-sorcieres", 0, 1, lang, str(tmp_path / "demo"), out)
    assert said in out.getvalue() and "chasse-aux-sorcieres" not in out.getvalue()


def test_the_list_mode_is_ignored_offline(capsys: pytest.CaptureFixture[str]) -> None:
    from pbem.cli.main import main

    assert main(["demo", "--offline", "--list", "relay", "--seed", "1", "--lang", "en"]) == 0
    captured = capsys.readouterr()
    assert "--list relay ignored" in captured.err and "Winner" in captured.out


# ---- the other games by email ---------------------------------------------------------------
# Each game's own FAST table, a little tighter: a test stays well under half a minute.

LG_QUICK = {
    "bite_window": 1.5,
    "election_window": 2,
    "night_council_duration": 1.5,
    "night_witch_duration": 1,
    "day_duration": 2.5,
}
CHASSE_QUICK = {
    "leo_duration": 1,
    "coop_duration": 1,
    "w1_duration": 1.5,
    "w2_duration": 1,
    "day_duration": 2.5,
}
DRACULA_QUICK = {
    "day1": 1.2,
    "day": 1.2,
    "pairing": 1.2,
    # the rooms chosen by mail are counted below: twice the FAST window, so that bots starved
    # by a busy machine still answer in it (1.5 s saw none chosen under a load of 12)
    "room_choice": 3,
    "magnifier": 1,
    "bites": 1.5,
    "dance_reply": 1,
    "dawn_curse": 1,
    "final_choice": 1.5,
    "flames": 1,
}


def _bodies(posts: list[bytes]) -> list[tuple[str, str]]:
    """(Subject and title, text) of each post of the thread."""
    out = []
    for raw in posts:
        msg = parse(raw)
        body = msg.get_body(("plain",))
        out.append((_seen(msg), str(body.get_content()) if body else ""))
    return out


def _orders_by_mail(root: Path, keyword: str) -> int:
    """How many mails the daemon read from players with a line starting with ``keyword``."""
    count = 0
    for raw in _messages(root / "mail" / MODERATOR / "Maildir" / ".Processed"):
        msg = parse(raw)
        body = msg.get_body(("plain",))
        text = str(body.get_content()) if body else ""
        if any(line.upper().startswith(keyword) for line in text.splitlines()):
            count += 1
    return count


@pytest.mark.slow(105)
def test_loup_garou_by_email_with_the_daemon_relaying_the_list(tmp_path: Path) -> None:
    """16 bots play Loup-Garou to its end; the daemon is the list (night posts are held)."""
    result, text = _played(
        tmp_path,
        game="loup-garou",
        seed=3,
        lang="en",
        options=LG_QUICK,
        timeout=GAME_BOUND,
        list_mode="relay",
    )
    assert len(result.summary["players"]) == 16
    subjects = [s for s, _ in _bodies(result.posts)]
    # a night and a day were resolved: the dawn names the night's dead, the day ends
    assert any("Day 1: dawn" in s for s in subjects), subjects
    assert any(s.endswith(("Day 1: the lynch", "Day 1: final tally")) for s in subjects)
    assert any("Game over" in s for s in subjects)
    # the Mayor was elected by mail, the wolves chose by mail, votes were relayed
    assert _orders_by_mail(tmp_path, "MAYOR ") and _orders_by_mail(tmp_path, "KILL ")
    assert " via demo: " in text and "Game over" in text
    assert sum(b.sent for b in result.bots) > 2 * 16


# the longest test of a loaded full run (269 s; Loup-Garou's 218 s): started in the first wave
@pytest.mark.slow(130)
def test_chasse_aux_sorcieres_by_email(tmp_path: Path) -> None:
    """14 bots, none called Léo (a role's name), play Chasse aux sorcières to its end."""
    result, _ = _played(
        tmp_path,
        game="chasse-aux-sorcieres",
        seed=5,
        lang="fr",
        options=CHASSE_QUICK,
        timeout=GAME_BOUND,
    )
    names = [p["name"] for p in result.summary["players"]]
    assert len(names) == 14 and "Léo" not in names
    subjects = [s for s, _ in _bodies(result.posts)]
    assert any("Nuit 1" in s for s in subjects) and any("Jour 1" in s for s in subjects)
    assert any("Fin de la partie" in s for s in subjects), subjects
    # the players read their French STATUS and voted on the list
    assert any(b"VOTE " in p or b"**" in p for p in result.posts)
    printed = io.StringIO()
    print_summary(result, printed)
    assert "Vainqueur" in printed.getvalue()  # a French game: French words
    # the bots gave their genders at sign-up: a woman's card agrees (« Innocente »)
    women = [p for p in result.summary["players"] if GENDERS.get(p["name"]) == "f"]
    assert women and all(p["role"] != "Innocent" for p in women), women


@pytest.mark.slow(30)
def test_dracula_plays_a_round_by_email(tmp_path: Path) -> None:
    """13 bots play one round of Dracula: rooms chosen by mail each night, the round's
    scores posted, the game over after it."""
    result, _ = _played(
        tmp_path, game="dracula", seed=2, lang="en", options=DRACULA_QUICK, timeout=GAME_BOUND
    )
    summary = result.summary
    assert summary["status"] == "finished" and summary["round"] == 1 and summary["winners"]
    assert len(summary["players"]) == 13
    posts = _bodies(result.posts)
    round_end = [b for s, b in posts if s.endswith("End of round 1")]
    assert len(round_end) == 1 and "Cumulative scores:" in round_end[0]
    assert any(s.endswith("Round 1, night 5") for s, _ in posts)
    assert any(s.endswith("End of the game") for s, _ in posts)
    assert _orders_by_mail(tmp_path, "ROOM ") >= 13  # the nights' rooms, chosen by mail
    printed = io.StringIO()
    print_summary(result, printed)
    best = max(summary["scores"].values())
    label = "Winner:" if len(summary["winners"]) == 1 else "Winners:"
    assert f"{label} {', '.join(summary['winners'])} ({best} point" in printed.getvalue()


DRACULA_ROSTER = ("Alice", "Bruno", "Chloé", "Damien", "Élodie")


def test_a_bot_reads_each_games_status_wording() -> None:
    """Chasse's players are "in play"; Dracula's STATUS has no living line, only scores;
    Loup-Garou's wolves know "the other Wolves"."""
    chasse = [s.keyword("fr") for s in rules_for("chasse-aux-sorcieres").all_commands]
    body = (
        "Commandes possibles maintenant :\n  TUER\n  CONSEIL\n  AIDE\n\n"
        "Phase : conseil des Démons (nuit 2), fin le mar. 6 janv. à 12:00 UTC.\n"
        "Joueurs en jeu : Alice, Bruno et Hugo.\n"
    )
    view = read_reply(body, ROSTER, chasse, "fr")
    assert view is not None and view.living == ("Alice", "Bruno", "Hugo")
    assert view.phase == "conseil des Démons (nuit 2)" and view.commands == (
        "TUER",
        "CONSEIL",
        "AIDE",
    )
    loupgarou = [s.keyword("en") for s in rules_for("loup-garou").all_commands]
    body = (
        "The other Wolves: Damien.\nPhase: night 1, council until Tue 6 Jan 12:00 UTC.\n"
        "Mayor: Alice.\nLiving players: Alice, Chloé, Damien and Hugo.\n"
    )
    view = read_reply(body, ROSTER, loupgarou, "en")
    assert view is not None and view.partners == ("Damien",)
    # the witch's step of the same night is another step: the bot may act again
    later = read_reply(body.replace("council", "end of night"), ROSTER, loupgarou, "en")
    assert later is not None and later.phase == view.phase and later.step != view.step


def test_a_dracula_bot_follows_help_and_its_prompt() -> None:
    specs = rules_for("dracula").all_commands
    keywords = [s.keyword("en") for s in specs]
    day = (
        "What you can send now:\n  VOTE name — vote (post it on the list)\n"
        "  ROOM BOUDOIR|BALLROOM — choose (post it on the list)\n  HELP\n  STATUS\n\n"
        "Your situation, Alice (round 1): Human, alive.\nObjects: none.\nYou are cursed.\n"
        "Phase: day 2, until Tue 6 Jan 12:00 UTC.\n"
        "Scores: Alice 0, Bruno 0, Chloé 0, Damien 0, Élodie 0.\n"
    )
    view = read_reply(day, DRACULA_ROSTER, keywords, "en")
    assert view is not None and view.living == DRACULA_ROSTER and view.public == ("VOTE", "ROOM")
    night = day.replace("  VOTE name — vote (post it on the list)\n", "").replace(
        "ROOM BOUDOIR|BALLROOM — choose (post it on the list)", "ROOM BOUDOIR|BALLROOM — choose"
    )
    view = read_reply(
        night.replace("day 2", "night (room choice) 2"), DRACULA_ROSTER, keywords, "en"
    )
    assert view is not None and view.public == ()
    prompt = (
        "Send me privately ROOM followed by BOUDOIR, BALLROOM, DUNGEONS or TORTURE before 12:00."
    )
    rng = random.Random(3)
    for _ in range(30):
        move = choose(view, "Alice", specs, "en", rng, prompt)
        assert move is not None and move[0] == "private"
        room = move[1].split()
        assert room[0] == "ROOM" and room[1] in ("BOUDOIR", "BAL", "GEOLES", "TORTURE")
    bites = read_reply(
        "Commands you can use now:\n  BITE\n  HELP\n\nPhase: night (bites) 2, until 12:00.\n"
        "Scores: Alice 0, Bruno 0, Chloé 0, Damien 0, Élodie 0.\n",
        DRACULA_ROSTER,
        keywords,
        "en",
    )
    assert bites is not None
    for _ in range(30):
        move = choose(bites, "Alice", specs, "en", rng, "", named=("Alice", "Chloé", "Élodie"))
        assert move is not None and move[1].split()[1] in ("Chloé", "Élodie")


def test_the_demo_fails_on_a_round_closed_before_the_bots_voted() -> None:
    """Issue 21 item 16, from ``pbem demo --seed 318699``: « premier tour du vote » opened, the
    bots' votes answered « Il n'y a pas de vote en cours », the round's result « Aucun vote ».
    The demo now names both and exits 1 (its transcript's events and its bots' refusals)."""
    events: list[dict[str, Any]] = [
        {"type": "PhaseStarted", "phase": "round1", "number": 2},
        {"type": "VoteSet", "ballot": "round1", "voter": "Bruno", "target": "Alice"},
        {"type": "PhaseClosed", "key": "round1", "awaited": ["Alice"]},
        {"type": "PhaseStarted", "phase": "round1", "number": 3},
        {"type": "PhaseClosed", "key": "round1", "awaited": ["Alice", "Bruno", "Chloé"]},
        # a step with no ballot (a debate, a night) closes with no vote as it should
        {"type": "PhaseStarted", "phase": "debate", "number": 4},
        {"type": "PhaseClosed", "key": "debate", "awaited": []},
    ]
    assert empty_rounds(events) == ["round round1 (round1 3) closed with no vote"]
    bot = MailBot("Chloé", "chloe@x", "fr", Path("/nonexistent"), ROSTER, (), 0, random.Random(1))
    bot.refusals.append("Chloé, jour 3: VOTE Jules — Il n'y a pas de vote en cours.")
    bot.refusals.append("Chloé, day 3: VOTE Alice — Alice is not a living player.")
    bot.refusals.append("Chloé, day 3: PASS — There is nothing to pass now.")
    problems = demo_problems([bot], events)
    # a random target the rules refuse is no contradiction: the bot tries again
    assert problems == [
        "a bot's move refused after its step closed: "
        "Chloé, jour 3: VOTE Jules — Il n'y a pas de vote en cours.",
        "a bot's move refused after its step closed: "
        "Chloé, day 3: PASS — There is nothing to pass now.",
        "round round1 (round1 3) closed with no vote",
    ]


def test_a_bot_notes_each_refused_line_of_its_moves_and_cancel_is_no_chat() -> None:
    """A receipt refusing a bot's move is noted (the demo fails on it); and CANCEL, whose
    argument is free text, is never used to chat (« ANNULER Qui est le Voyant ? » was refused
    in every French demo)."""
    bot = MailBot("Chloé", "chloe@x", "fr", Path("/nonexistent"), ROSTER, (), 0, random.Random(1))
    bot._moves["<m1@x>"] = "Jour 3, premier tour"
    receipt = EmailMessage()
    receipt["From"] = MODERATOR
    receipt["Auto-Submitted"] = "auto-replied"
    receipt["In-Reply-To"] = "<m1@x>"
    receipt.set_content("  ✗ VOTE Jules — Il n'y a pas de vote en cours.\n")
    asyncio.run(bot.handle(receipt))
    assert bot.refusals == [
        "Chloé, Jour 3, premier tour: VOTE Jules — Il n'y a pas de vote en cours."
    ]
    specs = rules_for("lupus-in-tabula").all_commands
    view = View(("CANCEL", "PASS"), "night 1", ROSTER[:4], (), ())
    for seed in range(30):
        move = choose(view, "Alice", specs, "en", random.Random(seed))
        assert move is None or "CANCEL" not in move[1], move


def test_the_game_watch_reads_each_closed_segment_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's driver follows the game as the daemon commits it: each closed segment (they
    never change) is read once, not again at every poll, and the table it folds is the game's."""
    from pbem.adapters.store import GameStore
    from pbem.table import Table
    from pbem.tools.demo import demo_setup
    from pbem.tools.demo_mail import GAME_ID
    from pbem.tools.demo_watch import GameWatch

    setup = demo_setup("lupus-in-tabula", 0, 2, "en")
    played = whole_game("lupus-in-tabula", "en", salt=None, gendered=False)
    encoded = [played.rules.codec.encode(e) for e in played.events]
    store = GameStore.create(tmp_path, GAME_ID, setup, encoded[:5], [], segment_size=20)
    store = GameStore(tmp_path / "games" / GAME_ID, segment_size=20)
    reads: list[int] = []
    segment_events = GameStore.segment_events

    def read(self: GameStore, n: int) -> list[dict[str, Any]]:
        reads.append(n)
        return segment_events(self, n)

    monkeypatch.setattr(GameStore, "segment_events", read)
    watch = GameWatch(tmp_path)
    for start in range(5, 105, 10):  # the daemon commits, the driver polls
        store.commit(events=encoded[start : start + 10])
        watch.poll()
        watch.poll()  # nothing written since: not even the head is read
    assert store.segments >= 4 and sorted(reads) == list(range(1, store.segments + 1))
    assert watch.seen == 105 and watch.table.events == Table.load(setup, encoded[:105]).events


def test_the_mail_systems_deliveries_are_read_in_their_order(tmp_path: Path) -> None:
    """The embedded mail system writes its Maildir files itself (no fsync): a burst written
    within one tick of the file system's clock is read in delivery order, by the daemon's
    Maildir mailbox and by a bot."""
    from pbem.adapters.imap import ImapSettings
    from pbem.adapters.maildir import MaildirMailbox

    alice = email_of("Alice")
    mail = MailSystem(tmp_path, [MODERATOR, alice], [alice, MODERATOR])
    for address in (MODERATOR, alice):
        for i in range(12):
            mail._deliver(
                mail.maildir(address), f"From: {MODERATOR}\r\nSubject: m{i}\r\n\r\n.\r\n".encode()
            )
        for path in (mail.maildir(address) / "new").iterdir():
            os.utime(path, ns=(1_796_552_302_000_000_000, 1_796_552_302_000_000_000))
    settings = ImapSettings(host="", port=1, user="", password="", max_size=1000)
    box = MaildirMailbox(mail.maildir(MODERATOR), settings)
    box.connect()
    read = [parse(f.raw or b"")["Subject"] for f in box.fetch(box.pending_uids())]
    bot = MailBot("Alice", alice, "en", mail.maildir(alice), ROSTER, (), 0, random.Random(1))
    expected = [f"m{i}" for i in range(12)]
    assert read == expected and [m["Subject"] for m in bot.new_mail()] == expected


def test_make_demo_lang_en_plays_in_english_whatever_the_locale() -> None:
    """``make demo LANG=en`` (README's quick start): the mail language from make's command
    line; a LANG from the environment is the locale, not a mail language."""
    root = Path(__file__).resolve().parents[2]

    def recipe(*args: str, env_lang: str = "en_GB.UTF-8") -> str:
        env = {**os.environ, "LANG": env_lang}
        r = subprocess.run(
            ["make", "-s", "-n", "-C", str(root), "demo", *args],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        (line,) = [x for x in r.stdout.splitlines() if "pbem demo" in x]
        return line

    assert recipe().endswith("--lang fr")
    assert recipe("LANG=en").endswith("--lang en")
    assert "make demo LANG=en" in (root / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres"])
def test_the_french_summary_names_roles_and_sides_as_the_game_does(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22: the demos' summary block (mail demo and ``pbem demo``) names each role and
    side as the French game does, never by its id (``seer``, ``villagers``)."""
    from pbem.record.archive import named_summary
    from pbem.tools.demo import run_demo

    table = whole_game(game, "fr")
    raw = table.summary()
    ids = {str(p["role"]) for p in raw["players"]} | {str(p["team"]) for p in raw["players"]}
    result = DemoResult(tmp_path, True, named_summary(table), [], 0.0, 0, 0, 0, [], lang="fr")
    printed = io.StringIO()
    print_summary(result, printed)
    assert run_demo(game, 0, 1, "fr") == 0
    for out in (printed.getvalue(), capsys.readouterr().out.split("Bilan")[-1]):
        rows = [line.split() for line in out.splitlines() if line.startswith("  ")]
        words = {w for row in rows for w in row} | {w.strip(",.") for row in rows for w in row}
        assert not ids & words, ids & words
        assert "Vainqueur" in out and "Winner" not in out


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_offline_demo_agrees_with_its_players_and_names_a_match_s_scores(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pbem demo --offline``: its players give their genders, as the mail demo's do, so
    a woman's card agrees in French (« Villageoise »: Lupus, seed 2, deals Gaëlle and
    Bruno a villager); Dracula, a game of points, names the best score and each player's, never a
    side (it printed « Vainqueurs : None »); the columns hold the longest name (Loup-Garou's
    « Maîtresse des loups » ran into its side)."""
    from pbem.tools.demo import run_demo

    assert run_demo("lupus-in-tabula", 0, 2, lang) == 0
    lines = capsys.readouterr().out.splitlines()[-16:]
    rows = {line.split()[0]: line for line in lines if line.startswith("  ")}
    assert ("Villageoise" if lang == "fr" else "Villager") in rows["Gaëlle"], rows
    assert "Villageoise" not in rows["Bruno"]
    assert run_demo("dracula", 0, 3, lang) == 0
    out = capsys.readouterr().out
    assert "None" not in out and ("Vainqueur : Hugo (6 points)" in out or lang == "en")
    assert lang == "fr" or "Winner: Hugo (6 points)" in out  # one winner: the singular
    assert run_demo("loup-garou", 0, 3, "fr") == 0
    table = capsys.readouterr().out.split("Bilan")[-1].splitlines()
    (inès,) = [line for line in table if line.startswith("  Inès ")]
    (jules,) = [line for line in table if line.startswith("  Jules ")]
    assert inès.index("Loups-garous") == jules.index("Joueur de flûte (seul)"), table


def test_the_summary_speaks_the_games_language(tmp_path: Path) -> None:
    """A French game's terminal summary (``pbem demo``, ``make demo``) reads French, with no
    English label; ``LANG=en`` (an English game) keeps English."""
    from pbem.record.archive import named_summary
    from tests.archive.bot_games import whole_game

    english = {"Summary", "Winners:", "Winner:", "nobody", "alive", "dead", "posts", "through"}
    for lang, said in (("fr", "Vainqueur"), ("en", "Winner")):
        table = whole_game("lupus-in-tabula", lang)
        result = DemoResult(tmp_path, True, named_summary(table), [], 1.5, 40, 90, 0, [], lang=lang)
        printed = io.StringIO()
        print_summary(result, printed)
        out = printed.getvalue()
        assert said in out
        if lang == "fr":
            assert not english & set(out.split()), english & set(out.split())
            assert "0 messages sur la liste, 40 courriels passés par SMTP" in out
            assert "1,5 s ; code de sortie du démon : 0" in out
            assert "hors jeu" in out or "en vie" in out
        else:
            assert "0 posts on the list, 40 messages through SMTP" in out
    # the in-memory demo (pbem demo --offline): its run in French is read by the test above


def test_the_idle_closer_has_the_daemon_drain_its_close_at_once(tmp_path: Path) -> None:
    """The demo's ``CLORE`` goes to the operator's spool, which the daemon's request ticker
    looks at only every second: the closer then calls ``kick`` (the demo has the daemon's
    writer drain the spool at once: a Dracula demo closes some forty steps), once per step."""
    from pbem.adapters.store import GameStore
    from pbem.tools.demo import demo_setup
    from pbem.tools.demo_mail import GAME_ID
    from pbem.tools.demo_watch import GameWatch, IdleCloser

    setup = demo_setup("lupus-in-tabula", 0, 2, "en")
    played = whole_game("lupus-in-tabula", "en", salt=None, gendered=False)
    encoded = [played.rules.codec.encode(e) for e in played.events[:5]]
    GameStore.create(tmp_path, GAME_ID, setup, encoded, [], segment_size=20)
    kicks: list[int] = []
    watch = GameWatch(tmp_path)
    closer = IdleCloser(tmp_path, tmp_path / "box", [], "en", kick=lambda: kicks.append(1))
    closer.check(watch)
    spooled = [p for p in tmp_path.rglob("*") if p.is_file() and "games" not in p.parts]
    assert len(spooled) == 1 and kicks == [1] and closer.closes == 1, spooled
    closer.check(watch)  # the same step, nothing new: not closed again, not kicked again
    assert kicks == [1] and closer.closes == 1
