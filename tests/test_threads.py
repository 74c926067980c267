"""Threads and addressing of a game's mail (``pbem.mail.threads``; issue 15): the headers of each
kind of mail as the daemon builds them from a real Lupus table, and the game a reply names
through pbem's own signed Message-IDs.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import hmac
from collections.abc import Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import quote

import pytest

from pbem.daemon.config import ConfigError, load
from pbem.mail import threads
from pbem.mail.envelope import TEST_ID_KEY, build, digest, id_game, id_kind, message_id
from pbem.mail.forwarded import private_mail_in
from pbem.mail.render import Renderer
from pbem.mail.threads import (
    Addressing,
    display_name,
    dress,
    phase_of,
    thread_game,
    thread_subject,
)
from pbem.table import Outgoing, Table
from pbem.tools.simulate import EPOCH
from tests.support.renders import count_renders

MODERATOR = "moderator@example.test"
LIST = "game@lists.example.test"
NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi")
RENDERER = Renderer()
HOW = Addressing("village1", MODERATOR, LIST)


def _table(game_id: str = "village1", lang: str = "fr") -> tuple[Table, list[Outgoing]]:
    """Lupus with 8 players: Alice the Seer, Grace and Heidi the wolves; the opening mails."""
    roles = dict.fromkeys(NAMES, "villager")
    roles.update(Alice="seer", Grace="werewolf", Heidi="werewolf")
    setup = {
        "game": "lupus-in-tabula",
        "game_id": game_id,
        "seed": 1,
        "lang": lang,
        "players": [{"name": n, "email": f"{n.lower()}@example.test"} for n in NAMES],
        "roles": roles,
        "moderator": MODERATOR,
        "list": LIST,
    }
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    return table, list(step.outgoing)


def _opening() -> list[Outgoing]:
    return _table()[1]


def _prompt(opening: Sequence[Outgoing]) -> Outgoing:
    """Alice's night prompt (the Seer's)."""
    return next(o for o in opening if o.to == ("alice@example.test",) and "vision" in o.subject)


def _order(table: Table, who: str, body: str, mid: str, minutes: int = 1) -> list[Outgoing]:
    m = EmailMessage()
    m["From"] = f"{who.lower()}@example.test"
    m["To"] = f"moderator+{table.game_id}@example.test"
    m["Subject"] = "Re: [village1] Nuit 1 et jour 1 (privé)"
    m["Message-ID"] = mid
    m.set_content(body)
    step = table.receive(m, channel="private", now=EPOCH + timedelta(minutes=minutes))
    table.apply(step)
    return list(step.outgoing)


def _wire(out: Outgoing, how: Addressing = HOW, lang: str = "fr") -> tuple[str, EmailMessage]:
    """The bytes the daemon builds for ``out`` (pbem.daemon.replies), parsed back."""
    filed = dress(out, how, RENDERER, lang, TEST_ID_KEY)
    mid, raw = _build(filed.mail, filed.headers)
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return mid, msg


def _build(out: Outgoing, headers: dict[str, object]) -> tuple[str, bytes]:
    from pbem.mail.envelope import build_outgoing

    return build_outgoing(out, sender=MODERATOR, date=EPOCH, id_key=TEST_ID_KEY, **headers)  # type: ignore[arg-type]


def _plain(msg: EmailMessage) -> str:
    """The text part (the HTML alternative beside it, pbem.mail.html)."""
    part = msg.get_body(("plain",))
    return str(part.get_content()) if part is not None else ""


def _refs(msg: EmailMessage) -> list[str]:
    return str(msg.get("References", "")).split()


def _close_next(table: Table) -> list[Outgoing]:
    """The next deadline's resolution, as at its time."""
    key = min(table.deadlines(), key=lambda k: table.deadlines()[k])
    step = table.on_deadline(key, table.deadlines()[key])
    table.apply(step)
    return list(step.outgoing)


