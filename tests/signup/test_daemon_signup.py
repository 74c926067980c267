"""Sign-ups through the daemon's coordinator (in process): a lobby made by `pbem open-game`'s
own path, sign-ups by mail committed durably (a new process finds them), `pbem admin` on the
lobby, and the deadline starting the game through the daemon's compare-and-set."""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from datetime import timedelta
from email import message_from_string, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.adapters.store import GameStore
from pbem.cli.newgame import create_game
from pbem.cli.signup import _Opener, signup_setup
from pbem.daemon.operator.admin import AdminCommand
from pbem.daemon.operator.spool import submit
from pbem.daemon.status import gather, render
from pbem.signup.engine import with_signups
from pbem.signup.table import SIGNUP_DEADLINE, SignupTable
from pbem.table import Table
from tests.support.daemon_process import mail
from tests.support.inproc_daemon import World
from tests.support.mailstack import ADMIN, LIST


def _args(**kw: object) -> argparse.Namespace:
    base = dict(
        setup=None,
        game="lupus-in-tabula",
        game_id="v1",
        seats="8-10",
        deadline="48h",
        when_full=True,
        count_every="0",
        option=[],
        seed=3,
        lang="en",
        admin=[],
        list_address=None,
        player=[],
    )
    return argparse.Namespace(**{**base, **kw})


def _world(tmp_path: Path) -> World:
    w = World(tmp_path, engine=with_signups(Table))
    w.cfg = replace(w.cfg, engine="pbem.table:Table")  # what `pbem status` loads games with
    setup = signup_setup(_args(), w.cfg, w.now)
    create_game(w.cfg, setup, _Opener, w.now)
    return w


def _join(i: int, name: str) -> EmailMessage:
    return mail(f"p{i}@example.test", f"JOIN {name}", to="moderator+v1@example.test")


def test_sign_ups_are_durable_and_the_deadline_starts_the_game(tmp_path: Path) -> None:
    w = _world(tmp_path)
    try:
        svc = w.start()
        assert isinstance(svc.games["v1"].table, SignupTable)
        announce = [r for r in svc.games["v1"].store.outbox() if LIST in str(r["rcpts"])]
        assert len(announce) == 1  # the announcement, queued by open-game
        names = ["Jean Pierre", "Anne", "Bea", "Carl", "Dora", "Eve", "Fred", "Gus"]
        fetched = w.fetched(*(_join(i, n) for i, n in enumerate(names[:5])))
        assert set(svc.writer.handle_batch(fetched).values()) == {"processed"}
        svc = w.start()  # a new process: the sign-ups are on disk
        table = svc.games["v1"].table
        assert isinstance(table, SignupTable) and len(table.lobby.seated) == 5
        fetched = w.fetched(*(_join(i, n) for i, n in enumerate(names) if i >= 5))
        svc.writer.handle_batch(fetched)
        # `pbem admin` on the lobby: the same commands as by mail
        submit(w.cfg.data_dir, AdminCommand.now("v1", ["STATUS"]))
        assert svc.operator.apply_requests() == 1
        status = gather(w.cfg, w.now)
        assert [g["phase"] for g in status["games"]] == ["signup"]
        assert "signed up: 8 of 8-10 seats: Jean Pierre, Anne" in render(status)
        # the header counts the sign-ups and the seats, not the setup's (empty) players
        assert "v1  lupus-in-tabula  8 signed up of 8-10 seats" in render(status)
        due = svc.deadlines.effective(svc.games["v1"])[SIGNUP_DEADLINE]
        w.now = due
        assert svc.deadlines.resolve("v1", SIGNUP_DEADLINE, due)
        assert svc.games["v1"].table.started  # type: ignore[attr-defined]
        svc = w.start()  # after a restart the started game is the plain Table
        game = svc.games["v1"].table
        assert isinstance(game, Table) and list(game.player_emails) == names
        assert "v1  lupus-in-tabula  8 players" in render(gather(w.cfg, w.now))
        rows = GameStore(w.cfg.data_dir / "games" / "v1", readonly=True).outbox()
        assert any("p0@example.test" in str(r["rcpts"]) and r["kind"] == "reply" for r in rows)
        assert ADMIN in str([r["rcpts"] for r in rows])  # the admin request's reply
    finally:
        w.close()


