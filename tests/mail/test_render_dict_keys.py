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


def test_a_missing_key_is_jinjas_undefined_without_asking_jinja_again(tmp_path: Path) -> None:
    """A receipt's ``a.text is defined``: a key a dict lacks is undefined at once, as jinja's
    own getattr finds it after its attribute and key lookups failed (issue 23)."""
    (tmp_path / "en").mkdir()
    (tmp_path / "fr").mkdir()
    (tmp_path / "en" / "t.txt").write_text(
        "{% for a in rows %}{{ a.line }}:{{ a.text is defined and a.text }}|{% endfor %}\n"
    )
    renderer = Renderer(root=tmp_path)
    asked: list[str] = []
    own = jinja2.Environment.getattr

    def counted(env: jinja2.Environment, obj: object, attribute: str) -> object:
        asked.append(attribute)
        return own(env, obj, attribute)

    params = {"rows": [{"line": "VOTE Bob"}, {"line": "PEINDRE", "text": "Bonjour"}]}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jinja2.Environment, "getattr", counted)
        assert renderer.text("t", "en", params) == "VOTE Bob:False|PEINDRE:Bonjour|"
    assert asked == []  # every key read or found missing without jinja's getattr
