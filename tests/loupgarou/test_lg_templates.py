"""Every Loup-Garou template renders in both languages (StrictUndefined), French grammar."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.mail.render import LANGS, Renderer

T = "2026-01-05T18:00:00+00:00"
DEAD = {
    "name": "bob",
    "cause": "grief",
    "role": "seer",
    "team": "villagers",
    "conditions": ["mayor", "lover", "charmed", "young_wolf", "idiot"],
    "lover": "ivan",
}
WOLVES = [
    {"name": "alice", "role": "master_wolf", "status": "master"},
    {"name": "bob", "role": "werewolf", "status": "wolf"},
    {"name": "eve", "role": "witch", "status": "young_wolf"},
    {"name": "carol", "role": "thief", "status": "thief"},
]
VOTES = {"votes": [{"voter": "a", "target": "b"}], "counts": [{"name": "b", "count": 1}]}
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "opening": [
        {
            "players": ["a", "b"],
            "deck": [{"role": "villager", "count": 8}, {"role": "seer", "count": 1}],
            "bite_end": T,
            "election_end": T,
        }
    ],
    "role": [
        {"role": r, "team": "villagers", "bite_end": T}
        for r in (
            "werewolf",
            "master_wolf",
            "villager",
            "thief",
            "seer",
            "witch",
            "little_girl",
            "elder",
            "pied_piper",
        )
    ],
    "bitten": [{"role": "witch"}],
    "elder_bitten": [{}],
    "master_elder": [{"elder": "grace"}],
    "wolves_list": [
        {"wolves": WOLVES, "detail": d}
        for d in ("names_and_identities", "names_only", "names_and_status")
    ],
    "election_open": [{"deadline": T}],
    "election_result": [
        {
            "votes": [{"voter": "a", "target": None}, {"voter": "b", "target": "a"}],
            "counts": [{"name": "a", "count": 1}],
            "drawn_among": ["a", "b"],
            "mayor": "a",
        },
        {"votes": [], "counts": [], "drawn_among": [], "mayor": "a"},
    ],
    "election_runoff": [
        {**VOTES, "tied": ["a", "b"], "deadline": T, "votes": [{"voter": "a", "target": None}]}
    ],
    "night_start": [{"number": 1, "council": T, "end": T}],
    "council_prompt": [
        {
            "number": 3,
            "wolves": WOLVES,
            "detail": "names_and_identities",
            "joined": ["carol"],
            "left": ["carol"],
            "welcome": True,
            "deadline": T,
            "end": T,
        }
    ],
    "seer_prompt": [{"end": T}],
    "girl_prompt": [{"matchmaking": m, "end": T} for m in (True, False)],
    "piper_prompt": [{"end": T}],
    "witch_prompt": [
        {"life": lf, "death": d, "council": T, "end": T}
        for lf, d in ((True, True), (True, False), (False, True))
    ],
    "thief_prompt": [
        {"number": 7, "choices": c, "end": T}
        for c in (["wolf"], ["villager"], ["wolf", "villager"])
    ],
    "kill_relay": [{"voter": "a", "target": "b"}],
    "pack_chat": [{"sender": "a", "text": "{{ 7*7 }} salut"}],
    "council_result": [
        {"victim": v, "how": h, "drawn_among": ["a", "b"]}
        for v, h in (("a", "majority"), ("a", "master"), ("a", "draw"), (None, "none"))
    ]
    + [{"victim": None, "how": "tie_no_victim", "drawn_among": []}],
    "witch_victim": [{"victim": v, "life": True, "death": True, "end": T} for v in ("a", None)],
    "seer_result": [{"target": "a", "role": r} for r in ("villager", "seer", "elder")],
    "girl_answer": [
        {"question": q, "names": n, "conditions": c}
        for q, n, c in (
            ("wolves", ["a"], []),
            ("wolves", [], []),
            ("seer", ["a"], []),
            ("seer", [], []),
            ("piper", ["a", "b"], []),
            ("piper", [], []),
            ("conditions", ["a"], ["mayor", "charmed"]),
            ("conditions", ["a"], []),
        )
    ],
    "spied": [{}],
    "charmed": [{"others": []}, {"others": ["a", "b"]}],
    "lovers": [{"other": "a", "role": "witch"}],
    "elder_escaped": [{}],
    "thief_result": [{"result": r} for r in ("wolf", "villager", "last_wolf")],
    "powers_lost": [{"when": w} for w in ("today", "now")],
    "dawn": [
        {
            "day": 2,
            "dead": [DEAD, {**DEAD, "cause": c}],
            "elder_dead": True,
            "mayor_dead": "bob",
            "deadline": T,
        }
        for c in ("wolves", "poison", "wolves_and_poison")
    ]
    + [{"day": 1, "dead": [], "elder_dead": False, "mayor_dead": None, "deadline": None}],
    "sash_prompt": [{"deadline": T}],
    "new_mayor": [{"mayor": "a", "by": b, "former": "c"} for b in ("c", None)],
    "tally": [{"day": 1, **VOTES}, {"day": 1, "votes": [], "counts": []}],
    "final_tally": [
        {"day": 1, "tied": ["a", "b"], "mayor": "m", "deadline": T, **VOTES},
        {"day": 1, "tied": [], "mayor": None, "deadline": None, "votes": [], "counts": []},
    ],
    "tiebreak_prompt": [{"tied": ["a", "b"], "deadline": T}],
    "lynch": [
        {
            "day": 1,
            "designated": d,
            "how": h,
            "idiot": i,
            "dead": [{**DEAD, "cause": "burned" if i else "lynch"}],
            "elder_dead": True,
            "mayor_dead": "m",
        }
        for d, h, i in (
            ("a", "majority", False),
            ("a", "mayor", True),
            ("a", "mayor_vote", False),
            ("a", "draw", False),
            (None, "none", False),
        )
    ],
    "victory": [
        {"side": s, "winners": ["a"], "reveal": [{**DEAD, "alive": False}]}
        for s in ("villagers", "wolves", "pied_piper", "lovers", None)
    ],
    "status": [
        {
            "role": "seer",
            "team": "villagers",
            "alive": True,
            "conditions": ["mayor"],
            "lover": "a",
            "lover_role": "witch",
            "wolves": ["x"],
            "phase": p,
            "number": 1,
            "deadlines": {"night": T, "sash": T},
            "pending": [{"verb": "scan", "word": "", "targets": ["a"], "line": "SONDER a"}],
            "vote": "a",
            "living": ["a", "b"],
            "mayor": "a",
        }
        for p in ("bite", "election", "runoff", "night", "day", "tiebreak", "over")
    ],
}


def test_every_template_has_samples() -> None:
    renderer = Renderer()
    for lang in LANGS:
        files = {p.stem for p in (renderer.root / lang / "loupgarou").glob("*.txt")}
        assert files == set(SAMPLES), lang


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_template_renders(name: str, lang: str) -> None:
    renderer = Renderer()
    for params in SAMPLES[name]:
        text = renderer.text(
            f"loupgarou/{name}", lang, {"game": "Loup-Garou", "name": "zoe", **params}
        )
        assert text.strip()
        assert "{{" not in text.replace("{{ 7*7 }}", "") and "49" not in text
        if name != "status":
            subject, body = renderer.mail(
                f"loupgarou/{name}", lang, {"game": "LG", "name": "zoe", **params}
            )
            assert subject.startswith("[LG]") and body.strip()


def test_french_articles_and_genders() -> None:
    """French grammar: la Voyante, l'Ancien, le Voleur, un Simple villageois."""
    r = Renderer()

    def seer(role: str) -> str:
        return r.text(
            "loupgarou/seer_result", "fr", {"game": "G", "name": "z", "target": "a", "role": role}
        )

    assert "a est la Voyante" in seer("seer")
    assert "a est la Sorcière" in seer("witch")
    assert "a est la Petite fille" in seer("little_girl")
    assert "a est l'Ancien" in seer("elder")
    assert "a est le Voleur" in seer("thief")
    assert "a est le Joueur de flûte" in seer("pied_piper")
    assert "a est un Simple villageois" in seer("villager")
    opening = r.text("loupgarou/opening", "fr", {"game": "G", **SAMPLES["opening"][0]})
    assert "8 Simples villageois, 1 Voyante" in opening


