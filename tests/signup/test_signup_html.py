"""The sign-up mails carry the HTML alternative the game's mails have (issue 13), and
``[smtp] html = false`` still sends them as text only."""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage

from pbem.mail.envelope import build_outgoing
from pbem.signup.table import SIGNUP_DEADLINE, SignupTable
from pbem.table import Outgoing
from pbem.tools.simulate import EPOCH
from tests.signup.helpers import GM, lobby_setup, mail, names, send


def _every_sign_up_mail() -> list[Outgoing]:
    """The announcement, receipts, count posts, the bench's notice, the game masters' question
    and the codes: every kind of mail the lobby sends."""
    setup = lobby_setup(seats=(8, 8), when_full=False)
    setup["signup"]["secrets"] = True
    table, opening = SignupTable.open(setup, EPOCH)
    table.apply(opening)
    mails = list(opening.outgoing)
    for i, name in enumerate(names(9)):
        mails += send(table, f"v{i}@example.org", f"INSCRIPTION {name}").outgoing
    mails += send(table, "v0@example.org", "STATUT").outgoing
    step = table.admin_lines(["STATUT"], GM, EPOCH, "k1")
    mails += step.outgoing
    due = table.deadlines()[SIGNUP_DEADLINE]
    step = table.on_deadline(SIGNUP_DEADLINE, due)
    table.apply(step)
    assert table.started
    return [*mails, *(o for o in step.outgoing if o.key.startswith("village/signup/"))]


def test_every_sign_up_mail_has_the_html_alternative() -> None:
    mails = _every_sign_up_mail()
    kinds = {o.key.split("/")[-2] if "/signup/" in o.key else "reply" for o in mails}
    assert {"reply", "code", "bench"} <= kinds
    for out in mails:
        assert out.html.startswith("<!DOCTYPE html>"), out.key
        assert out.subject in out.html or out.subject.replace("'", "&#39;") in out.html
    status = [o for o in mails if o.to == ("v0@example.org",) and "Bruno" in o.body]
    assert any("<b>Bruno</b>" in o.html for o in status)  # names in bold


def test_sign_up_mails_go_as_text_only_with_smtp_html_off() -> None:
    out = _every_sign_up_mail()[0]
    for html, types in ((True, {"text/plain", "text/html"}), (False, {"text/plain"})):
        _mid, raw = build_outgoing(
            out, sender="mj@example.org", date=EPOCH, id_key=b"k" * 32, html=html
        )
        msg = email.message_from_bytes(raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        assert {p.get_content_type() for p in msg.walk() if not p.is_multipart()} == types


def test_a_lobby_with_codes_mails_them_before_the_role_cards() -> None:
    """The start mails each seated player his code, hashed in signup.started (issue 13)."""
    setup = lobby_setup(seats=(8, 8))
    setup["signup"]["secrets"] = True
    codes = iter(f"{i:032x}" for i in range(100))
    table = SignupTable(
        setup, SignupTable.open(setup, EPOCH)[1].events, code_source=lambda: next(codes)
    )
    step = None
    for i, name in enumerate(names(8)):
        step = table.receive(
            mail(f"v{i}@example.org", f"INSCRIPTION {name}"), channel="private", now=EPOCH
        )
        table.apply(step)
    assert step is not None and table.started
    order = [o.key.split("/")[-2] for o in step.outgoing if o.to == ("v0@example.org",)]
    assert order.index("code") < len(order) - 1  # the code first, then the role card
    code_mail = next(o for o in step.outgoing if "/code/" in o.key and o.to == ("v0@example.org",))
    assert f"SECRET {0:032x}" in code_mail.body
    started = next(e for e in step.events if e["type"] == "signup.started")
    assert set(started["secrets"]) == set(names(8))
    assert "secrets" not in started["setup"]  # the game's setup stays what new-game takes
