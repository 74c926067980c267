"""The HTML alternative (issue 15): a multipart/alternative whose text part is byte for byte
the text-only mail's, and a small inline-styled page made from the text's conventions."""

from __future__ import annotations

import email
import email.policy
import itertools
import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from pbem.daemon.limits import limit_note
from pbem.mail import html
from pbem.mail.dates import DAYS, MONTHS
from pbem.mail.envelope import TEST_ID_KEY, build, build_outgoing, digest
from pbem.mail.html import QuickAction, to_html, with_paragraph
from pbem.mail.render import Renderer
from pbem.table import Outgoing, Step, Table
from pbem.tools.mailboxes import play_and_deliver

DATE = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
TALLY = "Votes :\n  Alice → Bob\n  Carole → Bob\nDécompte : Bob 2, Alice 0.\n"
NAMES = ["Alice", "Bob", "Carole"]


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def _night_mail(body: str) -> dict[str, Any]:
    """``build``'s arguments for a night mail to Élodie with ``body``."""
    return {
        "key": "g/1",
        "sender": "mj@example.org",
        "to": ("elodie@example.org",),
        "subject": "[g] Nuit",
        "body": body,
        "date": DATE,
        "id_key": TEST_ID_KEY,
    }


def test_the_text_part_is_byte_identical_with_or_without_the_html() -> None:
    body = "Bonjour Élodie,\n\n= une ligne très longue " + "x" * 120 + "\n-- \npbem\n"
    common = _night_mail(body)
    mid_text, text_only = build(**common)  # type: ignore[arg-type]
    mid_both, both = build(**common, html=to_html("[g] Nuit", body))  # type: ignore[arg-type]
    assert mid_text == mid_both
    qp = text_only.split(b"\r\n\r\n", 1)[1]
    assert qp in both  # the text part's bytes, unchanged, inside the alternative
    msg = parse(both)
    assert msg.get_content_type() == "multipart/alternative"
    kinds = [part.get_content_type() for part in msg.iter_parts()]
    assert kinds == ["text/plain", "text/html"]  # text first: the least preferred first
    plain = msg.get_body(("plain",))
    assert plain is not None and plain.get_content() == parse(text_only).get_content()
    assert build(**common, html=to_html("[g] Nuit", body))[1] == both  # type: ignore[arg-type]
    # on the wire: CRLF lines, none longer than 78 octets (quoted-printable soft breaks)
    assert b"\n" not in both.replace(b"\r\n", b"")
    assert max(len(line) for line in both.split(b"\r\n")) <= 78


def test_the_page_keeps_only_what_mail_clients_keep() -> None:
    page = to_html("[g] Jour 2 : décompte", TALLY, names=NAMES)
    assert "<style" not in page and "<script" not in page and "<img" not in page
    assert "max-width:600px" in page and "<title>" in page
    assert "http://" not in page and "https://" not in page  # nothing fetched from outside
    # every colour comes with its background, so a client's dark mode keeps it readable
    assert "background-color:#ffffff;color:#1f2328" in page


def test_a_tally_is_two_small_tables_and_names_are_bold() -> None:
    page = to_html("[g] Jour 2 : décompte", TALLY, names=NAMES)
    assert page.count("<table") == 2 + 2  # the two layout tables, the votes, the count
    assert "<b>Carole</b></td>" in page
    rows = re.findall(r"<tr><td[^>]*><b>(\w+)</b></td><td[^>]*>(\d+)</td></tr>", page)
    assert rows == [("Bob", "2"), ("Alice", "0")]


def test_a_tallys_vote_rows_are_kept_and_read_as_made_afresh() -> None:
    """Each ``voter → target`` row is made once while kept (the same in each tally of its
    round, issue 23): a tally's page with every row kept reads as one made with none kept."""
    names = html._longest_first(tuple(NAMES))
    later = TALLY.replace("  Carole → Bob\n", "  Carole → Bob\n  Bob → Alice (ghost)\n")
    fresh = [to_html("[g] Jour 2 : décompte", text, names=NAMES) for text in (TALLY, later)]
    html._arrow_row.cache_clear()
    html._run.cache_clear()
    again = [to_html("[g] Jour 2 : décompte", text, names=NAMES) for text in (TALLY, later)]
    assert again == fresh
    assert html._arrow_row.cache_info().hits == 2 and html._arrow_row.cache_info().misses == 3
    made = html._arrow_row.__wrapped__("Bob → Alice (ghost)", names)
    assert made in again[1] and "<b>Alice</b>" in made


def test_a_whole_name_only_is_bold() -> None:
    page = to_html("s", "Anne et Ann votent.\n", names=["Ann"])
    assert "Anne et <b>Ann</b> votent." in page


