"""Victory conditions, checkpoints and priority (LG-110, LG-111, LG-112, LG-113, LG-114, LG-115, LG-116, LG-117, LG-118, LG-760, LG-D27..LG-D29)."""

from __future__ import annotations

from tests.loupgarou.scenario import LG, small_game


def test_villagers_win_when_every_wolf_is_dead_checkpoint_b() -> None:
    """LG-110, LG-114 (b), LG-256, LG-760, LG-D28, LG-D29: shared by dead Villagers too."""
    g = LG()
    g.to_night1(mayor="nick")
    g.night(kill="ivan", eve="EMPOISONNER alice")
    assert g.state.outcome is None
    g.post("judy", "VOTE bob")
    out = g.deadline("day")
    assert g.state.outcome is not None and g.state.outcome.side == "villagers"
    assert "ivan" in g.state.outcome.winners and "heidi" not in g.state.outcome.winners
    victory = next(m for m in g.public(out) if "Fin de la partie" in m.subject).body
    assert "Victoire des Villageois" in victory
    assert "alice : Maître des loups, équipe Loups-garous, conditions : aucune, hors jeu" in victory
    assert (
        "mallory : Simple villageois, équipe Villageois, conditions : Idiot du village" in victory
    )
    assert g.table.deadlines() == {}
    assert "terminée" in g.reply(g.send("dave", "SONDER ivan"))  # LG-760: no more commands
    assert g.table.summary()["status"] == "finished"


def test_villagers_win_at_dawn() -> None:
    """LG-110, LG-114 (a), LG-115, LG-235: the Villagers are checked at dawn (checkpoint a)."""
    g = small_game({"alice": "master_wolf", "eve": "witch", "ivan": "villager"})
    g.to_night1()
    g.night(eve="EMPOISONNER alice")
    assert g.state.outcome is not None and g.state.outcome.side == "villagers"


def test_wolves_win_on_parity_at_dawn_and_after_lynch() -> None:
    """LG-111, LG-114, LG-115, LG-117: Wolves >= Villagers, at (a) and at (b)."""
    g = small_game({"alice": "master_wolf", "ivan": "villager", "judy": "villager"})
    g.to_night1()
    g.night(kill="ivan")
    assert g.state.outcome is not None and g.state.outcome.side == "wolves"
    assert g.state.outcome.winners == ("alice",)
    roles = {"alice": "master_wolf", "bob": "werewolf", "ivan": "villager"}
    roles |= {"judy": "villager", "nick": "villager"}
    g = small_game(roles)
    g.to_night1(mayor="ivan")
    g.night()
    assert g.state.outcome is None
    g.post("bob", "VOTE ivan")  # the Mayor: lynched normally even if he is the idiot
    g.deadline("day")
    assert g.state.outcome is not None and g.state.outcome.side == "wolves"


def test_parity_ignores_the_piper_unless_configured() -> None:
    """LG-D27 (1): the Piper is counted on neither side (``parity_counts_piper``)."""
    roles = {"alice": "master_wolf", "heidi": "pied_piper", "ivan": "villager"}
    g = small_game(roles)
    g.to_night1()
    g.night()
    assert g.state.outcome is not None and g.state.outcome.side == "wolves"
    g = small_game(roles, parity_counts_piper=True)
    g.to_night1()
    g.night()
    assert g.state.outcome is None


def test_piper_checked_only_at_dawn_x09() -> None:
    """LG-X09, LG-112, LG-115, LG-393, LG-D27 (4): nothing after the lynch, the win at dawn."""
    roles = {"heidi": "pied_piper", "alice": "master_wolf"}
    roles |= {n: "villager" for n in ("ivan", "judy", "nick", "olivia")}
    g = small_game(roles)
    g.to_night1(mayor="nick")
    g.night(heidi="ENVOUTER alice ivan")
    g.deadline("day")
    g.night(heidi="ENVOUTER judy olivia")
    assert g.state.outcome is None  # nick is not charmed
    g.post("ivan", "VOTE nick")
    g.deadline("day")
    assert not g.alive("nick")
    assert g.state.outcome is None  # all charmed, but the Piper is not checked at (b)
    g.night()
    assert g.state.outcome is not None and g.state.outcome.side == "pied_piper"
    assert g.state.outcome.winners == ("heidi",)  # LG-D28: alone


