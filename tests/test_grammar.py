"""Every template, in both languages, for a masculine, a feminine and an unknown player:
no forbidden form (contraction, elision, punctuation, agreement).

The parameters are the ones recorded from real bot games (tests/test_templates.py); the
``genders`` parameter the engine passes is replaced by one that gives every player the
gender under test, so each sentence naming a player is read three times.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem.mail.grammar import au, de, elide, parse_gender
from pbem.mail.render import Renderer
from tests.test_templates import RECORDED, sample, variables

RENDERER = Renderer()
KERNEL_FOLDERS = ("common", "reasons", "daemon")


class Everyone(dict[str, str]):
    """Every player has the gender under test (None: not given)."""

    def __init__(self, gender: str | None) -> None:
        super().__init__()
        self.gender = gender

    def get(self, key: Any, default: Any = None) -> Any:
        return self.gender


# Forms a careful French (or English) writer never leaves: contraction and elision missed,
# doubled punctuation and spaces.
FORBIDDEN = {
    "fr": [
        (r"\bde les?\b", "« de le(s) » (du / des)"),
        (r"\bà les?\b", "« à le(s) » (au / aux)"),
        (r"\b[Ll]['’]H(ibou|amster)", "elision before an h aspiré"),
        (
            r"\b(?:[Ll]e|[Ll]a|[Dd]e|[Qq]ue) (?:[AEIOUÉÈÊaeiouéèêîô]|[Hh](?!ibou|amster))\w",
            "no elision",
        ),
    ],
    "en": [],
}
EVERYWHERE = [
    (r"[!?]\.", "« !. »"),
    (r"(?<!\.)\.\.(?!\.)", "« .. »"),
    (r"\S  +\S", "doubled space"),
    (r" [,.](?!\.\.)", "space before a comma or a full stop"),  # « PIECE ... » is no fault
]

MASC_FR = {"mort", "élu", "mordu", "maudit", "pris", "seul", "devenu", "vivant", "tenu"}
FEM_FR = {w + "e" for w in MASC_FR} | {"prise"}


def _french_form(word: str) -> str | None:
    """``"m"`` / ``"f"`` for a past participle or adjective that shows a gender."""
    w = word.lower()
    if w.endswith(("ée", "ées")) or w in FEM_FR:
        return "f"
    if w.endswith(("é", "és")) or w in MASC_FR:
        return "m"
    return None


def agreement_faults(text: str, lang: str, names: set[str], gender: str | None) -> list[str]:
    """Sentences whose agreement does not fit ``gender`` (unknown: any gendered form)."""
    faults = []
    wrong = {"m": {"f"}, "f": {"m"}, None: {"m", "f"}}[gender]
    if lang == "fr":
        subjects = [re.escape(n) for n in sorted(names, key=len, reverse=True)] + ["[Vv]ous"]
        pattern = (
            rf"\b(?:{'|'.join(subjects)}) (?:est|était|sera|a été|avait été|êtes|étiez|serez"
            r"|avez été|êtes devenue?|reste|restez)(?: maintenant| déjà| désormais)? (\w+)"
        )
        for match in re.finditer(pattern, text):
            if _french_form(match.group(1)) in wrong:
                faults.append(match.group(0))
    else:
        pronouns = {
            "m": r"\b(?:she|her|hers|herself)\b",
            "f": r"\b(?:he|him|his|himself)\b",
            None: r"\b(?:he|him|his|himself|she|her|hers|herself)\b",
        }[gender]
        # a command's syntax is no sentence: « JOIN name [he|she|they] » names the choices
        prose = re.sub(r"\[[a-z]+(?:\|[a-z]+)+\]", "", text)
        faults += [m.group(0) for m in re.finditer(pronouns, prose, re.IGNORECASE)]
    return faults


def _player_names() -> set[str]:
    names = set()
    for examples in RECORDED.values():
        names |= {str(p["name"]) for p in examples if isinstance(p.get("name"), str)}
    return {n for n in names if len(n) > 1}


NAMES = _player_names()


def _examples(lang: str, name: str) -> list[dict[str, Any]]:
    recorded = RECORDED.get(name)
    if recorded:
        seen, unique = set(), []
        for params in recorded:
            key = repr(sorted(params.items(), key=lambda kv: kv[0]))
            if key not in seen:
                seen.add(key)
                unique.append(params)
        return unique[:40]
    overrides = SAMPLES.get(name, {})
    return [{v: overrides.get(v, _sample(v)) for v in variables(RENDERER, lang, name)}]


# templates whose parameters' names say little of their shape
SAMPLES: dict[str, dict[str, Any]] = {
    "common/bold_disagree": {"html": ["Alice"], "text": ["Bob"]},
    # issue 13: the hand-over packet re-renders the seat's mails; the game's help folder
    "common/handover": {
        "sections": [{"subject": "[Lupus] Votre rôle", "body": "Vous êtes le Voyant."}],
        "commands": [{"verb": "help", "keyword": "AIDE", "args": "", "public": "no"}],
        "folder": "lupus",
        "awaited": True,
        "situation": "Vous êtes le Voyant, en vie.",
    },
}


def _sample(variable: str) -> Any:
    """The kernel's and the daemon's texts: plausible values of the right type."""
    moments = ("deadline", "passed", "internaldate", "before", "after", "until")
    moments += ("at", "received", "resume")
    numbers = ("count", "attempts", "failures", "crashes", "size", "cap", "per_hour", "uid")
    numbers += ("limit", "text_cap", "retries", "wait")
    if variable in moments:
        return "2026-01-06T12:00:00+00:00"
    if variable in numbers or variable.startswith("hours_") or variable in ("grace", "threshold"):
        return 3
    if variable in ("elapsed", "skew"):
        return 5400
    if variable == "topic":
        return "help"
    if variable in ("inbox", "key", "token"):
        return "INBOX"
    if variable == "games":
        return [{"address": "mj+village1@example.org", "id": "village1"}]
    return sample(variable)


ENTRIES = [
    e
    for e in RENDERER.names()
    if e.split(":")[1] in RECORDED or e.split(":")[1].split("/")[0] in KERNEL_FOLDERS
]


@pytest.mark.parametrize("entry", ENTRIES)
def test_template_reads_correctly_for_every_gender(entry: str) -> None:
    lang, name = entry.split(":")
    problems: list[str] = []
    for params in _examples(lang, name):
        for gender in ("m", "f", None):
            text = RENDERER.text(name, lang, {"name": "bob", **params, "genders": Everyone(gender)})
            for pattern, why in FORBIDDEN[lang] + EVERYWHERE:
                for match in re.finditer(pattern, text):
                    problems.append(f"{why}: {match.group(0)!r} ({gender})")
            problems += [
                f"agreement ({gender}): {f!r}" for f in agreement_faults(text, lang, NAMES, gender)
            ]
    assert not sorted(set(problems)), "\n".join(sorted(set(problems)))


@pytest.mark.parametrize(
    ("phrase", "with_de", "with_a", "elided"),
    [
        ("le Voleur", "du Voleur", "au Voleur", "le Voleur"),
        ("la Voyante", "de la Voyante", "à la Voyante", "la Voyante"),
        ("le Ancien", "de l'Ancien", "à l'Ancien", "l'Ancien"),
        ("les Loups-garous", "des Loups-garous", "aux Loups-garous", "les Loups-garous"),
        ("le Hibou", "du Hibou", "au Hibou", "le Hibou"),  # h aspiré: no elision
        ("le Hamster-Garou", "du Hamster-Garou", "au Hamster-Garou", "le Hamster-Garou"),
        ("la Herboriste", "de l'Herboriste", "à l'Herboriste", "l'Herboriste"),  # h muet
        ("Inès", "d'Inès", "à Inès", "Inès"),
        ("Leonard", "de Leonard", "à Leonard", "Leonard"),
        ("le boudoir", "du boudoir", "au boudoir", "le boudoir"),
    ],
)
def test_french_contraction_and_elision(
    phrase: str, with_de: str, with_a: str, elided: str
) -> None:
    assert (de(phrase), au(phrase), elide(phrase)) == (with_de, with_a, elided)


@pytest.mark.parametrize(
    ("given", "gender"),
    [("f", "f"), ("M", "m"), ("elle", "f"), ("il", "m"), ("she", "f"), ("he", "m"), ("they", None)],
)
def test_gender_or_pronoun_read_from_the_setup(given: str, gender: str | None) -> None:
    assert parse_gender(given) == gender


def test_an_unknown_gender_is_a_setup_error() -> None:
    from pbem.core.errors import SetupError
    from pbem.table import TableSetup

    players = [{"name": "alice", "email": "a@x.org", "gender": "dragon"}]
    with pytest.raises(SetupError, match="alice: gender"):
        TableSetup.from_mapping({"game": "lupus-in-tabula", "players": players})
    players[0]["pronoun"] = players[0].pop("gender") and "elle"
    assert (
        TableSetup.from_mapping({"game": "lupus-in-tabula", "players": players}).players[0].gender
        == "f"
    )


# A Loup-Garou condition is a state of the player (LG-447 the Lovers, LG-460 the charmed, LG-282
# the young wolf, LG-252 the idiot): its label agrees with him or her, and reads with no
# agreement when the gender is unknown (issue 15's leftover: « Alice : Amoureux, Envoûté »).
CONDITIONS = ["mayor", "lover", "charmed", "young_wolf", "idiot"]
LABELS = {
    "f": "Maire, Amoureuse, Envoûtée, Jeune louve, Idiote du village",
    "m": "Maire, Amoureux, Envoûté, Jeune loup, Idiot du village",
    None: "Maire, membre du couple d'Amoureux, sous l'envoûtement du Joueur de flûte, Jeune loup,"
    " Idiot du village",
}
CONDITION_TEMPLATES = {
    "loupgarou/status": {"conditions": CONDITIONS, "lover": "", "wolves": [], "vote": ""}
    | {"role": "villager", "team": "villagers", "alive": True, "mayor": "", "number": 1},
    "loupgarou/girl_answer": {
        "question": "conditions",
        "names": ["Inès"],
        "conditions": CONDITIONS,
    },
    "loupgarou/victory": {
        "side": "villagers",
        "reveal": [
            {"name": "Inès", "role": "villager", "team": "villagers", "alive": False}
            | {"conditions": CONDITIONS}
        ],
    },
}


@pytest.mark.parametrize("gender", ["f", "m", None])
@pytest.mark.parametrize("template", sorted(CONDITION_TEMPLATES))
def test_loupgarou_condition_labels_agree_with_the_player(
    template: str, gender: str | None
) -> None:
    params = {v: _sample(v) for v in variables(RENDERER, "fr", template)}
    params |= {"name": "Inès", "phase": "day", "deadlines": {}, "pending": []}
    params |= CONDITION_TEMPLATES[template] | {"genders": Everyone(gender)}
    text = RENDERER.text(template, "fr", params)
    assert LABELS[gender] in text
    if template == "loupgarou/girl_answer":
        assert "Conditions d'Inès" in text  # elided before the vowel


@pytest.mark.parametrize(
    ("gender", "label"),
    [("f", "Jeune louve (carte"), ("m", "Jeune loup (carte"), (None, "Jeune loup (carte")],
)
def test_loupgarou_young_wolf_in_the_wolves_list_agrees(gender: str | None, label: str) -> None:
    wolves = [{"name": "Inès", "status": "young_wolf", "role": "seer"}]
    text = RENDERER.text(
        "loupgarou/wolves_list",
        "fr",
        {"game": "G", "name": "bob", "wolves": wolves, "detail": "names_and_identities"}
        | {"genders": Everyone(gender)},
    )
    assert f"Inès : {label}" in text


@pytest.mark.parametrize(
    ("gender", "label"),
    [
        ("f", "conditions : amoureuse, envoûtée, maudite, morte, lynchée par le village"),
        ("m", "conditions : amoureux, envoûté, maudit, mort, lynché par le village"),
        (
            None,
            "conditions : membre du couple d'amoureux, sous l'envoûtement, sous la malédiction"
            ", hors jeu : victime du vote du village",
        ),
    ],
)
def test_desk_roles_conditions_agree_with_the_player(gender: str | None, label: str) -> None:
    seat = {"name": "Inès", "holder": "", "role": "villager", "dealt": "", "side": ""}
    seat |= {"conditions": ["lover", "charmed", "cursed"], "alive": False, "cause": "lynch"}
    params = {v: _sample(v) for v in variables(RENDERER, "fr", "desk/roles")}
    params |= {"cast": [seat], "names": "loupgarou/_names.jinja", "orders": {}, "deadlines": {}}
    text = RENDERER.text("desk/roles", "fr", params | {"genders": Everyone(gender)})
    assert label in text


@pytest.mark.parametrize(
    ("gender", "text"),
    [
        ("f", "Votre cœur appartient à Inès (Amoureuse)."),
        ("m", "Votre cœur appartient à Inès (Amoureux)."),
        (None, "Votre cœur appartient à Inès : vous formez le couple d'Amoureux."),
    ],
)
def test_chasse_lover_label_agrees_with_the_partner(gender: str | None, text: str) -> None:
    """CAS-234: the status names the other Lover; the label agrees with him or her."""
    params = {v: _sample(v) for v in variables(RENDERER, "fr", "chasse/status")}
    params |= {"role": "piper", "faction": "good", "phase": "D", "deadlines": {}, "pending": []}
    params |= {"partner": "Inès", "vote": "", "penny": "", "genders": Everyone(gender)}
    assert text in RENDERER.text("chasse/status", "fr", params)


@pytest.mark.parametrize(
    ("gender", "idiot"), [("f", "l'Idiote"), ("m", "l'Idiot"), (None, "l'Idiot")]
)
def test_loupgarou_revealed_idiot_agrees(gender: str | None, idiot: str) -> None:
    """LG-252: the idiot's card is shown at the foot of the pyre."""
    params = {v: _sample(v) for v in variables(RENDERER, "fr", "loupgarou/lynch")}
    params |= {"designated": "Inès", "idiot": True, "dead": [], "how": "votes"}
    params |= {"genders": Everyone(gender)}
    text = RENDERER.text("loupgarou/lynch", "fr", params)
    assert f"Inès se révèle être {idiot} du village !" in text