def test_every_list_post_of_a_phase_has_one_subject_and_root_and_a_new_phase_a_new_thread() -> None:
    table, opening = _table()
    _order(table, "Grace", "TUER Frank", "<g1@example.test>")
    night = _close_next(table)
    posts = [o for o in [*opening, *night, *_close_next(table)] if o.public]  # to round 1
    threads: dict[str, list[EmailMessage]] = {}
    for out in posts:
        threads.setdefault(out.thread, []).append(_wire(out)[1])
    assert set(threads) >= {"village1/opening", "village1/night-1", "village1/day-1"}
    assert len(threads["village1/day-1"]) >= 2, "the dawn and the vote's opening"
    roots = set()
    for thread, msgs in threads.items():
        subjects = {str(m["Subject"]) for m in msgs}
        root = {_refs(m)[0] for m in msgs}
        assert len(subjects) == 1 and len(root) == 1, thread  # one conversation in every client
        assert all(m["In-Reply-To"] == _refs(m)[0] for m in msgs)
        roots |= root
    assert len(roots) == len(threads)  # a new phase, a new thread
    assert str(threads["village1/night-1"][0]["Subject"]) == "[village1] Nuit 1"
    assert str(threads["village1/day-1"][0]["Subject"]) == "[village1] Jour 1"
    dawn = threads["village1/day-1"][0]
    # the post's own title opens its text, where the Subject used to carry it
    assert _plain(dawn).splitlines()[1].startswith("=")


def test_a_players_prompt_receipt_and_result_form_one_private_thread() -> None:
    table, opening = _table()
    prompt = _prompt(opening)
    receipt = _order(table, "Alice", "SONDER Bob", "<alice-1@mail.gmail.com>")
    assert len(receipt) == 1
    result = [o for o in _close_next(table) if o.to == ("alice@example.test",)]
    assert result, "the Seer's vision"
    msgs = [_wire(o)[1] for o in (prompt, *receipt, *result)]
    assert {str(m["Subject"]) for m in msgs} == {"[village1] Nuit 1 et jour 1 (privé)"}
    roots = {_refs(m)[0] for m in msgs}
    assert len(roots) == 1
    root = roots.pop()
    assert id_kind(root, TEST_ID_KEY) == "private"  # it names a player's thread: never public
    # the receipt answers the player's own mail, and stays in the thread
    answer = msgs[1]
    assert answer["In-Reply-To"] == "<alice-1@mail.gmail.com>"
    assert _refs(answer) == [root, "<alice-1@mail.gmail.com>"]
    # another player's thread of the same phase is another thread
    grace = next(o for o in opening if o.to == ("grace@example.test",) and o.thread.endswith("-1"))
    assert _refs(_wire(grace)[1])[0] != root


def test_headers_of_a_list_post_a_prompt_and_a_receipt() -> None:
    table, opening = _table()
    post = next(o for o in opening if o.public and o.thread.endswith("night-1"))
    prompt = _prompt(opening)
    (receipt,) = _order(table, "Alice", "SONDER Bob", "<a@example.test>")
    for out, reply_to, kind, auto in (
        (post, LIST, "public", "auto-generated"),
        (prompt, "moderator+village1@example.test", "private", "auto-generated"),
        (receipt, "moderator+village1@example.test", "private", "auto-replied"),
    ):
        mid, msg = _wire(out)
        assert str(msg["From"]) == f"MJ village1 <{MODERATOR}>"
        assert msg["Reply-To"] == reply_to
        assert mid.endswith(".village1@example.test>") and id_kind(mid, TEST_ID_KEY) == kind
        assert id_game(mid, TEST_ID_KEY) == "village1"
        assert msg["Auto-Submitted"] == auto
        assert (msg["Precedence"] == "bulk") is (kind == "public")


