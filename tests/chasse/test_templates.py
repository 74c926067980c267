"""Every template of the game renders in both languages (French first-class, English complete)."""

from __future__ import annotations

import random

import pytest

from pbem.core.events import Notice
from pbem.mail.render import Renderer, templates_root
from pbem.table import Table
from pbem.tools.demo import demo_setup, play
from pbem.tools.simulate import EPOCH
from tests.chasse.scenario import Game

ROOT = templates_root()
OURS = sorted(p.stem for p in (ROOT / "fr" / "chasse").glob("*.txt"))
REASONS = {
    "power_used": {},
    "subphase_only": {"when": "W1"},
    "not_a_leftover": {"leftover": ["demon", "innocent"]},
    "leo_must_take": {},
    "no_victim_tonight": {},
    "not_demons_victim": {"name": "alice"},
    "target_is_victim": {"name": "alice"},
    "no_revenge_now": {},
    "not_tiebreaker": {},
    "tiebreak_mode": {"mode": "spare"},
    "not_tied": {"name": "alice", "tied": ["bob", "carol"]},
}


def test_both_languages_have_the_same_templates() -> None:
    en = sorted(p.name for p in (ROOT / "en" / "chasse").iterdir())
    fr = sorted(p.name for p in (ROOT / "fr" / "chasse").iterdir())
    assert en == fr
    for reason in REASONS:
        assert (ROOT / "fr" / "reasons" / f"{reason}.txt").is_file()
        assert (ROOT / "en" / "reasons" / f"{reason}.txt").is_file()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_notice_template_renders_in_bot_games(lang: str) -> None:
    """Bots play whole games; every notice template of the game is rendered at least once."""
    renderer = Renderer()
    seen: set[str] = set()
    for seed in range(40):
        table, step = Table.new(demo_setup("chasse-aux-sorcieres", 0, seed, lang), EPOCH)
        table.apply(step)
        play(table, random.Random(seed))
        for event in table.events:
            if isinstance(event, Notice):
                if not event.template.startswith("seats/"):  # not Chasse's (docs/seats.md)
                    seen.add(event.template.removeprefix("chasse/"))
                subject, body = renderer.mail(
                    event.template, lang, {"game": "G", "name": "x", **event.params}
                )
                assert subject.startswith("[G]") and body.strip()
                assert "None" not in subject + body and "{{" not in body
        if seen >= set(OURS) - {"status"}:
            break
    assert seen == set(OURS) - {"status"}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_status_and_reasons_render(lang: str) -> None:
    renderer = Renderer()
    g = Game()
    text = renderer.text(
        "chasse/status", lang, {"name": "peggy", **g.rules.status(g.state, "peggy")}
    )  # type: ignore[arg-type]
    assert "peggy" in text and "None" not in text
    for reason, params in REASONS.items():
        assert renderer.text(f"reasons/{reason}", lang, params).strip()


def test_french_texts_are_french() -> None:
    """A few checks of the French wording (accents, genders of the characters)."""
    renderer = Renderer()
    text = renderer.text(
        "chasse/dawn",
        "fr",
        {
            "game": "G",
            "day": 1,
            "dead": [{"name": "bob", "role": "prue"}, {"name": "dave", "role": "demon"}],
            "grief": [{"name": "niaj", "role": "innocent", "partner": "dave"}],
            "lines": {"piper": True, "paige": False},
            "burned": None,
            "deadline": EPOCH.isoformat(),
            "revenge": {"prue": "bob", "until": EPOCH.isoformat()},
        },
    )
    assert "bob, qui était Prue" in text and "dave, qui était un Démon" in text
    assert "niaj, qui aimait dave, meurt de chagrin ; c'était un simple Innocent." in text
    assert "Piper a utilisé son pouvoir cette nuit." in text
    assert "Paige n'a pas utilisé son pouvoir cette nuit." in text
    assert "bob, qui était Prue, a été victime des Démons et peut répliquer" in text
    role = renderer.text(
        "chasse/role", "fr", {"game": "G", "name": "ivan", "role": "billie", "faction": "good"}
    )
    assert "ivan, vous êtes Billie." in role and "Force du Bien" in role