def test_reasons_exist_in_both_languages() -> None:
    """LG-602: every rejection of this game has its explanation in both languages."""
    import re
    from pathlib import Path

    source = "".join(p.read_text() for p in Path("pbem/games/loupgarou").glob("*.py"))
    reasons = set(re.findall(r'(?:IllegalNow|InvalidSyntax)\(\s*"([a-z_0-9]+)"', source))
    r = Renderer()
    for lang in LANGS:
        for reason in reasons:
            assert r.exists(f"reasons/{reason}", lang), (lang, reason)


def test_lg_510_the_thief_who_joins_or_leaves_the_council_agrees_with_her() -> None:
    """LG-510, LG-711: the council is told « Bruno (Voleuse) rejoint le conseil » when the
    Thief is a woman, as the list below it says « Bruno : Voleuse »."""
    params = {**SAMPLES["council_prompt"][0], "game": "LG", "name": "alice"}
    text = Renderer().text("loupgarou/council_prompt", "fr", {**params, "genders": {"carol": "f"}})
    assert "carol (Voleuse) rejoint le conseil." in text
    assert "carol (Voleuse) a quitté le conseil." in text
    text = Renderer().text("loupgarou/council_prompt", "fr", {**params, "genders": {}})
    assert "carol (Voleur) rejoint le conseil." in text


