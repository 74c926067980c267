"""Every Dracula template renders in French and English (NTF-01 … NTF-45, reasons)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pbem.core.events import Notice
from pbem.mail.render import LANGS, Renderer, templates_root
from tests.dracula.test_properties import play_game

T = "2026-01-06T18:00:00+00:00"
SAMPLES: dict[str, dict[str, Any]] = {
    "opening": {
        "players": ["Ana", "Bob"],
        "rounds": 3,
        "durations": {
            k: 3600 for k in ("day1", "day", "pairing", "room_choice", "bites", "final_choice")
        },
    },
    "admin_help": {},  # the game master's AIDE lines of Dracula's own commands (AMB-072)
    "role": {"round": 1, "dracula": True},
    "round_start": {"round": 1, "rounds": 3, "deadline": T},
    "telepathy": {"text": "hello"},
    "dusk": {
        "round": 1,
        "day": 2,
        "designated": [{"name": "Ana", "votes": 2}],
        "drawn": ["Bob"],
        "ranking": [{"name": "Ana", "votes": 2}],
        "cursed_defaults": [{"name": "Cid", "room": "boudoir"}],
    },
    "tally": {
        "round": 1,
        "day": 2,
        "votes": [{"voter": "Bob", "target": "Ana"}],
        "ranking": [{"name": "Ana", "votes": 1}],
    },
    "curse_default": {"room": "ballroom"},
    "pairing_open": {"players": ["Ana", "Bob"], "deadline": T},
    "pairs": {"pairs": [{"naming": "Ana", "named": "Bob"}], "alone": ["Cid"]},
    "partner_removed": {"partner": "Bob", "deadline": T},
    "night_start": {"round": 1, "night": 2, "deadline": T},
    "thief_report": {"night": 2, "floor": {"boudoir": ["stake"], "ballroom": []}},
    "dracula_counts": {"counts": {"boudoir": 2, "torture": 0}, "deadline": T},
    "magnifier_report": {
        "report": [{"name": "Bob", "position": "undetermined"}],
        "pairs": [{"naming": "A", "named": "B"}],
        "deadline": T,
    },
    "partner_room": {"partner": "Bob", "room": "dungeons"},
    "key_joined": {"user": "Bob"},
    "bite_prompt": {"room": "boudoir", "others": ["Bob"], "status": "must", "deadline": T},
    "phonograph_prompt": {"room": "boudoir", "others": ["Bob"], "deadline": T},
    "optional_prompt": {"what": "stake", "others": ["Bob"], "deadline": T},
    "converted": {"count": 2},
    "bit_vampire": {"target": "Bob"},
    "bitten_too": {"count": 1},
    "crucifix_biter": {"target": "Bob"},
    "crucifix_holder": {"count": 2},
    "bite_succeeded": {"target": "Bob"},
    "stake_scene": {
        "scenes": [
            {"user": "A", "target": "B", "outcome": o} for o in ("dies", "survives", "dracula")
        ]
    },
    "staked_dead": {},
    "partner_key": {"partner": "Bob", "deadline": T},
    "waltz": {"text": "{{ not code }}", "deadline": T, "replies": 2},
    "waltz_reply": {"text": "reply"},
    "received_object": {"objects": ["crucifix"]},
    "picked_up": {"objects": ["stake", "candle", "grimoire"]},
    "destroyed": {"objects": ["stake"]},
    "paint_void": {"room": "boudoir"},
    "painting": {"room": "boudoir", "text": "Bob ment"},
    "dawn_curse": {"deadline": T},
    "candle_report": {
        "room": "boudoir",
        "present": ["A", "B"],
        "lines": [
            {
                "kind": k,
                "actor": "A",
                "targets": ["B"],
                "objects": ["stake"],
                "outcome": "crucifix",
                "text": "t",
            }
            for k in (
                "bite",
                "garlic",
                "nausea",
                "candle",
                "paint",
                "dance",
                "curse",
                "pickup",
                "destroy",
            )
        ],
    },
    "cursed": {},
    "defaults": {
        "defaults": [
            {"verb": "room", "word": "boudoir", "targets": []},
            {"verb": "bite", "word": "", "targets": ["Bob"]},
        ]
    },
    "morning": {
        "round": 1,
        "night": 4,
        "next_day": 5,
        "deadline": T,
        "vampirised": 1,
        "cursed": 1,
        "cursed_total": 2,
        "cursed_scope": "night",
        "positions": [
            {"name": "A", "position": "sanctuary", "killed": True},
            {"name": "B", "position": "dead", "killed": False},
        ],
        "killed": [{"name": "A", "objects": ["phonograph"]}],
        "livid": ["C"],
        "pairs": [{"naming": "A", "named": "B"}],
    },
    "curse_reminder": {"day": 3, "deadline": T},
    "round_end": {
        "round": 1,
        "ending": "burned",
        "dracula": "Ana",
        "credits": [{"name": "Ana", "humans": ["Bob"]}],
        "points": {"Ana": 0, "Bob": 5},
        "scores": {"Ana": 1, "Bob": 5},
    },
    "final_start": {"round": 1, "humans": ["A"], "vampires": ["B"], "deadline": T},
    "final_recap": {"fighters": [{"name": "A", "flames": 2}], "fled": ["C"], "deadline": T},
    "flame_prompt": {"round": 1, "flames": 2, "vampires": ["B", "D"], "deadline": T},
    "final_result": {
        "burned": ["B"],
        "dracula_burned": True,
        "designations": [{"name": "A", "targets": ["B"]}],
        "killers": ["A"],
        "killed": [],
        "points": {"A": 5},
    },
    "game_end": {"scores": {"A": 5, "B": 2}, "winners": ["A"]},
    "status": {
        "round": 1,
        "role": "human",
        "alive": True,
        "objects": ["key"],
        "cursed": True,
        "declared": "boudoir",
        "phase": "rooms",
        "number": 3,
        "deadlines": {"rooms": T},
        "pending": [{"verb": "room", "word": "boudoir", "targets": [], "line": "PIECE BOUDOIR"}],
        "scores": {"A": 1},
    },
    "curse_flag": {"player": "Ana"},
    "telepathy_review": {"text": "hello", "round": 1},
    "telepathy_refused": {"reason": "a code"},
    "post_flag": {"player": "Ana", "reason": "night_silence"},
}
REASON_PARAMS = {
    "address": "x@y.z",
    "nominees": ["A"],
    "opens": T,
    "word": "FOO",
    "name": "Bob",
    "reader": "Bob",  # the player told (pbem.table.wording.reason)
    "room": "boudoir",
    "partner": "Bob",
    "limit": 2000,
    "count": 2,
    "object": "key",
    "names": ["A", "B"],
    "extra": "x",
    "choices": ["A"],
    "candidates": ["A"],
    "suggestions": [],
    "standing_fr": "AIL",
    "standing_en": "GARLIC",
}


def template_names() -> list[str]:
    root = templates_root()
    return sorted(p.stem for p in (root / "fr" / "dracula").glob("*.txt"))


_NOT_MAILS = ("status", "admin_help")
"""Texts a reply is made of, not mails with a subject of their own."""


def test_every_template_has_a_sample_and_both_languages() -> None:
    root = templates_root()
    for name in template_names():
        assert name in SAMPLES, name
        for lang in LANGS:
            assert (root / lang / "dracula" / f"{name}.txt").is_file(), (lang, name)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", template_names())
def test_template_renders(name: str, lang: str) -> None:
    r = Renderer()
    params = {"game": "Dracula", "name": "Ana", **SAMPLES[name]}
    text = r.text(f"dracula/{name}", lang, params)
    if name not in _NOT_MAILS:
        subject, body = r.mail(f"dracula/{name}", lang, params)
        assert subject.startswith("[Dracula]") and "\n" not in subject
        assert body.strip()
    assert "{{" not in text.replace("{{ not code }}", "")


def dracula_reasons() -> set[str]:
    import re

    package = Path(__file__).resolve().parents[2] / "pbem" / "games" / "dracula"
    source = "".join(p.read_text() for p in package.glob("*.py"))
    reasons = set(re.findall(r'(?:IllegalNow|InvalidSyntax)\(\s*"(\w+)"', source))
    reasons |= {f"cannot_bite_{s}" for s in ("sanctuary", "alone", "nausea")}
    return reasons


@pytest.mark.parametrize("lang", LANGS)
def test_reasons_render(lang: str) -> None:
    """Every reason the Dracula rules raise renders (NTF-05, AMB-082)."""
    r = Renderer()
    for reason in sorted(dracula_reasons()):
        assert r.text(f"reasons/{reason}", lang, REASON_PARAMS).strip()


def test_real_notices_render_in_both_languages() -> None:
    """The notices of bot games render with their real parameters."""
    r = Renderer()
    table = play_game(random.Random(5).randrange(1000), rounds=1)
    seen = set()
    for event in table.events:
        if isinstance(event, Notice):
            for lang in LANGS:
                r.mail(event.template, lang, {"game": "Dracula", "name": "Ana", **event.params})
            seen.add(event.template)
    assert len(seen) >= 15


def test_every_reason_the_rules_raise_has_a_template() -> None:
    """Each rejection is explained in both languages (NTF-05, AMB-082)."""
    import re

    package = Path(__file__).resolve().parents[2] / "pbem" / "games" / "dracula"
    source = "".join(p.read_text() for p in package.glob("*.py"))
    reasons = set(re.findall(r'(?:IllegalNow|InvalidSyntax)\(\s*"(\w+)"', source))
    reasons |= {f"cannot_bite_{s}" for s in ("sanctuary", "alone", "nausea")}
    root = templates_root()
    for lang in LANGS:
        for reason in reasons:
            assert (root / lang / "reasons" / f"{reason}.txt").is_file(), (lang, reason)


def test_dra_184_186_a_staked_vampire_is_told_once_and_the_verb_agrees() -> None:
    """DRA-184, DRA-186, AMB-059: two stakes on one vampire tell his death once; what he
    carried « disparaît » (one object) or « disparaissent » (several); one livid player
    « c'est un vampire », several « ce sont des vampires » (DRA-185)."""
    from dataclasses import replace

    from pbem.games.dracula.events import Fact
    from pbem.games.dracula.night import morning_params
    from tests.dracula.scenario import QUIET, Game, advance

    g = advance(Game(options=QUIET), 2)
    stake = Fact(kind="stake", room="sanctuary", actor="Bob", targets=("Ana",), outcome="dies")
    lost = Fact(kind="lost", room="sanctuary", targets=("Ana",), items=("paintkit",))
    state = replace(g.state, facts=(stake, replace(stake, actor="Cid"), lost))
    params = morning_params(state)
    assert [k["name"] for k in params["killed"]] == ["Ana"]
    renderer = Renderer()
    sample = {**SAMPLES["morning"], "game": "g", "killed": params["killed"], "livid": ["Hugo"]}
    body = renderer.text("dracula/morning", "fr", sample)
    assert body.count("Avec Ana disparaît pour le reste de la manche le matériel de peinture.") == 1
    assert "Le teint livide d'Hugo ne trompe pas : c'est un vampire." in body
    two = [{"name": "Ana", "objects": ["paintkit", "stake"]}]
    body = renderer.text("dracula/morning", "fr", {**sample, "killed": two, "livid": ["A", "B"]})
    assert "Avec Ana disparaissent" in body and "ce sont des vampires" in body


