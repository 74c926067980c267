"""A wrong password is a configuration fault, not an outage (issue 12): ``check-config`` names
the refused login in words, and ``serve`` logs one clear line, alerts the admins when SMTP still
works and exits with EX_CONFIG (78, which the unit does not restart) within 30 s. Against the
real Dovecot and an aiosmtpd with AUTH."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from pbem.adapters.login import EX_CONFIG, imap_refusal, server_text, without_code
from pbem.adapters.store import GameStore
from tests.support.daemon_process import (
    ROOT,
    Daemon,
    mail,
    new_fake_game,
    pbem,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import (
    ADMIN,
    DOMAIN,
    LIST,
    MODERATOR,
    PLAYERS,
    ListConfig,
    MailStack,
    SmtpServer,
)


def _wrong_imap_password(cfg: Path) -> None:
    (cfg.parent / "pbem-imap.pass").write_text("not-the-password\n")


def test_check_config_names_the_refused_imap_login_in_words(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = write_config(stack, tmp_path)
    _wrong_imap_password(cfg)
    r = pbem(cfg, "check-config")
    assert r.returncode == 1
    port = stack.dovecot.imap_port
    assert (
        f"IMAP: FAILED: IMAP login refused for user '{MODERATOR}' at 127.0.0.1:{port} "
        "(the server said: Authentication failed.): check imap.user and the password "
        "(imap.password_file or the credential imap-password)"
    ) in r.stderr, r.stderr
    assert "b'" not in r.stderr and "LoginError" not in r.stderr
    assert "SMTP 127.0.0.1" in r.stdout  # the other login is still tried and reported


def test_serve_stops_with_ex_config_on_a_wrong_imap_password_and_alerts_the_admins(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = write_config(stack, tmp_path)
    _wrong_imap_password(cfg)
    daemon = Daemon(cfg)
    started = time.monotonic()
    daemon.start()
    rc = daemon.wait_exit(30)
    elapsed = time.monotonic() - started
    assert rc == EX_CONFIG, daemon.log()
    assert elapsed < 30
    lines = [ln for ln in daemon.log().splitlines() if "login refused" in ln]
    assert len(lines) == 1, daemon.log()
    assert f"IMAP login refused for user '{MODERATOR}'" in lines[0]
    assert "not restarted until it is fixed (exit status 78)" in lines[0]
    assert "Traceback" not in daemon.log()
    alerts = wait_for(lambda: stack.messages(ADMIN), what="the admin alert")
    assert len(alerts) == 1
    subject = str(alerts[0]["Subject"])
    assert "identifiants IMAP refusés" in subject and "IMAP login refused" in subject
    body = text_of(alerts[0])
    assert MODERATOR in body and "systemctl restart pbem" in body
    print(f"wrong IMAP password: exit {rc} after {elapsed:.1f} s")


def test_serve_stops_with_ex_config_on_a_wrong_smtp_password(tmp_path: Path) -> None:
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    stack = MailStack(users, [ListConfig(LIST, users)])
    stack.smtp = SmtpServer(stack.handler, auth=(MODERATOR, "smtp-right"))
    stack.start()
    try:
        (tmp_path / "smtp.pass").write_text("smtp-wrong\n")
        cfg = write_config(
            stack, tmp_path, extra_smtp=f'user = "{MODERATOR}"\npassword_file = "smtp.pass"'
        )
        r = pbem(cfg, "check-config")
        assert r.returncode == 1
        assert re.search(
            rf"SMTP: FAILED: SMTP login refused for user '{MODERATOR}' at 127\.0\.0\.1:\d+ "
            r"\(the server said: 535 5\.7\.8 Authentication credentials invalid\): check "
            r"smtp\.user and the password \(smtp\.password_file or the credential smtp-password\)",
            r.stderr,
        ), r.stderr
        assert "logged in as" in r.stdout  # the IMAP one passed, and says so
        daemon = Daemon(cfg)
        started = time.monotonic()
        daemon.start()
        rc = daemon.wait_exit(30)
        elapsed = time.monotonic() - started
        assert rc == EX_CONFIG, daemon.log()
        assert elapsed < 30
        (line,) = [ln for ln in daemon.log().splitlines() if "login refused" in ln]
        assert re.search(
            rf"SMTP login refused for user '{MODERATOR}' at 127\.0\.0\.1:\d+ "
            r"\(the server said: 535 ",
            line,
        ), line
        # SMTP is what failed: no alert could go out, and none is attempted
        assert stack.handler.received == []
        # the right password: the same daemon comes up (and stays up)
        (tmp_path / "smtp.pass").write_text("smtp-right\n")
        daemon.start()
        # up: past its logins and its start-up drain (an event, not "still alive after 3 s",
        # which a busy machine may not even reach the SIGTERM handler in)
        daemon.wait_ready()
        assert daemon.alive(), daemon.log()
        assert daemon.stop() == 0
    finally:
        stack.close()


def _refused(stack: MailStack, user: str, password: str) -> bool:
    from imapclient import IMAPClient
    from imapclient.exceptions import LoginError

    with IMAPClient("127.0.0.1", port=stack.dovecot.imap_port, ssl=False, timeout=10) as c:
        try:
            c.login(user, password)
        except LoginError:
            return True
        return False


@pytest.mark.slow(15)
def test_serve_stops_when_the_password_changes_under_it(stack: MailStack, tmp_path: Path) -> None:
    """The server's password changes while the daemon runs: the next reconnection is refused,
    and the daemon stops the same way instead of retrying forever."""
    cfg = write_config(stack, tmp_path)
    daemon = Daemon(cfg).start()
    try:
        wait_for(lambda: "ready" in daemon.log(), what="ready", log=daemon.log)
        passwd = stack.dovecot.root / "passwd"
        passwd.write_text(passwd.read_text().replace("moderatorpass", "changed"))
        # Dovecot re-reads its passwd file on its own time: wait until it refuses the old one
        wait_for(lambda: _refused(stack, MODERATOR, "moderatorpass"), what="the new password")
        assert stack.dovecot.kill_imap_children() >= 1  # the connection drops: reconnect
        assert daemon.wait_exit() == EX_CONFIG, daemon.log()
        assert "IMAP login refused for user" in daemon.log()
        alerts = wait_for(lambda: stack.messages(ADMIN), what="the admin alert")
        assert "IMAP login refused" in str(alerts[0]["Subject"])
    finally:
        daemon.kill()


def test_serve_stops_when_the_smtp_password_changes_under_it(tmp_path: Path) -> None:
    """The SMTP password is rotated on the server while the daemon runs: the next send is
    refused, the mail stays in the outbox (sent after the fix), and the daemon stops with 78."""
    users = [MODERATOR, ADMIN, *(f"{p}@{DOMAIN}" for p in PLAYERS)]
    stack = MailStack(users, [ListConfig(LIST, users)])
    stack.smtp = SmtpServer(stack.handler, auth=(MODERATOR, "smtp-right"))
    stack.start()
    try:
        (tmp_path / "smtp.pass").write_text("smtp-right\n")
        cfg = write_config(
            stack, tmp_path, extra_smtp=f'user = "{MODERATOR}"\npassword_file = "smtp.pass"'
        )
        daemon = Daemon(cfg).start()
        try:
            wait_for(lambda: "ready" in daemon.log(), what="ready", log=daemon.log)
            stack.smtp.auth = (MODERATOR, "rotated")
            new_fake_game(cfg, "g1", ["alice"])  # its opening post is due at once
            # a mail wakes the IMAP loop from IDLE, which then scans for new games
            stack.inject(mail(f"alice@{DOMAIN}", "hello").as_bytes(), MODERATOR)
            assert daemon.wait_exit() == EX_CONFIG, daemon.log()
        finally:
            daemon.kill()
        assert "SMTP login refused for user" in daemon.log()
        assert stack.handler.received == []
        gs = GameStore(tmp_path / "data" / "games" / "g1", readonly=True)
        rows = gs.outbox()  # the opening post (and a reply to alice if she was read first)
        assert rows and all(r["status"] == "pending" for r in rows)  # kept for after the fix
    finally:
        stack.close()


def test_serve_exits_ex_config_on_an_invalid_config(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[moderator]\naddress = 'nope'\n")
    daemon = Daemon(cfg).start()
    assert daemon.wait_exit() == EX_CONFIG
    assert "invalid configuration" in daemon.log()


def test_imap_login_refusals_told_from_passing_troubles() -> None:
    """RFC 5530: a credentials code (or none, as older servers answer) is permanent;
    [UNAVAILABLE] and the like are waited out like any outage."""
    assert imap_refusal("[AUTHENTICATIONFAILED] Authentication failed.")
    assert imap_refusal("[AUTHORIZATIONFAILED] not allowed")
    assert imap_refusal("LOGIN failed.")
    for passing in ("[UNAVAILABLE] Temporary authentication failure.", "[SERVERBUG] x", "[INUSE]"):
        assert not imap_refusal(passing)
    assert server_text("b'[AUTHENTICATIONFAILED] Authentication failed.'") == (
        "[AUTHENTICATIONFAILED] Authentication failed."
    )
    assert server_text(b"5.7.8 Authentication credentials invalid") == (
        "5.7.8 Authentication credentials invalid"
    )
    assert without_code("[AUTHENTICATIONFAILED] Authentication failed.") == (
        "Authentication failed."
    )


def test_unit_does_not_restart_on_ex_config() -> None:
    unit = (ROOT / "systemd" / "pbem.service").read_text()
    assert f"RestartPreventExitStatus={EX_CONFIG}" in unit