@pytest.mark.parametrize(
    ("gender", "team"),
    [("f", "équipe Joueuse de flûte (seule)"), ("m", "équipe Joueur de flûte (seul)")],
)
def test_lg_d29_the_pied_pipers_team_agrees_with_her(gender: str, team: str) -> None:
    """LG-D29: the end of the game reveals each player's team; the Pied Piper plays alone,
    « Joueuse de flûte (seule) » when she is a woman (and in her STATUT)."""
    piper = {
        "name": "kim",
        "role": "pied_piper",
        "team": "pied_piper",
        "conditions": [],
        "alive": False,
    }
    r = Renderer()
    params = {"game": "LG", "side": "villagers", "winners": ["a"], "reveal": [piper]}
    assert f"kim : {'Joueuse' if gender == 'f' else 'Joueur'} de flûte, {team}" in r.text(
        "loupgarou/victory", "fr", {**params, "genders": {"kim": gender}}
    )
    status = {**SAMPLES["status"][0], "role": "pied_piper", "team": "pied_piper", "conditions": []}
    text = r.text(
        "loupgarou/status",
        "fr",
        {**status, "game": "LG", "name": "kim", "genders": {"kim": gender}},
    )
    assert team in text


@pytest.mark.parametrize(
    ("victim", "life", "death", "told"),
    [
        (
            None,
            True,
            False,
            "Votre potion de vie ne sauve que la victime des loups : vous n'avez rien à faire cette nuit.",
        ),
        (
            "bob",
            True,
            True,
            "Envoyez SAUVER pour la sauver avec la potion de vie, ou EMPOISONNER nom pour utiliser la potion de mort, jusqu'au",
        ),
        (
            "zoe",
            True,
            False,
            "la victime des loups cette nuit, c'est vous.\nEnvoyez SAUVER pour vous sauver avec la potion de vie, jusqu'au",
        ),
        (None, False, True, "Envoyez EMPOISONNER nom pour utiliser la potion de mort, jusqu'au"),
    ],
)
def test_lg_714_the_witch_is_told_what_she_can_still_do_tonight(
    victim: str | None, life: bool, death: bool, told: str
) -> None:
    """LG-351, LG-714: the Witch told the wolves' victim reads what she may send and until
    when; with only her life potion and no victim, that she has nothing to do (not a lone
    « Jusqu'au … »); her own name as the victim, « c'est vous »."""
    params = {"game": "LG", "name": "zoe", "victim": victim, "life": life, "death": death, "end": T}
    text = Renderer().text("loupgarou/witch_victim", "fr", params)
    assert told in text
    assert "\nJusqu'au" not in text