@pytest.mark.parametrize(
    ("others", "genders", "must", "may_dance"),
    [
        (["Bob"], {"Bob": "m"}, "Vous devez le mordre avant", "Vous pouvez l'entraîner"),
        (["Eve"], {"Eve": "f"}, "Vous devez la mordre avant", "Vous pouvez l'entraîner"),
        (["Cam"], {}, "Vous devez mordre Cam avant", "Vous pouvez l'entraîner"),
        (
            ["Eve", "Zoé"],
            {"Eve": "f", "Zoé": "f"},
            "mordre l'une d'elles avant",
            "entraîner l'une d'elles",
        ),
        (
            ["Eve", "Bob"],
            {"Eve": "f", "Bob": "m"},
            "mordre l'un d'eux avant",
            "entraîner l'un d'eux",
        ),
        (["Eve", "Cam"], {"Eve": "f"}, "mordre l'un d'eux avant", "entraîner l'un d'eux"),
    ],
)
def test_ntf_16_17_the_bite_and_dance_prompts_agree_with_the_players_in_the_room(
    others: list[str], genders: dict[str, str], must: str, may_dance: str
) -> None:
    """NTF-16 (DRA-110): « Vous devez la mordre » a woman alone with the vampire, « l'une
    d'elles » women only; an unknown gender is named rather than guessed. NTF-17 (DRA-400):
    the phonograph's invitation agrees alike, and its holder alone is « seul » / « seule »."""
    r = Renderer()
    params = {"game": "Dracula", "name": "Ana", "room": "boudoir", "others": others}
    bite = r.text(
        "dracula/bite_prompt", "fr", {**params, "status": "must", "deadline": T, "genders": genders}
    )
    assert must in bite
    dance = r.text("dracula/phonograph_prompt", "fr", {**params, "deadline": T, "genders": genders})
    assert may_dance in dance
    for gender, alone in (
        ("m", "le boudoir, seul."),
        ("f", "le boudoir, seule."),
        (None, "le boudoir, sans personne d'autre."),
    ):
        text = r.text(
            "dracula/phonograph_prompt",
            "fr",
            {**params, "others": [], "deadline": T, "genders": {"Ana": gender} if gender else {}},
        )
        assert alone in text, text