def test_a_digest_keeps_the_threads_subject_references_from_and_reply_to() -> None:
    table, opening = _table()
    prompt = _prompt(opening)
    (receipt,) = _order(table, "Alice", "SONDER Bob", "<a@example.test>")
    built = [
        _build(f.mail, f.headers)
        for f in (dress(o, HOW, RENDERER, "fr", TEST_ID_KEY) for o in (prompt, receipt))
    ]
    mid, raw = digest(
        [r for _m, r in built],
        message_ids=[m for m, _r in built],
        sender=MODERATOR,
        to="alice@example.test",
        date=EPOCH,
        id_key=TEST_ID_KEY,
    )
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    one = email.message_from_bytes(built[0][1], policy=email.policy.default)
    assert str(msg["Subject"]) == "[village1] Nuit 1 et jour 1 (privé)"  # no « (×2) »: same thread
    assert _refs(msg)[0] == _refs(one)[0] and msg["In-Reply-To"] == "<a@example.test>"
    assert str(msg["From"]) == f"MJ village1 <{MODERATOR}>"
    assert msg["Reply-To"] == "moderator+village1@example.test"
    assert id_game(mid, TEST_ID_KEY) == "village1"
    text = _plain(msg).replace("\r\n", "\n")
    # each part under its own title (not the thread's Subject twice), the news first
    assert text.index("Nuit : votre vision") < text.index("Vos commandes") < text.index("-- \n")
    assert "(privé)\n" not in text


def test_from_name_is_configurable_and_encoded_when_not_ascii() -> None:
    post = _opening()[0]
    how = Addressing("village1", MODERATOR, LIST, from_name="Maître du jeu {game}")
    filed = dress(post, how, RENDERER, "fr", TEST_ID_KEY)
    raw = _build(filed.mail, filed.headers)[1]
    assert b"\r\nFrom: =?utf-8?" in raw  # RFC 2047
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["From"].addresses[0].display_name == "Maître du jeu village1"
    bare = Addressing("village1", MODERATOR, LIST, from_name="")
    assert str(_wire(post, bare)[1]["From"]) == MODERATOR


def test_list_reply_to_none_leaves_the_reply_to_the_lists_own_settings() -> None:
    post = next(o for o in _opening() if o.public)
    none = Addressing("village1", MODERATOR, LIST, reply_to="none")
    assert _wire(post, none)[1]["Reply-To"] is None
    assert _wire(post)[1]["Reply-To"] == LIST


def test_help_keeps_its_own_subject_tagged_with_the_games_id() -> None:
    table, _opening = _table()
    m = EmailMessage()
    m["From"] = "bob@example.test"
    m["To"] = MODERATOR
    m["Subject"] = "?"
    m.set_content("AIDE")
    (reply,) = table.receive(m, channel="private", now=EPOCH).outgoing
    assert str(_wire(reply)[1]["Subject"]) == "[village1] Aide : ce que vous pouvez envoyer"


@pytest.mark.parametrize(
    ("thread", "kind", "number", "round_"),
    [
        ("g/night-2", "night", 2, None),
        ("g/day-3", "day", 3, None),
        ("g/opening", "opening", None, None),
        ("g/end", "end", None, None),
        ("g/round-2", "round", None, 2),
        ("g/round-1-morning-3", "morning", 3, 1),
        ("g/round-2-final", "final", None, 2),
        ("g/round-1-end", "end", None, 1),
    ],
)
def test_thread_keys_of_every_game_name_their_phase(
    thread: str, kind: str, number: int | None, round_: int | None
) -> None:
    phase = phase_of(thread)
    assert phase is not None and (phase.kind, phase.number, phase.round) == (kind, number, round_)
    assert phase_of("g/replies") is None and phase_of("g/desk") is None and phase_of("g/") is None


def test_a_thread_keys_phase_is_read_once_per_phase_of_any_game_as_read_afresh() -> None:
    """Every receipt reads the phase in play (``Table.thread``): a thread key's phase is kept
    by the key's own part, shared by every game (issue 23), and equal to a fresh reading."""
    threads._phase.cache_clear()
    keys = ("night-2", "day-3", "opening", "round-1-morning-3", "round-2-final", "replies", "")
    for game in ("g1", "g2", "village1"):
        for key in keys:
            kept = phase_of(f"{game}/{key}")
            assert kept == threads._phase.__wrapped__(key)
    assert threads._phase.cache_info().misses == len(keys)


def _gmail_reply(parent: EmailMessage, parent_id: str) -> list[str]:
    """In-Reply-To and References as Gmail and Apple Mail write them in a plain Reply."""
    return [parent_id, " ".join([*_refs(parent), parent_id])]


