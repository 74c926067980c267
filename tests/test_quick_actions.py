"""Quick actions (issue 15): every ``mailto:`` link of a whole game, sent back as the mail it
opens, goes through the real inbound parser (pbem.mail.inbound.extract, via Table.receive)
and the rules, and is accepted; the links reach the right address."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from datetime import datetime
from email.message import EmailMessage
from html import unescape
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from pbem.core.commands import Command, Player
from pbem.core.ids import PlayerId
from pbem.mail import quickactions
from pbem.mail.html import QuickAction, mailto, to_html
from pbem.mail.inbound import parse_once_policy
from pbem.mail.quickactions import game_address
from pbem.table import Step, Table
from pbem.tools.mailboxes import GAMES, play_and_deliver

_HREF = re.compile(r'href="(mailto:[^"]+)"')


def links(page: str) -> list[str]:
    return [unescape(h) for h in _HREF.findall(page)]


def opened_mail(href: str, sender: str, number: int) -> EmailMessage:
    """The mail a client writes when the link is tapped (RFC 6068 decoding)."""
    parts = urlsplit(href)
    assert parts.scheme == "mailto"
    query = parse_qs(parts.query, keep_blank_values=True)
    msg = EmailMessage(policy=parse_once_policy())
    msg["From"] = sender
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = f"<tap-{number}@client.example>"
    msg.set_content(query["body"][0].replace("\r\n", "\n"))
    return msg


def accepted(step: Step) -> bool:
    receipt = step.outgoing[0].body if step.outgoing else ""
    return "✓" in receipt and "✗" not in receipt and bool(step.events)


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", GAMES)
def test_every_quick_action_of_a_whole_game_is_accepted_through_the_real_parser(
    game: str, lang: str
) -> None:
    tapped: Counter[str] = Counter()

    def answer(table: Table, step: Step, now: datetime) -> None:
        private = game_address(table.setup.moderator, table.game_id)
        for out in step.outgoing:
            hrefs = links(out.html)
            if not hrefs:
                continue
            if out.public:  # a vote on the list: someone among the living may make it
                readers = [
                    p for p in table.setup.players if p.name in table.rules.names(table.state)
                ]
            else:
                readers = [p for p in table.setup.players if p.email in out.to]
            for href in hrefs:
                to = unquote(urlsplit(href).path)
                assert to in (private, table.setup.list_address), href
                channel = "list" if to == table.setup.list_address else "private"
                assert channel == "list" or not out.public, "a list post offers list votes only"
                ok = any(
                    accepted(
                        table.receive(
                            opened_mail(href, reader.email, sum(tapped.values())),
                            channel=channel,  # type: ignore[arg-type]
                            now=now,
                        )
                    )
                    for reader in readers
                )
                assert ok, (out.subject, href)
                tapped[channel] += 1

    play_and_deliver(game, lang, 1, observe=answer, deliver=False)
    assert tapped["private"] > 10  # night prompts
    assert tapped["list"] > 10  # votes


def test_a_prompt_offers_only_the_targets_the_rules_accept() -> None:
    """LUP-340: the Bodyguard protects a player other than himself, so his prompt has no link
    with his own name; dead players are never offered either."""
    seen = []

    def check(table: Table, step: Step, now: datetime) -> None:
        living = set(table.rules.names(table.state))
        for out in step.outgoing:
            if "votre protection" not in out.subject or not out.html:
                continue
            guard = next(p.name for p in table.setup.players if p.email in out.to)
            targets = {
                parse_qs(urlsplit(h).query)["body"][0].split(" ", 1)[1] for h in links(out.html)
            }
            assert guard not in targets
            summary = {p["name"]: p["alive"] for p in table.summary()["players"]}
            assert targets == {n for n in living if summary[n] and n != guard}
            seen.append(out.subject)

    play_and_deliver("lupus-in-tabula", "fr", 1, observe=check, deliver=False)
    assert seen


def test_mailto_percent_encodes_subject_and_body_as_rfc_6068_says() -> None:
    href = mailto("mj+village1@example.org", "Re: [village1] Nuit : é & ?", "TUER Zoé\nFIN")
    assert href == (
        "mailto:mj+village1@example.org?subject=Re%3A%20%5Bvillage1%5D%20Nuit%20%3A%20%C3%A9"
        "%20%26%20%3F&body=TUER%20Zo%C3%A9%0D%0AFIN"
    )


def test_quick_actions_are_links_in_the_page_and_the_text_keeps_its_instructions() -> None:
    action = QuickAction("TUER", "Bob", "mj+g@example.org", "Re: [g] Nuit", "TUER Bob")
    page = to_html("[g] Nuit", "Envoyez TUER nom.\n", names=["Bob"], actions=[action])
    assert links(page) == [action.href]
    assert ">Bob</a>" in page and "Envoyez TUER nom." in page


@pytest.mark.parametrize(
    ("lang", "room"),
    [("fr", "PIECE SALLE DE BAL"), ("en", "ROOM BALLROOM"), ("en", "ROOM DUNGEONS")],
)
def test_a_word_choice_is_written_in_the_readers_language(lang: str, room: str) -> None:
    """Dracula's rooms (DRA-011): the link writes the room as the reader would."""
    bodies: set[str] = set()

    def collect(table: Table, step: Step, now: datetime) -> None:
        for out in step.outgoing:
            bodies.update(parse_qs(urlsplit(h).query)["body"][0] for h in links(out.html))

    play_and_deliver("dracula", lang, 1, observe=collect, deliver=False)
    assert room in bodies