def test_ntf_28_the_dance_reply_names_the_partner_without_a_gender() -> None:
    """NTF-28 (DRA-405): the reply's subject says « partenaire de valse », as its body does,
    not « cavalier » whoever the partner was."""
    subject, body = Renderer().mail("dracula/waltz_reply", "fr", {"game": "Dracula", "text": "Oui"})
    assert subject == "[Dracula] La réponse de votre partenaire de valse"
    assert "cavalier" not in subject + body


def test_ntf_wording_of_the_morning_the_flames_the_candle_and_the_stakes() -> None:
    """What a forum MJ would not write, each case its notice: DRA-185 « le teint livide
    d'Inès et de Léo » (« de » before each name); a dead player's position « morte » for a
    woman; NTF-43 (DRA-474) one killed fighter in the singular, « Damien, qui combattait, est
    tuée », not « Les combattants sont tués : Damien »; NTF-34 (DRA-292) alone in a candle
    room, « il n'y avait que vous », not « étaient présents : Jules »; NTF-25 (DRA-325) one
    colon in a stake scene on Dracula; NTF-21 (DRA-143) two bites told as two vampires."""
    r = Renderer()
    morning = {
        **SAMPLES["morning"],
        "game": "D",
        "livid": ["Inès", "Léo", "Hugo"],
        "genders": {"Manon": "f"},
        "positions": [{"name": "Manon", "position": "dead", "killed": False}],
    }
    text = r.text("dracula/morning", "fr", morning)
    assert "Le teint livide d'Inès, de Léo et d'Hugo ne trompe pas" in text
    assert "  Manon : morte" in text
    flames = {**SAMPLES["final_result"], "game": "D", "dracula_burned": False, "killed": ["Damien"]}
    text = r.text("dracula/final_result", "fr", {**flames, "genders": {"Damien": "f"}})
    assert "Damien, qui combattait, est tuée." in text and "Les combattants" not in text
    assert "Les combattants sont tués : A et B." in r.text(
        "dracula/final_result", "fr", {**flames, "killed": ["A", "B"]}
    )
    candle = {**SAMPLES["candle_report"], "game": "D", "present": ["Jules"]}
    assert "dans le boudoir, il n'y avait que vous." in r.text(
        "dracula/candle_report", "fr", candle
    )
    scene = {"game": "D", "scenes": [{"user": "Bob", "target": "Ana", "outcome": "dracula"}]}
    assert "Bob a planté un pieu dans Ana : Ana survit, c'est Dracula !" in r.text(
        "dracula/stake_scene", "fr", scene
    )
    bitten = {"game": "D", "name": "Ana", "count": 2}
    text = r.text("dracula/bitten_too", "fr", {**bitten, "genders": {"Ana": "f"}})
    assert "\n2 vampires vous ont mordue cette nuit ;" in text
    assert "Vous avez reçu 2 morsures de vampire" in r.text("dracula/bitten_too", "fr", bitten)


