"""Nights: sub-phases, council, witch, seer, little girl, piper, elder, dawn (LG-210..LG-235)."""

from __future__ import annotations

from pbem.core.events import Resolved
from pbem.games.loupgarou.roles import NIGHT_ORDER, NIGHT_STEPS
from pbem.games.loupgarou.state import CouncilClosed
from tests.loupgarou.scenario import LG, NAMES, email


def test_night_start_announcement_and_prompts() -> None:
    """LG-210, LG-211, LG-710, LG-711, LG-D40: public deadlines, prompts to each power holder."""
    g = LG()
    g.deadline("bite")
    out = g.deadline("election")
    night = [m for m in g.public(out) if "Nuit 1" in m.subject]
    assert len(night) == 1 and "conseil des loups se termine" in night[0].body
    assert g.recipients(out, "conseil des loups") == {"alice", "bob"}
    assert g.recipients(out, "sondage") == {"dave"}
    assert g.recipients(out, "question") == {"frank"}
    assert g.recipients(out, "envoûtements") == {"heidi"}
    assert g.recipients(out, "potions") == {"eve"}
    assert g.recipients(out, "votre choix") == set()  # the thief has nothing on Night 1
    council = next(m for m in g.notices_to("alice", out) if "conseil" in m.subject)
    assert "bob : Loup-garou" in council.body and "TUER" in council.body
    # LG-605: the public schedule is the same whatever is alive: council + end every night
    assert set(g.table.deadlines()) == {"council", "night"}


def test_sub_phases_kill_votes_only_until_t_a() -> None:
    """LG-213, LG-214, LG-215, LG-516, LG-604, LG-612: kill votes end at T_A; others go on."""
    g = LG()
    g.to_night1()
    g.send("alice", "TUER ivan")
    g.deadline("council")
    assert g.state.victim == "ivan"
    out = g.send("bob", "TUER judy")
    assert "conseil des loups est terminé" in g.reply(out)  # too late
    assert g.state.victim == "ivan"
    out = g.send("dave", "SONDER bob")  # other actions until T_end
    assert "SONDER bob" in g.reply(out)
    g.deadline("night")
    assert not g.alive("ivan")


def test_council_votes_relayed_and_result() -> None:
    """LG-612, LG-712, LG-713, LG-D07, LG-512: each vote relayed to the other members (the
    voter has his acknowledgement); the victim told to the whole council."""
    g = LG()
    g.to_night1()
    out = g.send("alice", "TUER ivan")
    relayed = [m for m in out if "Conseil : le vote" in m.subject]
    assert [m.to[0] for m in relayed] == [email("bob")]
    assert "alice vote pour tuer ivan" in relayed[0].body
    assert "TUER ivan" in g.reply(out)
    prompt = next(m for m in g.notices_to("bob") if "conseil des loups" in m.subject)
    assert "chaque vote est relayé aux autres membres" in prompt.body
    out = g.deadline("council")
    assert g.recipients(out, "Conseil : la victime") == {"alice", "bob"}


def test_council_chat_relay_and_non_member() -> None:
    """LG-613, LG-212, LG-510: LOUPS relayed verbatim to the other members; others refused."""
    g = LG()
    g.to_night1()
    out = g.send("bob", "LOUPS on mange ivan ?")
    chat = [m for m in out if "message de bob" in m.subject]
    assert [m.to[0] for m in chat] == [email("alice")]
    assert "bob : on mange ivan ?" in chat[0].body
    out = g.send("ivan", "LOUPS coucou")
    assert "conseil des loups" in g.reply(out)
    out = g.send("ivan", "TUER judy")
    assert "conseil des loups" in g.reply(out)
    # LG-212: no relay by day
    g.deadline("council")
    g.deadline("night")
    out = g.send("bob", "LOUPS hello")
    assert "la nuit" in g.reply(out)


