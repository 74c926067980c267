"""Lupus in Tabula's mails read as a careful forum MJ writes them (counts, agreement)."""

from __future__ import annotations

import pytest

from pbem.mail.render import Renderer

T = "2026-01-08T00:00:00+00:00"


@pytest.mark.parametrize(
    ("lang", "ghosts", "said"),
    [
        ("fr", ["Gaëlle"], "Le fantôme (Gaëlle) vote par message privé au modérateur."),
        ("fr", ["Gaëlle", "Paul"], "Les fantômes (Gaëlle et Paul) votent par message privé"),
        ("en", ["Gaëlle"], "The ghost (Gaëlle) votes by private message to the moderator."),
        ("en", ["Gaëlle", "Paul"], "The ghosts (Gaëlle and Paul) vote by private message"),
    ],
)
def test_lup_502_round_1_tells_one_ghost_in_the_singular(
    lang: str, ghosts: list[str], said: str
) -> None:
    """LUP-502, LUP-D22: round 1's opening tells the ghosts to vote by private message; one
    ghost is « Le fantôme (Gaëlle) vote », not « Les fantômes (Gaëlle) votent »."""
    params = {"game": "Lupus in Tabula", "day": 1, "deadline": T, "changes": True, "ghosts": ghosts}
    assert said in Renderer().text("lupus/round1_open", lang, params)


@pytest.mark.parametrize(
    ("lang", "alone", "not_said"),
    [
        ("fr", "bob, vous êtes l'unique Loup-Garou encore en vie.", ("une voix chacun", "LOUPS")),
        ("en", "bob, you are the only Werewolf left alive.", ("one vote each", "PACK")),
    ],
)
def test_lup_300_a_lone_werewolf_is_not_told_of_a_pack(
    lang: str, alone: str, not_said: tuple[str, ...]
) -> None:
    """LUP-300, LUP-D05, LUP-613: the night's prompt lists the pack and its rules (one vote
    each, ties, LOUPS relays to the pack); the last Werewolf alive is told he is alone, not
    « les Loups-Garous sont : bob » and a vote each."""
    params = {"game": "Lupus in Tabula", "name": "bob", "deadline": T, "tie": "random"}
    text = Renderer().text("lupus/wolves_prompt", lang, {**params, "wolves": ["bob"]})
    assert alone in text
    assert not any(words in text for words in not_said)
    pack = Renderer().text("lupus/wolves_prompt", lang, {**params, "wolves": ["alice", "bob"]})
    assert all(words in pack for words in not_said)


@pytest.mark.parametrize(
    ("phase", "fr", "en"),
    [
        ("round2", "Phase : jour 2 (second tour du vote),", "Phase: day 2 (round 2 of the vote),"),
        (
            "defence",
            "Phase : jour 2 (défense des nommés),",
            "Phase: day 2 (the nominees' defence),",
        ),
        ("night", "Phase : nuit 2,", "Phase: night 2,"),
    ],
)
def test_lup_622_status_names_the_days_step_never_its_id(phase: str, fr: str, en: str) -> None:
    """LUP-622: STATUT tells the phase; « second tour 2 » read as a second round numbered 2,
    and the English reply showed the phase's id (« round2 2 »)."""
    from pbem.table import Table
    from pbem.tools.demo import demo_setup
    from pbem.tools.simulate import EPOCH

    for lang, said in (("fr", fr), ("en", en)):
        table, step = Table.new(demo_setup("lupus-in-tabula", 8, 1, lang), EPOCH)
        table.apply(step)
        params = table.rules.status(table.state, table.setup.players[0].name)
        params = {**params, "phase": phase, "number": 2, "game": "Lupus in Tabula"}
        text = Renderer().text("lupus/status", lang, {"name": "Alice", "genders": {}, **params})
        assert said in text, text


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", "Nommés : Théo, Nathan et Ugo (choix du Hibou)."),
        ("en", "Nominees: Théo, Nathan and Ugo (nominated by the Owl)."),
    ],
)
def test_lup_d16_three_nominees_are_a_list_not_a_chain_of_ands(lang: str, said: str) -> None:
    """LUP-D16 (``nomination_tie = all_tied``) and the Owl's pick: round 1 may nominate three
    or more; « Théo, Nathan et Ugo », not « Théo et Nathan et Ugo »."""
    params = {
        "game": "Lupus in Tabula",
        "day": 2,
        "votes": [],
        "counts": [],
        "draws": [],
        "outcome": "defence",
        "nominees": ["Théo", "Nathan", "Ugo"],
        "owl": "Ugo",
        "deadline": T,
    }
    assert said in Renderer().text("lupus/round1_result", lang, params)


@pytest.mark.parametrize(
    ("gender", "said"), [("f", "Ugo, la Mythomane, a imité"), (None, "Ugo, le Mythomane, a imité")]
)
def test_lup_380_the_mythomaniac_who_joins_the_pack_agrees(gender: str | None, said: str) -> None:
    """LUP-380, LUP-383: the pack is told the Mythomaniac who copied one of them joins it;
    « la Mythomane » when she is a woman, as her own role mail says."""
    genders = {"Ugo": gender} if gender else {}
    params = {"game": "Lupus in Tabula", "myth": "Ugo", "role": "werewolf", "genders": genders}
    assert said in Renderer().text("lupus/myth_joined", "fr", params)


@pytest.mark.parametrize(
    ("lang", "winners", "genders", "said"),
    [
        ("fr", ["Alice", "Chloé"], {"Alice": "f", "Chloé": "f"}, "Gagnantes : Alice et Chloé."),
        ("fr", ["Alice", "Bruno"], {"Alice": "f", "Bruno": "m"}, "Gagnants : Alice et Bruno."),
        ("fr", ["Alice", "Sacha"], {"Alice": "f"}, "Gagnants : Alice et Sacha."),
        ("fr", ["Alice"], {"Alice": "f"}, "Gagnante : Alice."),
        ("fr", ["Sacha"], {}, "Gagnant : Sacha."),
        ("en", ["Sacha"], {}, "Winner: Sacha."),
        ("en", ["Alice", "Chloé"], {"Alice": "f", "Chloé": "f"}, "Winners: Alice and Chloé."),
    ],
)
def test_lup_112_the_winners_are_named_in_their_number_and_gender(
    lang: str, winners: list[str], genders: dict[str, str], said: str
) -> None:
    """LUP-110 to LUP-112: the victory mail names the winners; three women won and read
    « Gagnants : Alice, Chloé et Gaëlle », and the lone Werehamster (LUP-112) « Gagnants :
    Jules ». The feminine plural only when every winner is a woman, as French writes a mixed
    or unknown group; the same words in the archive's ending."""
    params = {
        "game": "Lupus in Tabula",
        "side": "werehamster" if len(winners) == 1 else "werewolves",
        "winners": winners,
        "reveal": [],
        "genders": genders,
    }
    assert said in Renderer().text("lupus/victory", lang, params)
