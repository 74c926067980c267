"""The real daemon mails everyone the archive when a game ends; the opening post's commitment
verifies against the deal the archive reveals (issue 14)."""

from __future__ import annotations

import json
import random
import re
import time
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.cli.main import main
from pbem.record.deal import find_reveal
from pbem.table import Table
from pbem.tools.bots import bot_mails
from tests.daemon.test_lupus_e2e import DURATIONS
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, StoredTable, send, wait_for, write_config
from tests.support.mailstack import ADMIN, LIST, PLAYERS, MailStack


def _table(data: Path) -> Table:
    gs = GameStore(data / "games" / "lupus9", readonly=True)
    return Table.load(gs.setup, gs.events())


@pytest.mark.slow(20)
def test_everyone_gets_the_archive_when_the_game_ends(stack: MailStack, tmp_path: Path) -> None:
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
    r = pbem_in_process(cfg, "new-game", "--setup", str(tmp_path / "setup.json"), "--id", "lupus9")
    assert r.returncode == 0, r.stderr
    data = tmp_path / "data"
    salt = GameStore(data / "games" / "lupus9", readonly=True).setup["deal_salt"]
    assert re.fullmatch(r"[0-9a-f]{32}", salt)  # drawn by new-game from the OS
    d = Daemon(cfg).start()
    rng = random.Random(5)
    try:
        acted: set[tuple[tuple[str, object], ...]] = set()
        stored = StoredTable(data, "lupus9")
        end = time.monotonic() + 150
        while time.monotonic() < end and not (table := stored()).finished:
            phase = tuple(sorted(table.deadlines().items()))
            if phase and phase not in acted:
                acted.add(phase)
                mails = [m for m, _channel in bot_mails(table, rng)]
                for m in mails:
                    m["Message-ID"] = make_msgid(domain="example.test")
                send(stack, *mails)
            time.sleep(0.2)
        assert _table(data).finished, f"the game did not finish\n{d.log()}"

        def archives(user: str) -> list[object]:
            return [
                m
                for m in stack.messages(user)
                if any(p.get_filename() == "lupus9.html" for p in m.iter_attachments())
            ]

        users = [f"{p}@example.test" for p in PLAYERS] + [ADMIN]
        wait_for(lambda: all(archives(u) for u in users), what="archives delivered", log=d.log)
        assert d.stop() == 0
    finally:
        d.kill()
    # the commitment announced in the opening post (on the list, before any role was known)
    opening = next(
        m
        for m in stack.messages("alice@example.test")
        if "Engagement sur la donne" in str(m.get_body(("plain",)).get_content())
    )
    announced = re.search(r"[0-9a-f]{64}", str(opening.get_body(("plain",)).get_content()))
    assert announced is not None
    for user in users:
        (mail,) = archives(user)
        text = str(mail.get_body(("plain",)).get_content())
        assert "DISTRIBUTION" in text and "LE RÉCIT" in text  # the text archive, in French
        html = next(p for p in mail.iter_attachments()).get_content()
        shown = find_reveal(html)
        assert shown is not None and shown.verifies and shown.digest == announced.group()
        assert shown.salt == salt
    page = tmp_path / "archive.html"
    page.write_text(html, encoding="utf-8")
    assert main(["verify", str(page)]) == 0
