"""A whole Lupus in Tabula game played by email through the real daemon and real servers.

Bot players (``pbem.tools.bots``) read the game's state, mail their commands by SMTP (private orders to
the moderator, votes to the list, which fans them out with a List-Id), and the daemon resolves
each phase at its deadline (seconds here) until a side wins; then it mails everyone the archive,
whose deal verifies against the commitment of the opening post (issue 14).
"""

from __future__ import annotations

import json
import random
import re
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.cli.main import main
from pbem.record.deal import find_reveal
from pbem.table import Table
from pbem.tools.bots import bot_mails
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, StoredTable, send, wait_for, write_config
from tests.support.mailstack import ADMIN, LIST, MODERATOR, PLAYERS, MailStack

DURATIONS = {
    "night_duration": "1.5s",
    "debate_duration": "1s",
    "round1_duration": "1.5s",
    "defence_duration": "1s",
    "round2_duration": "1.5s",
    "tally_min_interval": "1s",
}


def _table(data: Path) -> Table:
    gs = GameStore(data / "games" / "lupus1", readonly=True)
    return Table.load(gs.setup, gs.events())


# one game for both checks: the game by mail and the archive mailed at its end were two tests
# that played the same game on the same real-time deadlines (25 s alone, 44 s under load each)
@pytest.mark.slow(25)
def test_whole_lupus_game_by_email(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(
        stack,
        tmp_path,
        engine="pbem.table:Table",
        extra_daemon="outbound_cap_per_hour = 100000\nautos_per_day = 1000",
    )
    setup = {
        "game": "lupus-in-tabula",
        "seed": 11,
        "lang": "fr",
        "players": [{"name": p.capitalize(), "email": f"{p}@example.test"} for p in PLAYERS],
        "options": DURATIONS,
        "list": LIST,
        "admins": [ADMIN],
    }
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    r = pbem_in_process(cfg, "new-game", "--setup", str(tmp_path / "setup.json"), "--id", "lupus1")
    assert r.returncode == 0, r.stderr
    data = tmp_path / "data"
    salt = GameStore(data / "games" / "lupus1", readonly=True).setup["deal_salt"]
    assert re.fullmatch(r"[0-9a-f]{32}", salt)  # drawn by new-game from the OS
    d = Daemon(cfg).start()
    rng = random.Random(5)
    sent_private = 0
    users = [f"{p}@example.test" for p in PLAYERS] + [ADMIN]
    try:
        acted: set[tuple[tuple[str, object], ...]] = set()
        stored = StoredTable(data, "lupus1")
        end = time.monotonic() + 150
        while time.monotonic() < end:
            table = stored()
            if table.finished:
                break
            phase = tuple(sorted(table.deadlines().items()))
            if phase and phase not in acted:
                acted.add(phase)
                mails = [m for m, _channel in bot_mails(table, rng)]
                for m in mails:
                    m["Message-ID"] = make_msgid(domain="example.test")  # as a mail client does
                sent_private += sum(1 for m in mails if m["To"] == MODERATOR)
                send(stack, *mails)
            time.sleep(0.2)
        table = _table(data)
        assert table.finished, f"the game did not finish\n{d.log()}"
        summary = table.summary()
        assert summary["winners"]
        # the victory post reached every player through the list
        wait_for(
            lambda: all(
                any(
                    m["List-Id"] and "Precedence" in m and m["Precedence"] == "bulk"
                    for m in stack.messages(f"{p}@example.test")
                )
                for p in PLAYERS
            ),
            what="public posts delivered",
            log=d.log,
        )
        wait_for(lambda: not stack.messages(MODERATOR), what="INBOX drained", log=d.log)
        # each private order gets its reply (receipts go to the registered address); the
        # last ones may still be in the outbox when the game ends: wait for them, then stop
        wait_for(lambda: replies(stack) >= sent_private > 0, what="every order answered", log=d.log)
        wait_for(
            lambda: all(archives(stack, u) for u in users), what="archives delivered", log=d.log
        )
        st = json.loads(pbem_in_process(cfg, "status", "--json").stdout)
        assert st["shunt"] == {"failing": 0, "quarantined": 0}
        assert d.stop() == 0
    finally:
        d.kill()
    assert replies(stack) >= sent_private > 0  # none lost by the stop
    print(f"lupus e2e: winners {summary['winners']}, {sent_private} private orders")
    _check_archives(stack, users, salt, tmp_path)


def replies(stack: MailStack) -> int:
    """The daemon's replies to private mail in the players' mailboxes."""
    return sum(
        1
        for p in PLAYERS
        for m in stack.messages(f"{p}@example.test")
        if m["In-Reply-To"] and m["Auto-Submitted"] == "auto-replied"
    )


def archives(stack: MailStack, user: str) -> list[EmailMessage]:
    """The mails in ``user``'s mailbox that carry the game's HTML archive."""
    return [
        m
        for m in stack.messages(user)
        if any(p.get_filename() == "lupus1.html" for p in m.iter_attachments())
    ]


def _check_archives(stack: MailStack, users: list[str], salt: str, tmp_path: Path) -> None:
    """Every player and the game master got the archive once, in French, and the deal it
    reveals verifies against the commitment of the opening post (issue 14)."""
    # the commitment announced in the opening post (on the list, before any role was known)
    opening = next(
        m
        for m in stack.messages("alice@example.test")
        if "Engagement sur la donne" in str(m.get_body(("plain",)).get_content())
    )
    announced = re.search(r"[0-9a-f]{64}", str(opening.get_body(("plain",)).get_content()))
    assert announced is not None
    for user in users:
        (mail,) = archives(stack, user)
        text = str(mail.get_body(("plain",)).get_content())
        assert "DISTRIBUTION" in text and "LE RÉCIT" in text  # the text archive, in French
        html = next(p for p in mail.iter_attachments()).get_content()
        shown = find_reveal(html)
        assert shown is not None and shown.verifies and shown.digest == announced.group()
        assert shown.salt == salt
    page = tmp_path / "archive.html"
    page.write_text(html, encoding="utf-8")
    assert main(["verify", str(page)]) == 0