def test_a_reply_names_its_game_through_the_ids_pbem_signed_only() -> None:
    mid, msg = _wire(_prompt(_opening()))
    assert thread_game(_gmail_reply(msg, mid), TEST_ID_KEY) == "village1"
    assert thread_game(["", " ".join(_refs(msg))], TEST_ID_KEY) == "village1"  # root alone
    # a made-up id naming another game: the tag covers the game, so it routes nowhere
    forged = mid.replace(".village1@", ".village2@")
    assert thread_game([forged, forged], TEST_ID_KEY) is None
    assert thread_game([mid, mid], b"another daemon's key" * 2) is None
    older = message_id("village1/3/alice", "example.test", TEST_ID_KEY)  # before issue 15
    assert thread_game([older, older], TEST_ID_KEY) is None and id_kind(older, TEST_ID_KEY)
    assert thread_game(["<CAK1@mail.gmail.com>", "<x@y> <z@w>"], TEST_ID_KEY) is None


def test_message_ids_without_a_game_are_those_of_earlier_versions() -> None:
    """A thread root or a resent mail of a game created before the upgrade keeps its id."""
    stem = hmac.new(TEST_ID_KEY, b"k1", hashlib.sha256).hexdigest()[:24]
    tag = hmac.new(TEST_ID_KEY, f"public:{stem}".encode(), hashlib.sha256).hexdigest()[:8]
    assert (
        message_id("k1", "example.test", TEST_ID_KEY, public=True) == f"<{stem}{tag}@example.test>"
    )


def test_a_private_mail_naming_its_game_is_still_found_in_a_list_post() -> None:
    """The relayed list holds a post pasting or quoting a private mail (issue 10 item 15):
    the ids that now name their game are read as well."""
    mid, _msg = _wire(_prompt(_opening()))
    post = EmailMessage()
    post["From"] = "alice@example.test"
    post["To"] = LIST
    post["Subject"] = "Re: débat"
    post.set_content(f"Voici :\nMessage-ID: {mid}\n")
    assert private_mail_in(post, id_key=TEST_ID_KEY, ours=(MODERATOR,), lists=(LIST,))


def test_a_digest_of_rows_queued_before_the_upgrade_still_goes_out() -> None:
    """Outbox rows keep their bytes: a digest of rows written by the former build (no display
    name, no game in the id, the title as Subject) reads them as before."""
    rows: Sequence[tuple[str, bytes]] = [
        build(
            key=f"g1/reply/{i}",
            sender=MODERATOR,
            to=("alice@example.test",),
            subject="[Lupus in Tabula] Vos commandes",
            body=f"Acceptées :\n  ✓ SONDER Bob{i}\n\n-- \npbem\n",
            date=EPOCH,
            auto="auto-replied",
            in_reply_to=f"<cmd{i}@example.test>",
            id_key=TEST_ID_KEY,
        )
        for i in range(2)
    ]
    _mid, raw = digest(
        [r for _m, r in rows],
        message_ids=[m for m, _r in rows],
        sender=MODERATOR,
        to="alice@example.test",
        date=EPOCH,
        id_key=TEST_ID_KEY,
    )
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert str(msg["From"]) == MODERATOR and msg["Reply-To"] is None
    assert _refs(msg) == ["<cmd0@example.test>", "<cmd1@example.test>"]
    text = _plain(msg)
    assert (
        "SONDER Bob0" in text
        and "SONDER Bob1" in text
        and text.replace("\r\n", "\n").endswith("-- \npbem\n")
    )