def test_weighted_council_x03() -> None:
    """LG-X03, LG-330, LG-512, LG-513, LG-514, LG-318, LG-D08, LG-D09: weights and ties."""
    # master->A, normal->B, thief(wolf)->B: B wins 1.5 to 1
    g = LG()
    g.send("alice", "MORDRE carol")  # a bitten thief weighs 0.5 too (thief_weight_when_bitten)
    g.deadline("bite")
    g.deadline("election")
    g.send("alice", "TUER ivan")
    g.send("bob", "TUER judy")
    g.send("carol", "TUER judy")
    g.deadline("council")
    assert g.state.victim == "judy"
    # master->A, normal->B: tie, the master decides
    g = LG()
    g.to_night1()
    g.send("alice", "TUER ivan")
    g.send("bob", "TUER judy")
    out = g.deadline("council")
    assert g.state.victim == "ivan"
    assert any("tranchée par le Maître" in m.body for m in out)
    # master dead: normal->A, young->B: draw
    g = LG()
    g.send("alice", "MORDRE ivan")
    g.deadline("bite")
    g.deadline("election")
    g.send("eve", "EMPOISONNER alice")
    g.deadline("council")
    g.deadline("night")
    assert not g.alive("alice")
    g.day()
    g.send("bob", "TUER judy")
    g.send("ivan", "TUER nick")
    out = g.deadline("council")
    assert g.state.victim in ("judy", "nick")
    assert any("tirage au sort" in m.body for m in out)


def test_thief_half_vote_never_overturns_a_full_vote() -> None:
    """LG-D09: master->A, thief->B (normal dead): A wins (1 against 0.5)."""
    g = LG()
    g.send("alice", "MORDRE carol")
    g.deadline("bite")
    g.deadline("election")
    g.send("eve", "EMPOISONNER bob")
    g.deadline("council")
    g.deadline("night")
    g.day()
    g.send("alice", "TUER ivan")
    g.send("carol", "TUER judy")
    g.deadline("council")
    assert g.state.victim == "ivan"


def test_thief_vote_weighs_half_without_the_master() -> None:
    """LG-330, LG-512, LG-D09: normal->A, thief->B, the master silent: A (1 against 0.5)."""
    g = LG()
    g.to_night1()
    g.deadline("council")
    g.deadline("night")
    g.deadline("day")
    g.night(carol="DEVENIR LOUP")
    g.deadline("day")
    assert "carol" in g.state.council
    g.send("bob", "TUER ivan")
    g.send("carol", "TUER judy")
    out = g.deadline("council")
    closed = [e for e in g.table.events if isinstance(e, CouncilClosed)][-1]
    assert closed.victim == "ivan" and closed.how == "majority"
    assert not any("tirage" in m.body for m in out)


def test_no_council_vote_no_victim_and_wolves_may_attack_wolves() -> None:
    """LG-515, LG-511, LG-D10, LG-329: no vote no victim; a Wolf (even himself) is a target."""
    g = LG()
    g.to_night1()
    out = g.deadline("council")
    assert g.state.victim is None
    assert any("Aucun loup n'a voté" in m.body for m in out)
    out = g.deadline("night")
    assert any("personne n'est mort" in m.body for m in g.public(out))
    g.day()
    g.send("alice", "TUER bob")
    g.deadline("council")
    assert g.state.victim == "bob"


def test_wolves_tie_no_victim_option() -> None:
    """LG-D08 alternative ``wolves_tie_fallback`` = no_victim."""
    g = LG(options={"wolves_tie_fallback": "no_victim"})
    g.to_night1()
    g.send("eve", "EMPOISONNER alice")
    g.night()
    g.day()
    g.send("bob", "TUER judy")
    g.send("bob", "TUER judy")
    assert g.state.victim is None