def _pair_links(game: str) -> list[tuple[int, list[str]]]:
    """(links of the mail, the pair links among them) of each Piper's night prompt (LG-620)."""
    found: list[tuple[int, list[str]]] = []

    def observe(table: Table, step: Step, now: datetime) -> None:
        for out in step.outgoing:
            if "vos envoûtements" not in out.subject:
                continue
            piper = next(p for p in table.setup.players if p.email in out.to)
            bodies = [parse_qs(urlsplit(h).query)["body"][0] for h in links(out.html)]
            pairs = [b for b in bodies if b.startswith("ENVOUTER ")]
            for number, body in enumerate(pairs[:3]):  # each one a command the reply accepts
                href = next(h for h in links(out.html) if body in unquote(h))
                step_in = table.receive(
                    opened_mail(href, piper.email, number), channel="private", now=now
                )
                assert accepted(step_in), body
            found.append((len(bodies), pairs))

    play_and_deliver(game, "fr", 1, observe=observe, deliver=False)
    return found


def test_a_command_naming_two_players_offers_a_link_per_pair_when_they_are_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LG-620 (the Piper charms two players a night): ENVOUTER gets one link per legal pair,
    each « ENVOUTER nom1 nom2 », checked by the rules like any other link."""
    default = quickactions.MAX_PAIRS
    monkeypatch.setattr(quickactions, "MAX_PAIRS", 1000)
    prompts = _pair_links("loup-garou")
    assert prompts and all(pairs for _total, pairs in prompts)
    first = prompts[0][1]
    assert len(first) > default and len(first[0].split()) == 3


def test_too_many_pairs_offer_no_link_and_the_text_says_how(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With more legal pairs than MAX_PAIRS (78 for thirteen players), no pair link: a phone
    player cannot scan them; the prompt's text keeps « ENVOUTER nom1 nom2 »."""
    prompts = _pair_links("loup-garou")
    assert prompts and all(pairs == [] for _total, pairs in prompts)


def test_dracula_curse_and_flames_have_one_tap_links() -> None:
    """MAUDIRE (DRA-371, AMB-053: up to two targets a night, over any number of orders): a
    link per living player, a second tap the second curse. FLAMME (DRA-470, AMB-065: one
    vampire per flame held, a name may repeat; the order is final, AMB-007): each fighter's
    own prompt links the commands that spend every flame he holds, on vampires only, or none
    when they are more than MAX_PAIRS (the text says how)."""
    curses: list[tuple[set[str], set[str]]] = []
    flames: list[tuple[int, list[list[str]], set[str]]] = []

    def observe(table: Table, step: Step, now: datetime) -> None:
        state = table.state
        for out in step.outgoing:
            bodies = [parse_qs(urlsplit(h).query)["body"][0].split() for h in links(out.html)]
            cursing = {b[1] for b in bodies if b[0] == "MAUDIRE"}
            if cursing:
                curses.append((cursing, {p for p in state.order if state.seat(p).alive}))
            if "vos flammes" in out.subject:
                fighter = next(p.name for p in table.setup.players if p.email in out.to)
                named = [b[1:] for b in bodies if b[0] == "FLAMME"]
                flames.append((state.flames[fighter], named, set(state.vampires())))

    play_and_deliver("dracula", "fr", 1, observe=observe, deliver=False)
    assert curses and all(offered == living for offered, living in curses)
    assert flames and any(named for _held, named, _vampires in flames)
    for held, named, vampires in flames:
        assert all(len(n) == held and set(n) <= vampires for n in named)
        assert len(named) <= quickactions.MAX_PAIRS
        if held == 1:
            assert {n[0] for n in named} == vampires


