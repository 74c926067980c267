"""The renderer is pure over its templates (issue 11): the templates are package data, and the
environment is read at the edges, not by pbem/mail/render.py."""

from __future__ import annotations

from pathlib import Path

import pbem


def test_the_renderer_reads_no_environment() -> None:
    # the templates are package data; the environment is read at the edges (issue 11)
    source = (Path(pbem.__file__).parent / "mail" / "render.py").read_text(encoding="utf-8")
    assert "os.environ" not in source and "getenv" not in source