def test_witch_told_victim_at_t_a_and_saves() -> None:
    """LG-351, LG-714, LG-352, LG-355, LG-232, LG-615, LG-D14 (1), (2)."""
    g = LG()
    g.to_night1()
    g.send("alice", "TUER ivan")
    out = g.send("eve", "SAUVER")
    assert "pas encore connue" in g.reply(out)  # only in sub-phase B
    out = g.deadline("council")
    told = [m for m in g.notices_to("eve", out)]
    assert len(told) == 1 and "la victime des loups cette nuit est ivan." in told[0].body
    assert "Simple villageois" not in told[0].body  # name only, never the identity
    out = g.send("eve", "SAUVER judy")
    assert "n'est pas la victime" in g.reply(out)
    g.send("eve", "SAUVER ivan")
    out = g.deadline("night")
    assert g.alive("ivan") and g.state.life_used
    dawn = g.public(out)[0].body
    assert "personne n'est mort" in dawn and "potion" not in dawn  # LG-355: never mentioned
    # LG-350: a second use is refused
    g.day()
    g.send("alice", "TUER judy")
    g.deadline("council")
    assert "déjà utilisé" in g.reply(g.send("eve", "SAUVER"))


def test_witch_self_save_and_both_potions() -> None:
    """LG-352 (herself), LG-354 (both the same night), LG-616, LG-225."""
    g = LG()
    g.to_night1()
    g.night(kill="eve", eve="!SAUVER\nEMPOISONNER bob")
    assert g.alive("eve") and not g.alive("bob")
    assert g.state.life_used and g.state.death_used
    assert g.seat("bob").cause == "poison"
    dawn = g.public()[-1].body
    assert "La potion de mort a emporté" in dawn  # LG-232, LG-355
    # LG-D14 (1): with no potion left she gets neither the prompt nor the victim
    g.deadline("day")
    out = g.deadline("council")
    assert not g.notices_to("eve", out)
    assert len([m for m in g.notices_to("eve") if "vos potions" in m.subject]) == 1


def test_poison_rules() -> None:
    """LG-616, LG-353, LG-D14 (3): living, not herself, not the player she saves."""
    g = LG()
    g.to_night1()
    assert "vous-même" in g.reply(g.send("eve", "EMPOISONNER eve"))
    g.send("alice", "TUER ivan")
    g.deadline("council")
    g.send("eve", "SAUVER")
    assert "sauver et empoisonner" in g.reply(g.send("eve", "EMPOISONNER ivan"))
    assert not g.state.death_used


def test_witch_self_poison_option() -> None:
    """LG-D14 ``witch_self_poison`` = true allows it."""
    g = LG(options={"witch_self_poison": True})
    g.to_night1()
    g.send("eve", "EMPOISONNER eve")
    g.deadline("council")
    g.deadline("night")
    assert not g.alive("eve")


def test_same_player_hit_by_wolves_and_potion() -> None:
    """LG-D15: one death announced with both causes; LG-356: a dead witch's potion works."""
    g = LG()
    g.to_night1()
    g.night(kill="ivan", eve="EMPOISONNER ivan")
    assert g.seat("ivan").cause == "wolves_and_poison"
    assert "Les Loups-garous et la potion de mort ont eu raison" in g.public()[-1].body
    g = LG()
    g.to_night1()
    g.night(kill="eve", eve="EMPOISONNER bob")  # the witch dies the night she poisons
    assert not g.alive("eve") and not g.alive("bob")  # LG-356, LG-229


def test_seer_sees_identity_only() -> None:
    """LG-340, LG-341, LG-342, LG-343, LG-328, LG-433, LG-222, LG-720, LG-614, LG-D13."""
    g = LG()
    g.to_night1(bite="ivan")
    assert "vous-même" in g.reply(g.send("dave", "SONDER dave"))
    out = g.night(dave="SONDER ivan")
    res = [m for m in g.notices_to("dave", out) if "sondage" in m.subject]
    assert len(res) == 1 and "ivan est un Simple villageois" in res[0].body  # young wolf
    assert "Jeune" not in res[0].body and "Loup" not in res[0].body
    g.day()
    out = g.night(dave="SONDER carol")
    res = [m for m in g.notices_to("dave", out) if "sondage" in m.subject]
    assert "carol est le Voleur" in res[0].body  # LG-328
    # LG-343: a seer who dies during the night gets nothing
    g.day()
    out = g.night(kill="dave", dave="SONDER alice")
    assert not [m for m in g.notices_to("dave", out) if "sondage" in m.subject]


