"""The email mapping: addresses, keywords, replies, English, simulate (LG-600..LG-627)."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage

from pbem.core.events import Notice
from pbem.tools.simulate import simulate
from tests.loupgarou.scenario import LG, NAMES, ROLES, email

# LG-608: the notifications of section 10.3, one template each (no other game information).
NOTIFICATIONS = {
    "opening": "LG-700",
    "role": "LG-701",
    "bitten": "LG-703",
    "elder_bitten": "LG-703",
    "master_elder": "LG-703",
    "wolves_list": "LG-704",
    "election_open": "LG-705",
    "election_result": "LG-706",
    "election_runoff": "LG-706",
    "night_start": "LG-710",
    "council_prompt": "LG-711",
    "seer_prompt": "LG-711",
    "girl_prompt": "LG-711",
    "piper_prompt": "LG-711",
    "witch_prompt": "LG-711",
    "thief_prompt": "LG-711",
    "kill_relay": "LG-712",
    "pack_chat": "LG-613",
    "council_result": "LG-713",
    "witch_victim": "LG-714",
    "seer_result": "LG-720",
    "girl_answer": "LG-721",
    "spied": "LG-722",
    "charmed": "LG-723",
    "lovers": "LG-724",
    "elder_escaped": "LG-725",
    "thief_result": "LG-726",
    "powers_lost": "LG-727",
    "dawn": "LG-730",
    "sash_prompt": "LG-740",
    "new_mayor": "LG-740",
    "tally": "LG-741",
    "final_tally": "LG-742",
    "tiebreak_prompt": "LG-742",
    "lynch": "LG-750",
    "victory": "LG-760",
}


def test_unregistered_sender_rejected() -> None:
    """LG-600: commands from an unknown address are rejected."""
    g = LG()
    msg = EmailMessage()
    msg["From"] = "stranger@ex.org"
    msg["Subject"] = ""
    msg.set_content("MORDRE ivan\n")
    out = g.commit(g.table.receive(msg, channel="private", now=g.now))
    assert len(out) == 1 and out[0].to == ("stranger@ex.org",)
    assert "n'est pas inscrite" in out[0].body
    assert g.state.action("alice", "bite") is None


def test_keywords_case_and_accents_several_lines() -> None:
    """LG-601, LG-610, LG-611, LG-612, LG-613, LG-614, LG-615, LG-616, LG-617, LG-618, LG-619, LG-620: case- and accent-insensitive keywords, several lines, free text."""
    g = LG()
    g.to_night1()
    out = g.send("heidi", "Bonsoir !\nenvoûter IVAN judy\nmerci")
    reply = g.reply(out)
    assert "ENVOUTER ivan judy" in reply and "Bonsoir" in reply  # ignored text listed
    out = g.send("frank", "question conditions Nick")
    assert "QUESTION CONDITIONS nick" in g.reply(out)


def test_accepted_reply_restates_and_gives_deadline() -> None:
    """LG-602, LG-603: accepted with the deadline; a new command replaces the previous one."""
    g = LG()
    g.to_night1()
    out = g.send("dave", "SONDER bob")
    assert "✓ SONDER bob" in g.reply(out) and "modifiable" in g.reply(out)
    g.send("dave", "SONDER carol")
    assert g.state.action("dave", "scan").targets == ("carol",)


def test_status_gives_the_nights_end_then_the_councils_lg_627() -> None:
    """LG-627 (STATUT): the phase line read « nuit 1, conseil des loups jusqu'au …, jusqu'au … »,
    a second « jusqu'au » with nothing to say what ends; the phase's own end comes first."""
    g = LG()
    g.to_night1()
    status = g.reply(g.send("eve", "STATUT"))
    night, council = g.table.deadlines()["night"], g.table.deadlines()["council"]
    assert night > council
    assert re.search(
        r"Phase : nuit 1, jusqu'au [^(]+ \(conseil des loups jusqu'au [^)]+\)\.\n", status
    )
    g.deadline("council")
    assert re.search(r"Phase : nuit 1, jusqu'au [^(\n]+UTC\.\n", g.reply(g.send("eve", "STATUT")))


def test_too_late_rejected() -> None:
    """LG-604: a command after its deadline is rejected."""
    g = LG()
    g.to_night1()
    g.deadline("council")
    assert "terminé" in g.reply(g.send("alice", "TUER ivan"))


def test_errors_never_reveal_hidden_information() -> None:
    """LG-607, LG-102, LG-319, LG-300: "not a living player", never a role; no power, no action."""
    g = LG()
    g.to_night1()
    g.night(kill="dave")
    g.deadline("day")
    out = g.send("eve", "EMPOISONNER dave")
    reply = g.reply(out)
    assert "dave ne fait pas partie des joueurs en vie" in reply and "Voyante" not in reply
    out = g.send("ivan", "SONDER bob")
    assert "Votre rôle n'a pas ce pouvoir" in g.reply(out)


def test_dead_players_may_only_pass_the_sash() -> None:
    """LG-606, LG-241: every command of a dead player is refused, except SASH."""
    g = LG()
    g.to_night1(mayor="dave")
    g.night(kill="dave")
    for line in ("SONDER bob", "QUESTION LOUPS", "RIEN"):
        assert "hors jeu" in g.reply(g.send("dave", line))
    assert "ECHARPE" in g.reply(g.send("dave", "ECHARPE judy"))


def test_english_game_and_keywords() -> None:
    """LG-610..LG-627 English keywords; English templates complete."""
    g = LG(lang="en", langs=dict.fromkeys(NAMES, "en"))
    assert "you are the Seer" in g.notices_to("dave")[0].body
    assert "(optional: PASS to bite no one)" in g.notices_to("alice")[0].body  # LG-D03
    g.send("alice", "BITE eve")
    g.deadline("bite")
    for n in NAMES:
        g.send(n, "MAYOR nick")
    g.deadline("election")
    g.send("alice", "KILL ivan")
    g.send("bob", "PACK hello")
    g.send("dave", "SCAN bob")
    g.send("frank", "ASK WOLVES")
    g.send("heidi", "CHARM judy nick")
    out = g.deadline("council")
    assert any("the Wolves' victim tonight is ivan" in m.body for m in out)
    g.send("eve", "SAVE ivan")
    g.send("eve", "POISON bob")
    out = g.deadline("night")
    assert g.alive("ivan") and not g.alive("bob")
    dawn = next(m for m in g.public(out) if "dawn" in m.subject).body
    assert "The death potion took bob. bob was a Werewolf, on the Wolves team" in dawn
    assert any("bob is a Werewolf" in m.body for m in g.notices_to("dave", out))
    out = g.post("judy", "VOTE nick")
    assert "UNVOTE" not in g.reply(out) and "VOTE nick" in g.reply(out)
    g.post("judy", "UNVOTE")
    out = g.send("judy", "STATUS")
    assert "Simple Villager, team Villagers" in g.reply(out)
    out = g.send("nick", "HELP")
    assert "VOTE" in g.reply(out)


def test_mixed_languages_each_in_his_own() -> None:
    """LG-701: each player is written to in his own language."""
    g = LG(langs={"dave": "en"})
    assert "you are the Seer" in g.notices_to("dave")[0].body
    assert "vous êtes la Sorcière" in g.notices_to("eve")[0].body


def test_notifications_are_exactly_the_mapping() -> None:
    """LG-608: every notice a game sends is one of section 10.3's (bots play a whole game)."""
    import random

    from pbem.table import Table
    from pbem.tools.demo import demo_setup, play
    from pbem.tools.simulate import EPOCH

    seen: set[str] = set()
    for seed in range(6):
        table, step = Table.new(demo_setup("loup-garou", 16, seed, "fr"), EPOCH)
        table.apply(step)
        play(table, random.Random(seed))
        for event in table.events:
            if isinstance(event, Notice) and not event.template.startswith("seats/"):
                # the seats' notices (idle warnings, docs/seats.md) carry no game information
                folder, _, name = event.template.partition("/")
                assert folder == "loupgarou" and name in NOTIFICATIONS, event.template
                seen.add(name)
    assert {"opening", "role", "dawn", "lynch", "victory", "council_prompt"} <= seen


