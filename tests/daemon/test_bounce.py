"""Bounces against the real daemon, Dovecot and aiosmtpd: VERP envelopes, hard-bounce counting,
the unreachable flag and its admin alert, and never a reply to a bounce (RELIABILITY §2.4, §2.5).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pbem.adapters.store import GameStore
from pbem.daemon.operator.reachable import Reachable
from pbem.daemon.operator.spool import drain
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import (
    Daemon,
    mail,
    new_fake_game,
    pbem,
    send,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import ADMIN, MODERATOR, MailStack

A, B = "alice@example.test", "bob@example.test"
BOUNCE = "moderator+bounce@example.test"
VERP = re.compile(r"moderator\+bounce-([a-z2-7]{16})@example\.test")


def _config(stack: MailStack, tmp_path: Path) -> Path:
    # IDLE renewed every second: a `pbem reachable` request is acted on at the loop's next turn
    cfg = write_config(
        stack, tmp_path, extra_daemon="hard_bounces = 3", extra_imap="idle_renew = 1.0"
    )
    text = cfg.read_text()
    text = text.replace(
        f'address = "{MODERATOR}"\n', f'address = "{MODERATOR}"\nbounce = "{BOUNCE}"\n'
    )
    text = text.replace("[smtp]\n", "[smtp]\nverp = true\n")
    cfg.write_text(text)
    return cfg


def dsn(
    n: int, *, to: str, final: str | None, status: str = "5.1.1", action: str = "failed"
) -> bytes:
    """An RFC 3464 report as Postfix writes it; ``final=None`` leaves Final-Recipient out."""
    recipient = f"Final-Recipient: rfc822; {final}\r\n" if final else ""
    return (
        "Return-Path: <>\r\n"
        "From: MAILER-DAEMON@mx.example.net (Mail Delivery System)\r\n"
        f"To: {to}\r\n"
        f"Subject: Undelivered Mail Returned to Sender ({n})\r\n"
        f"Message-ID: <dsn{n}@mx.example.net>\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\n"
        "Your message could not be delivered.\r\nCMD evil\r\n\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.net\r\n\r\n"
        f"{recipient}Action: {action}\r\nStatus: {status}\r\n"
        f"Diagnostic-Code: smtp; 550 {status} user unknown\r\n\r\n"
        "--B--\r\n"
    ).encode()


def _bounces(data: Path) -> dict[str, dict[str, Any]]:
    from pbem.adapters.store import GameStore

    return GameStore(data / "games" / "g1", readonly=True).bounce_states()


def _alerts(stack: MailStack) -> list[Any]:
    return [m for m in stack.messages(ADMIN) if "unreachable" in str(m["Subject"])]


def test_three_hard_bounces_flag_the_player_once_and_none_is_answered(
    stack: MailStack, tmp_path: Path
) -> None:
    """RELIABILITY §2.5: hard bounces are counted per player; at 3 within the phase the admins
    get ONE alert and `pbem status` shows the player unreachable; no game action, no reply to
    any bounce, no command read from one; a VERP-addressed DSN without Final-Recipient is
    matched by its token (§2.4); a delay is only logged; an accepted command clears the flag."""
    cfg = _config(stack, tmp_path)
    data = tmp_path / "data"
    new_fake_game(cfg, "g1", ["alice", "bob"])
    d = Daemon(cfg).start()
    try:
        send(stack, mail(A, "CMD one"), mail(B, "CMD two"))

        def envelopes() -> dict[str, str]:
            got = {}
            for mail_from, rcpts, _ in list(stack.handler.received):
                m = VERP.fullmatch(mail_from)
                if m and rcpts in ([A], [B]):
                    got[rcpts[0]] = m.group(1)
            return got

        tokens = wait_for(
            lambda: len(envelopes()) == 2 and envelopes(), what="VERP replies", log=d.log
        )
        assert tokens[A] != tokens[B]
        # the list post of the opening keeps the plain bounce address (not a player's address)
        assert any(
            f == BOUNCE for f, r, _ in stack.handler.received if r == ["game@lists.example.test"]
        )
        sent_before = len(stack.handler.received)

        # two plain DSNs naming alice, a delay (logged only), then a VERP DSN without recipient
        stack.inject(dsn(1, to=BOUNCE, final=A), BOUNCE, sender="")
        stack.inject(dsn(2, to=BOUNCE, final=A), BOUNCE, sender="")
        stack.inject(
            dsn(3, to=BOUNCE, final=A, status="4.4.1", action="delayed"), BOUNCE, sender=""
        )
        verp_a = f"moderator+bounce-{tokens[A]}@example.test"
        stack.inject(dsn(4, to=verp_a, final=None), verp_a, sender="")
        wait_for(lambda: _bounces(data).get("alice", {}).get("unreachable"), what="flag", log=d.log)
        assert _bounces(data)["alice"]["count"] == 3
        wait_for(lambda: _alerts(stack), what="the admin alert", log=d.log)

        # a fourth hard bounce, and bob's VERP bounce: counted, no second alert for alice
        stack.inject(dsn(5, to=BOUNCE, final=A), BOUNCE, sender="")
        verp_b = f"moderator+bounce-{tokens[B]}@example.test"
        stack.inject(dsn(6, to=verp_b, final=None), verp_b, sender="")
        wait_for(lambda: _bounces(data).get("bob", {}).get("count") == 1, what="bob", log=d.log)
        wait_for(lambda: _bounces(data)["alice"]["count"] == 4, what="4th bounce", log=d.log)
        wait_for(lambda: not stack.messages(MODERATOR), what="INBOX drained", log=d.log)

        (alert,) = _alerts(stack)
        body = text_of(alert)
        subject = str(alert["Subject"]).strip()
        # French first, then English, like the daemon's mails to players
        assert (
            subject == "[pbem] g1 : joueur alice injoignable / [pbem] g1: player alice unreachable"
        )
        assert body.index("est revenu en erreur 3 fois") < body.index("bounced 3 times")
        assert A in body and "5.1.1" in body and "pbem reachable g1 alice" in body
        # issue 13: the alert offers the seat to a substitute, naming the command
        assert "pbem seat replace g1 alice" in body and "REPLACE alice WITH" in body
        assert not _bounces(data)["bob"]["unreachable"]
        st = pbem(cfg, "status")
        assert st.returncode == 0 and f"unreachable: alice <{A}>" in st.stdout, st.stdout
        assert "bob" not in st.stdout

        # the operator clears bob's count: the CLI only drops a request, the daemon writes
        r = pbem(cfg, "reachable", "g1", "bob")
        assert r.returncode == 0 and "clearing requested" in r.stdout, r.stderr
        wait_for(lambda: _bounces(data)["bob"]["count"] == 0, what="bob cleared", log=d.log)
        assert _bounces(data)["bob"]["cleared_by"] == "operator"
        # the request file is removed just after the commit that cleared the count
        wait_for(
            lambda: not list((data / "reachable").iterdir()), what="request consumed", log=d.log
        )
        assert "marked reachable by the operator" in d.log()

        # nothing but the one alert went out: no reply to any bounce, and "CMD evil" unread
        out = stack.handler.received[sent_before:]
        assert [r for _, r, _ in out] == [[ADMIN]], out
        events = [e for e in _events(data) if e["type"] == "cmd"]
        assert [e["word"] for e in events] == ["one", "two"]

        # alice's next accepted command clears the flag
        send(stack, mail(A, "CMD three"))
        wait_for(lambda: not _bounces(data)["alice"]["unreachable"], what="cleared", log=d.log)
        assert _bounces(data)["alice"]["count"] == 0
        # the operator's view was checked above by the process; the same command, in-process
        assert "unreachable" not in pbem_in_process(cfg, "status").stdout
        assert d.stop() == 0
    finally:
        d.kill()


def _events(data: Path) -> list[dict[str, Any]]:
    from tests.support.daemon_process import game_state

    return game_state(data, "g1")[0]


# ---- in process (no servers): the counting rules ----------------------------------------------


class _NoScheduler:
    def arm(self, job: Any, when: Any, callback: Any, plan: Any = None) -> None:
        pass

    def disarm_game(self, game_id: str, keep: Any) -> None:
        pass


class _NoTransport:
    async def send(self, mail_from: str, rcpts: Any, raw: bytes) -> Any:
        raise AssertionError("nothing is sent in this test")


def _service(tmp_path: Path, games: dict[str, list[str]], verp: bool = False) -> Any:
    from datetime import UTC, datetime

    from pbem.daemon.config import load
    from pbem.daemon.service import Service
    from tests.support import fake_table

    (tmp_path / "imap.pass").write_text("x\n")
    cfg_path = tmp_path / "pbem.toml"
    cfg_path.write_text(
        f'[moderator]\naddress = "{MODERATOR}"\nbounce = "{BOUNCE}"\nadmins = ["{ADMIN}"]\n'
        f'[list]\naddress = "game@lists.example.test"\n'
        '[imap]\nhost = "127.0.0.1"\nuser = "m"\npassword_file = "imap.pass"\n'
        f'[smtp]\nhost = "127.0.0.1"\nverp = {str(verp).lower()}\n'
        f'[daemon]\ndata_dir = "{tmp_path / "data"}"\nengine = "tests.support.fake_table:Table"\n'
    )
    (tmp_path / "data").mkdir(exist_ok=True)  # new-game creates no data directory
    for gid, players in games.items():
        new_fake_game(cfg_path, gid, players)
    svc = Service(
        cfg=load(cfg_path),
        engine=fake_table.Table,  # type: ignore[arg-type]
        transport=_NoTransport(),
        scheduler=_NoScheduler(),
        clock=lambda: datetime.now(UTC),
    )
    svc.open()
    return svc


def _apply(svc: Any, raw: bytes) -> None:
    from datetime import UTC, datetime

    from pbem.adapters.imap import Fetched

    now = datetime.now(UTC)
    assert svc.intake.handle_fetched(Fetched(1, 1, len(raw), now, raw)) == "processed"


def _alert_rows(svc: Any, gid: str = "g1") -> list[dict[str, Any]]:
    return [r for r in svc.games[gid].store.outbox() if r["kind"] == "alert"]


def test_count_is_per_phase_and_soft_bounces_are_not_counted(tmp_path: Path) -> None:
    """RELIABILITY §2.5: N hard bounces 'within a phase': a new deadline window restarts the
    count (the flag, once set, stays until an accepted command); delays are logged only."""
    svc = _service(tmp_path, {"g1": ["alice", "bob"]})
    try:
        _apply(svc, dsn(1, to=BOUNCE, final=A))
        _apply(svc, dsn(2, to=BOUNCE, final=A))
        _apply(svc, dsn(3, to=BOUNCE, final=A, status="4.2.2", action="failed"))  # soft
        _apply(svc, dsn(4, to=BOUNCE, final=A, status="4.4.1", action="delayed"))
        game = svc.games["g1"]
        assert game.store.bounce_states()["alice"]["count"] == 2
        (key,) = game.table.deadlines()
        assert svc.deadlines.resolve("g1", key)  # phase 2: a new window
        _apply(svc, dsn(5, to=BOUNCE, final=A))
        _apply(svc, dsn(6, to=BOUNCE, final=A))
        rec = game.store.bounce_states()["alice"]
        assert rec["count"] == 2 and not rec["unreachable"] and _alert_rows(svc) == []
        _apply(svc, dsn(7, to=BOUNCE, final=A))
        assert game.store.bounce_states()["alice"]["unreachable"]
        assert len(_alert_rows(svc)) == 1
        _apply(svc, dsn(7, to=BOUNCE, final=A))  # the same bytes again: deduplicated
        assert game.store.bounce_states()["alice"]["count"] == 3
        # bounces are in the game's ledger, the soft ones in the daemon's
        assert len(game.keys) == 5 and len(svc.daemon_keys) == 2
        assert game.table.commands == []  # "CMD evil" in the bounces was never read
    finally:
        svc.close()


def test_operator_clears_the_unreachable_flag_through_the_daemon(tmp_path: Path) -> None:
    """`pbem reachable GAME PLAYER` drops a request file (the CLI never writes the daemon's
    store); the daemon consumes it, clears the count and the flag in the game's store, and
    counting starts again from zero."""
    svc = _service(tmp_path, {"g1": ["alice", "bob"]})
    cfg = tmp_path / "pbem.toml"
    spool = tmp_path / "data" / "reachable"
    try:
        for n in (1, 2, 3):
            _apply(svc, dsn(n, to=BOUNCE, final=A))
        game = svc.games["g1"]
        assert game.store.bounce_states()["alice"]["unreachable"]
        # the daemon is this test's Service: the command's effect is what is checked, in-process
        r = pbem_in_process(cfg, "reachable", "g1", "alice")
        assert r.returncode == 0, r.stderr
        assert "alice in g1 (flagged unreachable): clearing requested" in r.stdout
        (req,) = spool.iterdir()
        assert game.store.bounce_states()["alice"]["unreachable"], "the CLI wrote nothing"
        assert drain(svc, Reachable) == 1
        rec = GameStore(tmp_path / "data" / "games" / "g1", readonly=True).bounce_states()["alice"]
        assert rec["count"] == 0 and not rec["unreachable"] and rec["cleared_by"] == "operator"
        assert not req.exists() and drain(svc, Reachable) == 0
        assert "unreachable" not in pbem_in_process(cfg, "status").stdout
        _apply(svc, dsn(4, to=BOUNCE, final=A))
        assert game.store.bounce_states()["alice"]["count"] == 1, "counting starts again"
        # requests the daemon cannot act on (a game gone since, a damaged file) are dropped
        (spool / "x.json").write_text('{"game": "g9", "player": "alice"}')
        (spool / "y.json").write_text("{not json")
        assert drain(svc, Reachable) == 2 and not list(spool.iterdir())
        assert game.store.bounce_states()["alice"]["count"] == 1
    finally:
        svc.close()


def test_reachable_refuses_an_unknown_game_or_player(tmp_path: Path) -> None:
    """A typo fails at once (exit 2, a clear message) and leaves no request behind."""
    svc = _service(tmp_path, {"g1": ["alice", "bob"]})
    svc.close()
    cfg = tmp_path / "pbem.toml"
    r = pbem(cfg, "reachable", "g2", "alice")
    assert r.returncode == 2 and "no game 'g2'" in r.stderr, r.stderr
    r = pbem(cfg, "reachable", "g1", "carol")
    assert r.returncode == 2, r.stderr
    assert "no player 'carol' in game g1 (players: alice, bob)" in r.stderr
    r = pbem(cfg, "reachable", "g1", A)  # an address is not a player's name
    assert r.returncode == 2 and "no player" in r.stderr
    assert not (tmp_path / "data" / "reachable").exists()


def test_an_address_in_two_games_is_ambiguous_without_verp_and_matched_with_it(
    tmp_path: Path,
) -> None:
    """RELIABILITY §2.4/§2.5: without VERP a failed address registered in two active games is
    not counted (logged); the VERP token names the game."""
    from pbem.mail.bounce import verp_address, verp_token

    svc = _service(tmp_path, {"g1": ["alice", "bob"], "g2": ["alice", "carol"]}, verp=True)
    try:
        _apply(svc, dsn(1, to=BOUNCE, final=A))
        assert svc.games["g1"].store.bounce_states() == {}
        assert svc.games["g2"].store.bounce_states() == {}
        assert (
            svc.bounces.verp_sender({"game": "g2", "kind": "reply"}, "game@lists.example.test")
            is None
        )
        assert svc.bounces.verp_sender({"game": "g2", "kind": "alert"}, A) is None
        sender = svc.bounces.verp_sender({"game": "g2", "kind": "reply"}, A.upper())
        assert sender == verp_address(BOUNCE, verp_token(svc.bounces.verp_key, "g2", A))
        _apply(svc, dsn(2, to=sender, final=None))
        assert svc.games["g2"].store.bounce_states()["alice"]["count"] == 1
        assert svc.games["g1"].store.bounce_states() == {}
        # a token from another key (a forgery) matches no one
        forged = verp_address(BOUNCE, verp_token(b"other", "g2", A))
        _apply(svc, dsn(3, to=forged, final=None))
        assert svc.games["g2"].store.bounce_states()["alice"]["count"] == 1
    finally:
        svc.close()
