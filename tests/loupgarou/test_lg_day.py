"""Days: votes, tally, tie-break, idiot, sash, lynch announcement (LG-240..LG-256, LG-5xx)."""

from __future__ import annotations

from tests.loupgarou.scenario import LG, email, small_game


def _day1(mayor: str = "ivan", seed: int = 1, **options: object) -> LG:
    g = LG(seed=seed, options=options)
    g.to_night1(mayor=mayor)
    g.night()
    assert g.state.phase == "day"
    return g


def test_public_votes_tally_and_lynch() -> None:
    """LG-240, LG-520, LG-521, LG-522, LG-523, LG-524, LG-525, LG-622, LG-741, LG-742, LG-750, LG-D33, LG-D34."""
    g = _day1()
    out = g.post("judy", "VOTE bob")
    tally = g.public(out)
    assert len(tally) == 1 and "judy → bob" in tally[0].body  # LG-741
    assert "VOTE bob" in g.reply(out)
    out = g.post("nick", "Je vote **bob**, il est louche")  # LG-521: the bold convention
    assert not g.public(out)  # LG-D34: at most one tally per 15 minutes
    assert g.state.votes["nick"] == "bob"
    g.post("olivia", "VOTE judy")
    g.post("olivia", "VOTE olivia")  # LG-522 self-vote; LG-523 change
    g.post("peggy", "VOTE judy")
    g.post("peggy", "RETIRER")  # LG-623
    assert "peggy" not in g.state.votes
    out = g.deadline("day")
    final = next(m for m in g.public(out) if "décompte final" in m.subject)
    assert "bob 2" in final.body and "olivia 1" in final.body  # LG-524, LG-742
    lynch = next(m for m in g.public(out) if "lynchage" in m.subject)
    assert "Le village a lynché bob" in lynch.body
    assert "était un Loup-garou normal, dans l'équipe des Loups-garous" in lynch.body  # LG-100
    assert not g.alive("bob")
    assert g.state.phase == "night" and g.state.number == 2  # LG-256


def test_vote_rejections() -> None:
    """LG-526, LG-241, LG-606, LG-607, LG-602, LG-D35: invalid votes (by the dead, at night)."""
    g = _day1()
    g.post("judy", "VOTE bob")
    g.deadline("day")  # bob lynched
    g.night()
    out = g.post("bob", "VOTE judy")  # a dead player's vote
    assert not g.public(out) and out[0].to == (email("bob"),)
    assert "hors jeu" in g.reply(out)
    out = g.post("judy", "VOTE bob")  # a vote for a dead player
    assert "bob ne fait pas partie des joueurs en vie" in g.reply(out)
    out = g.send("judy", "VOTE nick")  # by private mail
    assert "liste" in g.reply(out)
    assert g.state.votes == {}
    g.deadline("day")
    out = g.post("judy", "VOTE nick")  # LG-D35: the list is closed at night (default)
    assert "La nuit, personne ne poste" in g.reply(out)
    assert g.state.votes == {}


def test_vote_at_night_with_an_open_list() -> None:
    """LG-526, LG-D35 (``list_closed_at_night = false``): a vote outside the Day is refused."""
    g = _day1(list_closed_at_night=False)
    g.post("judy", "VOTE bob")
    g.deadline("day")
    g.night()
    g.deadline("day")
    out = g.post("judy", "VOTE nick")
    assert "pas de vote en cours" in g.reply(out)


def test_dead_players_posts_are_refused() -> None:
    """LG-D35: a dead player's list post is refused as a whole, with a private reason."""
    g = _day1()
    g.post("judy", "VOTE bob")
    g.deadline("day")  # bob lynched
    g.night()
    out = g.post("bob", "Je reviendrai hanter ce village.")
    assert not g.public(out) and out[0].to == (email("bob"),)
    assert "hors jeu" in g.reply(out)


def test_no_vote_no_lynch() -> None:
    """LG-250, LG-D33: no valid vote, no lynch."""
    g = _day1()
    out = g.deadline("day")
    assert any("Pas de lynchage" in m.body for m in g.public(out))
    assert g.state.phase == "night"