def test_dra_474_the_killed_fighters_agree_and_the_candle_report_looks_back() -> None:
    """DRA-474 (NTF-43): fighters all women are « Les combattantes sont tuées »; mixed or
    unknown, the masculine plural, as French writes it. ORD-22 (DRA-292, NTF-34): the candle
    report arrives at dawn, so the English says "Last night in …", not "Tonight in …" (the
    French « Cette nuit » is right at dawn)."""
    r = Renderer()
    flames = {**SAMPLES["final_result"], "game": "D", "dracula_burned": False, "killed": ["A", "B"]}
    women = r.text("dracula/final_result", "fr", {**flames, "genders": {"A": "f", "B": "f"}})
    assert "Les combattantes sont tuées : A et B." in women
    mixed = r.text("dracula/final_result", "fr", {**flames, "genders": {"A": "f", "B": "m"}})
    assert "Les combattants sont tués : A et B." in mixed
    some_unknown = r.text("dracula/final_result", "fr", {**flames, "genders": {"A": "f"}})
    assert "Les combattants sont tués : A et B." in some_unknown
    assert "The fighters are killed: A and B." in r.text("dracula/final_result", "en", flames)
    candle = {**SAMPLES["candle_report"], "game": "D"}
    assert "Cette nuit, dans le boudoir, il y avait A et B." in r.text(
        "dracula/candle_report", "fr", candle
    )
    en = r.text("dracula/candle_report", "en", candle)
    assert "Last night in the boudoir were present: A and B." in en and "Tonight" not in en
    alone = r.text("dracula/candle_report", "en", {**candle, "present": ["A"]})
    assert "Last night in the boudoir there was nobody but you." in alone


