"""Receipts rendered once per distinct content (issue 23): ``Renderer.mail_kept`` gives what
``Renderer.mail`` gives, renders a recurring receipt only once, and tells apart receipts that
differ in any line."""

from __future__ import annotations

from typing import Any

from pbem.mail.render import Renderer
from pbem.table.mails import receipt_content
from pbem.table.step import Reply
from tests.support.renders import count_renders


def receipt(line: str, deadline: str | None) -> dict[str, Any]:
    return {
        "game": "Lupus in Tabula",
        "accepted": [{"line": line, "deadline": deadline, "final": False}],
        "rejected": [],
        "ignored": [],
        "extra": [],
        "topic": "",
    }


def test_a_recurring_receipt_is_rendered_once_and_reads_as_rendered() -> None:
    renderer = Renderer()
    rendered = count_renders(renderer)
    bob = receipt("VOTE Bob", "2026-12-06T18:00:00+00:00")
    first = renderer.mail_kept("common/reply", "fr", bob)
    again = renderer.mail_kept(
        "common/reply", "fr", receipt("VOTE Bob", bob["accepted"][0]["deadline"])
    )
    assert first == again == Renderer().mail("common/reply", "fr", bob)
    assert rendered == ["common/reply"]
    later = renderer.mail_kept("common/reply", "fr", receipt("VOTE Bob", None))
    other = renderer.mail_kept("common/reply", "en", bob)
    assert len({first, later, other}) == 3 and len(rendered) == 3


def test_an_imported_template_is_loaded_once_with_plain_globals() -> None:
    """A template's ``{% import %}`` is found without jinja's LRU cache and its globals are
    a plain dict (a ChainMap was set-subtracted key by key at every render, issue 23); the
    text is the same as a fresh environment's."""
    renderer = Renderer()
    params = {
        "game": "Lupus",
        "genders": {},
        "day": 2,
        "ballot": "round1",
        "votes": [{"voter": "Élodie", "target": "Chloé", "ghost": False}],
        "counts": [{"name": "Chloé", "count": 1}],
    }
    first = renderer.text("lupus/tally", "fr", params)
    env = renderer.envs["fr"]
    assert env.cache is not None
    env.cache.clear()  # a second render loads nothing through jinja's cache
    assert renderer.text("lupus/tally", "fr", params) == first
    assert not env.cache
    imported = env.get_template("lupus/_tally.jinja")
    assert type(imported.globals) is dict
    assert first == Renderer().text("lupus/tally", "fr", params)
    assert "Élodie → Chloé" in first and "Chloé 1" in first


class _NoRepr(dict[str, Any]):
    """Params whose ``repr`` must not be asked: the caller gave their content."""

    def __repr__(self) -> str:
        raise AssertionError("repr asked")


def test_a_receipt_is_kept_by_its_lines_and_rendered_as_afresh() -> None:
    """A receipt's params are told apart by their lines' content (``receipt_content``), not by
    their ``repr`` (issue 23); each receipt reads as a fresh render, and receipts differing in
    any value of any line, or in the texts they answer with, are rendered apart."""
    renderer = Renderer()
    rendered = count_renders(renderer)
    deadline = "2026-12-06T18:00:00+00:00"
    replies = [
        Reply(accepted=[{"line": "VOTE Bob", "deadline": deadline, "final": False}]),
        Reply(accepted=[{"line": "VOTE Bob", "deadline": deadline, "final": True}]),
        Reply(accepted=[{"line": "VOTE Bob", "deadline": None, "final": False}]),
        Reply(accepted=[{"line": "VOTE Cid", "deadline": deadline, "final": False}]),
        Reply(rejected=[{"line": "VOTE Zed", "reason": "Zed ne joue pas."}]),
        Reply(rejected=[{"line": "VOTE Zed", "reason": "Zed est mort."}]),
        Reply(ignored=["bonjour"], extra=["Rien à signaler."]),
        Reply(ignored=["bonjour"], extra=["Rien a signaler."]),
        Reply(ignored=["bonjour"], extra=["Rien a signaler."], hints={"bonjour": "SONDER Bob"}),
        Reply(extra=["Aide"], topic="help"),
    ]
    seen = set()
    for reply in replies * 2:
        topic = "" if reply.accepted or reply.rejected else reply.topic
        params = {
            "game": "Lupus in Tabula",
            "accepted": reply.accepted,
            "rejected": reply.rejected,
            "ignored": reply.ignored,
            "hints": reply.hints,
            "extra": reply.extra,
            "topic": topic,
        }
        content = receipt_content("Lupus in Tabula", reply, topic)
        kept = renderer.mail_kept("common/reply", "fr", _NoRepr(params), content)
        assert kept == Renderer().mail("common/reply", "fr", params)
        seen.add(kept)
    assert len(seen) == len(replies) == len(rendered)
