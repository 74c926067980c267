"""List votes confirmed through the registered address, through the real daemon (issue 10
item 11): a pending confirmation belongs to its phase and lapses with it, and the confirming
mail's other lines are answered.

Real Dovecot + aiosmtpd, ``pbem serve`` with the fake engine on an external list, ``[auth]
methods = ["registered", "secret"]`` (so ``list_votes = auto`` asks confirmations).
"""

from __future__ import annotations

import json
import re
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import (
    Daemon,
    close_phase,
    game_state,
    mail,
    send,
    wait_for,
    write_config,
)
from tests.support.mailparts import html_of, text_of
from tests.support.mailstack import DOMAIN, LIST, MODERATOR, MailStack

ALICE = f"alice@{DOMAIN}"


def start(
    stack: MailStack, tmp_path: Path, auth: str = "", **options: float
) -> tuple[Daemon, Path, str]:
    cfg = write_config(
        stack,
        tmp_path,
        auth='[auth]\nmethods = ["registered", "secret"]\n' + auth,
        extra_smtp="coalesce_replies = false",
        # polling: a mail that lands between the daemon's last look and its IDLE can wait for
        # the IDLE renewal (a race of the IMAP loop, not what these tests are about)
        extra_imap="idle = false",
    )
    setup = {
        "game": "fake",
        "game_id": "c1",
        "players": [{"name": p, "email": f"{p}@{DOMAIN}"} for p in ("alice", "bob")],
        "list": LIST,
        "options": options,
    }
    (tmp_path / "s.json").write_text(json.dumps(setup))
    r = pbem_in_process(
        cfg, "new-game", "--setup", str(tmp_path / "s.json"), "--id", "c1", "--secrets"
    )
    assert r.returncode == 0, r.stderr
    codes = dict(re.findall(r"secret code for (\w+): (\w+)", r.stdout))
    return Daemon(cfg).start(), tmp_path / "data", codes["alice"]


def events(data: Path) -> list[dict[str, object]]:
    return game_state(data, "c1")[0]


def words(data: Path) -> list[str]:
    return [str(e["word"]) for e in events(data) if e["type"] == "cmd"]


def request(stack: MailStack) -> EmailMessage | None:
    got = [m for m in stack.messages(ALICE) if "CONFIRM-" in str(m["Subject"])]
    return got[0] if got else None


def texts(stack: MailStack) -> str:
    return "\n".join(
        str(m.get_body(("plain",)).get_content())
        for m in stack.messages(ALICE)
        if m["Auto-Submitted"] == "auto-replied"
    )


@pytest.mark.slow(20)
def test_confirmation_lapses_with_the_phase_of_its_post(stack: MailStack, tmp_path: Path) -> None:
    """A phase-1 list vote confirmed once phase 2 has begun is not cast in phase 2's ballot:
    refused, with the reason. Before: it was applied in phase 2."""
    d, data, code = start(stack, tmp_path)  # phase 1 lasts until the test closes it
    try:
        send(stack, mail(ALICE, "CMD day1", to=LIST))
        req = wait_for(lambda: request(stack), what="the request", log=d.log)
        close_phase(d.cfg, "c1")
        wait_for(
            lambda: any(e["type"] == "phase" and e["n"] == 2 for e in events(data)),
            what="phase 2",
            log=d.log,
        )
        send(stack, mail(ALICE, f"SECRET {code}", subject=f"Re: {req['Subject']}"))
        # the fake engine's players read French
        wait_for(lambda: "posté est close" in texts(stack), what="the lapse notice", log=d.log)
        assert words(data) == []
    finally:
        d.stop()


def test_confirming_mail_other_lines_are_answered(stack: MailStack, tmp_path: Path) -> None:
    """The reply that confirms a list vote also carries a private order: both count, and the
    order is answered. Before: the other lines were dropped silently."""
    d, data, code = start(stack, tmp_path)
    try:
        send(stack, mail(ALICE, "CMD listvote", to=LIST))
        req = wait_for(lambda: request(stack), what="the request", log=d.log)
        quoted = "".join(f"> {line}\n" for line in str(text_of(req)).splitlines())
        body = f"SECRET {code}\nOui\nCMD private\n\n{quoted}"
        stack.inject(mail(ALICE, body, subject=f"Re: {req['Subject']}").as_bytes(), MODERATOR)
        wait_for(lambda: len(words(data)) == 2, what="both commands", log=d.log)
        assert words(data) == ["listvote", "private"]
        wait_for(lambda: "accepted: private" in texts(stack), what="the answer", log=d.log)
    finally:
        d.stop()


def test_forged_list_posts_cannot_flood_the_player_with_confirmation_requests(
    stack: MailStack, tmp_path: Path
) -> None:
    """Issue 10 item 16: a dozen posts in alice's name on the external list (forged: the list
    breaks DKIM, so each asks a confirmation) mail her at most ``[auth]
    confirm_requests_per_hour`` requests; the others are not counted. Before: one request a
    post (40 forged posts, 40 mails)."""
    d, data, _code = start(stack, tmp_path, auth="confirm_requests_per_hour = 3")
    log = tmp_path / "pbem-daemon-1.log"
    try:
        send(stack, *(mail(ALICE, f"CMD forged{i}", to=LIST) for i in range(12)))
        wait_for(
            lambda: log.read_text().count("over the hourly limit") == 9,
            what="the nine posts past the limit",
            log=d.log,
        )

        def requests() -> list[EmailMessage]:
            return [m for m in stack.messages(ALICE) if "CONFIRM-" in str(m["Subject"])]

        wait_for(lambda: len(requests()) == 3, what="three requests", log=d.log)
        assert d.stop() == 0
        assert len(requests()) == 3
        assert "forged" not in " ".join(words(data))
    finally:
        d.kill()


def test_the_confirmation_request_has_an_html_alternative(stack: MailStack, tmp_path: Path) -> None:
    """Issue 15: the daemon's own mails get the same HTML alternative as the game's (``[smtp]
    html``, on by default): the request is text first, then HTML saying the same. Before:
    text only."""
    d, _data, _code = start(stack, tmp_path)
    try:
        send(stack, mail(ALICE, "CMD listvote", to=LIST))
        req = wait_for(lambda: request(stack), what="the request", log=d.log)
        assert req.get_content_type() == "multipart/alternative"
        token = re.search(r"CONFIRM-\w+", str(req["Subject"]))
        assert token and token.group() in text_of(req)
        page = html_of(req)
        assert page is not None and "<h1" in page and "CMD listvote" in page
    finally:
        d.stop()