def test_simulate_transcript_end_to_end() -> None:
    """LG-001, LG-004: ``pbem simulate`` with a fixed deal, mails and deadlines."""
    players = [{"name": n, "email": email(n)} for n in NAMES]
    lines = [
        {"setup": {"game": "loup-garou", "seed": 3, "players": players, "roles": ROLES}},
        {"mail": {"from": email("alice"), "to": "moderator", "body": "MORDRE ivan"}},
        {"deadline": True},
        *[{"mail": {"from": email(n), "to": "moderator", "body": "MAIRE nick"}} for n in NAMES],
        {"deadline": True},
        {"mail": {"from": email("alice"), "to": "moderator", "body": "TUER judy"}},
        {"deadline": True},
        {"mail": {"from": email("eve"), "to": "moderator", "body": "EMPOISONNER bob"}},
        {"deadline": True},
        {"mail": {"from": email("nick"), "to": "list", "body": "VOTE **alice**"}},
        {"deadline": True},
        {"deadline": True},
        {"deadline": True},
        {"mail": {"from": email("nick"), "to": "list", "body": "VOTE ivan"}},
        {"deadline": True},
    ]
    out = list(simulate(json.dumps(line) for line in lines))
    state = out[-1]["state"]
    assert state["game"] == "loup-garou" and state["status"] == "finished"
    assert state["side"] == "villagers"
    players_out = {p["name"]: p for p in state["players"]}
    assert players_out["ivan"]["team"] == "wolves" and players_out["ivan"]["role"] == "villager"
    assert "young_wolf" in players_out["ivan"]["conditions"]
    assert "mayor" in players_out["nick"]["conditions"]
    assert not players_out["judy"]["alive"]
    assert set(state["winners"]) == {p for p, r in players_out.items() if r["team"] == "villagers"}


