"""Issue 10, item 14 (DRA-421): Dracula's multi-line texts stop at a signature, whatever its
shape, and the sender is shown exactly what is passed on.

Telepathy, paintings, waltzes and replies ran to FIN or the end of the mail, so a phone's or
Outlook's signature (no ``-- `` line: "Envoyé de mon iPhone", a name and a phone number) was
relayed to the vampires, who must not learn who sent the text.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from tests.dracula.scenario import QUIET, Game, table_from

TEXT = "Mordez les grands\nà minuit, pas avant."
SIGNATURES = {
    "iphone-fr": "\n\nEnvoyé de mon iPhone",
    "android-en": "\n\nSent from my Galaxy",
    "outlook-mobile": "\n\nGet Outlook for Android<https://aka.ms/AAb9ysg>",
    "name-and-phone": "\n\nAnatole Dupont\n06 12 34 56 78",
    "name-title-labelled-phone": "\n\nAnatole Dupont\nChef de projet\nTél. : +33 6 12 34 56 78",
    "valediction": "\n\nCordialement,\nAnatole",
    # issue 22: what follows the text's paragraph is never passed on (DRA-003, DRA-421)
    "signoff-name-contact-phone": (
        "\n\nBonne soirée,\nAnatole Dupont\nana@example.org - 06 12 34 56 78\nEnvoyé de mon iPhone"
    ),
    "signoff-and-name": "\n\nÀ plus,\nAnatole",
    "name-alone": "\n\nAnatole Dupont",
    "dashes": "\n-- \nAnatole Dupont",
    "quoted-reply": "\n\n> Anatole Dupont\n> ana@example.org\nAnatole",
    "attribution": (
        "\n\nLe lun. 5 janv. 2026 à 10:00, Anatole Dupont <ana@example.org> a écrit :\n"
        "> TELEPATHIE ancien message"
    ),
}


def after_night1() -> tuple[Game, object]:
    """Ana (Dracula) bit Bob on Night 1: Bob is the vampire who reads her telepathy."""
    g = Game(options=QUIET)
    g.close("day")
    g.night({"Ana": "boudoir", "Bob": "boudoir"}, {"Ana": "Bob"})
    g.finish_night()
    return g, table_from(g)


def private(body: str, html: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Anatole Dupont <ana@example.org>"
    msg["To"] = "mj@example.org"
    msg["Message-ID"] = "<sig@example.org>"
    msg.set_content(body)
    if html is not None:
        msg.add_alternative(html, subtype="html")
    return msg


@pytest.mark.parametrize("shape", sorted(SIGNATURES))
def test_telepathy_stops_at_the_signature_and_the_reply_shows_what_is_relayed(
    shape: str,
) -> None:
    g, table = after_night1()
    step = table.receive(  # type: ignore[attr-defined]
        private(f"TELEPATHIE {TEXT}{SIGNATURES[shape]}"), channel="private", now=g.now
    )
    relayed = [m for m in step.outgoing if m.to == ("bob@example.org",)]
    assert len(relayed) == 1
    assert relayed[0].body.rstrip().endswith(TEXT.splitlines()[-1])
    for word in ("Anatole", "Dupont", "06 12", "+33", "iPhone", "Galaxy", "Outlook"):
        assert word not in relayed[0].body
    reply = next(m for m in step.outgoing if m.to == ("ana@example.org",)).body
    assert "    | Mordez les grands\n    | à minuit, pas avant.\n\n" in reply
    assert "Anatole" not in reply and "06 12" not in reply


def test_outlook_html_signature_block_is_not_relayed() -> None:
    """Outlook's HTML-only signature: name and phone in their own MsoNormal paragraphs."""
    html = (
        '<div class="WordSection1"><p class="MsoNormal">TELEPATHIE Mordez les grands</p>'
        '<p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
        '<p class="MsoNormal"><b>Anatole Dupont</b></p>'
        '<p class="MsoNormal">Mob. +33 6 12 34 56 78</p></div>'
    )
    g, table = after_night1()
    msg = EmailMessage()
    msg["From"] = "ana@example.org"
    msg["To"] = "mj@example.org"
    msg.set_content(html, subtype="html")
    step = table.receive(msg, channel="private", now=g.now)  # type: ignore[attr-defined]
    relayed = next(m for m in step.outgoing if m.to == ("bob@example.org",))
    assert "Mordez les grands" in relayed.body and "Anatole" not in relayed.body


def test_paint_text_stops_at_the_phone_signature_too() -> None:
    """The same end for every multi-line text: the grammar's, not the command's."""
    from pbem.core.commands import Text, parse_line
    from pbem.games.dracula import Dracula
    from pbem.mail.inbound import extract

    lines = extract(private(f"PEINDRE {TEXT}{SIGNATURES['name-and-phone']}")).lines
    command = parse_line("\n".join(lines), Dracula().all_commands, ["Ana", "Bob"])
    assert command is not None and command.text == TEXT
    assert any(isinstance(a, Text) and a.multiline for s in Dracula.commands for a in s.args)
