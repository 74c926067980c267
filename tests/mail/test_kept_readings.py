"""What recurs is worked out once (issue 23) and reads as worked out afresh: a short mail's
text, a command line's parse, a refusal's reason."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.commands import parse_line
from pbem.core.errors import CommandError
from pbem.games import rules_for
from pbem.mail.inbound import _plain, extract
from pbem.mail.render import Renderer
from pbem.tools.bots import plain_mail

BODY = "VOTE **Bruno**\n\nmerci\n> cité\nPASSE\n-- \nAlice\n"


def test_a_short_mail_read_again_reads_as_read_afresh() -> None:
    first = extract(plain_mail("alice@v.example", "mj@v.example", BODY))
    again = extract(plain_mail("bruno@v.example", "mj@v.example", BODY))
    fresh = _plain(BODY, 60)
    assert (first.lines, first.bold, first.truncated, first.breaks) == fresh
    assert again == first
    assert first.lines == ("VOTE **Bruno**", "merci", "PASSE") and first.breaks == (1, 2)


def test_a_line_parsed_again_gives_the_same_command_and_a_refusal_each_time() -> None:
    specs = rules_for("lupus-in-tabula").all_commands
    names = ["Alice", "Bruno", "Chloé"]
    first = parse_line("VOTE Bruno", specs, names, debate=True)
    assert first is not None and parse_line("VOTE Bruno", specs, names, debate=True) == first
    assert parse_line("VOTE Bruno", specs, [*names, "Brunehilde"], debate=True) == first
    assert parse_line("bonjour à tous", specs, names) is None
    assert parse_line("bonjour à tous", specs, names) is None
    errors = []
    for _ in range(2):
        with pytest.raises(CommandError) as caught:
            parse_line("VOTE Zoé", specs, names)
        errors.append(caught.value)
    assert errors[0] is not errors[1] and errors[0].reason == errors[1].reason


def test_a_plain_reason_is_rendered_once_and_others_each_time() -> None:
    renderer = Renderer()
    rendered: list[str] = []
    text = renderer.text

    def counted(template: str, lang: str, params: Any) -> str:
        rendered.append(template)
        return text(template, lang, params)

    renderer.text = counted  # type: ignore[method-assign]
    params = {"genders": {"Alice": "f"}, "reader": "Alice"}
    first = renderer.text_kept("reasons/no_vote_to_withdraw", "fr", params)
    again = renderer.text_kept("reasons/no_vote_to_withdraw", "fr", dict(params))
    assert first == again == Renderer().text("reasons/no_vote_to_withdraw", "fr", params)
    assert rendered == ["reasons/no_vote_to_withdraw"]

    class Opaque:  # its repr does not tell its content: never kept by it
        pass

    odd = {**params, "thing": Opaque()}
    renderer.text_kept("reasons/no_vote_to_withdraw", "fr", odd)
    renderer.text_kept("reasons/no_vote_to_withdraw", "fr", odd)
    assert len(rendered) == 3
