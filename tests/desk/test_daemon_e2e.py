"""The game master's desk through the real daemon, Dovecot and SMTP (issue 14): an admin of the
daemon extends a phase and ends the game by mail, and asks for the table with ``pbem admin``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.adapters.store import GameStore
from pbem.table import Table
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import Daemon, mail, pbem, send, wait_for, write_config
from tests.support.mailstack import ADMIN, LIST, MODERATOR, PLAYERS, MailStack


def _table(data: Path) -> Table:
    gs = GameStore(data / "games" / "lupus1", readonly=True)
    return Table.load(gs.setup, gs.events())


def _got(stack: MailStack, who: str, subject: str) -> list[str]:
    return [
        m.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        for m in stack.messages(who)
        if subject in str(m["Subject"])
    ]


@pytest.mark.slow(15)
def test_admin_extends_a_phase_and_ends_the_game_by_mail(stack: MailStack, tmp_path: Path) -> None:
    (tmp_path / "admin.code").write_text("desk-code-0123456789\n")
    cfg = write_config(
        stack,
        tmp_path,
        engine="pbem.table:Table",
        auth='[auth]\nadmin_secret_file = "admin.code"',
    )
    setup = {
        "game": "lupus-in-tabula",
        "seed": 3,
        "lang": "en",
        "players": [{"name": p.capitalize(), "email": f"{p}@example.test"} for p in PLAYERS],
        "list": LIST,
    }
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    r = pbem_in_process(cfg, "new-game", "--setup", str(tmp_path / "setup.json"), "--id", "lupus1")
    assert r.returncode == 0, r.stderr
    data = tmp_path / "data"
    before = dict(_table(data).deadlines())
    d = Daemon(cfg).start()
    try:
        send(
            stack,
            mail(
                ADMIN,
                "SECRET desk-code-0123456789\nEXTEND 24h",
                to=MODERATOR,
                subject="[lupus1] desk",
            ),
        )
        wait_for(
            lambda: all(_got(stack, f"{p}@example.test", "Deadline extended") for p in PLAYERS),
            what="every player told the new deadline",
            log=d.log,
        )
        (key, due), *_ = before.items()
        new = _table(data).deadlines()[key]
        assert (new - due).total_seconds() == 24 * 3600
        when = _table(data).renderer.when(new, "en")
        assert when in _got(stack, "alice@example.test", "Deadline extended")[0]
        assert _got(stack, ADMIN, "Your commands"), d.log()

        # from the shell: queued, applied by the daemon, answered by mail to the admins
        r = pbem(cfg, "admin", "lupus1", "ROLES")
        assert r.returncode == 0 and "queued for lupus1: ROLES" in r.stdout, r.stderr
        wait_for(
            lambda: any(
                "The table of Lupus" in b for b in _got(stack, ADMIN, "The table: roles and sides")
            ),
            what="the table mailed to the admin",
            log=d.log,
        )
        # --wait: the daemon's answer comes back to the command too (issue 21, item 9)
        r = pbem(cfg, "admin", "lupus1", "ROLES", "--wait", "--timeout", "50")
        assert r.returncode == 0 and "The table of Lupus" in r.stdout, (r, d.log())
        assert not list((data / "answers").iterdir())  # the pipe is gone with the command

        send(
            stack,
            mail(
                ADMIN,
                "SECRET desk-code-0123456789\nEND NONE",
                to=MODERATOR,
                subject="[lupus1] desk",
            ),
        )
        wait_for(
            lambda: all(_got(stack, f"{p}@example.test", "The game is over") for p in PLAYERS),
            what="every player told the game is over",
            log=d.log,
        )
        assert _table(data).finished
        final = _got(stack, "bob@example.test", "The game is over")[0]
        assert "Nobody wins." in final
        for p in PLAYERS:
            assert p.capitalize() in final  # every card revealed

        def archived(who: str) -> bool:
            return any(
                part.get_filename() == "lupus1.html"
                for m in stack.messages(who)
                for part in m.iter_attachments()
            )

        wait_for(  # a game ended by the game master is archived like any other
            lambda: all(archived(f"{p}@example.test") for p in PLAYERS),
            what="every player's archive",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()


def test_pbem_admin_refuses_an_unknown_game_or_command(stack: MailStack, tmp_path: Path) -> None:
    (tmp_path / "admin.code").write_text("desk-code-0123456789\n")
    cfg = write_config(
        stack,
        tmp_path,
        engine="pbem.table:Table",
        auth='[auth]\nadmin_secret_file = "admin.code"',
    )
    r = pbem(cfg, "admin", "nosuchgame", "PAUSE")
    assert r.returncode != 0 and "no game 'nosuchgame'" in r.stderr
