"""REGLES / RULES (issue 22): the game's options in the reader's words, never a config key
or a raw value id; the text part of the rules mail reads as plain text."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from pbem.games import rules_for
from pbem.games.info import OptionInfo, games
from pbem.mail.render import shared_renderer
from pbem.rules import rules_page
from pbem.rules.options_words import CHOICES, LABELS, ROLE_LISTS, described

GAMES = games()
RAW_ID = re.compile(r"\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")


def _not_default(option: OptionInfo, roles: tuple[str, ...] = ()) -> Any:
    """A value of ``option`` other than its default (None when it has no other)."""
    default = option.default
    if option.kind == "bool":
        return not default
    if option.kind == "duration":
        return default + timedelta(minutes=90)
    if option.kind == "int":
        return default + 1
    if option.kind == "float":
        return default / 2
    if option.kind == "choice":
        others = [c for c in option.choices if c != default]
        return others[0] if others else None
    if option.kind == "str":
        return "Chloé"
    if option.name in ROLE_LISTS:  # cards, one of them twice
        return (roles[0], roles[1], roles[0])
    return ("Je suis maudite !",)  # phrases: shown as given


def test_every_option_of_every_game_has_a_label_and_its_choices_words() -> None:
    missing = [
        (game, o.name, c)
        for game, _title, options in GAMES
        for o in options
        for c in ("", *o.choices)
        if (o.name not in LABELS if not c else c not in CHOICES.get(o.name, {}))
    ]
    assert missing == []
    assert all(fr and en for fr, en in LABELS.values())


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", [g[0] for g in GAMES])
def test_rules_mail_words_every_changed_option_without_keys_or_ids(game: str, lang: str) -> None:
    (options,) = [o for g, _t, o in GAMES if g == game]
    rules = rules_for(game)
    roles = tuple(rules.roles)
    changed = {o.name: v for o in options if (v := _not_default(o, roles)) is not None}
    text = shared_renderer().text(
        "common/rules",
        lang,
        {
            "text": rules_page(game, lang),
            "options": described(changed, lang),
            "folder": rules.templates,
        },
    )
    listed = text[len(rules_page(game, lang)) :]
    assert len(re.findall(r"(?m)^- ", listed)) == len(changed)
    assert [k for k in changed if re.search(rf"(?m)^- {k}\b|\b{k}\d*\b :", listed)] == []
    assert [k for k in changed if "_" in k and k in listed] == []
    assert RAW_ID.findall(listed) == []
    cards = [
        ln
        for ln in listed.splitlines()
        if "Cartes" in ln or "Special" in ln or "spéciaux" in ln or "Cards" in ln
    ]
    assert len(cards) == len(ROLE_LISTS & set(changed))
    assert [ln for ln in cards if re.search(rf"\b({roles[0]}|{roles[1]})\b", ln)] == []  # named
    assert all("2 × " in ln for ln in cards)
    if lang == "fr":  # no English word: neither a choice's id nor yes/no
        ids = {c for o in options for c in o.choices} | {"yes", "no"}
        assert [i for i in ids if re.search(rf"(?<![\w'’]){re.escape(i)}\b", listed)] == []


def test_rules_option_values_read_as_a_player_reads_them() -> None:
    fr = dict(
        described(
            {
                "night_duration": timedelta(hours=20),
                "ghost_variant": True,
                "on_idle": "remove",
                "thief_vote_weight": 0.25,
            },
            "fr",
        )
    )
    assert fr == {
        "Durée de la nuit": "20 h",
        "Variante du fantôme": "oui",
        "Joueur inactif": "il est retiré de la partie",
        "Poids du vote du Voleur": "0,25",
    }


def test_plain_text_reads_a_markdown_page_without_its_marks() -> None:
    from pbem.mail.plain_text import plain_text

    page = (
        "# Les règles\n\n**Gagner.** Envoyez `REGLES` ; voir [le site](https://x.org/r)"
        " ou [mj@x.org](mailto:mj@x.org).\n## Plus\n- **Léo** : 2 * 3"
    )
    assert plain_text(page) == (
        "Les règles\n==========\n\nGagner. Envoyez REGLES ; voir le site (https://x.org/r)"
        " ou mj@x.org.\nPlus\n----\n- Léo : 2 * 3"
    )


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", [g[0] for g in GAMES])
def test_every_rules_page_as_plain_text_has_no_markdown_mark(game: str, lang: str) -> None:
    from pbem.mail.plain_text import plain_text

    text = plain_text(rules_page(game, lang))
    assert not re.search(r"\*\*|`|^#|\]\(", text, re.M), (game, lang)


def test_signup_rules_reply_is_plain_text_and_its_page_keeps_bold() -> None:
    from tests.signup.helpers import opened, send, to

    table, _opening = opened()
    (reply,) = to(send(table, "v0@example.org", "REGLES"), "v0@example.org")
    assert "**" not in reply.body and "\n# " not in reply.body and "====" in reply.body
    assert "<b>" in reply.html
