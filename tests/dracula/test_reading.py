"""A Dracula game read as its players read it: the words that agree with each reader, the
seed's names, no English in a French mail nor French in an English one (dracula5)."""

from __future__ import annotations

import pytest

from pbem.mail.render import Renderer
from tests.dracula.scenario import mail, table_from
from tests.dracula.test_curse import cursed_game

T = "2026-01-06T18:00:00+00:00"


@pytest.mark.parametrize(
    ("gender", "phrase"),
    [("f", "« Je suis maudite ! »"), ("m", "« Je suis maudit ! »"), (None, "« Je suis maudit ! »")],
)
def test_dra_374_a_cursed_woman_is_told_to_write_maudite(gender: str | None, phrase: str) -> None:
    """DRA-374, AMB-056.3, AMB-056.8, NTF-35, NTF-45: the seed's phrase is the masculine, and
    a cursed woman writes « Je suis maudite ! » (both are read): the curse notice, the
    morning's reminder and the public flag tell each player the phrase that agrees with
    him or her; an unknown gender keeps the seed's."""
    r = Renderer()
    genders = {"Dan": gender} if gender else {}
    base = {"game": "Dracula", "name": "Dan", "genders": genders}
    assert phrase in r.text("dracula/cursed", "fr", base)
    assert phrase in r.text("dracula/curse_reminder", "fr", {**base, "day": 3, "deadline": T})
    assert phrase in r.text("dracula/curse_flag", "fr", {**base, "player": "Dan"})


def test_dra_374_a_cursed_post_bounced_tells_a_woman_maudite() -> None:
    """DRA-374, AMB-056.4: a cursed woman's first post that does not declare comes back with
    the phrase she writes, « Je suis maudite ! »."""
    g = cursed_game()
    table = table_from(g, lang="fr", genders={"Dan": "f"})
    step = table.receive(mail("Dan", "Bonjour à tous"), channel="list", now=g.now, relay=True)
    (bounce,) = step.outgoing
    assert "« Je suis maudite ! »" in bounce.body and "maudit !" not in bounce.body


def test_dra_374_an_english_mail_gives_the_english_phrase() -> None:
    """DRA-374, AMB-056.3 (the options' ``curse_phrases`` read « I am cursed! » as well): an
    English mail tells the English phrase, never the French one."""
    r = Renderer()
    base = {"game": "Dracula", "name": "Dan", "player": "Dan", "day": 3, "deadline": T}
    for template in ("dracula/cursed", "dracula/curse_reminder", "dracula/curse_flag"):
        text = r.text(template, "en", base)
        assert '"I am cursed!"' in text and "maudit" not in text
    assert '"I am cursed!"' in r.text("reasons/cursed_post", "en", base)


@pytest.mark.parametrize(
    ("lang", "must", "may", "dance"),
    [
        (
            "fr",
            "Vous devez la mordre avant",
            "Vous pouvez la mordre ou vous abstenir, avant",
            ": DANSER Inès message (",
        ),
        (
            "en",
            "You must bite Inès before",
            "You may bite Inès or abstain, before",
            ": DANCE Inès message (",
        ),
    ],
)
def test_ntf_16_17_alone_with_one_player_the_prompt_spells_the_command(
    lang: str, must: str, may: str, dance: str
) -> None:
    """NTF-16 (DRA-110, DRA-111), NTF-17 (DRA-400): a vampire alone with Inès was told « Vous
    devez la mordre : MORDRE nom », a placeholder where there is one name to write; the
    prompt now gives the very command (« MORDRE Inès »), the phonograph's too. The command
    comes after the duty and its deadline, the name said once in each (« Vous devez mordre Léo :
    MORDRE Léo » said it twice in a row): « … avant le … : envoyez MORDRE Inès ». With two
    players or more, how to write it."""
    r = Renderer()
    params = {
        "game": "D",
        "name": "Ana",
        "room": "dungeons",
        "others": ["Inès"],
        "deadline": T,
        "genders": {"Inès": "f"},
    }
    bite = "MORDRE Inès" if lang == "fr" else "BITE Inès"
    send = ": envoyez " if lang == "fr" else ": send "
    for status, duty in (("must", must), ("may", may)):
        text = r.text("dracula/bite_prompt", lang, {**params, "status": status})
        assert duty in text and f"{send}{bite}" in text, text
        assert f"Inès : {bite}" not in text and f"Inès: {bite}" not in text, text
    assert dance in r.text("dracula/phonograph_prompt", lang, params)
    two = {**params, "others": ["Inès", "Léo"], "status": "must"}
    assert (
        "envoyez MORDRE suivi de son nom." if lang == "fr" else "send BITE followed by their name."
    ) in r.text("dracula/bite_prompt", lang, two)


