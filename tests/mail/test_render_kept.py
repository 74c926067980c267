"""Receipts rendered once per distinct content (issue 23): ``Renderer.mail_kept`` gives what
``Renderer.mail`` gives, renders a recurring receipt only once, and tells apart receipts that
differ in any line."""

from __future__ import annotations

from typing import Any

from pbem.mail.render import Renderer


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
    rendered: list[str] = []
    text = renderer.text

    def counted(template: str, lang: str, params: Any) -> str:
        rendered.append(template)
        return text(template, lang, params)

    renderer.text = counted  # type: ignore[method-assign]
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
