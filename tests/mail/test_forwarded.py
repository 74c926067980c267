"""pbem's own private mail found inside a list post (``pbem.mail.forwarded``; issue 10 item 15).

A player forwarding his role mail to the relayed list, in the shapes Gmail, Apple Mail,
Outlook and Thunderbird give a forward (inline, quoted, in the text and the HTML, or as an
attached mail), or answering it on the list with a quote. Controls: a forwarded public result
(addressed to the list), a post that names the moderator's address, a reply quoting a public
result, are not leaks.
"""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.mail.envelope import build
from pbem.mail.forwarded import private_mail_in

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mail"
KEY = b"k" * 32
MODERATOR = "moderator@example.test"
LIST = "game@lists.example.test"
DATE = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)


def _found(msg: EmailMessage) -> str | None:
    return private_mail_in(
        msg, id_key=KEY, ours=(MODERATOR, "moderator-bounce@example.test"), lists=(LIST,)
    )


def _fixture(name: str) -> EmailMessage:
    msg = email.message_from_bytes((FIXTURES / name).read_bytes(), policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def role_mail() -> tuple[str, bytes]:
    """A private mail as the daemon writes it (the key's Message-ID, From the moderator)."""
    return build(
        key="r1/3/alice",
        sender=MODERATOR,
        to=("alice@example.test",),
        subject="[r1] Votre rôle",
        body="Alice, vous êtes Loup-garou.\n",
        date=DATE,
        id_key=KEY,
    )


def _post(body: str, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alice <alice@example.test>"
    msg["To"] = LIST
    msg["Subject"] = headers.pop("subject", "Re: débat")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


@pytest.mark.parametrize(
    "fixture",
    [
        "relay-gmail-forward-role.eml",  # "---------- Forwarded message ---------", De :
        "relay-apple-mail-forward-role.eml",  # "Début du message réexpédié :", quoted
        "relay-outlook-forward-role.eml",  # "De : … Envoyé : … À :" block
        "relay-thunderbird-forward-role.eml",  # "-------- Message transféré --------", Pour :
    ],
)
def test_role_mail_forwarded_inline_by_every_client_is_recognised(fixture: str) -> None:
    assert _found(_fixture(fixture)) == "forwarded"


@pytest.mark.parametrize("only", ["text/plain", "text/html"])
def test_forward_found_in_either_alternative(only: str) -> None:
    """The text and the HTML alternative are each read (a client may send one only)."""
    for name in ("relay-gmail-forward-role.eml", "relay-outlook-forward-role.eml"):
        msg = _fixture(name)
        keep = next(p for p in msg.walk() if p.get_content_type() == only)
        msg.set_payload([keep])
        assert _found(msg) == "forwarded", (name, only)


def test_role_mail_attached_as_a_message_is_recognised() -> None:
    """Thunderbird's and Outlook's "forward as attachment": a message/rfc822 part."""
    _mid, raw = role_mail()
    post = _post("Ma preuve, en pièce jointe.\n")
    attached = email.message_from_bytes(raw, policy=email.policy.default)
    post.add_attachment(attached)
    assert _found(post) == "attached"
    # its Message-ID alone tells: a private mail of another sender address too
    other = email.message_from_bytes(raw.replace(MODERATOR.encode(), b"mj@example.test"))
    post = _post("Ma preuve.\n")
    post.add_attachment(other)
    assert _found(post) == "attached"


def test_private_message_id_pasted_in_a_post_is_recognised() -> None:
    mid, _raw = role_mail()
    assert _found(_post(f"Voici l'en-tête :\nMessage-ID: {mid}\n")) == "message-id"


def test_reply_quoting_a_private_mail_is_recognised_not_one_without_quote() -> None:
    mid, _raw = role_mail()
    quoted = _post(
        f"Je le jure.\n\nLe lun. 5 janv. 2026 à 19:00, <{MODERATOR}> a écrit :\n"
        "> Alice, vous êtes Loup-garou.\n",
        In_Reply_To=mid,
        References=mid,
    )
    assert _found(quoted) == "quoted"
    assert _found(_post("Je le jure.\n", In_Reply_To=mid)) is None


def test_public_results_and_the_moderators_address_are_no_leak() -> None:
    assert _found(_fixture("relay-gmail-forward-result.eml")) is None
    result_id, _raw = build(
        key="r1/9",
        sender=MODERATOR,
        to=(LIST,),
        subject="[r1] Résultat",
        body="Bob a été éliminé.\n",
        date=DATE,
        public=True,
        id_key=KEY,
    )
    reply = _post(
        f"Pauvre Bob.\n\n<{MODERATOR}> a écrit :\n> Bob a été éliminé.\n",
        In_Reply_To=result_id,
    )
    assert _found(reply) is None
    assert _found(_post(f"Écrivez à {MODERATOR} pour vos votes.\nDe : moi\n")) is None