def test_seer_immediate_option() -> None:
    """LG-D11 alternative: the first scan is final and answered at once."""
    g = LG(options={"seer_result_timing": "immediate"})
    g.to_night1()
    out = g.send("dave", "SONDER bob")
    assert any("bob est un Loup-garou normal" in m.body for m in g.notices_to("dave", out))
    assert "définitif" in g.reply(g.send("dave", "SONDER alice"))


def test_little_girl_question_1_x07() -> None:
    """LG-X07, LG-361, LG-365, LG-366, LG-367, LG-721, LG-722, LG-223: victim named; wolves spied."""
    g = LG()
    g.to_night1(bite="ivan")
    out = g.night(kill="grace", frank="QUESTION LOUPS")
    answer = [m for m in g.notices_to("frank", out) if "réponse" in m.subject]
    assert len(answer) == 1 and "Les loups ont attaqué grace" in answer[0].body
    assert "alice" not in answer[0].body and "Ancien" not in answer[0].body  # LG-365
    spied = [m for m in out if "vous observe" in m.subject]
    assert {m.to[0] for m in spied} == {email("alice"), email("bob"), email("ivan")}
    # LG-367: the same text as a question-4 subject gets
    g.day()
    out2 = g.night(frank="QUESTION CONDITIONS nick")
    spied2 = [m for m in out2 if "vous observe" in m.subject]
    assert [m.to for m in spied2] == [(email("nick"),)]
    assert spied2[0].body.replace("nick", "X") == spied[0].body.replace(
        spied[0].to[0].split("@")[0], "X"
    )


def test_little_girl_questions_2_3_4() -> None:
    """LG-360, LG-362, LG-363, LG-364, LG-617, LG-618, LG-D21, LG-D22: one question a night."""
    g = LG()
    g.to_night1(mayor="nick")
    out = g.night(dave="SONDER bob", frank="QUESTION VOYANTE")
    assert any("La Voyante a sondé bob" in m.body for m in g.notices_to("frank", out))
    assert g.recipients(out, "vous observe") == {"dave"}
    g.day()
    out = g.night(heidi="ENVOUTER ivan judy", frank="QUESTION FLUTE")
    assert any("envoûté ivan et judy" in m.body for m in g.notices_to("frank", out))
    assert g.recipients(out, "vous observe") == {"heidi"}
    g.day()
    # Q4 after this night's charms (LG-223)
    out = g.night(heidi="ENVOUTER nick olivia", frank="QUESTION CONDITIONS nick")
    answer = next(m for m in g.notices_to("frank", out) if "réponse" in m.subject)
    assert "Conditions de nick : Maire, sous l'envoûtement du Joueur de flûte" in answer.body
    # a question with a name where none is expected is refused
    g.day()
    assert "CONDITIONS" in g.reply(g.send("frank", "QUESTION LOUPS nick"))
    # one question a night: the last one counts
    g.send("frank", "QUESTION VOYANTE")
    g.send("frank", "QUESTION FLUTE")
    out = g.night()
    assert any("Joueur de flûte n'a envoûté personne" in m.body for m in out)


def test_spied_when_empty_and_not_the_girl_herself() -> None:
    """LG-D21: notices even when the answer is "nobody"; never the little girl herself."""
    g = LG()
    g.to_night1(bite="frank")
    out = g.night(frank="QUESTION LOUPS")
    assert g.recipients(out, "vous observe") == {"alice", "bob"}
    g = LG(options={"notify_spied_when_empty": False})
    g.to_night1()
    out = g.night(frank="QUESTION LOUPS")
    assert g.recipients(out, "vous observe") == set()