def test_priority_piper_over_wolves() -> None:
    """LG-116, LG-X09: the Piper wins at dawn even when the Wolves' parity holds."""
    roles = {"heidi": "pied_piper", "alice": "master_wolf", "ivan": "villager", "judy": "villager"}
    g = small_game(roles)
    g.to_night1()
    g.night(kill="judy", heidi="ENVOUTER alice ivan")
    assert g.state.outcome is not None and g.state.outcome.side == "pied_piper"


def test_lovers_last_two_win_first_x08() -> None:
    """LG-X08, LG-113, LG-116, LG-424, LG-D28: the Lovers win over the Wolves' parity."""
    roles = {"alice": "master_wolf", "frank": "little_girl", "ivan": "villager"}
    roles |= {"judy": "villager"}
    g = small_game(roles)
    g.to_night1()
    g.night(kill="judy")
    g.deadline("day")
    out = g.night(kill="frank", frank="AMOUREUX alice ivan")
    assert g.state.outcome is not None and g.state.outcome.side == "lovers"
    assert set(g.state.outcome.winners) == {"alice", "ivan"}
    assert any("Victoire des Amoureux" in m.body for m in g.public(out))


def test_everyone_dead_is_a_draw() -> None:
    """LG-D27 (5): nobody alive, no winner."""
    g = small_game({"alice": "master_wolf", "eve": "witch"})
    g.to_night1()
    out = g.night(kill="eve", eve="EMPOISONNER alice")
    assert g.state.outcome is not None and g.state.outcome.side is None
    assert g.state.outcome.winners == ()
    assert any("pas de gagnant" in m.body for m in g.public(out))


def test_bitten_piper_wins_with_wolves_or_alone() -> None:
    """LG-118, LG-395, LG-D28: with the Wolves (shared), or alone by charming."""
    roles = {"alice": "master_wolf", "heidi": "pied_piper"}
    roles |= {n: "villager" for n in ("ivan", "judy", "nick")}
    g = small_game(roles)
    g.to_night1(bite="heidi")
    g.night(kill="ivan")
    assert g.state.outcome is not None and g.state.outcome.side == "wolves"
    assert set(g.state.outcome.winners) == {"alice", "heidi"}
    roles = {"alice": "master_wolf", "heidi": "pied_piper", "bob": "werewolf", "ivan": "villager"}
    g = small_game(roles)
    g.to_night1(bite="heidi")
    g.night(kill="ivan", heidi="ENVOUTER alice bob")
    assert g.state.outcome is not None and g.state.outcome.side == "pied_piper"
    assert g.state.outcome.winners == ("heidi",)


def test_reveal_all_at_end_option() -> None:
    """LG-D29: ``reveal_all_at_end`` = false omits the full reveal."""
    g = small_game(
        {"alice": "master_wolf", "eve": "witch", "ivan": "villager"}, reveal_all_at_end=False
    )
    g.to_night1()
    out = g.night(eve="EMPOISONNER alice")
    victory = next(m for m in g.public(out) if "Fin" in m.subject).body
    assert "identités étaient" not in victory


def test_team_victory_shared_by_dead_members() -> None:
    """LG-D28: a team victory includes its dead members."""
    roles = {"alice": "master_wolf", "bob": "werewolf", "eve": "witch"}
    roles |= {"ivan": "villager", "judy": "villager"}
    g = small_game(roles)
    g.to_night1(mayor="judy")
    g.night(kill="ivan", eve="EMPOISONNER bob")
    assert g.state.outcome is None
    g.deadline("day")
    g.night(kill="judy")
    assert g.state.outcome is not None and g.state.outcome.side == "wolves"
    assert set(g.state.outcome.winners) == {"alice", "bob"}