@pytest.mark.parametrize(
    ("lang", "alone", "pack"),
    [
        (
            "fr",
            "Vous êtes seule au conseil cette nuit : choisissez la victime avec TUER nom",
            "LOUPS",
        ),
        ("en", "You are alone in the council tonight: choose the victim with KILL name", "PACK"),
    ],
)
def test_lg_711_a_wolf_alone_in_the_council_is_not_told_to_talk_to_it(
    lang: str, alone: str, pack: str
) -> None:
    """LG-711, LG-D38: the council's prompt lists it and says each vote is relayed and LOUPS
    talks to it; a wolf alone in it (LOUPS is then refused: nobody to relay to) is told she
    chooses alone."""
    params = {
        **SAMPLES["council_prompt"][0],
        "game": "LG",
        "name": "carol",
        "joined": [],
        "left": [],
        "welcome": False,
        "genders": {"carol": "f"},
    }
    lone = [{"name": "carol", "role": "thief", "status": "thief"}]
    text = Renderer().text("loupgarou/council_prompt", lang, {**params, "wolves": lone})
    assert alone in text
    assert pack not in text and "relay" not in text
    assert pack in Renderer().text("loupgarou/council_prompt", lang, params)


def test_lg_d32_the_mayors_tie_break_agrees_and_names_the_mayor_as_you() -> None:
    """LG-527, LG-D32: on a tie the Mayor decides; the list reads « la Maire Damien tranche »
    for a woman, and the Mayor tied herself is asked « parmi Manon et vous-même », not
    « parmi Damien et Manon »."""
    r = Renderer()
    tally = {
        **SAMPLES["final_tally"][0],
        "game": "LG",
        "tied": ["Damien", "Manon"],
        "mayor": "Damien",
    }
    assert "la Maire Damien tranche" in r.text(
        "loupgarou/final_tally", "fr", {**tally, "genders": {"Damien": "f"}}
    )
    assert "le Maire Damien tranche" in r.text("loupgarou/final_tally", "fr", tally)
    prompt = {"game": "LG", "name": "Damien", "tied": ["Damien", "Manon"], "deadline": T}
    assert "parmi Manon et vous-même :" in r.text("loupgarou/tiebreak_prompt", "fr", prompt)
    assert "among Manon and yourself:" in r.text("loupgarou/tiebreak_prompt", "en", prompt)
    other = r.text("loupgarou/tiebreak_prompt", "fr", {**prompt, "tied": ["Bob", "Manon"]})
    assert "parmi Bob et Manon :" in other


def test_lg_204_a_young_wolfs_card_agrees_with_her_in_the_wolves_list() -> None:
    """LG-204, LG-704: the wolves' list tells a Young wolf's card; Manon, the Pied Piper
    bitten, is « Jeune louve (carte : Joueuse de flûte) », as her own mail says."""
    wolves = [{"name": "Manon", "role": "pied_piper", "status": "young_wolf"}]
    params = {"game": "LG", "name": "x", "wolves": wolves, "detail": "names_and_identities"}
    text = Renderer().text("loupgarou/wolves_list", "fr", {**params, "genders": {"Manon": "f"}})
    assert "Manon : Jeune louve (carte : Joueuse de flûte)" in text


def test_lg_d05_a_runoff_between_women_is_entre_elles_seules() -> None:
    """LG-D05: the Mayor's election with ``mayor_election_tie = runoff``: the tied players alone are
    voted for again; two women are « entre elles seules »."""
    params = {
        "game": "LG",
        "votes": [],
        "counts": [],
        "tied": ["Anne", "Eve"],
        "deadline": T,
        "genders": {"Anne": "f", "Eve": "f"},
    }
    assert "second tour entre elles seules," in Renderer().text(
        "loupgarou/election_runoff", "fr", params
    )
    mixed = {**params, "genders": {"Anne": "f"}}
    assert "second tour entre eux seuls," in Renderer().text(
        "loupgarou/election_runoff", "fr", mixed
    )