def test_piper_charms() -> None:
    """LG-390, LG-391, LG-392, LG-221, LG-425, LG-426, LG-620, LG-723, LG-D25, LG-D26."""
    g = LG()
    g.to_night1()
    assert "vous-même" in g.reply(g.send("heidi", "ENVOUTER heidi ivan"))
    assert "2 noms" in g.reply(g.send("heidi", "ENVOUTER ivan"))
    out = g.night(heidi="ENVOUTER ivan judy")
    assert g.state.charmed == {"ivan", "judy"}
    assert g.recipients(out, "envoûtement") == {"ivan", "judy"}
    assert "heidi" not in g.notices_to("ivan", out)[0].body  # LG-D26: nothing else
    g.day()
    out = g.night(heidi="ENVOUTER ivan nick")  # re-charming: no new notice
    assert g.recipients(out, "envoûtement") == {"nick"}
    # LG-426: charmed players act normally
    assert "VOTE" in g.reply(g.post("ivan", "VOTE nick"))


def test_elder_survives_once_x02() -> None:
    """LG-X02, LG-380, LG-381, LG-382, LG-383, LG-357, LG-224, LG-725, LG-D17."""
    g = LG()
    g.to_night1()
    g.night()
    g.day()
    g.night()
    g.day()
    out = g.night(kill="grace", eve="!SAUVER")  # Night 3: the witch saves him
    assert g.alive("grace") and not g.state.elder_used
    assert not g.notices_to("grace", out)  # LG-D17: not told
    g.day()
    g.night()
    g.day()
    out = g.night(kill="grace")  # Night 5: his protection
    assert g.alive("grace") and g.state.elder_used
    assert any("échappé à la mort" in m.body for m in g.notices_to("grace", out))
    assert any("personne n'est mort" in m.body for m in g.public(out))
    g.day()
    out = g.night(kill="grace")  # Night 6
    assert not g.alive("grace")
    dawn = g.public(out)[0].body
    assert "Les Loups-garous ont dévoré grace. grace était l'Ancien" in dawn
    assert "perdent leurs pouvoirs" in dawn


def test_elder_told_when_witch_saves_option() -> None:
    """LG-D17 alternative."""
    g = LG(options={"elder_told_when_witch_saves": True})
    g.to_night1()
    out = g.night(kill="grace", eve="!SAUVER")
    assert any("échappé" in m.body for m in g.notices_to("grace", out))


def test_elder_dies_of_poison_or_lynch() -> None:
    """LG-383: only the Wolves trigger the protection."""
    g = LG()
    g.to_night1()
    g.night(eve="EMPOISONNER grace")
    assert not g.alive("grace") and g.seat("grace").cause == "poison"


def test_night_order_table() -> None:
    """LG-220, LG-221, LG-222, LG-223, LG-224, LG-225, LG-226, LG-227, LG-228 as a table: lovers, charms, seer, girl, attacks, grief, thief."""
    assert NIGHT_STEPS == ("lovers", "charm", "scan", "ask", "attacks", "grief", "become")
    assert NIGHT_ORDER["wolves"] < NIGHT_ORDER["poison"]  # LG-224 before LG-225
    # the trace of the kernel's loop says why the Ancien survived (DESIGN: veto hooks)
    g = LG()
    g.to_night1()
    g.night(kill="grace", eve="EMPOISONNER bob")
    traces = [e for e in g.table.events if isinstance(e, Resolved)]
    assert traces[-1].trace[0]["vetoed_by"] == "elder"
    assert traces[-1].trace[1] == {
        "kind": "kill",
        "target": "bob",
        "cause": "poison",
        "actors": ["eve"],  # LG-353: the Witch who poured it
        "vetoed_by": None,
    }