@pytest.mark.parametrize(
    ("phase", "fr", "en"),
    [
        (
            "dawn_wait",
            "Phase : nuit 3 (en attente du matin),",
            "Phase: night 3 (waiting for the morning),",
        ),
        ("bites", "Phase : nuit 3 (morsures),", "Phase: night 3 (bites),"),
        ("day", "Phase : journée 3,", "Phase: day 3,"),
    ],
)
def test_cmd_20_status_names_the_step_never_its_id(phase: str, fr: str, en: str) -> None:
    """CMD-20, AMB-002: STATUS tells the phase; a night held until its scheduled morning
    (``morning_not_before_scheduled``) read « Phase : dawn_wait 3 », an internal id; the
    night's number follows « nuit », not its step."""
    params = {**SAMPLES["status"], "game": "D", "name": "Ana", "phase": phase, "number": 3}
    assert fr in Renderer().text("dracula/status", "fr", params)
    assert en in Renderer().text("dracula/status", "en", params)


def test_ntf_16_17_19_one_other_player_is_named_in_english() -> None:
    """NTF-16, NTF-17 (DRA-110, DRA-400): alone with Inès, the English prompts read « You must
    bite Inès », « You may sweep Inès into a wild waltz », not « one of them »; NTF-19
    (DRA-140): « bitten by a vampire », not « by 1 vampire »."""
    r = Renderer()
    params = {"game": "D", "name": "Ana", "room": "dungeons", "others": ["Inès"], "deadline": T}
    assert "You must bite Inès before" in r.text(
        "dracula/bite_prompt", "en", {**params, "status": "must"}
    )
    assert "You may sweep Inès into a wild waltz" in r.text(
        "dracula/phonograph_prompt", "en", params
    )
    two = {**params, "others": ["Inès", "Léo"], "status": "may"}
    assert "You may bite one of them or abstain" in r.text("dracula/bite_prompt", "en", two)
    converted = r.text("dracula/converted", "en", {"game": "D", "name": "Ana", "count": 1})
    assert "You were bitten by a vampire:" in converted


@pytest.mark.parametrize(
    ("genders", "subject", "reason"),
    [
        (
            {"Eve": "f"},
            "Nuit 4 : votre coéquipière a quitté la partie",
            "c'est votre coéquipière Eve qui",
        ),
        (
            {"Eve": "m"},
            "Nuit 4 : votre coéquipier a quitté la partie",
            "c'est votre coéquipier Eve qui",
        ),
        ({}, "Nuit 4 : Eve a quitté la partie", "c'est Eve, votre partenaire, qui"),
    ],
)
def test_amb_031_the_night_4_partner_agrees(
    genders: dict[str, str], subject: str, reason: str
) -> None:
    """AMB-031, DRA-228: the Night 4 partner is « votre coéquipière » when she is a woman
    (a partner who left, a partner who chooses the room); neutral when unknown."""
    r = Renderer()
    params = {"game": "Dracula", "name": "Ana", "partner": "Eve", "deadline": T, "genders": genders}
    assert r.mail("dracula/partner_removed", "fr", params)[0] == f"[Dracula] {subject}"
    assert reason in r.text("reasons/partner_chooses", "fr", params)
