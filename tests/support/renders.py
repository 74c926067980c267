"""Counting a renderer's renders: what the tests of kept renders (issue 23) check against."""

from __future__ import annotations

from typing import Any

from pbem.mail.render import Renderer


def count_renders(renderer: Renderer) -> list[str]:
    """The templates ``renderer`` renders from now on, one entry a render (its ``text``
    wrapped on this instance only: a fresh ``Renderer`` renders as before)."""
    rendered: list[str] = []
    text = renderer.text

    def counted(template: str, lang: str, params: Any) -> str:
        rendered.append(template)
        return text(template, lang, params)

    renderer.text = counted  # type: ignore[method-assign]
    return rendered
