"""Thief, lovers, the Ancien's death, young wolves (LG-320, LG-321, LG-322, LG-323, LG-324, LG-325, LG-326, LG-327, LG-328, LG-329, LG-330, LG-331, LG-368, LG-420..LG-434)."""

from __future__ import annotations

from tests.loupgarou.scenario import LG, email


def _to_night(g: LG, number: int) -> None:
    while not (g.state.phase == "night" and g.state.number == number):
        if g.state.phase == "night":
            g.deadline("council")
            g.deadline("night")
        else:
            g.deadline()


def test_thief_becomes_wolf_night2_x04() -> None:
    """LG-X04, LG-321, LG-324, LG-325, LG-327, LG-227, LG-510, LG-621, LG-711, LG-726, LG-D38."""
    g = LG()
    g.to_night1()
    out = g.send("carol", "DEVENIR LOUP")
    assert "nuit 2 et la nuit 7" in g.reply(out)  # LG-323: not on Night 1
    _to_night(g, 2)
    prompts = [m for m in g.mails if "votre choix" in m.subject and m.to == (email("carol"),)]
    assert len(prompts) == 1  # LG-711: on Night 2 only
    assert "seul choix possible" in g.reply(g.send("carol", "DEVENIR VILLAGEOIS"))
    assert g.state.action("carol", "become") is None
    g.send("carol", "DEVENIR LOUP")
    assert "conseil des loups" in g.reply(g.send("carol", "TUER ivan"))  # not in Night 2 council
    assert "carol" not in g.state.council
    g.deadline("council")
    out = g.deadline("night")
    assert g.seat("carol").team == "wolves" and g.seat("carol").role == "thief"
    assert any("maintenant un loup" in m.body for m in g.notices_to("carol", out))
    assert not any("carol" in m.body for m in g.public(out))  # LG-102: secret
    # Night 3: the council is told he joins, and he gets the list (LG-327)
    g.deadline("day")
    joined = [m for m in g.mails if "Nuit 3 : le conseil des loups" in m.subject]
    assert {m.to[0] for m in joined} == {email("alice"), email("bob"), email("carol")}
    assert any("carol (Voleur) rejoint le conseil" in m.body for m in joined)
    assert any("vous rejoignez le conseil" in m.body for m in g.notices_to("carol", joined))
    # LG-329: a thief who is a Wolf may still be the Wolves' victim
    g.send("alice", "TUER carol")
    g.deadline("council")
    g.deadline("night")
    assert not g.alive("carol") and g.seat("carol").cause == "wolves"


def test_thief_wolf_counts_at_dawn_and_is_revealed_as_thief_wolf() -> None:
    """LG-X04: a Wolf from dawn of Day 2; lynched, he shows identity Voleur, team Wolves."""
    g = LG()
    g.to_night1()
    _to_night(g, 2)
    g.night(carol="DEVENIR LOUP")
    g.post("ivan", "VOTE carol")
    out = g.deadline("day")
    lynch = next(m for m in g.public(out) if "lynchage" in m.subject).body
    assert "était le Voleur, dans l'équipe des Loups-garous" in lynch


def test_thief_back_to_villager_night7_and_last_wolf_x05() -> None:
    """LG-X05, LG-322, LG-326, LG-D37 (1): refused when he is the last Wolf at dawn."""
    g = LG()
    g.to_night1()
    _to_night(g, 2)
    g.night(carol="DEVENIR LOUP")
    g.post("ivan", "VOTE alice")
    g.deadline("day")
    assert not g.alive("alice")
    _to_night(g, 7)
    assert "carol" in g.state.council
    out = g.night(carol="DEVENIR VILLAGEOIS", eve="EMPOISONNER bob")
    assert not g.alive("bob")
    assert g.seat("carol").team == "wolves"
    assert any("il ne reste aucun autre loup" in m.body for m in g.notices_to("carol", out))


