"""The archive and issue 13's seats: a replaced seat says who held it when; the archive mail
comes as the game's other mail does (From "MJ game", Reply-To the game's address) and is filed
in the thread of the phase the game ended in (issue 15's threads)."""

from __future__ import annotations

import email
import email.policy
from typing import Any

import pytest

from pbem.mail.envelope import thread_root
from pbem.mail.render import shared_renderer
from pbem.mail.threads import Addressing, phase_of, thread_subject
from pbem.record.archive import archive_files
from pbem.record.mail import archive_mails
from tests.seats.test_seat_rules import GM, NAMES, NOW, admin, mail, new_table

KEY = b"k" * 32
MODERATOR = "moderator@example.org"


def players(gender: str | None) -> list[dict[str, Any]]:
    """The harness's players, carol with ``gender`` if given."""
    return [
        {"name": n, "email": f"{n}@example.org"}
        | ({"gender": gender} if gender and n == "carol" else {})
        for n in NAMES
    ]


@pytest.mark.parametrize(
    ("lang", "gender", "said"),
    [
        ("en", None, "- carol (replaced by Zoe, Night 1):"),
        ("fr", "f", "- carol (remplacée par Zoe, Nuit 1) :"),
        ("fr", "m", "- carol (remplacé par Zoe, Nuit 1) :"),
        ("fr", None, "- carol (siège repris par Zoe, Nuit 1) :"),
    ],
)
def test_a_replaced_seat_says_who_took_it_over_and_when(
    lang: str, gender: str | None, said: str
) -> None:
    table = new_table(lang=lang, players=players(gender))
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    files = archive_files(table, lang)
    assert said in files["text"]
    assert said.split(" (", 1)[1].split(")")[0] in files["html"]


def test_a_seat_replaced_twice_names_both_newcomers_in_order() -> None:
    table = new_table()
    admin(table, "REPLACE carol WITH zoe@example.net Zoe")
    admin(table, "REPLACE Zoe WITH yann@example.net Yann")
    text = archive_files(table, "en")["text"]
    assert "- carol (replaced by Zoe, Night 1; then by Yann, Night 1):" in text


def test_the_archive_mail_comes_from_the_game_in_the_thread_it_ended_in() -> None:
    table = new_table()
    gid = table.game_id
    end = table.receive(mail(GM, "END NONE"), channel="private", now=NOW)
    how = Addressing(gid, MODERATOR, "list@example.org")
    sent = archive_mails(table, end, sender=MODERATOR, now=NOW, id_key=KEY, how=how)
    assert sent
    phase = phase_of(table.thread)
    assert phase is not None
    subject = thread_subject(shared_renderer(), "en", gid, phase, private=False)
    root = thread_root(f"{gid}/{table.thread}", "example.org", KEY, game=gid)
    for _mid, raw, _rcpts in sent:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert msg["From"] == f"MJ {gid} <{MODERATOR}>"
        assert msg["Reply-To"] == f"moderator+{gid}@example.org"
        assert msg["Subject"] == subject
        assert root in str(msg["References"]) and msg["In-Reply-To"] == root
        body = msg.get_body(("plain",))
        assert body is not None
        text = body.get_content().replace("\r\n", "\n")
        title = f"Lupus in Tabula ({gid}) — the story of the game"
        assert text.startswith(f"{title}\n====")  # its own title
        assert text.count(title) == 1  # once (issue 22: it came twice)


def test_the_archive_mail_attaches_the_games_record_valid_against_its_schema() -> None:
    """Issue 24 item 4: the archive attaches the open record (GAME.record.json, compact), the
    same JSON value ``pbem export`` writes; the text body and the HTML page are unchanged."""
    import json
    from pathlib import Path

    import jsonschema

    from pbem.record.export import game_record
    from pbem.table import Table

    table = new_table()
    gid = table.game_id
    end = table.receive(mail(GM, "END NONE"), channel="private", now=NOW)
    sent = archive_mails(table, end, sender=MODERATOR, now=NOW, id_key=KEY)
    final = Table(
        table.setup,
        table.rules,
        [*table.events, *map(table.rules.codec.decode, end.events)],
        table.renderer,
    )
    schema = json.loads(Path("docs/record-schema.json").read_text(encoding="utf-8"))
    files = archive_files(final, "en")
    for _mid, raw, _rcpts in sent:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(msg, email.message.EmailMessage)
        parts = {str(p.get_filename()): p for p in msg.iter_attachments()}
        assert list(parts) == [f"{gid}.html", f"{gid}.record.json"]
        assert parts[f"{gid}.record.json"].get_content_type() == "application/json"
        data = parts[f"{gid}.record.json"].get_content()
        assert isinstance(data, bytes) and b"\n " not in data  # compact: no indent
        record = json.loads(data)
        jsonschema.Draft202012Validator(schema).validate(record)
        assert record == json.loads(json.dumps(game_record(final), ensure_ascii=False))
        html = parts[f"{gid}.html"].get_content().replace("\r\n", "\n")
        assert html.rstrip("\n") == files["html"].rstrip("\n")
        body = msg.get_body(("plain",))
        assert body is not None and body.get_content().replace("\r\n", "\n").rstrip("\n").endswith(
            files["text"].rstrip("\n").rsplit("\n", 1)[-1]
        )