def test_debate_is_free_and_night_orders_are_private() -> None:
    """LG-005: anything may be said on the list; LG-006: night orders go privately."""
    g = LG()
    g.to_night1()
    g.night()
    events = len(g.table.events)
    out = g.post("ivan", "Je suis la Voyante ! bob est un loup, votez bob demain.")
    assert out == [] and len(g.table.events) == events  # talk: no reply, no event
    g.deadline("day")
    out = g.post("alice", "TUER ivan")  # a night order posted on the list is not one
    assert g.state.action("alice", "kill") is None
    assert "TUER" in g.reply(g.send("alice", "TUER ivan"))


def test_normal_wolf_and_master_sit_in_council() -> None:
    """LG-300, LG-310, LG-510: the council is every living Wolf; the normal wolf only votes."""
    g = LG()
    g.to_night1()
    assert set(g.state.council) == {"alice", "bob"}
    assert "pas ce pouvoir" in g.reply(g.send("bob", "SONDER ivan"))


def test_mayor_vote_weighs_one() -> None:
    """LG-520, LG-403, LG-D39: the Mayor leads the debates; his vote is worth 1 like anyone's."""
    g = LG()
    g.to_night1(mayor="nick")
    g.night()
    g.post("nick", "VOTE bob")
    g.post("ivan", "VOTE judy")
    out = g.deadline("day")
    assert g.state.phase == "tiebreak"
    assert any("bob 1" in m.body and "judy 1" in m.body for m in g.public(out))


def test_bad_input_changes_nothing_and_is_explained_in_the_players_language() -> None:
    """LG-602, LG-606, LG-350, LG-323, LG-613, LG-526: the issue's illegal actions, one by one."""
    g = LG(langs={"eve": "en", "carol": "en"})
    g.to_night1()
    g.night(kill="ivan", eve="!SAUVER")  # the life potion is used on Night 1
    g.deadline("day")
    g.night()
    g.deadline("day")
    cases = [
        ("eve", "SAVE", "moderator", "already used that potion"),  # a second use (Night 3)
        ("carol", "BECOME WOLF", "moderator", "only during Night 2 and Night 7"),
        ("ivan", "LOUPS on y va", "moderator", "conseil des loups"),  # not a council member
    ]
    g.deadline("council")
    for who, line, to, expected in cases:
        before = (len(g.table.events), g.summary())
        out = g.send(who, line, to=to)
        assert expected in g.reply(out), (line, g.reply(out))
        assert (len(g.table.events), g.summary()) == before
    g.deadline("night")
    g.post("judy", "VOTE eve")
    g.deadline("day")
    assert not g.alive("eve")
    g.deadline("council")
    before = (len(g.table.events), g.summary())
    out = g.send("eve", "POISON bob")  # a dead witch's potion
    assert "You have been eliminated" in g.reply(out)
    assert (len(g.table.events), g.summary()) == before
    g.deadline("night")
    before = (len(g.table.events), g.summary())
    out = g.post("eve", "VOTE bob")  # a vote by a dead player
    assert "eliminated" in g.reply(out) and not g.public(out)
    assert (len(g.table.events), g.summary()) == before