def test_dawn_private_before_public_and_dead_get_nothing() -> None:
    """LG-230, LG-231, LG-D12: private notices first, then the public dawn; not to the dead."""
    g = LG()
    g.to_night1()
    out = g.night(kill="ivan", heidi="ENVOUTER ivan judy", dave="SONDER bob")
    first_public = next(i for i, m in enumerate(out) if m.public and "aube" in m.subject)
    privates = [i for i, m in enumerate(out) if not m.public and "/reply/" not in m.key]
    dawn_privates = [i for i in privates if i > 0 and "envoûtement" in out[i].subject]
    assert dawn_privates and max(dawn_privates) < first_public
    assert g.recipients(out, "envoûtement") == {"judy"}  # ivan is dead at dawn
    dawn = out[first_public].body
    assert "Les Loups-garous ont dévoré ivan. ivan était un Simple villageois" in dawn
    assert (
        "ivan portait l'écharpe de Maire et était sous l'envoûtement du Joueur de flûte" in dawn
    )  # LG-100, LG-399: the dead mayor too


def test_send_results_to_dead_option() -> None:
    """LG-D12 alternative: results reach players dead at dawn."""
    g = LG(options={"send_results_to_dead": True})
    g.to_night1()
    out = g.night(kill="dave", dave="SONDER bob")
    assert any("sondage" in m.subject for m in g.notices_to("dave", out))


def test_pass_and_cancel() -> None:
    """LG-603, LG-626: RIEN records no action; ANNULER removes a pending one."""
    g = LG()
    g.to_night1()
    g.send("dave", "SONDER bob")
    out = g.send("dave", "ANNULER SONDER")
    assert "ANNULER" in g.reply(out)
    assert g.state.action("dave", "scan") is None
    assert "en attente" in g.reply(g.send("dave", "ANNULER SONDER"))
    g.send("eve", "RIEN")
    assert g.state.action("eve", "pass") is not None


def test_every_player_can_get_help_and_status() -> None:
    """LG-627: STATUS gives identity, team, known conditions, phase, deadlines, Mayor."""
    g = LG()
    g.to_night1(bite="ivan", mayor="ivan")
    out = g.send("ivan", "STATUT")
    body = g.reply(out)
    assert "Simple villageois, équipe Loups-garous" in body
    assert "Maire, Jeune loup" in body and "Maire : ivan" in body
    assert "Les autres loups : alice et bob" in body
    out = g.send("judy", "AIDE")
    assert "MAIRE" not in g.reply(out) and "RIEN" in g.reply(out)
    for n in NAMES:
        assert g.rules.status(g.state, n)["role"] == g.seat(n).role


def test_charmed_know_each_other_option() -> None:
    """LG-D26 alternative: each newly Charmed player learns the other living Charmed."""
    g = LG(options={"charmed_know_each_other": True})
    g.to_night1()
    out = g.night(heidi="ENVOUTER ivan judy")
    assert any("L'autre joueur vivant envoûté : judy" in m.body for m in g.notices_to("ivan", out))


def test_early_close_night() -> None:
    """LG-D43: a sub-phase closes early only when every living player has acted or passed."""
    g = LG(options={"early_close": True})
    g.deadline("bite")
    for n in g.names:
        g.send(n, "MAIRE ivan")
    assert g.state.phase == "night"  # the election closed early: everyone voted
    for n in g.names[:-1]:
        g.send(n, "RIEN" if n not in g.state.council else "TUER ivan")
    assert not g.state.council_closed  # sybil has not answered
    g.send("sybil", "RIEN")
    assert g.state.council_closed and g.state.victim == "ivan"
    for n in g.names[:-1]:
        g.send(n, "RIEN")
    assert g.state.phase == "night"
    g.send("sybil", "RIEN")
    assert g.state.phase == "day" and not g.alive("ivan")


def test_pass_keeps_earlier_orders() -> None:
    """LG-603, LG-626: RIEN after an order does not withdraw it (ANNULER does)."""
    g = LG()
    g.to_night1()
    g.send("eve", "EMPOISONNER bob")
    g.send("eve", "RIEN")
    g.deadline("council")
    g.deadline("night")
    assert not g.alive("bob")