def test_tie_broken_by_the_mayor() -> None:
    """LG-251, LG-402, LG-527, LG-624, LG-742, LG-D32: the tie is published, the Mayor decides."""
    g = _day1(mayor="nick")
    g.post("judy", "VOTE bob")
    g.post("olivia", "VOTE peggy")
    out = g.deadline("day")
    final = next(m for m in g.public(out) if "décompte final" in m.subject)
    assert "Égalité entre bob et peggy : le Maire nick tranche" in final.body
    assert g.recipients(out, "trancher") == {"nick"}
    assert g.state.phase == "tiebreak"
    assert "Seul le Maire" in g.reply(g.send("judy", "TRANCHER bob"))
    assert "ex æquo" in g.reply(g.send("nick", "TRANCHER judy"))
    out = g.post("nick", "TRANCHER peggy")  # public or private
    assert not g.alive("peggy")
    assert any("le Maire a tranché, et c'est peggy" in m.body for m in g.public(out))


def test_tiebreak_default_is_the_mayors_vote_else_random() -> None:
    """LG-D32: no answer -> the tied player the Mayor voted for; the Mayor may choose himself."""
    g = _day1(mayor="nick")
    g.post("nick", "VOTE nick")
    g.post("olivia", "VOTE peggy")
    g.deadline("day")
    out = g.deadline("tiebreak")
    assert not g.alive("nick")
    assert any("sa voix désigne nick" in m.body for m in g.public(out))
    g = _day1(mayor="nick")
    g.post("judy", "VOTE bob")
    g.post("olivia", "VOTE peggy")
    g.deadline("day")
    out = g.deadline("tiebreak")
    assert not g.alive("bob") or not g.alive("peggy")
    assert any("le sort désigne" in m.body for m in g.public(out))


def test_village_idiot_x06() -> None:
    """LG-X06, LG-252, LG-255, LG-445, LG-446, LG-447, LG-528, LG-750, LG-101, LG-D30."""
    g = _day1(mayor="nick")  # seed 1: mallory is the idiot
    assert g.state.idiot == "mallory"
    g.post("judy", "VOTE mallory")
    out = g.deadline("day")
    assert g.alive("mallory") and not g.alive("nick")
    assert g.seat("nick").cause == "burned"
    lynch = next(m for m in g.public(out) if "lynchage" in m.subject).body
    assert (
        "mallory se révèle être l'Idiot du village ! Le village l'épargne et brûle son Maire à sa place."
        in lynch
    )
    assert "Le village a brûlé nick à la place de mallory. nick était un Simple villageois" in lynch
    assert "portait l'écharpe de Maire" in lynch
    assert g.recipients(out, "écharpe") == {"nick"}  # LG-447: LG-404 applies
    assert g.rules.status(g.state, "mallory")["conditions"] == ["idiot"]  # public now
    g.send("nick", "ECHARPE mallory")  # the dead Mayor may give the sash to the idiot
    assert g.state.mayor == "mallory"
    g.night()
    g.post("judy", "VOTE mallory")  # the Mayor is the idiot: lynched normally (LG-448, LG-449)
    g.deadline("day")
    assert not g.alive("mallory")


def test_idiot_who_is_mayor_is_lynched() -> None:
    """LG-448: the Mayor who is the idiot is lynched normally."""
    g = _day1(mayor="mallory")
    g.post("judy", "VOTE mallory")
    out = g.deadline("day")
    assert not g.alive("mallory") and g.seat("mallory").cause == "lynch"
    assert not g.state.idiot_revealed
    assert not any("idiot du village !" in m.body for m in g.public(out))


def test_idiot_second_lynch_kills_him() -> None:
    """LG-449, LG-D30 (3), (4): once only; it triggers from a tie-break too."""
    g = _day1(mayor="nick")
    g.post("judy", "VOTE mallory")
    g.post("ivan", "VOTE peggy")
    g.deadline("day")
    g.send("nick", "TRANCHER mallory")  # LG-D30 (4)
    assert g.alive("mallory") and not g.alive("nick")
    g.deadline("sash")
    g.night()
    g.post("judy", "VOTE mallory")
    g.deadline("day")
    assert not g.alive("mallory")


def test_idiot_attacked_by_wolves_dies() -> None:
    """LG-X06: the idiot's protection concerns only the lynch."""
    g = LG()
    g.to_night1()
    g.night(kill="mallory")
    assert not g.alive("mallory")
    assert "Idiot du village" in g.public()[-1].body  # LG-100: revealed at death