def test_players_who_signed_up_by_mail_get_their_secret_code_by_mail(tmp_path: Path) -> None:
    """With 'secret' among the [auth] layers, open-game no longer refuses: sign-ups need no
    code, the start mails each player his own, and from then on a command carrying the mailed
    code is accepted while one without it is refused (issue 13)."""
    w = World(tmp_path, engine=with_signups(Table))
    w.cfg = replace(
        w.cfg,
        engine="pbem.table:Table",
        auth=replace(w.cfg.auth, methods=("registered", "secret")),
    )
    setup = signup_setup(_args(seats="8"), w.cfg, w.now)
    assert setup["signup"]["secrets"] is True
    create_game(w.cfg, setup, _Opener, w.now)
    try:
        svc = w.start()
        names = ["Anne", "Bea", "Carl", "Dora", "Eve", "Fred", "Gus", "Hugo"]
        for i, name in enumerate(names):  # no code before the start: each sign-up counts
            svc.writer.handle_batch(w.fetched(_join(i, name)))
        assert svc.games["v1"].table.started  # type: ignore[attr-defined]
        codes = {}
        for row in svc.games["v1"].store.outbox():
            text = row["raw"] if isinstance(row["raw"], str) else ""
            found = re.search(r"^SECRET ([0-9a-f]{32})\s*$", _body(text), re.MULTILINE)
            if found:
                codes[row["rcpts"][0]] = found.group(1)
        assert sorted(codes) == sorted(f"p{i}@example.test" for i in range(8))
        assert len(set(codes.values())) == 8
        svc = w.start()  # after a restart too: the codes are in the log
        table = svc.games["v1"].table
        assert isinstance(table, Table)
        wolf = next(p["name"] for p in table.summary()["players"] if p["role"] == "werewolf")
        victim = next(n for n in names if n != wolf)
        address = f"p{names.index(wolf)}@example.test"
        without = mail(address, f"KILL {victim}", to="moderator+v1@example.test")
        before = _events(svc)
        svc.writer.handle_batch(w.fetched(without))
        assert _events(svc) == before  # refused: no SECRET line
        other = codes[f"p{names.index(victim)}@example.test"]
        wrong = mail(address, f"SECRET {other}\nKILL {victim}", to="moderator+v1@example.test")
        svc.writer.handle_batch(w.fetched(wrong))
        assert _events(svc) == before  # refused: another player's code
        right = mail(
            address, f"SECRET {codes[address]}\nKILL {victim}", to="moderator+v1@example.test"
        )
        svc.writer.handle_batch(w.fetched(right))
        assert _events(svc) > before  # accepted: his own code
    finally:
        w.close()


def _body(raw: str) -> str:
    msg = message_from_string(raw, policy=policy.default)
    part = msg.get_body(("plain",)) if isinstance(msg, EmailMessage) else None
    return str(part.get_content()) if part is not None else ""


def _events(svc: Any) -> int:
    return len(GameStore(svc.cfg.data_dir / "games" / "v1", readonly=True).events())


def test_the_game_master_extends_the_sign_ups_with_pbem_admin(tmp_path: Path) -> None:
    """`pbem admin v1 EXTEND 24h` on a lobby: the daemon arms the moved deadline."""
    w = _world(tmp_path)
    try:
        svc = w.start()
        before = svc.deadlines.effective(svc.games["v1"])[SIGNUP_DEADLINE]
        submit(w.cfg.data_dir, AdminCommand.now("v1", ["EXTEND 24h"]))
        assert svc.operator.apply_requests() == 1
        after = svc.deadlines.effective(svc.games["v1"])[SIGNUP_DEADLINE]
        assert after - before == timedelta(hours=24)
        svc = w.start()  # the extension is an event of the game: it survives a restart
        assert svc.deadlines.effective(svc.games["v1"])[SIGNUP_DEADLINE] == after
    finally:
        w.close()


def test_the_game_masters_decision_by_mail_needs_the_admin_code(tmp_path: Path) -> None:
    """The deadline asks the game masters; their START by mail is the desk's: refused without
    the game's admin code (and nobody answered), applied with it."""
    w = World(tmp_path, engine=with_signups(Table))
    w.cfg = replace(w.cfg, engine="pbem.table:Table")
    create_game(w.cfg, signup_setup(_args(), w.cfg, w.now), _Opener, w.now, False, "code-123456")
    try:
        svc = w.start()
        names = ["Anne", "Bea", "Carl", "Dora", "Eve", "Fred", "Gus", "Hugo"]
        svc.writer.handle_batch(w.fetched(*(_join(i, n) for i, n in enumerate(names[:7]))))
        due = svc.deadlines.effective(svc.games["v1"])[SIGNUP_DEADLINE]
        w.now = due
        assert svc.deadlines.resolve("v1", SIGNUP_DEADLINE, due)  # 7: the rules refuse it
        outbox = svc.games["v1"].store.outbox
        assert any(ADMIN in r["rcpts"] and r["kind"] == "reply" for r in outbox())  # asked
        svc.writer.handle_batch(
            w.fetched(_join(7, "Hugo"))
        )  # 8 now, a count the rules accept: the GM decides
        forged = mail(ADMIN, "START", to="moderator+v1@example.test")
        svc.writer.handle_batch(w.fetched(forged))
        assert not svc.games["v1"].table.started  # type: ignore[attr-defined]
        signed = mail(ADMIN, "SECRET code-123456\nSTART", to="moderator+v1@example.test")
        svc.writer.handle_batch(w.fetched(signed))
        assert svc.games["v1"].table.started  # type: ignore[attr-defined]
    finally:
        w.close()
