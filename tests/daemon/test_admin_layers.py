"""The layers a game master's mail must pass (issue 10 item 9, :func:`pbem.daemon.auth.check_sender`).
Pure: the admin code, the strongest player layer as a floor, the SECRET line removed."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

from pbem.adapters.codes import hash_secret
from pbem.daemon.auth import check_sender
from pbem.daemon.config import AuthConfig

ADMIN = "gm@example.test"
CODE = "0123456789abcdef0123"
PLAYERS = {"alice": "alice@example.test"}


def msg(body: str, sender: str = ADMIN) -> EmailMessage:
    raw = f"From: {sender}\r\nSubject: [g1] x\r\nMessage-ID: <1@example.test>\r\n\r\n{body}\r\n"
    m = email.message_from_bytes(raw.encode(), policy=email.policy.default)
    assert isinstance(m, EmailMessage)
    return m


def check(body: str, cfg: AuthConfig, codes: tuple[dict[str, str], ...] = ()) -> tuple[bool, str]:
    v = check_sender(msg(body), PLAYERS, cfg, {}, admins=(ADMIN,), admin_secrets=codes)
    return v.ok, v.reason


def test_admin_mail_needs_the_admin_code() -> None:
    stored = (hash_secret(CODE),)
    assert check("APPROVE", AuthConfig()) == (False, "no_admin_secret")
    assert check("APPROVE", AuthConfig(), stored) == (False, "bad_admin_secret")
    assert check("SECRET wrong\nAPPROVE", AuthConfig(), stored) == (False, "bad_admin_secret")
    v = check_sender(
        msg(f"SECRET {CODE}\nAPPROVE"),
        PLAYERS,
        AuthConfig(),
        {},
        admins=(ADMIN,),
        admin_secrets=stored,
    )
    assert v.ok and v.admin and v.message is not None
    assert CODE not in v.message.as_string()  # never echoed nor relayed


def test_admin_mail_passes_the_strongest_player_layer_too() -> None:
    """``final_methods`` asks DKIM of a player's irreversible commands: the admin needs it for
    all of his, even with the right code."""
    cfg = AuthConfig(final_methods=("registered", "dkim"), authserv_id="mx.example.test")
    stored = (hash_secret(CODE),)
    assert check(f"SECRET {CODE}\nAPPROVE", cfg, stored) == (False, "no_dkim")


def test_admin_code_off_keeps_the_transport_floor() -> None:
    cfg = AuthConfig(admin_secret=False)
    assert check("APPROVE", cfg) == (True, "")
    cfg = AuthConfig(methods=("registered", "dkim"), authserv_id="mx", admin_secret=False)
    assert check("APPROVE", cfg) == (False, "no_dkim")