@pytest.mark.parametrize(
    ("lang", "intro", "unknown"),
    [
        (
            "fr",
            "Votre loupe vous montre où se rendent les autres joueurs cette nuit :",
            "  Bob : destination encore inconnue\n",
        ),
        (
            "en",
            "Your magnifying glass shows you where the other players go tonight:",
            "  Bob: destination not known yet\n",
        ),
    ],
)
def test_dra_301_303_the_magnifier_report_says_what_it_lists(
    lang: str, intro: str, unknown: str
) -> None:
    """DRA-301, DRA-303, AMB-047, NTF-13: the report began with a bare list of names and
    rooms, and another magnifier user read « Bob : indéterminé » (an adjective agreeing with
    nobody); it now says what the list is, and that such a player's destination is not known
    yet."""
    params = {
        "game": "D",
        "name": "Ana",
        "report": [
            {"name": "Bob", "position": "undetermined"},
            {"name": "Eve", "position": "sanctuary"},
        ],
        "pairs": [],
        "deadline": T,
    }
    text = Renderer().text("dracula/magnifier_report", lang, params)
    assert text.splitlines()[1] == intro
    assert unknown in text and "ndetermined" not in text and "indéterminé" not in text


@pytest.mark.parametrize(
    ("reason", "target", "fr", "en"),
    [
        (
            "not_in_your_room",
            "Eve",
            "Eve n'est pas avec vous dans votre pièce.",
            "Eve is not in your room with you.",
        ),
        (
            "not_in_your_room",
            "Dan",
            "Vous ne pouvez pas vous choisir vous-même.",
            "You cannot choose yourself.",
        ),
        (
            "stake_target",
            "Eve",
            "Eve n'est pas, à votre connaissance, avec vous dans le sanctuaire cette nuit.",
            "Eve is not, as far as you know, in the sanctuary with you tonight.",
        ),
        (
            "already_paired",
            "Eve",
            "Vous faites déjà équipe avec quelqu'un ; ce choix est définitif.",
            "You already have a partner; the choice is final.",
        ),
    ],
)
def test_dra_111_321_223_refusals_need_no_agreement(
    reason: str, target: str, fr: str, en: str
) -> None:
    """DRA-111, DRA-401, DRA-321, DRA-223: a refused bite, waltz or stake on Eve read « Eve
    n'est pas un autre joueur de votre pièce » / « pas encore connu comme étant un autre
    joueur du sanctuaire », masculine for a woman, and a refused partner « Vous avez déjà un
    coéquipier » whoever the partner; now in words that agree with anyone, and a player who
    named himself is told so."""
    from pbem.core.errors import IllegalNow
    from pbem.core.ids import PlayerId
    from pbem.table.wording import reason as why

    table = table_from(cursed_game(), genders={"Eve": "f", "Dan": "f"})
    refusal = IllegalNow(reason, name=PlayerId(target))
    assert why(table, refusal, "fr", "Dan") == fr
    assert why(table, refusal, "en", "Dan") == en


def test_dra_470_273_143_one_flame_one_bite_in_words() -> None:
    """DRA-470, AMB-065: a fighter with one flame read « vous combattez avec 1 flamme :
    désignez un vampire par flamme … Un même vampire peut recevoir plusieurs flammes », under
    « vos flammes »; DRA-273 (NTF-23) « il a arrêté 1 morsure »; DRA-143 (NTF-21) « You were
    bitten tonight (1 bite) ». One is written in words, and what only several flames need is
    said only to a fighter who has several."""
    r = Renderer()
    one = {"game": "D", "name": "Ana", "round": 1, "flames": 1, "vampires": ["Bob"], "deadline": T}
    subject, body = r.mail("dracula/flame_prompt", "fr", one)
    assert subject == "[D] Manche 1 : votre flamme"
    assert "vous combattez avec une flamme : désignez en privé le vampire qu'elle frappera" in body
    assert "plusieurs" not in body and "1 flamme" not in body and "Le vampire : Bob." in body
    subject, body = r.mail("dracula/flame_prompt", "en", one)
    assert subject == "[D] Round 1: your flame" and "you fight with one flame:" in body
    three = {**one, "flames": 3, "vampires": ["Bob", "Eve"]}
    subject, body = r.mail("dracula/flame_prompt", "fr", three)
    assert subject == "[D] Manche 1 : vos flammes" and "avec FLAMME nom nom nom," in body
    assert "Les vampires : Bob et Eve." in body
    crucifix = {"game": "D", "name": "Ana", "count": 1}
    assert "il a arrêté une morsure." in r.text("dracula/crucifix_holder", "fr", crucifix)
    assert "it protected you from a bite." in r.text("dracula/crucifix_holder", "en", crucifix)
    assert "2 morsures." in r.text("dracula/crucifix_holder", "fr", {**crucifix, "count": 2})
    assert "You were bitten tonight by a vampire;" in r.text("dracula/bitten_too", "en", crucifix)