def test_villager_thief_night7_may_only_become_a_wolf() -> None:
    """LG-322, LG-711: on Night 7 a Villager thief is offered DEVENIR LOUP only."""
    g = LG()
    g.to_night1()
    _to_night(g, 7)
    prompt = [m for m in g.notices_to("carol") if "Nuit 7" in m.subject]
    assert len(prompt) == 1
    assert "DEVENIR LOUP" in prompt[0].body and "VILLAGEOIS" not in prompt[0].body
    assert "déjà un villageois" in g.reply(g.send("carol", "DEVENIR VILLAGEOIS"))


def test_thief_leaves_council_night7() -> None:
    """LG-322, LG-326, LG-D38: in the Night 7 council, a Villager from the morning; leaving notice."""
    g = LG()
    g.to_night1()
    _to_night(g, 2)
    g.night(carol="DEVENIR LOUP")
    _to_night(g, 7)
    out = g.send("carol", "TUER ivan")  # still a council member on Night 7
    assert "TUER ivan" in g.reply(out)
    out = g.night(carol="DEVENIR VILLAGEOIS")
    assert g.seat("carol").team == "villagers"
    assert any("de nouveau un villageois" in m.body for m in g.notices_to("carol", out))
    g.deadline("day")
    left = [m for m in g.mails if "Nuit 8 : le conseil des loups" in m.subject]
    assert {m.to[0] for m in left} == {email("alice"), email("bob")}
    assert all("carol (Voleur) a quitté le conseil" in m.body for m in left)


def test_thief_dead_at_dawn_does_not_transform() -> None:
    """LG-229, LG-D37 (2): the thief's request needs him alive at dawn."""
    g = LG()
    g.to_night1()
    _to_night(g, 2)
    out = g.night(kill="carol", carol="DEVENIR LOUP")
    assert not g.alive("carol") and g.seat("carol").team == "villagers"
    assert not [m for m in g.notices_to("carol", out) if "transformation" in m.subject]


def test_thief_loses_choice_when_elder_dies() -> None:
    """LG-331, LG-D19, LG-D37 (4): a Villager thief loses his choice with the Ancien."""
    g = LG()
    g.to_night1()
    g.night(eve="EMPOISONNER grace")
    assert not g.alive("grace")
    _to_night(g, 2)
    assert "plus de pouvoirs" in g.reply(g.send("carol", "DEVENIR LOUP"))


def test_wolf_thief_may_still_go_back_after_elder_death() -> None:
    """LG-331: a thief already a Wolf when the Ancien dies may still become a Villager again."""
    g = LG()
    g.to_night1()
    _to_night(g, 2)
    g.night(carol="DEVENIR LOUP")
    g.post("ivan", "VOTE grace")
    g.deadline("day")
    assert not g.alive("grace")
    _to_night(g, 7)
    g.night(carol="DEVENIR VILLAGEOIS")
    assert g.seat("carol").team == "villagers"


def test_lovers_night2_x_grief() -> None:
    """LG-368, LG-420, LG-421, LG-422, LG-423, LG-220, LG-226, LG-253, LG-619, LG-724, LG-D24."""
    g = LG()
    g.to_night1()
    assert "deuxième nuit" in g.reply(g.send("frank", "AMOUREUX ivan judy"))
    _to_night(g, 2)
    prompt = [m for m in g.mails if "votre question" in m.subject and "AMOUREUX" in m.body]
    assert len(prompt) == 1
    out = g.night(frank="AMOUREUX ivan dave\nQUESTION LOUPS")
    assert g.state.lovers == ("ivan", "dave")
    to_ivan = [m for m in g.notices_to("ivan", out) if "coup de foudre" in m.subject]
    assert "appartient désormais à dave, qui est la Voyante" in to_ivan[0].body
    assert "pas le droit de vous écrire en privé" in to_ivan[0].body  # LG-423, LG-D36
    assert g.recipients(out, "coup de foudre") == {"ivan", "dave"}
    # LG-421, LG-423: STATUS shows the lover and his identity
    assert g.rules.status(g.state, "dave")["lover"] == "ivan"
    g.post("judy", "VOTE ivan")
    out = g.deadline("day")
    assert not g.alive("ivan") and not g.alive("dave")
    assert g.seat("dave").cause == "grief"
    lynch = next(m for m in g.public(out) if "lynchage" in m.subject).body
    assert "dave meurt de chagrin, inconsolable de la mort d'ivan. dave était la Voyante" in lynch