def test_the_deadline_is_highlighted_and_french_punctuation_does_not_wrap_alone() -> None:
    page = to_html("s", "Votez avant le mardi 1 décembre à 20:00 UTC ; vite !\n", names=[])
    assert ">mardi 1\u00a0décembre à 20:00\u00a0UTC</span>\u00a0; vite\u00a0!" in page


def test_only_the_html_part_makes_the_french_spaces_unbreakable() -> None:
    """Polish6 item 9, decided (pbem.mail.html, ``_NBSP``): the HTML part holds « : » to its
    word with U+00A0 (never U+202F, missing from some Windows fonts); the text/plain part
    keeps ordinary spaces, so a lost charset never shows « Â » before every colon."""
    body = "Vous devez le mordre avant le mardi 1 décembre à 20:00 UTC : envoyez MORDRE Léo.\n"
    common = _night_mail(body)
    _, both = build(**common, html=to_html("[g] Nuit", body))  # type: ignore[arg-type]
    msg = parse(both)
    plain, page = msg.get_body(("plain",)), msg.get_body(("html",))
    assert plain is not None and page is not None
    text = plain.get_content().replace("\r\n", "\n")
    assert text == body and "\u00a0" not in text
    assert "UTC</span>\u00a0: envoyez" in page.get_content()
    assert "\u202f" not in page.get_content()


def test_headings_lists_and_the_signature() -> None:
    body = "Vos commandes\n=============\n\nAcceptées :\n  ✓ TUER Bob\n  ✗ SONDER Zed\n-- \npbem\n"
    page = to_html("[g] Vos commandes (×2)", body, names=NAMES)
    assert "<h1" in page and ">Vos commandes</h1>" in page  # no tag, no (×2)
    assert re.search(r"<h2[^>]*>Vos commandes</h2>", page)
    assert re.search(
        r"<ul[^>]*><li[^>]*>✓ TUER <b>Bob</b></li><li[^>]*>✗ SONDER Zed</li></ul>", page
    )
    assert re.search(r">Acceptées\u00a0:</p><ul", page)
    assert "pbem</p>" in page


def test_a_bilingual_mail_keeps_french_first_then_english() -> None:
    subject, body = "Alerte / Alert", "Bonjour.\n\n----- English -----\n\nHello.\n"
    page = to_html(subject, body, lang="fr")
    assert page.index('<div lang="fr">') < page.index("Bonjour") < page.index('<div lang="en">')
    assert page.index('<div lang="en">') < page.index("Hello")


def test_an_engine_mail_is_sent_as_alternative_and_a_fake_engines_as_text() -> None:
    out = Outgoing("g/2", ("a@example.org",), False, "[g] s", "Alice.\n", html=to_html("s", "x"))
    _mid, raw = build_outgoing(out, sender="mj@example.org", date=DATE, id_key=TEST_ID_KEY)
    assert parse(raw).get_content_type() == "multipart/alternative"

    class Fake:  # an engine of its own (tests/support/fake_table.py) has no html field
        key, to, public, subject, body = "g/3", ("a@example.org",), False, "s", "b\n"
        in_reply_to, thread, auto = None, "", "auto-generated"

    _mid, raw = build_outgoing(Fake(), sender="mj@example.org", date=DATE, id_key=TEST_ID_KEY)
    assert parse(raw).get_content_type() == "text/plain"


def test_a_merged_mail_keeps_the_parts_quick_actions_and_bold_names() -> None:
    action = QuickAction("TUER", "Bob", "mj+g@example.org", "Re: [g] Nuit", "TUER Bob")
    prompt_body = "Envoyez TUER nom, Alice.\n"
    prompt = build(
        key="g/p",
        sender="mj@example.org",
        to=("alice@example.org",),
        subject="[g] Nuit",
        body=prompt_body,
        date=DATE,
        id_key=TEST_ID_KEY,
        html=to_html("[g] Nuit", prompt_body, names=NAMES, actions=[action]),
    )[1]
    receipt_body = "Acceptées :\n  ✓ VOTE Bob\n\n-- \npbem\n"
    receipt = build(
        key="g/r",
        sender="mj@example.org",
        to=("alice@example.org",),
        subject="[g] Vos commandes",
        body=receipt_body,
        date=DATE,
        auto="auto-replied",
        id_key=TEST_ID_KEY,
        html=to_html("[g] Vos commandes", receipt_body, names=NAMES),
    )[1]
    _mid, raw = digest(
        [receipt, prompt],
        message_ids=["<r@x>", "<p@x>"],
        sender="mj@example.org",
        to="alice@example.org",
        date=DATE,
        id_key=TEST_ID_KEY,
    )
    msg = parse(raw)
    html = msg.get_body(("html",))
    assert html is not None
    page = str(html.get_content())
    assert action.href.replace("&", "&amp;") in page
    assert "<b>Alice</b>" in page and "<b>Bob</b>" in page
    # the prompt (news) comes before the receipt, the quick actions before the signature
    assert (
        page.index("Envoyez TUER")
        < page.index("VOTE")
        < page.index("mailto:")
        < page.index("pbem</p>")
    )