@pytest.mark.parametrize(
    ("vampirised", "cursed", "fr", "en"),
    [
        (
            0,
            0,
            "Aucun joueur n'a été vampirisé cette nuit.\nAucun joueur n'a été maudit cette nuit.",
            "No player was vampirised last night.\nNo player was cursed last night.",
        ),
        (
            1,
            1,
            "Un joueur a été vampirisé cette nuit.\nUn joueur a été maudit cette nuit.",
            "One player was vampirised last night.\nOne player was cursed last night.",
        ),
        (
            3,
            2,
            "3 joueurs ont été vampirisés cette nuit.\n2 joueurs ont été maudits cette nuit.",
            "3 players were vampirised last night.\n2 players were cursed last night.",
        ),
    ],
)
def test_dra_181_182_the_morning_counts_in_words(
    vampirised: int, cursed: int, fr: str, en: str
) -> None:
    """DRA-181, DRA-182, NTF-31: the morning read « Joueurs vampirisés cette nuit : 0. »,
    « Joueurs maudits cette nuit : 1. », a form's fields; now as a game master writes the
    count (« Aucun joueur n'a été vampirisé », « Un joueur a été maudit »), and in English
    the morning speaks of « last night », not « tonight »."""
    from tests.dracula.test_templates import SAMPLES

    r = Renderer()
    params = {**SAMPLES["morning"], "game": "D", "vampirised": vampirised, "cursed": cursed}
    params["cursed_total"] = None
    assert fr in r.text("dracula/morning", "fr", params)
    assert en in r.text("dracula/morning", "en", params)


def test_amb_069_the_flames_are_told_in_sentences() -> None:
    """AMB-069, DRA-470, DRA-471 (NTF-43): the flames' result listed « Fabien : — » for a
    fighter who named nobody, « Karine, Karine » for two flames on one vampire, and
    « Brûlés : Karine » of a woman; now a sentence each, in words that agree with anyone."""
    from tests.dracula.test_templates import SAMPLES

    r = Renderer()
    params = {
        **SAMPLES["final_result"],
        "game": "D",
        "designations": [
            {"name": "Fabien", "targets": []},
            {"name": "Inès", "targets": ["Karine", "Léo", "Karine"]},
        ],
        "burned": ["Karine"],
        "dracula_burned": False,
        "killed": [],
    }
    text = r.text("dracula/final_result", "fr", params)
    assert "  Fabien n'a désigné personne.\n" in text
    assert "  Inès a désigné Karine (2 flammes) et Léo.\n" in text
    assert "\nKarine a brûlé.\n" in text and "Brûlés" not in text
    assert "Karine et Léo ont brûlé." in r.text(
        "dracula/final_result", "fr", {**params, "burned": ["Karine", "Léo"]}
    )
    text = r.text("dracula/final_result", "en", params)
    assert "  Fabien designated nobody.\n" in text
    assert "  Inès designated Karine (2 flames) and Léo.\n" in text and "\nKarine burned.\n" in text