def test_lovers_formed_before_the_nights_deaths() -> None:
    """LG-220, LG-D23: killed the night she designates, the link exists; grief applies."""
    g = LG()
    g.to_night1()
    _to_night(g, 2)
    out = g.night(kill="ivan", frank="AMOUREUX ivan frank")
    assert not g.alive("ivan") and not g.alive("frank")
    dawn = next(m for m in g.public(out) if "aube" in m.subject).body
    assert dawn.index("ont dévoré ivan") < dawn.index("frank meurt de chagrin")  # LG-D16 order
    assert not g.recipients(out, "coup de foudre")  # nobody alive to tell


def test_no_lovers_if_little_girl_dead_or_powerless() -> None:
    """LG-369, LG-370, LG-D23: dead before Night 2, or powerless: no Lovers."""
    g = LG()
    g.to_night1()
    g.night(kill="frank")
    _to_night(g, 2)
    g.night()
    assert g.state.lovers == ()
    g = LG()
    g.to_night1()
    g.night(eve="EMPOISONNER grace")
    _to_night(g, 2)
    assert "plus de pouvoirs" in g.reply(g.send("frank", "AMOUREUX ivan judy"))


def test_lovers_if_missing_random() -> None:
    """LG-D23 alternative ``lovers_if_missing`` = random."""
    g = LG(options={"lovers_if_missing": "random"})
    g.to_night1()
    _to_night(g, 2)
    g.night()
    assert len(g.state.lovers) == 2


def test_elder_night_death_with_potion_on_wolf() -> None:
    """LG-X10, LG-228, LG-234, LG-385, LG-386, LG-344, LG-358, LG-370, LG-727, LG-D19, LG-D20."""
    g = LG()
    g.to_night1()
    g.night(kill="grace")  # Night 1: the protection is used
    assert g.alive("grace") and g.state.elder_used
    _to_night(g, 3)
    out = g.night(kill="grace", eve="EMPOISONNER bob", dave="SONDER alice")
    assert not g.alive("grace") and not g.alive("bob")  # LG-D20: the potion works
    assert any("sondage" in m.subject for m in g.notices_to("dave", out))  # this night's scan
    dawn = next(m for m in g.public(out) if "aube" in m.subject).body
    assert "perdent leurs pouvoirs dès le début des débats" in dawn
    lost = g.recipients(out, "perdez vos pouvoirs")
    assert lost == {"carol", "dave", "eve", "frank"}  # LG-D19: not the piper (LG-394)
    assert any("d'aujourd'hui" in m.body for m in g.notices_to("dave", out))
    g.deadline("day")
    assert "plus de pouvoirs" in g.reply(g.send("eve", "EMPOISONNER alice"))
    assert "plus de pouvoirs" in g.reply(g.send("dave", "SONDER alice"))
    assert "plus de pouvoirs" in g.reply(g.send("frank", "QUESTION LOUPS"))
    assert "ENVOUTER" in g.reply(g.send("heidi", "ENVOUTER ivan judy"))  # LG-394


def test_young_wolf_keeps_powers_after_elder_death() -> None:
    """LG-X10, LG-432, LG-344, LG-358: a bitten witch keeps her potions."""
    g = LG()
    g.to_night1(bite="eve")
    g.night(kill="grace")
    _to_night(g, 2)
    g.night(kill="grace")
    assert not g.alive("grace")
    g.deadline("day")
    out = g.send("eve", "EMPOISONNER ivan")
    assert "EMPOISONNER ivan" in g.reply(out)
    assert "eve" not in g.state.powerless


def test_bitten_witch_is_a_wolf_in_council() -> None:
    """LG-314, LG-431: the bitten witch keeps her potions and sits in the council."""
    g = LG()
    g.to_night1(bite="eve")
    assert "eve" in g.state.council
    g.send("eve", "TUER ivan")
    g.deadline("council")
    g.send("eve", "SAUVER")
    g.deadline("night")
    assert g.alive("ivan")