@pytest.mark.parametrize(("lang", "abstain"), [("fr", "MORDRE PERSONNE"), ("en", "BITE NOBODY")])
def test_an_optional_bite_offers_a_link_to_bite_nobody(lang: str, abstain: str) -> None:
    """CMD-11, NTF-16: a vampire who may bite or abstain is told « envoyez MORDRE Bob ou MORDRE
    PERSONNE »; the prompt linked each MORDRE name but not the abstention, a keyword of two
    words. It is linked where the prompt offers it, and only there (a vampire who must bite
    has no such link)."""
    seen: dict[bool, int] = {True: 0, False: 0}

    def observe(table: Table, step: Step, now: datetime) -> None:
        for out in step.outgoing:
            bodies = [parse_qs(urlsplit(h).query)["body"][0] for h in links(out.html)]
            offered = f" {abstain}." in out.body  # the prompt, not a receipt echoing it
            if out.public or "✓" in out.body:
                continue
            if offered or any(b.startswith(abstain.split()[0] + " ") for b in bodies):
                assert (abstain in bodies) == offered, (out.subject, out.body, bodies)
                seen[offered] += 1

    play_and_deliver("dracula", lang, 1, observe=observe, deliver=False)
    assert seen[True] and seen[False]


def test_a_choice_the_rules_refuse_to_all_is_refused_to_every_player() -> None:
    """Issue 23: a mail to every player asks no reader about a choice :meth:`refused_to_all`
    rules out, so each one it rules out must be refused to every player on every channel: a
    vote or a night action naming a dead player (LUP-607), a round-2 vote for a non-nominee
    (LUP-408), the pack's KILL naming a werewolf (LUP-D05)."""
    ruled_out: Counter[str] = Counter()
    checked: set[tuple[str, int]] = set()

    def check(table: Table, step: Step, now: datetime) -> None:
        rules, state = table.rules, table.state
        if (state.phase, state.number) in checked:  # once a phase: the test stays cheap
            return
        checked.add((state.phase, state.number))
        players = [PlayerId(p.name) for p in table.setup.players]
        verbs = [s.verb for s in rules.all_commands if s.args and isinstance(s.args[0], Player)]
        for verb, target in itertools.product(verbs, players):
            command = Command(verb, (target,))
            for channel in ("list", "private"):
                if rules.refused_to_all(state, command, channel):
                    ruled_out[verb] += 1
                    assert not any(
                        rules.allows(state, p, command, now, channel) for p in players
                    ), (state.phase, command, channel)

    play_and_deliver("lupus-in-tabula", "en", 1, observe=check, deliver=False)
    assert ruled_out["vote"] and ruled_out["kill"] and ruled_out["scan"]


@pytest.mark.parametrize("game", GAMES)
def test_the_commands_found_per_set_of_verbs_are_those_each_reader_may_send(game: str) -> None:
    """Issue 23: the commands a mail names are found once per set of verbs its readers may
    send (:meth:`Rules.available_verbs`), not once per reader: at every phase of a whole game,
    for a mail naming every command, public or private, in both languages, they are what
    asking :meth:`Rules.available` of each reader finds, in the same order, with the same
    readers."""
    checked: set[tuple[Any, ...]] = set()

    def each_reader(
        rules: Any, state: Any, readers: list[PlayerId], asked: set[str], lang: str, public: bool
    ) -> list[tuple[int, tuple[PlayerId, ...]]]:
        found: dict[int, list[PlayerId]] = {}
        for reader in readers:
            for spec in rules.available(state, reader):
                if quickactions._named(spec, asked, lang, public):
                    found.setdefault(id(spec), []).append(reader)
        return [(spec, tuple(able)) for spec, able in found.items()]

    def check(table: Table, step: Step, now: datetime) -> None:
        rules, state = table.rules, table.state
        phase = (tuple(sorted(rules.deadlines(state))), len(rules.names(state)))
        if phase in checked:  # once a phase: the test stays cheap
            return
        checked.add(phase)
        readers = [PlayerId(p.name) for p in table.setup.players]
        for lang, public in itertools.product(("fr", "en"), (False, True)):
            asked = {kw for spec in rules.all_commands for kw in quickactions._folded(spec, lang)}
            found = quickactions._asked_readers(rules, state, readers, asked, lang, public)
            assert [(id(spec), able) for spec, able in found] == each_reader(
                rules, state, readers, asked, lang, public
            )

    play_and_deliver(game, "en", 1, observe=check, deliver=False)
    assert len(checked) > 3
