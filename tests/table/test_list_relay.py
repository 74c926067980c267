"""What a list post becomes when the daemon relays the list itself (``Table.receive(relay=True)``
and ``Table.release``): relayed, held until the list reopens, or refused — per game rules.

LG-D35, CAS-D28 ("if the daemon moderates the list, it holds posts by dead players and, when
``list_closed_at_night``, posts made at night, replying privately why") and Dracula AMB-009
(``out_of_turn_posts = hold_until_morning``). The daemon side (distribution, the held table,
release after a deadline) is tested against real servers in tests/daemon/test_relay.py.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from email.message import EmailMessage

from pbem.core.events import Notice
from pbem.table import Step, Table
from tests.chasse.scenario import DEAL, LEFTOVER
from tests.dracula.scenario import QUIET, advance, table_from
from tests.dracula.scenario import Game as DraculaGame
from tests.dracula.scenario import mail as dracula_mail
from tests.loupgarou.scenario import LG
from tests.lupus.scenario import kill
from tests.support.game_by_mail import Game, address, lupus_roles


def _msg(sender: str, body: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender if "@" in sender else address(sender)
    msg["To"] = "list"
    msg["Subject"] = ""
    msg["Message-ID"] = f"<{sender}-{abs(hash(body))}@test>"
    msg.set_content(body)
    return msg


def _post(table: Table, sender: str, body: str, now: datetime, relay: bool = True) -> Step:
    return table.receive(_msg(sender, body), channel="list", now=now, relay=relay)


def _text(step: Step) -> str:
    return "\n".join(m.body for m in step.outgoing)


def test_chasse_night_posts_are_held_until_day_and_the_dead_never_relayed() -> None:
    """CAS-D28, CAS-005: a night post is held (not refused) by a relaying daemon and goes out
    at day as debate only; a player killed meanwhile loses his held post; an external list
    refuses the night post instead; the dead are refused by day too."""
    g = Game(
        DEAL, game="chasse-aux-sorcieres", leftover=LEFTOVER, options={"penny_player": "peggy"}
    )
    held = _post(g.table, "alice", "Bonsoir à tous\nVOTE dave", g.now)
    assert held.post == "hold" and not held.events
    assert "Your post is held" in _text(held) and "will not be counted" in _text(held)
    external = _post(g.table, "alice", "Bonsoir", g.now, relay=False)
    assert external.post == "refused" and "At night nobody posts" in _text(external)
    victim = _msg("niaj", "I am scared")
    assert _post(g.table, "niaj", "I am scared", g.now).post == "hold"
    assert g.table.release(_msg("alice", "Bonsoir à tous"), g.now).post == "hold"  # still night
    while g.table.state.phase != "W1":
        g.deadline()
    g.mail("dave", "KILL niaj")
    while g.table.state.phase != "day":
        g.deadline()
    assert not g.table.state.alive("niaj")
    released = g.table.release(_msg("alice", "Bonsoir à tous\nVOTE dave"), g.now)
    assert released.post == "relay" and not released.events  # debate only: no vote counted
    dropped = g.table.release(victim, g.now)
    assert dropped.post == "refused"
    assert "held post was not distributed" in _text(dropped) and "eliminated" in _text(dropped)
    assert dropped.outgoing[0].to == (address("niaj"),)
    by_day = _post(g.table, "niaj", "Avenge me!", g.now)
    assert by_day.post == "refused" and not by_day.events


def test_loupgarou_day_posts_relayed_with_their_votes_night_posts_held() -> None:
    """LG-D35: by day a post is relayed and its bold vote counted; at night (the default
    ``list_closed_at_night``) it is held and its commands ignored; a dead player's post is
    refused; with the option off the night list stays open."""
    g = LG()
    g.to_night1(mayor="ivan")
    g.night()
    day = _post(g.table, "judy", "Je vote **bob**", g.now)
    assert day.post == "relay" and day.events
    g.commit(day)
    assert g.state.votes
    g.deadline("day")  # bob is lynched; night 2
    assert g.state.phase == "night"
    night = _post(g.table, "judy", "VOTE nick", g.now)
    assert night.post == "hold" and not night.events
    assert "retenu" in _text(night)
    dead = _post(g.table, "bob", "Je reviens !", g.now)
    assert dead.post == "refused" and "hors jeu" in _text(dead)
    g.night()
    assert g.state.phase == "day"
    assert g.table.release(_msg("judy", "VOTE nick"), g.now).post == "relay"
    opened = LG(options={"list_closed_at_night": False})
    opened.to_night1(mayor="ivan")
    opened.night()
    opened.deadline("day")
    assert _post(opened.table, "judy", "Bonne nuit", opened.now).post == "relay"


def test_dracula_hold_until_morning() -> None:
    """AMB-009 (``out_of_turn_posts = hold_until_morning``), DRA-082: a night post is held
    and relayed in the morning; on an external list, which the daemon cannot moderate, it is
    flagged publicly; the default ``reject`` refuses it even when relaying."""
    g = advance(DraculaGame(options={**QUIET, "out_of_turn_posts": "hold_until_morning"}), 3)
    t = table_from(g)
    psst = dracula_mail("Eve", "psst")
    held = t.receive(psst, channel="list", now=g.now, relay=True)
    assert held.post == "hold" and not held.events
    flagged = t.receive(psst, channel="list", now=g.now, relay=False)
    assert [e.template for e in flagged.facts if isinstance(e, Notice) and e.public] == [
        "dracula/post_flag"
    ]
    g.night({"Bob": "dungeons"})
    g.finish_night()
    assert g.phase == "day"
    assert table_from(g).release(psst, g.now).post == "relay"
    strict = advance(DraculaGame(options=QUIET), 3)
    rejected = table_from(strict).receive(psst, channel="list", now=strict.now, relay=True)
    assert rejected.post == "refused"


def test_dracula_unmoderated_list_flags_what_it_would_refuse() -> None:
    """AMB-009: "if the daemon cannot moderate the list, it publicly flags the violation";
    AMB-056.4: ``bounce`` is the curse default only when the daemon moderates the list. With
    the defaults (``reject``, ``bounce``) a relaying daemon refuses the post privately, while
    on an external list (already distributed) the violation is said publicly."""
    night = advance(DraculaGame(options=QUIET), 3)
    psst = dracula_mail("Eve", "psst")
    relayed = table_from(night).receive(psst, channel="list", now=night.now, relay=True)
    assert relayed.post == "refused" and not relayed.events
    assert relayed.outgoing and relayed.outgoing[0].to == ("eve@example.org",)
    external = table_from(night).receive(psst, channel="list", now=night.now, relay=False)
    flags = [e for e in external.facts if isinstance(e, Notice) and e.public]
    assert [(f.template, f.params["reason"]) for f in flags] == [
        ("dracula/post_flag", "night_silence")
    ]
    day = advance(DraculaGame(options=QUIET), 2)
    day.give("Cid", "grimoire")
    day.do("Cid", "CURSE Dan")
    day.night({"Bob": "dungeons"})
    day.finish_night()
    hello = dracula_mail("Dan", "Bonjour !")
    bounced = table_from(day).receive(hello, channel="list", now=day.now, relay=True)
    assert bounced.post == "refused" and not bounced.events
    noted = table_from(day).receive(hello, channel="list", now=day.now, relay=False)
    assert "dracula/curse_flag" in [
        e.template for e in noted.facts if isinstance(e, Notice) and e.public
    ]


def test_lupus_relay_mode_strangers_refused_game_master_relayed() -> None:
    """Relay mode on any game: a player's post is relayed; a non-player's post is refused
    with a reply (on an external list it is only spectators' talk); the game master's own
    post is relayed."""
    roles = {n: "villager" for n in ("ann", "ben", "cat", "dan", "eva")}
    roles |= {"fox": "seer", "hal": "werewolf", "ivy": "werewolf"}
    g = Game(roles)
    g.table.setup = replace(g.table.setup, admins=("gm@example.org",))
    assert _post(g.table, "ann", "Hello all", g.now).post == "relay"
    stranger = _post(g.table, "stranger@example.net", "spam", g.now)
    assert stranger.post == "refused" and stranger.outgoing[0].to == ("stranger@example.net",)
    assert _post(g.table, "stranger@example.net", "spam", g.now, relay=False).outgoing == ()
    assert _post(g.table, "gm@example.org", "Welcome!", g.now).post == "relay"


def test_confirm_ask_then_apply_counts_a_public_vote_once() -> None:
    """Requirement 6 (``[auth] list_votes = confirm``): ``confirm="ask"`` takes the post but
    defers its vote; ``"apply"`` counts it, and a vote confirmed after the Day is refused as
    any late vote is."""
    g = LG()
    g.to_night1(mayor="ivan")
    g.night()
    asked = g.table.receive(_msg("judy", "VOTE bob"), channel="list", now=g.now, confirm="ask")
    assert asked.deferred == ("VOTE bob",) and not asked.events and asked.post == "relay"
    applied = g.table.receive(_msg("judy", "VOTE bob"), channel="list", now=g.now, confirm="apply")
    g.commit(applied)
    assert g.state.votes == {"judy": "bob"}
    chatter = g.table.receive(_msg("nick", "Bonjour"), channel="list", now=g.now, confirm="ask")
    assert chatter.deferred == ()  # nothing to confirm: no request is sent
    g.deadline("day")
    late = g.table.receive(_msg("nick", "VOTE judy"), channel="list", now=g.now, confirm="apply")
    assert not late.events and "retenu" not in _text(late)


def test_lupus_relay_mode_refuses_the_posts_of_the_dead_and_of_ghosts() -> None:
    """LUP-005, LUP-505, LUP-D22: "posts of ghosts and dead players on the list are held if
    the daemon moderates the list": a relaying daemon never distributes them (``post`` is
    ``refused``, the reason in private), while the living still post; on an external list
    (nothing to hold) the post is read as before and its commands refused one by one."""
    g = Game(lupus_roles(8))
    kill(g, "p8")
    g.until("debate")
    assert not g.alive("p8")
    dead = _post(g.table, "p8", "I was a villager!", g.now)
    assert dead.post == "refused" and not dead.events
    assert dead.outgoing[0].to == (address("p8"),)
    assert "You have been eliminated" in _text(dead)
    assert _post(g.table, "p3", "Who did it?", g.now).post == "relay"
    assert _post(g.table, "p8", "I was a villager!", g.now, relay=False).post == "relay"
    ghosts = Game(lupus_roles(8), options={"ghost_variant": True})
    kill(ghosts, "p8")
    ghosts.until("round1")
    ghost = _post(ghosts.table, "p8", "Boo\nVOTE p1", ghosts.now)
    assert ghost.post == "refused" and not ghost.events
    assert "may not speak on the list" in _text(ghost)
