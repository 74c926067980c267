"""``x.key`` on a dict param reads the key directly (issue 23), as jinja reads it: a name of
a dict's own method is still the method, a missing key still undefined."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from pbem.mail.render import Renderer


def test_a_dicts_keys_and_methods_read_as_jinja_reads_them(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "fr").mkdir()
    (tmp_path / "en" / "t.txt").write_text(
        "{{ d.line }}|{{ d.items()|list|length }}|{{ d.get('line') }}|{{ d.keys is defined }}\n"
    )
    (tmp_path / "en" / "missing.txt").write_text("{{ d.nothing }}\n")
    renderer = Renderer(root=tmp_path)
    params = {"d": {"line": "VOTE Bob", "items": "shadowed", "keys": 1}}
    plain = jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path / "en"))
    expected = plain.get_template("t.txt").render(**params).strip()
    assert renderer.text("t", "en", params) == expected == "VOTE Bob|3|VOTE Bob|True"
    with pytest.raises(jinja2.UndefinedError):
        renderer.text("missing", "en", params)