@pytest.mark.parametrize(
    ("dead", "genders", "said"),
    [
        (["Anne"], {"Anne": "f"}, "Cette nuit, cette joueuse a été éliminée :"),
        (["Bob"], {"Bob": "m"}, "Cette nuit, ce joueur a été éliminé :"),
        (["Cam"], {}, "Cette nuit, une personne a été éliminée :"),
        (
            ["Anne", "Eve"],
            {"Anne": "f", "Eve": "f"},
            "Cette nuit, ces joueuses ont été éliminées :",
        ),
        (["Anne", "Bob"], {"Anne": "f", "Bob": "m"}, "Cette nuit, ces joueurs ont été éliminés :"),
    ],
)
def test_cas_230_the_morning_names_the_eliminated_in_their_gender(
    dead: list[str], genders: dict[str, str], said: str
) -> None:
    """CAS-230: the morning names the night's eliminated; « cette joueuse a été éliminée »
    agrees with what the player said (neutral when unknown)."""
    params = {
        "game": "Chasse aux sorcières",
        "day": 2,
        "dead": [{"name": n, "role": "innocent"} for n in dead],
        "grief": [],
        "lines": {},
        "burned": None,
        "revenge": None,
        "deadline": None,
        "genders": genders,
    }
    assert said in Renderer().text("chasse/dawn", "fr", params)


@pytest.mark.parametrize(
    ("lang", "heal"), [("fr", "vous guérir : GUERIR"), ("en", "heal yourself: HEAL")]
)
def test_cas_217_paige_the_demons_victim_is_told_to_heal_herself(lang: str, heal: str) -> None:
    """CAS-217, CAS-350: Paige may heal the Demons' victim, herself included; told she is
    the victim, she reads « vous guérir », not « la guérir »."""
    params = {
        "game": "Chasse aux sorcières",
        "name": "Hugo",
        "victim": "Hugo",
        "self_victim": True,
        "deadline": "2026-01-07T00:00:00+00:00",
    }
    assert heal in Renderer().text("chasse/paige_prompt", lang, params)


@pytest.mark.parametrize(
    ("lang", "alone", "council"),
    [
        (
            "fr",
            "Manon, vous êtes seule au conseil cette nuit : désignez une victime avec TUER nom",
            "CONSEIL",
        ),
        (
            "en",
            "Manon, you are alone in the council tonight: designate a victim with KILL name",
            "COUNCIL",
        ),
    ],
)
def test_cas_214_a_demon_alone_in_the_council_is_not_shown_a_list_of_one(
    lang: str, alone: str, council: str
) -> None:
    """CAS-214, CAS-D10: the council's prompt lists the Demons (Billie among them) and tells
    how to confer; the last Demon, alone, reads that she chooses alone, not « voici les
    Démons (…) : Manon » and CONSEIL to nobody."""
    params = {
        "game": "Chasse aux sorcières",
        "name": "Manon",
        "billie": False,
        "deadline": "2026-01-06T18:00:00+00:00",
        "genders": {"Manon": "f"},
    }
    text = Renderer().text("chasse/council_prompt", lang, {**params, "council": ["Manon"]})
    assert alone in text and council not in text
    pack = Renderer().text("chasse/council_prompt", lang, {**params, "council": ["Manon", "Bob"]})
    assert council in pack


def test_cas_233_piper_and_paige_power_is_not_its_power_in_english() -> None:
    """CAS-233, CAS-D16: the morning tells whether Piper and Paige used their power; in
    English « Piper's power was used », not « Piper used its power » (a sister, not a thing;
    and the card's holder may be anyone, so no « her » either)."""
    params = {
        "game": "Chasse aux sorcières",
        "day": 2,
        "dead": [],
        "grief": [],
        "lines": {"piper": True, "paige": False},
        "burned": None,
        "revenge": None,
        "deadline": None,
    }
    text = Renderer().text("chasse/dawn", "en", params)
    assert "Piper's power was used tonight." in text
    assert "Paige's power was not used tonight." in text


@pytest.mark.parametrize(
    ("genders", "among", "spared"),
    [
        ({"Anne": "f", "Eve": "f"}, "parmi elles", "laquelle est sauvée"),
        ({"Anne": "f", "Bob": "m"}, "parmi eux", "lequel est sauvé"),
    ],
)
def test_cas_d20_a_tie_between_women_is_parmi_elles(
    genders: dict[str, str], among: str, spared: str
) -> None:
    """CAS-D20, CAS-731 (``tie_order``): Penny's holder or the last player lynched breaks a tie; two
    tied women are « parmi elles », « laquelle est sauvée »."""
    tied = list(genders)
    params = {
        "game": "Chasse aux sorcières",
        "day": 3,
        "votes": [],
        "counts": [],
        "tied": tied,
        "breaker": "Zoé",
        "deadline": "2026-01-06T18:00:00+00:00",
        "genders": genders,
    }
    r = Renderer()
    assert f"désigne la victime {among} avant" in r.text(
        "chasse/tie", "fr", {**params, "penny": True, "mode": "kill"}
    )
    assert f"décide {spared} avant" in r.text(
        "chasse/tie", "fr", {**params, "penny": False, "mode": "spare"}
    )