def test_sash_after_night_death_x11() -> None:
    """LG-X11, LG-233, LG-404, LG-625, LG-740, LG-D31: prompt, choice published, or a draw."""
    g = LG()
    g.to_night1(mayor="nick")
    out = g.night(kill="nick")
    dawn = next(m for m in g.public(out) if "aube" in m.subject).body
    assert "Le village perd son Maire, nick, qui va transmettre l'écharpe" in dawn
    prompt = [m for m in g.notices_to("nick", out) if "écharpe" in m.subject]
    assert len(prompt) == 1
    assert g.table.deadlines()["sash"] < g.table.deadlines()["day"]
    assert "hors jeu" in g.reply(g.post("nick", "VOTE bob"))  # LG-606: only SASH
    assert "ne fait pas partie des joueurs en vie" in g.reply(g.send("nick", "ECHARPE nick"))
    out = g.send("nick", "ECHARPE judy")
    assert g.state.mayor == "judy"
    assert "(définitif)" in g.reply(out)  # LG-602: the sash cannot be taken back
    assert any("L'écharpe de Maire passe à judy (choix de nick)" in m.body for m in g.public(out))
    assert "sash" not in g.table.deadlines()
    # without an answer: drawn before any tie-break
    g = LG()
    g.to_night1(mayor="nick")
    g.night(kill="nick")
    out = g.deadline("sash")
    assert g.state.mayor != "nick" and g.alive(g.state.mayor)
    assert any("(tirage au sort : nick n'a pas choisi)" in m.body for m in g.public(out))


def test_sash_window_ends_before_the_day() -> None:
    """LG-D31: for a night death the sash window ends no later than 1 h before T_day."""
    g = LG(options={"sash_window": "60h"})
    g.to_night1(mayor="nick")
    g.night(kill="nick")
    d = g.table.deadlines()
    assert (d["day"] - d["sash"]).total_seconds() == 3600
    g.post("judy", "VOTE bob")
    g.post("ivan", "VOTE peggy")
    g.deadline("sash")
    assert g.state.mayor != "nick"


def test_mayor_keeps_powers_after_elder_death() -> None:
    """LG-387, LG-405: the Mayor's tie-break survives the Ancien's death."""
    g = LG()
    g.to_night1(mayor="dave")
    g.night(eve="EMPOISONNER grace")
    assert not g.alive("grace")
    g.post("judy", "VOTE bob")
    g.post("ivan", "VOTE peggy")
    g.deadline("day")
    assert g.state.phase == "tiebreak"
    g.send("dave", "TRANCHER bob")
    assert not g.alive("bob")


def test_elder_lynched_powers_lost_at_once() -> None:
    """LG-254, LG-386 (day), LG-727, LG-750: the Villagers lose their powers immediately."""
    g = _day1()
    g.post("judy", "VOTE grace")
    out = g.deadline("day")
    lynch = next(m for m in g.public(out) if "lynchage" in m.subject).body
    assert "perdent leurs pouvoirs dès maintenant" in lynch
    assert g.recipients(out, "perdez vos pouvoirs") == {"carol", "dave", "eve", "frank"}
    assert "plus de pouvoirs" in g.reply(g.send("dave", "SONDER bob"))
    assert g.recipients(out, "sondage") == set()  # LG-344: no more prompt


def test_early_close_day_option() -> None:
    """LG-D43: the day closes early only with early_close_day and every living vote."""
    g = _day1(early_close_day=True)
    for n in g.state.living():
        g.post(n, "VOTE bob")
    assert g.state.phase == "night"


def test_pending_sash_drawn_before_a_tiebreak() -> None:
    """LG-D31: never a tie-break without a Mayor: a pending sash is drawn at T_day first."""
    g = _day1(mayor="nick", sash_window="100h")
    g.post("judy", "VOTE mallory")  # the idiot: nick is burned, his sash is pending
    g.deadline("day")
    assert not g.alive("nick") and g.state.sash_holder == "nick"
    g.deadline("council")
    g.deadline("night")
    g.post("judy", "VOTE bob")
    g.post("ivan", "VOTE peggy")
    out = g.deadline("day")
    subjects = [m.subject for m in g.public(out)]
    drawn = next(i for i, s in enumerate(subjects) if "écharpe de Maire passe" in s)
    tally = next(i for i, s in enumerate(subjects) if "décompte final" in s)
    assert drawn < tally
    assert g.state.phase == "tiebreak" and g.state.mayor not in (None, "nick")
    assert g.alive(g.state.mayor)


