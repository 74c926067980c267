"""Words tied to a player or a group of players, found by polish9's sweep of the French
templates, agree with them: the last fighter of Dracula's final phase (« Une seule joueuse
combat », DRA-469), the fighters addressed together (« Combattantes, désignez »), Dracula
burned among women (« parmi elles », DRA-472), the Loup-Garou Elder whose death strips the
Villagers (« L'Ancienne n'est plus », LG-254, LG-727), the players listed to whoever named
nobody (« Joueuses encore en jeu », LG-D42), the sign-up's own help (« STATUT — les
inscrites »), Chasse's tie-break told with no word to agree (« la personne sauvée »), a
seat kept under its name (« change de joueuse »), and the openings' greeting and count
(« Bonjour à toutes », « 16 joueuses »), a pack of she-wolves' « une voix chacune » (LUP-300)
and the Masons' Subject (« les Franc-maçonnes », LUP-360)."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.mail.render import Renderer
from tests.loupgarou.scenario import LG, ROLES
from tests.support.game_by_mail import Game

T = "2026-01-08T00:00:00+00:00"
WOMEN = {"Alice": "f", "Chloé": "f", "Inès": "f"}
MIXED = {"Alice": "f", "Bruno": "m", "Chloé": "f"}


def _fighters(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "flames": 1} for n in names]


def _burned(burned: list[str], genders: dict[str, str]) -> dict[str, Any]:
    return {
        "designations": [],
        "burned": burned,
        "dracula_burned": True,
        "killers": [],
        "killed": [],
        "points": {},
        "genders": genders,
    }


CASES: list[tuple[str, str, str, dict[str, Any], str]] = [
    (
        "DRA-469",
        "fr",
        "dracula/final_recap",
        {"fled": [], "fighters": _fighters("Inès"), "deadline": T, "genders": WOMEN},
        "Une seule joueuse combat : Inès (une flamme).",
    ),
    (
        "DRA-469",
        "fr",
        "dracula/final_recap",
        {"fled": [], "fighters": _fighters("Bruno"), "deadline": T, "genders": MIXED},
        "Un seul joueur combat : Bruno (une flamme).",
    ),
    (
        "DRA-469",
        "fr",
        "dracula/final_recap",
        {"fled": [], "fighters": _fighters("Hugo"), "deadline": T, "genders": {}},
        "Une seule personne combat : Hugo (une flamme).",
    ),
    (
        "DRA-470",
        "fr",
        "dracula/final_recap",
        {"fled": [], "fighters": _fighters("Alice", "Inès"), "deadline": T, "genders": WOMEN},
        "Combattantes, désignez en privé un vampire par flamme",
    ),
    (
        "DRA-470",
        "fr",
        "dracula/final_recap",
        {"fled": [], "fighters": _fighters("Alice", "Bruno"), "deadline": T, "genders": MIXED},
        "Combattants, désignez en privé un vampire par flamme",
    ),
    (
        "DRA-472",
        "fr",
        "dracula/final_result",
        _burned(["Alice", "Chloé"], WOMEN),
        "Dracula était parmi elles : tous les vampires meurent.",
    ),
    (
        "DRA-472",
        "fr",
        "dracula/final_result",
        _burned(["Alice", "Bruno"], MIXED),
        "Dracula était parmi eux : tous les vampires meurent.",
    ),
    (
        "DRA-472",
        "fr",
        "dracula/final_result",
        _burned(["Alice"], WOMEN),
        "Alice a brûlé.\nC'était Dracula : tous les vampires meurent.",
    ),
    (
        "LG-D42",
        "fr",
        "reasons/unknown_target",
        {"name": "zoé", "suggestions": [], "players": ["Alice", "Chloé"], "out": ["Bruno"]}
        | {"genders": {**WOMEN, **MIXED}},
        "Joueuses encore en jeu : Alice, Chloé ; hors jeu : Bruno.",
    ),
    (
        "LG-D42",
        "fr",
        "reasons/unknown_target",
        {"name": "zoé", "suggestions": [], "players": ["Alice", "Bruno"], "out": []}
        | {"genders": MIXED},
        "Joueurs : Alice, Bruno.",
    ),
    (
        "CAS-D20",
        "fr",
        "reasons/tiebreak_mode",
        {"mode": "spare", "genders": WOMEN},
        "Envoyez SAUVER nom : vous désignez la personne sauvée.",
    ),
    (
        "LUP-300",
        "fr",
        "lupus/wolves_prompt",
        {"name": "Alice", "wolves": ["Alice", "Chloé"], "deadline": T, "tie": "random"}
        | {"genders": WOMEN},
        "(une voix chacune, modifiable",
    ),
    (
        "LUP-300",
        "fr",
        "lupus/wolves_prompt",
        {"name": "Alice", "wolves": ["Alice", "Bruno"], "deadline": T, "tie": "random"}
        | {"genders": MIXED},
        "(une voix chacun, modifiable",
    ),
    (
        "LUP-360",
        "fr",
        "lupus/masons",
        {"name": "Alice", "others": ["Chloé", "Inès"], "genders": WOMEN},
        "Première nuit : les Franc-maçonnes",
    ),
    (
        "LUP-360",
        "fr",
        "lupus/masons",
        {"name": "Alice", "others": ["Bruno", "Chloé"], "genders": MIXED},
        "Première nuit : les Francs-maçons",
    ),
    (
        "DRA-472",
        "en",
        "dracula/final_result",
        _burned(["Alice"], WOMEN),
        "It was Dracula: all the vampires die.",
    ),
]


@pytest.mark.parametrize(("rule", "lang", "template", "params", "said"), CASES)
def test_the_words_agree_with_the_players_they_name(
    rule: str, lang: str, template: str, params: dict[str, Any], said: str
) -> None:
    """The rule's mail (``rule``) names its players in the words that agree with them."""
    text = Renderer().text(template, lang, {"game": "D", **params})
    assert said in text, (rule, text)