def test_the_reply_budgets_note_reaches_the_html_too() -> None:
    out = Outgoing(
        "g/4", ("a@example.org",), False, "[g] s", "Alice.\n", html=to_html("s", "Alice.")
    )
    noted = limit_note(out, Renderer(), "fr", DATE)
    assert noted.html != out.html
    last_words = noted.body.strip().splitlines()[-1]
    assert last_words.split()[0] in noted.html
    assert with_paragraph("", "x") == ""  # a text-only mail stays text only


def _reply_quoting(page: str, sender: str, to: str, quoting: str) -> EmailMessage:
    """A player's answer « D'accord. » above the quoted mail, as Gmail (a blockquote) or
    Outlook (a header block, no blockquote) quote an HTML mail; ``bare``: not quoted at all,
    the control (its bold is read)."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "Re: le vote"
    msg["Message-ID"] = f"<quote-{quoting}@client.example>"
    body = page.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
    msg.set_content("D'accord.\n")
    quoted = {
        "gmail": f'<div class="gmail_quote">Le mardi, MJ a écrit :<blockquote>{body}</blockquote></div>',
        "outlook": "<div><hr><p><b>De :</b> MJ<br><b>Envoyé :</b> mardi<br><b>Objet :</b> vote</p>"
        f"</div>{body}",
        "bare": body,
    }[quoting]
    msg.add_alternative(f"<div>D'accord.</div>{quoted}", subtype="html")
    return msg


def test_a_reply_quoting_a_mail_with_a_bold_name_votes_for_nobody() -> None:
    """The HTML puts names in bold, and a bold name alone on the list is a vote (LUP-617): a
    player who answers a public mail on the list, quoting it, must not vote for the name it
    shows in bold; the same HTML not quoted is read as a vote (the control)."""
    checked: set[str] = set()

    def answer(table: Table, step: Step, now: datetime) -> None:
        for out in step.outgoing:
            if not out.public or len(set(re.findall(r"<b>([^<]+)</b>", out.html))) != 1:
                continue
            living = [p for p in table.setup.players if p.name in table.rules.names(table.state)]
            for voter in living:
                replies = {
                    quoting: table.receive(
                        _reply_quoting(out.html, voter.email, table.setup.list_address, quoting),
                        channel="list",
                        now=now,
                    )
                    for quoting in ("bare", "gmail", "outlook")
                }
                if not any("✓" in o.body for o in replies["bare"].outgoing):
                    continue  # this voter cannot vote for that name now: no control
                for quoting in ("gmail", "outlook"):
                    assert not any(o.body for o in replies[quoting].outgoing), quoting
                    checked.add(quoting)
                return

    # seed 4: a tally names one player while the vote is open on day 1 (the bots' offers
    # changed: seed 1's game named one player only at dawns, before the vote opens)
    play_and_deliver("lupus-in-tabula", "fr", 4, observe=answer, deliver=False)
    assert checked == {"gmail", "outlook"}


def test_smtp_html_false_sends_the_game_mail_as_text_only(tmp_path: Path) -> None:
    from pbem.daemon.config import load
    from tests.cli.test_new_game_input import config

    path = config(tmp_path)
    assert load(path, passwords=False).html_mail is True  # the default: HTML alternative
    path.write_text(path.read_text().replace("[smtp]\n", "[smtp]\nhtml = false\n"))
    cfg = load(path, passwords=False)
    assert cfg.html_mail is False
    out = Outgoing("g/5", ("a@example.org",), False, "[g] s", "Alice.\n", html=to_html("s", "x"))
    _mid, raw = build_outgoing(
        out, sender="mj@example.org", date=DATE, id_key=TEST_ID_KEY, html=cfg.html_mail
    )
    assert parse(raw).get_content_type() == "text/plain"


def test_the_rules_page_reads_as_a_page_headings_lists_and_bold() -> None:
    """REGLES mails the players' rules page (markdown-like text): its « # » title, « - »
    lists and « **bold** » become a heading, lists and bold in the HTML."""
    from pbem.rules import rules_page

    page = to_html("[g] Les règles du jeu", rules_page("lupus-in-tabula", "fr") + "\n", names=[])
    assert re.search(r"<h2[^>]*>Lupus in Tabula — les règles pour les joueurs</h2>", page)
    assert "<b>Gagner.</b>" in page and "**" not in page and "<h2" in page
    assert page.count("<li") >= 10 and '<li style="margin:0 0 4px"><b>Voyant</b>\u00a0:' in page


def test_player_written_text_is_data_in_the_page_never_markup() -> None:
    """A pack's chat or a painted message is relayed as the player wrote it: in the HTML it is
    escaped text, whatever it holds (no tag, no attribute, no script reaches the reader)."""
    said = 'Alice : <img src=x onerror=alert(1)> **<script>x</script>** & "q" <!--end-->'
    page = to_html("[g] La meute : Alice", said + "\n", names=["Alice"])
    assert "<img" not in page and "<script" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<b>&lt;script&gt;x&lt;/script&gt;</b>" in page
    assert page.count("<!--end-->") == 1  # the text cannot fake the page's own marker


def test_a_receipts_marked_lines_show_one_mark_not_a_bullet_and_a_cross() -> None:
    """Issue 22: « • ✗ SONDER Zed »: the refused line's own ✗ after the list's bullet. A list
    whose lines carry their mark (✓ ✗ ·) shows no bullet; an unmarked list keeps its bullets."""
    from tests.support.game_by_mail import Game, lupus_roles

    g = Game(lupus_roles(8), lang="fr")
    (reply,) = [
        m for m in g.mail("p3", "SONDER p1\nTUER p2\nbonsoir") if m.to == ("p3@example.org",)
    ]
    lists = re.findall(r"<ul([^>]*)>(.*?)</ul>", reply.html, re.S)
    marks = [(attrs, items) for attrs, items in lists if re.search(r"<li[^>]*>[✓✗·]", items)]
    assert len(marks) == 3  # accepted, refused, ignored
    assert all("list-style:none" in attrs for attrs, _items in marks)
    plain = to_html("[g] x", "Liste :\n  Alice\n  Bob\n", names=[])
    assert "list-style:none" not in plain


def _plain_patterns(names: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """The patterns of pbem.mail.html as first written: a name, a deadline, an unbreakable
    space, each checking what precedes it first."""
    bold = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")
    days = {lang: "|".join(DAYS[lang]) for lang in ("fr", "en")}
    months = {lang: "|".join(MONTHS[lang]) for lang in ("fr", "en")}
    deadline = re.compile(
        rf"(?:(?:{days['fr']}) \d{{1,2}}(?:er)? (?:{months['fr']}) à |"
        rf"(?:{days['en']}) \d{{1,2}} (?:{months['en']}) )"
        r"\d{2}:\d{2}(?::\d{2})?(?: [A-Za-z][\w+-]*)?"
    )
    nbsp = re.compile(r" (?=[:;!?»])|(?<=«) |(?<=\d) (?=[^\W\d])")
    return bold, deadline, nbsp


def test_the_pages_patterns_find_what_their_plain_forms_find() -> None:
    """Issue 23: the name, deadline and unbreakable-space patterns are written so that ``re``
    skips to where a match may start (each alternative starting with its letters, the space
    first). On the player pages, the deadlines of a year in both languages and names at
    every edge (inside a word, after a hyphen, a name holding a space or a hyphen, one the
    start of another), they match at the same places as their plain forms."""
    names = html._longest_first(
        ("Anne", "Ann", "Jean-Paul", "Paul", "Le Loup", "Loup", "Élodie", "O'Neil", "Léo")
    )
    bold, deadline, nbsp = _plain_patterns(names)
    renderer = Renderer(timezone="Europe/Paris")
    moments = [
        datetime(2027, 1, 1, tzinfo=UTC) + timedelta(days=d, seconds=37 * d) for d in range(370)
    ]
    lines = [
        f"{before}{renderer.when(moment, lang)}{after}"
        for moment, lang, before, after in itertools.product(
            moments[::7], ("fr", "en"), ("", "x", "jusqu'à "), ("", ".", " UTC", "x")
        )
    ]
    edges = ("", " ", "x", "-", "_", "«", "« ", "1 ", "'", ": ")
    lines += [f"{a}{name}{b}" for name in names for a in edges for b in (*edges, "s", " 3")]
    lines += [
        "Anne-Ann, Jean-Paul et Paul ; Le Loupé « Loup » 2 Loups : Ann 3, Anne 1 !",
        "XLe Loup Loup-Le Loup O'Neil's 3 Voleurs 12 h",
    ]
    lines += (
        (Path(html.__file__).parents[2] / "docs" / "players" / "lupus-in-tabula.fr.md")
        .read_text(encoding="utf-8")
        .splitlines()
    )
    for line in lines:
        found = [m.span() for m in html._name_pattern(names).finditer(line)]
        assert found == [m.span() for m in bold.finditer(line)], line
        assert [m.span() for m in html._DEADLINE.finditer(line)] == [
            m.span() for m in deadline.finditer(line)
        ], line
        assert html._NBSP.sub("~", line) == nbsp.sub("~", line), line
    assert sum(bool(deadline.search(line)) for line in lines) > 100