def test_reply_names_the_deadline_of_each_order() -> None:
    """LG-602, LG-213: TUER may change until T_A, SONDER until the end of the night."""
    g = LG()
    g.to_night1()
    t_a, t_end = g.table.deadlines()["council"], g.table.deadlines()["night"]
    renderer = g.table.renderer
    kill = g.reply(g.send("alice", "TUER ivan"))
    scan = g.reply(g.send("dave", "SONDER bob"))
    assert renderer.when(t_a, "fr") in kill and renderer.when(t_end, "fr") not in kill
    assert renderer.when(t_end, "fr") in scan
    g.deadline("council")
    g.deadline("night")
    g.deadline("day")  # nobody voted: night 2
    g.night(kill="nick")  # nick is not the Mayor (ivan is)
    assert "définitif" not in g.reply(g.post("judy", "VOTE bob"))


def test_transcript_file_through_the_cli() -> None:
    """LG-001: ``pbem simulate tests/transcripts/loupgarou-day1.jsonl`` (the DESIGN contract)."""
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).parent.parent / "transcripts" / "loupgarou-day1.jsonl"
    out = subprocess.run(
        [sys.executable, "-m", "pbem.cli.main", "simulate", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    items = [json.loads(line) for line in out]
    mails = [i["mail"] for i in items[:-1]]
    state = items[-1]["state"]
    assert {"game", "status", "phase", "day", "winners", "players"} <= set(state)
    players = {p["name"]: p for p in state["players"]}
    assert players["eve"] == {
        "name": "eve",
        "role": "witch",
        "team": "wolves",
        "alive": True,
        "conditions": ["young_wolf"],
    }
    assert players["grace"]["alive"]  # the Ancien's protection saved him
    assert not players["dave"]["alive"] and not players["bob"]["alive"]
    assert state["phase"] == "night" and state["day"] == 2
    # the elder was told, privately; the dawn said nothing of it
    assert any("échappé à la mort" in m["body"] for m in mails if m["to"] == ["grace@example.org"])
    dawn = next(m for m in mails if m["public"] and "aube" in m["subject"])
    assert "grace" not in dawn["body"]
    assert "La potion de mort a emporté dave. dave était la Voyante" in dawn["body"]


def test_more_rejections() -> None:
    """LG-615, LG-618, LG-623, LG-625: no victim to save, a dead subject, nothing to
    withdraw, a sash that is not yours."""
    g = LG()
    g.to_night1(mayor="nick")
    g.deadline("council")  # nobody voted: no victim
    assert "pas de victime" in g.reply(g.send("eve", "SAUVER"))
    g.deadline("night")
    g.deadline("day")
    g.night(kill="nick")
    assert g.state.sash_holder == "nick"
    assert "pas d'écharpe" in g.reply(g.send("judy", "ECHARPE bob"))
    assert "pas de vote à retirer" in g.reply(g.post("judy", "RETIRER"))
    g.deadline("sash")
    g.deadline("day")
    assert "nick ne fait pas partie des joueurs en vie" in g.reply(
        g.send("frank", "QUESTION CONDITIONS nick")
    )
    assert g.state.action("frank", "ask") is None


def test_replies_restate_words_in_the_players_language() -> None:
    """LG-602, LG-617, LG-621: QUESTION LOUPS / ASK WOLVES, DEVENIR LOUP / BECOME WOLF."""
    g = LG(langs={"carol": "en"})
    g.to_night1()
    assert "✓ QUESTION LOUPS" in g.reply(g.send("frank", "question loups"))
    g.deadline("council")
    g.deadline("night")
    g.deadline("day")
    assert "✓ BECOME WOLF" in g.reply(g.send("carol", "become wolf"))
    assert "✓ QUESTION CONDITIONS nick" in g.reply(g.send("frank", "QUESTION 4 nick"))