# The candle report (AMB-046) tells each bite's result: the vampirised target agrees with the
# player (DRA-117: a bitten human becomes a vampire), the crucifix counters the bite itself
# (DRA-271: « morsure contrée »), and an unknown gender gets a phrasing without agreement.
@pytest.mark.parametrize(
    ("lang", "gender", "results"),
    [
        ("fr", "f", ["vampirisée", "morsure contrée par un crucifix", "déjà vampire"]),
        ("fr", "m", ["vampirisé", "morsure contrée par un crucifix", "déjà vampire"]),
        ("fr", None, ["morsure réussie", "morsure contrée", "déjà vampire"]),
        ("en", None, ["vampirised", "countered by a crucifix", "already a vampire"]),
    ],
)
def test_candle_report_bite_results_agree_with_the_target(
    lang: str, gender: str | None, results: list[str]
) -> None:
    outcomes = ["vampirised", "crucifix", "vampire"]
    lines = [
        {"kind": "bite", "actor": "Bob", "targets": ["Inès"], "objects": [], "outcome": o}
        | {"text": ""}
        for o in outcomes
    ]
    params = {"game": "G", "room": "boudoir", "present": ["Bob", "Inès"], "lines": lines}
    text = RENDERER.text("dracula/candle_report", lang, params | {"genders": Everyone(gender)})
    bites = [line.strip() for line in text.splitlines() if "Bob" in line and ":" in line][1:]
    assert len(bites) == 3
    for bite, result in zip(bites, results, strict=True):
        assert bite.endswith(f": {result}.") if lang == "en" else f" : {result}" in bite
        assert not agreement_faults(bite, lang, {"Inès"}, gender)
    if gender is None and lang == "fr":
        assert not re.search(r"vampirisée?\b", text)