def test_non_response_defaults() -> None:
    """LG-D41, LG-D02: nobody acts: no bite, a drawn Mayor, quiet nights, Night 1 after setup."""
    g = LG()
    assert g.state.phase == "bite"
    g.deadline("bite")
    assert g.state.young_wolf is None and g.state.phase == "election"
    g.deadline("election")
    assert g.state.mayor is not None and g.state.phase == "night" and g.state.number == 1
    out = g.night()
    assert all(g.alive(n) for n in g.names)
    assert not g.state.lovers and not g.state.charmed and not g.state.life_used
    assert any("personne n'est mort" in m.body for m in g.public(out))


def test_awaiting_for_reminders() -> None:
    """LG-627 helpers: who is still expected to act (the daemon's reminders)."""
    g = LG()
    assert g.table.awaiting() == {"alice"}  # the bite
    g.send("alice", "MORDRE ivan")
    assert g.table.awaiting() == frozenset()
    g.deadline("bite")
    assert len(g.table.awaiting()) == 16  # every player may vote for the Mayor
    g.send("nick", "MAIRE nick")
    assert "nick" not in g.table.awaiting()
    g.deadline("election")
    assert g.table.awaiting() == {"alice", "bob", "ivan"}  # the council
    g.send("bob", "TUER judy")
    assert g.table.awaiting() == {"alice", "ivan"}


def test_bitten_thief_full_weight_option() -> None:
    """LG-D09 ``thief_weight_when_bitten`` = false: a bitten thief's vote weighs 1."""
    g = LG(options={"thief_weight_when_bitten": False})
    g.send("alice", "MORDRE carol")
    g.deadline("bite")
    g.deadline("election")
    g.send("bob", "TUER ivan")
    g.send("carol", "TUER judy")
    g.deadline("council")
    closed = [e for e in g.table.events if isinstance(e, CouncilClosed)][-1]
    assert closed.how == "draw"  # 1 against 1, the master silent


def test_bad_option_values_refused() -> None:
    """Section 9: options are typed; a wrong value names the key."""
    import pytest

    from pbem.core.errors import SetupError

    with pytest.raises(SetupError, match="wolves_tie_fallback"):
        LG(options={"wolves_tie_fallback": "maybe"})
    with pytest.raises(SetupError, match="unknown option"):
        LG(options={"no_such_option": True})


def test_changed_kill_vote_moves_to_the_end_of_the_arrival_order() -> None:
    """LG-603, LG-512: a new TUER replaces the wolf's previous one and counts as arriving
    last; the pending orders read in arrival (sequence) order without a sort."""
    g = LG()
    g.to_night1()
    g.send("alice", "TUER ivan")
    g.send("bob", "TUER judy")
    g.send("alice", "TUER judy")
    kills = g.state.actions_of("kill")
    assert [(a.actor, a.targets) for a in kills] == [("bob", ("judy",)), ("alice", ("judy",))]
    by_seq = sorted(g.state.actions.values(), key=lambda entry: entry[0])
    assert [a for _, a in by_seq if a.verb == "kill"] == kills
    g.deadline("council")
    assert g.state.victim == "judy"


def test_lg_612_712_a_lone_wolf_gets_no_relay_of_his_own_vote() -> None:
    """LG-612, LG-712: with bob lynched, alice alone in the council: her vote is acknowledged,
    and relayed to nobody (not back to her)."""
    g = LG()
    g.to_night1()
    g.night()
    g.day({n: "bob" for n in g.names if n != "bob"})
    assert list(g.state.council) == ["alice"]
    out = g.send("alice", "TUER ivan")
    assert "TUER ivan" in g.reply(out)
    assert [m for m in out if "Conseil : le vote" in m.subject] == []
    assert len(out) == 1
