"""Issue 10, item 1: a bold vote is read from the HTML part of a multipart/alternative.

Apple Mail and Outlook write no ``*markers*`` in their text part, so the ``<b>Dave</b>`` every
reader sees was never counted and the poster got no reply; the same post from Gmail counted.
The fixtures under tests/fixtures/mail/ are shaped like those clients' real mail.
"""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.core.ids import PlayerId
from pbem.mail.inbound import extract, parse_bytes
from tests.support.game_by_mail import Game

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mail"
ROLES = {
    "Alice": "werewolf",
    "Bob": "werewolf",
    "Carol": "seer",
    "Dave": "villager",
    "Erin": "villager",
    "Frank": "villager",
    "Gina": "villager",
    "Hugo": "villager",
}


def voting_game() -> Game:
    """A Lupus game in round 1 of the day vote (public votes count, LUP-D18)."""
    g = Game(ROLES)
    g.until("round1")
    return g


def post_fixture(g: Game, name: str) -> list[object]:
    msg = parse_bytes((FIXTURES / name).read_bytes())
    return g._commit(g.table.receive(msg, channel="list", now=g.now))  # type: ignore[return-value]


@pytest.mark.parametrize(
    "fixture",
    ["apple-mail-bold-vote.eml", "outlook-bold-vote.eml", "gmail-bold-vote.eml"],
)
def test_bold_vote_counts_from_every_client(fixture: str) -> None:
    """The same bold vote from Apple Mail, Outlook (MsoNormal HTML) and Gmail counts alike."""
    g = voting_game()
    post_fixture(g, fixture)
    assert g.state.votes == {PlayerId("Carol"): PlayerId("Dave")}
    assert "VOTE Dave" in g.reply()


def test_outlook_quoted_header_block_bold_is_not_read() -> None:
    """Outlook's quoted older mail (its bold "De :" header block, then a bold Erin) is cut."""
    msg = parse_bytes((FIXTURES / "outlook-bold-vote.eml").read_bytes())
    assert extract(msg).bold == ("Dave",)


def test_css_font_weight_bold_span_pasted_from_a_forum_counts() -> None:
    """A ``font-weight: 700`` span (a forum paste) in an Apple Mail multipart/related HTML."""
    g = voting_game()
    post_fixture(g, "apple-mail-forum-paste.eml")
    assert g.state.votes == {PlayerId("Carol"): PlayerId("Dave")}


@pytest.mark.parametrize(
    ("style", "bold"),
    [
        ("font-weight: bold", ("Dave",)),
        ("font-weight:600", ("Dave",)),
        ("FONT-WEIGHT: Bolder", ("Dave",)),
        ("font-weight: 400", ()),
        ("color: red", ()),
    ],
)
def test_css_font_weight_decides_boldness(style: str, bold: tuple[str, ...]) -> None:
    raw = (
        "From: carol@example.org\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        f'<p>Je vote <span style="{style}">Dave</span> ok</p>'
    ).encode()
    assert extract(parse_bytes(raw)).bold == bold


def test_google_docs_normal_weight_b_wrapper_is_not_bold() -> None:
    """Google Docs wraps pasted text in ``<b style="font-weight:normal">``: not bold."""
    raw = (
        b"From: carol@example.org\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        b'<b style="font-weight:normal" id="docs-internal-guid-1">'
        b'<span>Je pense que </span><span style="font-weight:700">Dave</span></b>'
    )
    assert extract(parse_bytes(raw)).bold == ("Dave",)


def test_text_and_html_parts_that_disagree_are_reported_in_the_reply() -> None:
    """The HTML (what readers see) is counted, and the poster is told what the text said."""
    g = voting_game()
    post_fixture(g, "gmail-bold-disagree.eml")
    assert g.state.votes == {PlayerId("Carol"): PlayerId("Dave")}
    reply = g.reply()
    assert "VOTE Dave" in reply
    assert "do not set the same words in bold" in reply
    assert "Dave in bold; the plain-text version, Erin" in reply


@pytest.mark.parametrize(
    ("html", "text"),
    [("<p>Je vote <b>Dave,</b> bien sûr</p>", "x"), ("<p>x</p>", "Je vote **Dave.** bien sûr")],
)
def test_punctuation_inside_the_bold_is_not_part_of_the_name(html: str, text: str) -> None:
    """Forum habits: the comma or the full stop often ends up inside the bold."""
    msg = EmailMessage()
    msg["From"] = "carol@example.org"
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    assert extract(msg).bold == ("Dave",)