def test_drawn_successor_is_always_living() -> None:
    """LG-404, LG-D31: the random successor is a living player (after the night's deaths)."""
    roles = {"alice": "master_wolf", "eve": "witch"}
    roles |= {n: "villager" for n in ("ivan", "judy", "nick", "olivia")}
    for seed in range(20):
        g = small_game(roles, seed=seed)
        g.to_night1(mayor="ivan")
        g.night(kill="ivan", eve="EMPOISONNER judy")
        g.deadline("sash")
        assert g.state.mayor in ("alice", "eve", "nick", "olivia")


def test_vote_options() -> None:
    """LG-D33 ``self_vote_allowed`` / ``vote_changes_allowed`` = false."""
    g = _day1(self_vote_allowed=False, vote_changes_allowed=False)
    assert "vous-même" in g.reply(g.post("judy", "VOTE judy"))
    out = g.post("judy", "VOTE bob")
    assert "(définitif)" in g.reply(out)
    assert "ne peut plus changer" in g.reply(g.post("judy", "VOTE nick"))
    assert g.state.votes == {"judy": "bob"}


def test_mayor_lynched_by_his_own_tiebreak_passes_the_sash() -> None:
    """LG-404, LG-447, LG-D31 (the seed: « si celui-ci meurt, il donnera son écharpe »): a Mayor
    who dies in the lynch he decided himself (TRANCHER) is prompted for the sash and his
    ECHARPE is accepted; nobody is drawn in his place before his window closes."""
    g = _day1(mayor="nick")
    g.post("nick", "VOTE nick")
    g.post("olivia", "VOTE peggy")
    g.deadline("day")
    assert g.state.phase == "tiebreak"
    out = g.send("nick", "TRANCHER nick")
    assert not g.alive("nick")
    assert g.recipients(out, "écharpe") == {"nick"}
    assert g.state.sash_holder == "nick" and g.state.mayor == "nick"
    assert not any("écharpe de Maire passe" in m.subject for m in g.public(out))
    out = g.send("nick", "ECHARPE judy")
    assert "(définitif)" in g.reply(out)
    assert g.state.mayor == "judy"
    assert any("L'écharpe de Maire passe à judy (choix de nick)" in m.body for m in g.public(out))


def test_mayor_burned_by_his_own_tiebreak_on_the_idiot_passes_the_sash() -> None:
    """LG-447, LG-404, LG-D31: the Mayor's TRANCHER names the Village idiot, who is spared while
    the Mayor burns (LG-D30 (4)); the burned Mayor still passes the sash himself."""
    g = _day1(mayor="nick")  # seed 1: mallory is the idiot
    g.post("judy", "VOTE mallory")
    g.post("ivan", "VOTE peggy")
    g.deadline("day")
    out = g.send("nick", "TRANCHER mallory")
    assert g.alive("mallory") and not g.alive("nick")
    assert g.recipients(out, "écharpe") == {"nick"}
    out = g.send("nick", "ECHARPE judy")
    assert "(définitif)" in g.reply(out)
    assert g.state.mayor == "judy"


def test_mayor_killed_by_his_own_tiebreak_gets_his_sash_turn_in_a_bot_game() -> None:
    """LG-404, LG-447, LG-D31 (the seed: « si celui-ci meurt, il donnera son écharpe »): in the
    bots' game (``make demo``, the playouts), a Mayor whose own TRANCHER lynches him is given a
    round to pass the sash before the clock moves on; before, the driver passed the earliest
    deadline (the sash's, 6 h, before the council's) at once and a successor was drawn."""
    import random
    from collections.abc import Iterator
    from email.message import EmailMessage

    from pbem.table import Table
    from pbem.tools.bots import plain_mail
    from pbem.tools.demo import play

    g = _day1(mayor="nick")
    g.post("nick", "VOTE nick")
    g.post("olivia", "VOTE peggy")
    g.deadline("day")
    assert g.state.phase == "tiebreak"
    moderator = g.table.setup.moderator

    def nick(table: Table, rng: random.Random) -> Iterator[tuple[EmailMessage, str]]:
        s = table.state
        if s.phase == "tiebreak" and s.seat("nick").alive:
            yield plain_mail(email("nick"), moderator, "TRANCHER nick\n"), "private"
        if s.sash_holder == "nick":
            yield plain_mail(email("nick"), moderator, "ECHARPE judy\n"), "private"

    play(g.table, random.Random(1), max_phases=2, now=g.now, bots=nick)
    assert not g.alive("nick")
    assert g.state.mayor == "judy"  # passed by nick, not drawn