def test_replies_queued_together_go_as_one_digest_per_thread() -> None:
    """The role card and the night's prompt are queued together at the opening: each stays in
    its thread (a digest keeps one Subject); the prompt and a receipt of its thread go as one."""
    from datetime import UTC, datetime

    from pbem.daemon.outbox import OutboxSender, make_row

    table, opening = _table()
    card = next(o for o in opening if o.to == ("alice@example.test",) and "opening" in o.thread)
    (receipt,) = _order(table, "Alice", "SONDER Bob", "<a@example.test>")
    rows = []
    for seq, out in enumerate((card, _prompt(opening), receipt)):
        filed = dress(out, HOW, RENDERER, "fr", TEST_ID_KEY)
        mid, raw = _build(filed.mail, filed.headers)
        row = make_row(
            message_id=mid,
            raw=raw,
            rcpts=list(out.to),
            mail_from="bounce@example.test",
            now=EPOCH,
            kind="reply",
            game="village1",
            seq=seq,
            thread=filed.thread,
        )
        rows.append((None, row))
    sender = OutboxSender(
        transport=None,  # type: ignore[arg-type]
        stores=list,
        alert_store=None,  # type: ignore[arg-type]
        clock=lambda: datetime.now(UTC),
        moderator=MODERATOR,
        admins=(),
        bounce_address="bounce@example.test",
    )
    groups = sender._groups(rows)  # type: ignore[arg-type]
    assert [[row["seq"] for _st, row in group] for group in groups] == [[0], [1, 2]]


def test_the_addressing_policies_are_configured_with_safe_defaults(tmp_path: Path) -> None:
    """``[moderator] from_name`` and ``[list] reply_to`` (docs/daemon.md, Threads)."""
    from tests.cli.test_config_keys import _write

    default = load(_write(tmp_path))
    assert (default.from_name, default.list_reply_to) == ("MJ {game}", "list")
    cfg = load(_write(tmp_path, rest='[list]\naddress = "l@example.test"\nreply_to = "none"'))
    assert cfg.list_reply_to == "none"
    path = _write(tmp_path, rest='[list]\naddress = "l@example.test"\nreply_to = "poster"')
    with pytest.raises(ConfigError) as info:
        load(path)
    assert info.value.problems == ["list.reply_to: 'poster' must be one of list, none"]
    from_name = _write(tmp_path)
    from_name.write_text(
        from_name.read_text().replace("[moderator]\n", '[moderator]\nfrom_name = "Meneur {game}"\n')
    )
    assert load(from_name).from_name == "Meneur {game}"
    assert display_name("Meneur {game}", "v1") == "Meneur v1"


def test_quick_actions_answer_in_the_thread_and_name_the_game() -> None:
    """The HTML alternative's ``mailto:`` quick actions write « Re: » and the thread's Subject
    (the player's answer stays in the thread, its tag names the game), and its ``<title>``."""
    prompt = _prompt(_opening())
    assert "subject=Re%3A%20%5BLupus%20in%20Tabula%5D" in prompt.html  # as the table makes it
    _mid, msg = _wire(prompt)
    page = str(msg.get_body(("html",)).get_content())  # type: ignore[union-attr]
    wanted = "subject=Re%3A%20%5Bvillage1%5D%20Nuit%201%20et%20jour%201%20%28priv%C3%A9%29"
    assert page.count(wanted) >= 2 and "Lupus%20in%20Tabula" not in page
    assert "<title>[village1] Nuit 1 et jour 1 (privé)</title>" in page


def test_a_threads_subject_is_rendered_once_and_reads_as_rendered_fresh() -> None:
    """Every mail of a thread has one Subject (issue 15): rendered once per distinct phase,
    language and game while the renderer keeps it (issue 23), the words a fresh render gives;
    the quick actions' ``subject=`` alike."""
    renderer, fresh = Renderer(), Renderer()
    rendered = count_renders(renderer)
    keys = ("night-1", "day-2", "round-1-day-3", "round-2-final", "opening")
    phases = [phase_of(f"g1/{key}") for key in keys]
    for _ in range(3):
        for phase in phases:
            assert phase is not None
            for lang in ("fr", "en"):
                for private in (False, True):
                    kept = thread_subject(renderer, lang, "g1", phase, private=private)
                    assert kept == thread_subject(fresh, lang, "g1", phase, private=private)
    assert len(rendered) == len(phases) * 2 * 2
    for subject in ("[g1] Nuit 1", "Re: [g1] Jour 2 (privé)", "RE: x & y?=", "é/ü #1"):
        for _ in range(2):
            link = threads._subject_link(subject)
            assert link == f"subject={quote(threads._re(subject), safe='')}"