class _Elder(LG):
    """The usual Loup-Garou deal (grace the Elder), its players' genders given."""

    def __init__(self, genders: dict[str, str]) -> None:
        self.names = list(ROLES)
        Game.__init__(self, ROLES, game="loup-garou", lang="fr", genders=genders)


@pytest.mark.parametrize(
    ("gender", "gone", "dead"),
    [
        ("f", "L'Ancienne n'est plus", "l'Ancienne est morte"),
        ("m", "L'Ancien n'est plus", "l'Ancien est mort"),
    ],
)
def test_lg_254_lg_727_the_elder_agrees_when_her_death_strips_the_villagers(
    gender: str, gone: str, dead: str
) -> None:
    """LG-254, LG-727: the Elder lynched, the Villagers lose their powers at once; the lynch
    and each powered Villager's notice name the Elder as the card's holder is."""
    g = _Elder({"grace": gender})
    g.to_night1()
    g.night()
    g.post("judy", "VOTE grace")
    out = g.deadline("day")
    lynch = next(m for m in g.public(out) if "lynchage" in m.subject).body
    assert f"{gone} : les villageois perdent leurs pouvoirs dès maintenant." in lynch
    lost = [m.body for m in out if "perdez vos pouvoirs" in m.body]
    assert lost and all(dead in body for body in lost)


def test_lg_228_lg_727_the_elder_killed_at_night_agrees_at_dawn() -> None:
    """LG-228, LG-727: the Elder killed by the Witch's poison at night: the dawn names her
    « l'Ancienne » (the powers go at the start of the debates)."""
    g = _Elder({"grace": "f"})
    g.to_night1()
    out = g.night(eve="!EMPOISONNER grace")
    dawn = next(m for m in g.public(out) if "grace" in m.body and "pouvoirs" in m.body).body
    assert "L'Ancienne n'est plus : les villageois perdent leurs pouvoirs" in dawn
    lost = [m.body for m in out if "perdez vos pouvoirs" in m.body]
    assert lost and all("l'Ancienne est morte" in body for body in lost)


def test_a_volunteers_help_names_the_sign_ups_as_the_roster_does() -> None:
    """A volunteer's AIDE says what STATUT tells: « les inscrites » in a lobby of women."""
    from tests.signup.helpers import opened, send, to

    table, _ = opened(seats=(8, 12))
    for i, volunteer in enumerate(["Anne elle", "Chloé elle"]):
        send(table, f"v{i}@example.org", f"INSCRIPTION {volunteer}")
    body = to(send(table, "v0@example.org", "AIDE"), "v0@example.org")[0].body
    assert "STATUT — les inscrites et votre situation" in body, body


@pytest.mark.parametrize(
    ("gender", "said"),
    [
        ("f", "Alice change de joueuse"),
        ("m", "Alice change de joueur"),
        (None, "Alice change de main"),
    ],
)
def test_a_seat_kept_under_its_name_says_who_holds_it_now(gender: str | None, said: str) -> None:
    """Issue 13 (substitute_name kept): the list's notice of a seat changing hands under its
    own name says so in the newcomer's gender, as its body does (« Une remplaçante »)."""
    genders = {"Alice": gender} if gender else {}
    params = {"game": "G", "name": "Alice", "old": "Alice", "genders": genders}
    subject, _body = Renderer().mail("common/substituted", "fr", params)
    assert subject == f"[G] {said}"


@pytest.mark.parametrize(
    ("game", "gender", "said"),
    [
        ("chasse-aux-sorcieres", "f", "Bonjour à toutes."),  # CAS-700
        ("chasse-aux-sorcieres", "m", "Bonjour à tous."),
        ("chasse-aux-sorcieres", None, "Bonjour à tous."),
        ("loup-garou", "f", "Une partie commence : 16 joueuses"),  # LG-700
        ("loup-garou", None, "Une partie commence : 16 joueurs"),
    ],
)
def test_cas_700_lg_700_the_opening_greets_the_players_as_they_are(
    game: str, gender: str | None, said: str
) -> None:
    """CAS-700, LG-700: the opening addresses the table: a table of women is greeted « Bonjour
    à toutes » and counted « 16 joueuses »; mixed or not given, the masculine plural."""
    from pbem.table import Table
    from pbem.tools.demo import demo_setup
    from pbem.tools.simulate import EPOCH

    setup = demo_setup(game, 16 if game == "loup-garou" else 14, 0, "fr")
    for player in setup["players"]:
        if gender:
            player["gender"] = gender
    _table, step = Table.new(setup, EPOCH)
    opening = next(m for m in step.outgoing if m.public)
    assert said in opening.subject + "\n" + opening.body