def test_dra_048_292_the_dusk_joins_its_names_and_the_candle_needs_no_agreement() -> None:
    """DRA-048 (NTF-07): the dusk listed « Élodie (8 voix), Karine (1 voix), Gaëlle (1 voix) »
    where French joins the last with « et »; DRA-292 (NTF-34): the candle's « étaient
    présents : Chloé et Inès », masculine of two women, reads « il y avait Chloé et Inès »."""
    r = Renderer()
    designated = [{"name": n, "votes": v} for n, v in (("Élodie", 8), ("Karine", 1), ("Gaëlle", 1))]
    dusk = {"game": "D", "round": 1, "day": 2, "designated": designated, "drawn": [], "ranking": []}
    dusk["cursed_defaults"] = []
    assert "cette nuit : Élodie (8 voix), Karine (1 voix) et Gaëlle (1 voix)." in r.text(
        "dracula/dusk", "fr", dusk
    )
    assert "tonight: Élodie (8 votes), Karine (1 vote) and Gaëlle (1 vote)." in r.text(
        "dracula/dusk", "en", dusk
    )
    candle = {"game": "D", "room": "torture", "present": ["Chloé", "Inès"], "lines": []}
    text = r.text("dracula/candle_report", "fr", {**candle, "genders": {"Chloé": "f", "Inès": "f"}})
    assert "Cette nuit, dans la salle de torture, il y avait Chloé et Inès." in text
    assert "présents" not in text


def test_dra_469_the_recap_in_the_number_it_tells() -> None:
    """DRA-469, AMB-069 (NTF-42): the recap read « Ont fui : Gaëlle. », « Combattent :
    Bruno (1 flamme), Léo (2 flammes) » and called a lone fighter « Combattants »; now
    « A fui », « une flamme », the last name joined with « et », and one fighter addressed
    by name."""
    r = Renderer()
    fighters = [{"name": "Bruno", "flames": 1}, {"name": "Léo", "flames": 2}]
    recap = {"game": "D", "fled": ["Gaëlle"], "fighters": fighters, "deadline": T}
    text = r.text("dracula/final_recap", "fr", recap)
    assert "\nA fui : Gaëlle.\n" in text
    assert "\nCombattent : Bruno (une flamme) et Léo (2 flammes).\n" in text
    assert "Fighting: Bruno (one flame) and Léo (2 flames)." in r.text(
        "dracula/final_recap", "en", recap
    )
    alone = {**recap, "fled": ["Gaëlle", "Inès"], "fighters": fighters[:1]}
    text = r.text("dracula/final_recap", "fr", alone)
    assert "\nOnt fui : Gaëlle et Inès.\n" in text and "Combattants" not in text
    assert (
        "Une seule personne combat : Bruno (une flamme).\nBruno, désignez en privé le vampire"
        in text  # his gender not given: the neutral word (polish9)
    )


def test_dra_253_the_bitten_human_is_told_what_fell() -> None:
    """DRA-253, DRA-344, DRA-140 (NTF-19): the conversion notice said « Les objets normaux
    que vous portiez sont tombés au sol » to every bitten human, one who held nothing
    too; it now names what fell (the phonograph, special, stays in hand), and says
    nothing of objects to one who held none."""
    from tests.dracula.scenario import QUIET, Game, advance

    g = advance(Game(options=QUIET), 3)
    g.give("Cid", "stake", "candle", "phonograph")
    g.rooms({"Bob": "boudoir", "Cid": "boudoir", "Dan": "boudoir", "Eve": "boudoir"})
    g.close("rooms")
    g.do("Bob", "BITE Cid")
    g.close("bites")
    (notice,) = g.to("Cid", "converted")
    assert sorted(notice.params["dropped"]) == ["candle", "stake"]
    r = Renderer()
    params = {"game": "D", "name": "Cid", **notice.params}
    text = r.text("dracula/converted", "fr", params)
    assert "Vous avez laissé tomber au sol ce que vous portiez : un pieu et une bougie." in text
    assert "You dropped what you carried on the floor: a stake and a candle." in r.text(
        "dracula/converted", "en", params
    )
    nothing = r.text("dracula/converted", "fr", {**params, "dropped": []})
    assert "tomb" not in nothing and "objets" not in nothing


def test_dra_161_one_object_found_is_one_in_the_subject() -> None:
    """DRA-161, DRA-163 (NTF-30): a human who picked up the shaman's grimoire alone read the subject
    « Vous trouvez des objets »; one object is « un objet »."""
    r = Renderer()
    one = {"game": "D", "name": "Ana", "objects": ["grimoire"]}
    assert r.mail("dracula/picked_up", "fr", one)[0] == "[D] Vous trouvez un objet"
    assert r.mail("dracula/picked_up", "en", one)[0] == "[D] You find an object"
    two = {**one, "objects": ["grimoire", "candle"]}
    assert r.mail("dracula/picked_up", "fr", two)[0] == "[D] Vous trouvez des objets"
