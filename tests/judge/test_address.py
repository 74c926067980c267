"""Issue 25 item 4, a new address (njudge's SET ADDRESS): ``ADRESSE``/``ADDRESS`` by mail
through the table, in both languages, confirmed by a code mailed to the new address; the game
master's desk ``ADRESSE``; each refusal with its reason. Lupus, 8 seats: p3 is the Seer."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from pbem.core.errors import PbemError
from pbem.daemon.gamelist import list_members
from pbem.table import Outgoing, Table
from pbem.tools.simulate import simulate
from tests.support.game_by_mail import Game, lupus_roles

CODE = "0123456789abcdef0123456789abcdef"
OTHER = "fedcba9876543210fedcba9876543210"
NEW = "p3.new@example.net"
GM = "mj@example.org"
TRANSCRIPTS = Path(__file__).parent.parent / "transcripts"


def game(lang: str = "fr", codes: tuple[str, ...] = (CODE,)) -> Game:
    g = Game(lupus_roles(8), lang=lang, admins=[GM], moderator="mod@example.org")
    given = iter(codes)
    g.table.code_source = lambda: next(given)
    return g


def sent_to(g: Game, address: str) -> list[Outgoing]:
    return [m for m in g.last if address in m.to]


def body_to(g: Game, address: str) -> str:
    return "\n".join(f"{m.subject}\n{m.body}" for m in sent_to(g, address))


def test_a_new_address_confirmed_by_a_plain_reply_plays_and_the_old_one_is_refused() -> None:
    g = game("fr")
    g.mail("p3", "ADRESSE P3.New@example.net")
    receipt = g.reply()
    assert "P3.New" not in receipt and "✓" not in receipt  # a service, not an order
    assert f"Un code de confirmation vient de partir vers {NEW}" in receipt
    (code_mail,) = sent_to(g, NEW)
    assert (
        code_mail.subject == f"[Lupus in Tabula] ADRESSE {CODE} : confirmez votre nouvelle adresse"
    )
    assert f"    ADRESSE {CODE}" in code_mail.body and "mod+" in code_mail.body
    assert "p3@example.org" in code_mail.body and code_mail.html
    assert g.table.player_emails["p3"] == "p3@example.org"  # nothing moves before the code
    # a plain Reply: its Subject carries the code, its body only thanks
    g.mail(NEW, "Merci !", subject=f"Re: {code_mail.subject}")
    assert f"✓ ADRESSE {CODE}" in g.reply() and "C'est fait" in g.reply()
    assert "abonnez-y vous-même cette adresse" in g.reply()  # an external list: his to change
    assert g.table.player_emails["p3"] == NEW
    left = body_to(g, "p3@example.org")
    assert "Le siège de p3 se joue depuis une autre adresse" in left and NEW in left
    told = body_to(g, GM)
    assert "p3 change d'adresse" in told and "p3@example.org" in told and NEW in told
    # the new address plays, the old one is refused as moved (not as replaced)
    g.mail(NEW, "SONDER p1")
    assert "✓ SONDER p1" in g.reply()
    g.mail("p3", "SONDER p2")
    refused = g.reply()
    assert "ne joue plus dans cette partie" in refused
    assert "se joue désormais depuis une autre adresse" in refused and "remplaçant" not in refused
    # the relayed list's members: the new address, never the old one
    members = list_members({"list": "list"}, g.table.player_emails)
    assert NEW in members and "p3@example.org" not in members


def test_in_english_a_reply_confirms_and_a_code_line_moves_the_seat_back() -> None:
    g = game("en", codes=(CODE, OTHER))
    g.mail("p3", "ADDRESS p3.new@example.net")
    assert "A confirmation code has just been mailed to" in g.reply()
    (code_mail,) = sent_to(g, NEW)
    assert code_mail.subject == f"[Lupus in Tabula] ADDRESS {CODE}: confirm your new address"
    g.mail(NEW, "Thanks", subject=f"Re: {code_mail.subject}")  # "<code>:" read as the code
    assert "Done: in Lupus in Tabula, p3 plays from this address" in g.reply()
    assert "moves to a new address" in body_to(g, GM)
    g.mail(NEW, "SCAN p1")
    assert "✓ SCAN p1" in g.reply()
    g.mail("p3", "SCAN p2")
    assert "is played from another address now" in g.reply()
    # back to the first address (a former address may be taken again): the code in a body line
    g.mail(NEW, "ADDRESS p3@example.org")
    g.mail("p3", f"Hello,\nADDRESS {OTHER}\nBye")
    assert "Done: in Lupus in Tabula, p3 plays from this address" in g.reply()
    assert g.table.player_emails["p3"] == "p3@example.org"
    g.mail(NEW, "STATUS")
    assert "is played from another address now" in g.reply()


def test_help_lists_the_command_in_both_languages() -> None:
    for lang, line in (("fr", "ADRESSE nouvelle@adresse"), ("en", "ADDRESS new@address")):
        g = game(lang)
        g.mail("p4", "AIDE" if lang == "fr" else "HELP")
        assert line in g.reply()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("ADRESSE p5@example.org", "L'adresse p5@example.org joue déjà dans cette partie"),
        (f"ADRESSE {GM}", "celle d'un meneur de la partie"),
        ("ADRESSE p4@", "n'est pas une adresse électronique où écrire"),
        ("ADRESSE mod+autre@example.org", "une adresse de la partie elle-même"),
        ("ADRESSE p3@example.org", "Vous jouez déjà depuis p3@example.org"),
        ("ADRESSE a@example.net b@example.net", "Écrivez ADRESSE suivi de la nouvelle adresse"),
        ("ADRESSE ailleurs", "Écrivez ADRESSE suivi de la nouvelle adresse"),
        ("ADRESSE ANNULER", "Aucun changement d'adresse n'est en attente"),
        ("ADRESSE zoe@example.net", "attend sur le banc des remplaçants"),
    ],
)
def test_a_request_the_game_cannot_take_is_refused_with_its_reason(line: str, reason: str) -> None:
    g = game("fr")
    g.mail("zoe@example.net", "REMPLACANT Zoé")  # a volunteer on the bench
    g.mail("p3", line)
    assert reason in g.reply()
    assert not [m for m in g.last if "confirmez" in m.subject]  # no code mailed
    assert g.table.player_emails["p3"] == "p3@example.org"


def test_a_code_back_wrong_late_cancelled_or_replaced_is_refused_with_its_reason() -> None:
    g = game("fr", codes=(CODE, OTHER, CODE))
    # from an address no seat awaits: a request, a code
    g.mail("inconnu@example.net", "ADRESSE ailleurs@example.net")
    assert "ne joue pas dans cette partie" in g.reply()
    g.mail(NEW, f"ADRESSE {CODE}")
    assert "Aucun siège de cette partie n'attend cette adresse" in g.reply()
    g.mail("p3", f"ADRESSE {NEW}")
    g.mail(NEW, "ADRESSE")
    assert "Il manque le code" in g.reply()
    g.mail(NEW, f"ADRESSE {OTHER}")
    assert "Ce code n'est pas le bon" in g.reply()
    # a second request replaces the first: the first code stops working
    g.mail("p3", f"ADRESSE {NEW}")
    assert "il remplace la demande pour" in g.reply()
    g.mail(NEW, f"ADRESSE {CODE}")
    assert "Ce code n'est pas le bon" in g.reply()
    g.mail("p3", "ADRESSE")
    assert f"Un changement vers {NEW} attend sa confirmation" in g.reply()
    g.mail("p3", "ADRESSE ANNULER")
    assert "vous annulez la demande pour" in g.reply()
    g.mail(NEW, f"ADRESSE {OTHER}")
    assert "Aucun siège de cette partie n'attend cette adresse" in g.reply()
    # a code past its 48 hours
    g.mail("p3", f"ADRESSE {NEW}")
    g.advance(timedelta(hours=48, seconds=1).total_seconds())
    g.mail(NEW, f"ADRESSE {CODE}")
    assert "Ce code a expiré" in g.reply()
    assert g.table.player_emails["p3"] == "p3@example.org"


def test_an_address_taken_while_its_code_travelled_is_refused_when_it_comes_back() -> None:
    g = game("en")
    g.mail("p3", f"ADDRESS {NEW}")
    g.mail(GM, f"ADDRESS p5 {NEW}")  # the game master gives it to another seat meanwhile
    assert g.table.player_emails["p5"] == NEW
    g.mail("p6", f"ADDRESS {NEW}")
    assert f"The address {NEW} already plays in this game (p5's seat)" in g.reply()
    g.mail(NEW, "ADDRESS")  # p5 plays from the new address now: it is no stranger
    assert f"You play from {NEW}" in g.reply()
    g.mail("p5", f"ADDRESS {CODE}")  # the old address: refused as moved, code or not
    assert "is played from another address now" in g.reply()


def test_a_seat_mails_at_most_five_codes_a_day() -> None:
    g = game("en", codes=tuple(f"{i:032x}" for i in range(6)))
    for i in range(5):
        g.mail("p3", f"ADDRESS p3.{i}@example.net")
        assert "A confirmation code has just been mailed" in g.reply()
    g.mail("p3", "ADDRESS p3.5@example.net")
    assert "You have already asked for 5 codes today" in g.reply()
    g.advance(timedelta(days=1, seconds=1).total_seconds())
    g.mail("p3", "ADDRESS p3.5@example.net")
    assert "A confirmation code has just been mailed" in g.reply()


def test_a_seat_that_changes_hands_drops_its_pending_request() -> None:
    g = game("fr")
    g.mail("p3", f"ADRESSE {NEW}")
    g.mail(GM, "REMPLACER p3 par zoe@example.net Zoé")
    g.mail(NEW, f"ADRESSE {CODE}")
    assert "Aucun siège de cette partie n'attend cette adresse" in g.reply()


def test_the_game_master_sets_an_address_at_once_from_the_desk() -> None:
    g = game("fr")
    g.mail(GM, f"ADRESSE p3 {NEW}")
    desk = body_to(g, GM)
    assert f"✓ ADRESSE p3 {NEW}" in desk and "les deux adresses sont prévenues" in desk
    assert "Le meneur a changé l'adresse du siège de p3" in body_to(g, "p3@example.org")
    assert "Le meneur de Lupus in Tabula a noté votre nouvelle adresse" in body_to(g, NEW)
    assert g.table.player_emails["p3"] == NEW
    g.mail("p3", "SONDER p1")
    assert "ne joue plus dans cette partie" in g.reply()
    for line, reason in (
        ("ADRESSE p4 p5@example.org", "joue déjà dans cette partie"),
        (f"ADRESSE p4 {GM}", "celle d'un meneur"),
        ("ADRESSE p4", "Écrivez ADRESSE, le nom du joueur puis sa nouvelle adresse"),
        ("ADRESSE p4 p4@example.org", "p4 joue déjà depuis p4@example.org"),
    ):
        g.mail(GM, line)
        assert reason in body_to(g, GM), line


def test_pbem_admin_checks_the_desks_address_line_before_queueing_it(tmp_path: Path) -> None:
    """``pbem admin GAME "ADDRESS name new@address"`` says at once what the desk would refuse,
    as ``pbem seat replace`` does (pbem/cli/seat.py)."""
    from pbem.adapters.store import list_games
    from pbem.cli.seat import check_address_line
    from tests.support.inproc_daemon import world_with_lupus_g1

    w = world_with_lupus_g1(tmp_path)
    try:
        (directory,) = list_games(w.cfg.data_dir)
        with pytest.raises(PbemError, match="already plays in this game"):
            check_address_line(w.cfg, directory, "ADDRESS p4 p5@example.test")
        with pytest.raises(PbemError, match="is not an email address one can write to"):
            check_address_line(w.cfg, directory, "ADDRESS p4 p5@")
        check_address_line(w.cfg, directory, "ADDRESS p4 p4.new@example.test")  # fine
    finally:
        w.close()


def test_the_stored_address_transcript_plays_through_pbem_simulate() -> None:
    """tests/transcripts/lupus-address.jsonl: a code sent back wrong then right (the codes of
    ``pbem simulate`` come from the setup's seed), the old address refused, the new one
    scanning; the game master's desk moving another seat."""
    lines = (TRANSCRIPTS / "lupus-address.jsonl").read_text(encoding="utf-8").splitlines()
    out = list(simulate(lines))
    mails = [o["mail"] for o in out if "mail" in o]

    def to(address: str) -> list[str]:
        return [m["body"] for m in mails if m["to"] == [address]]

    assert any("Ce code n'est pas le bon" in b for b in to("carole@nouveau.example"))
    assert any("C'est fait" in b for b in to("carole@nouveau.example"))
    assert any("✓ SONDER alice" in b for b in to("carole@nouveau.example"))
    assert any("se joue désormais depuis une autre adresse" in b for b in to("carol@example.org"))
    assert any("carol joue désormais depuis carole@" in b for b in to("mj@example.org"))
    assert any("Le meneur a changé l'adresse du siège de dave" in b for b in to("dave@example.org"))
    # a transcript plays the same twice: the same code is mailed
    again = [o["mail"] for o in simulate(lines) if "mail" in o]
    assert again == mails
    assert json.dumps(out[-1])  # the state line


def test_the_open_record_keeps_one_tenure_and_shows_the_change_as_an_act() -> None:
    """The cast's tenure is the player's, not his address's: a new address starts none (a
    substitution does); the change is one of the acts, its addresses as their digests."""
    from pbem.record.export import game_record

    g = game("fr")
    g.mail("p3", f"ADRESSE {NEW}")
    g.mail(NEW, f"ADRESSE {CODE}")
    record = game_record(g.table)
    (seat,) = [c for c in record["cast"] if c["seat"] == "p3"]
    assert [h["name"] for h in seat["holders"]] == ["p3"]
    acts = [a for p in record["phases"] for a in p["acts"]]
    assert [a["type"] for a in acts] == ["AddressChanged"]  # the request is the player's
    orders = [o["type"] for p in record["phases"] for o in p["orders"]]
    assert "AddressAsked" in orders
    assert NEW not in json.dumps(record) and CODE not in json.dumps(record)


def test_a_request_needs_the_stronger_authentication_when_the_game_master_chose_one() -> None:
    """``[auth] final_methods``: a mail that passed only the ordinary layers may not move the
    seat (a forged request, confirmed from the forger's mailbox, would take it away); asking
    what address plays, or cancelling, needs no more than any command."""
    from email.message import EmailMessage

    g = game("en")
    for body, refused in ((f"ADDRESS {NEW}", True), ("ADDRESS", False)):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Message-ID"] = "p3@example.org", "mod@example.org", f"<{body}>"
        msg.set_content(body)
        g._commit(g.table.receive(msg, channel="private", now=g.now, strong=False))
        assert ("needs the stronger authentication" in g.reply()) is refused
    assert not [m for m in g.sent if NEW in m.to]


@pytest.mark.parametrize(
    ("game_id", "lang"),
    [
        ("lupus-in-tabula", "fr"),
        ("loup-garou", "en"),
        ("chasse-aux-sorcieres", "fr"),
        ("dracula", "en"),
    ],
)
def test_every_game_moves_a_seat_alike_and_it_keeps_playing(game_id: str, lang: str) -> None:
    """A kernel service: no game's rules see it, so the seat's next order counts (its HELP
    answered from the new address, with the game's own commands)."""
    from email.message import EmailMessage

    from pbem.tools.demo import demo_setup
    from pbem.tools.simulate import EPOCH

    table, step = Table.new(demo_setup(game_id, 0, 1, lang), EPOCH)
    table.apply(step)
    table.code_source = lambda: CODE
    seat, old = next(iter(table.player_emails.items()))
    keyword = "ADRESSE" if lang == "fr" else "ADDRESS"

    def send(sender: str, body: str) -> str:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Message-ID"] = sender, "mj@village.example", f"<{body}>"
        msg.set_content(body)
        step = table.receive(msg, channel="private", now=EPOCH)
        table.apply(step)
        return "\n".join(o.body for o in step.outgoing if o.to == (sender,))

    send(old, f"{keyword} {NEW}")
    send(NEW, f"{keyword} {CODE}")
    assert table.player_emails[seat] == NEW
    helped = send(NEW, "AIDE" if lang == "fr" else "HELP")
    assert keyword in helped and "✗" not in helped
    assert "✗" in send(old, "AIDE" if lang == "fr" else "HELP")


def test_a_pending_address_writing_anything_else_is_told_how_to_confirm() -> None:
    """A mail from the address waiting for its code, with no code in it, is answered where the
    code went and how to send it back (in the seat's language), not as a stranger's; once the
    code has expired, that it must be asked again."""
    g = game("fr")
    g.mail("p3", "ADRESSE p3.new@example.net")
    g.mail(NEW, "Bonjour, c'est p3 depuis ma nouvelle adresse.")
    told = g.reply()
    assert "n'est pas inscrite comme joueur" not in told
    assert (
        f"Cette adresse ({NEW}) attend d'être confirmée comme nouvelle adresse de p3 dans "
        "Lupus in Tabula : d'ici, rien ne compte avant cela. Le code de confirmation lui a été "
        "envoyé le lundi 5 janvier à 18:00 UTC" in told
    )
    assert "« [Lupus in Tabula] ADRESSE … : confirmez votre nouvelle adresse »" in told
    assert "écrivez ici la ligne ADRESSE suivie du code, avant le mercredi 7 janvier" in told
    g.now += timedelta(days=3)
    g.mail(NEW, "Hello?")
    assert "a expiré le mercredi 7 janvier à 18:00 UTC" in g.reply()
    en = game("en")
    en.mail("p3", "ADDRESS p3.new@example.net")
    en.mail(NEW, "Hi, it's me")
    assert f"This address ({NEW}) is waiting to be confirmed as p3's new address" in en.reply()
    assert '"[Lupus in Tabula] ADDRESS …: confirm your new address"' in en.reply()


def test_a_pending_address_reaches_its_game_through_the_bare_moderator_address(
    tmp_path: Path,
) -> None:
    """In process, the daemon's routing: a fresh mail (no tag, no reply) from the address
    waiting for its code reaches the game, which answers how to confirm; a stranger's does not."""
    from pbem.daemon.message import parse
    from tests.support.daemon_process import mail
    from tests.support.inproc_daemon import world_with_lupus_g1
    from tests.support.mailstack import MODERATOR

    w = world_with_lupus_g1(tmp_path)
    try:
        svc = w.start()
        asked = mail("p3@example.test", f"ADDRESS {NEW}", to=MODERATOR, subject="[g1]")
        assert set(svc.writer.handle_batch(w.fetched(asked)).values()) == {"processed"}
        fresh = mail(NEW, "Hello, it's me", to=MODERATOR, subject="hello")
        game, _ = svc.router.route_how(parse(bytes(fresh)), None, NEW)
        assert game is not None and game.id == "g1"
        stranger = "zed@example.net"
        other = mail(stranger, "Hello", to=MODERATOR, subject="hello")
        assert svc.router.route_how(parse(bytes(other)), None, stranger)[0] is None
        assert set(svc.writer.handle_batch(w.fetched(fresh)).values()) == {"processed"}
        rows = [r for r in svc.games["g1"].store.outbox() if NEW in r["rcpts"]]
        told = [r["raw"] for r in rows if "is waiting to be confirmed" in r["raw"]]
        assert len(told) == 1
    finally:
        w.close()


def test_a_game_master_who_plays_a_seat_is_told_his_new_address_once() -> None:
    """A game master who also holds a seat moves it to a new address: his old address had
    the seat's notice and the game masters' one saying the same; now the seat's alone, and
    the other game master is told."""
    g = Game(lupus_roles(8), lang="fr", admins=["p3@example.org", GM])
    given = iter((CODE,))
    g.table.code_source = lambda: next(given)
    g.mail("p3", "ADRESSE P3.New@example.net")
    (code_mail,) = sent_to(g, NEW)
    g.mail(NEW, "Merci !", subject=f"Re: {code_mail.subject}")
    assert g.table.player_emails["p3"] == NEW
    (left,) = sent_to(g, "p3@example.org")
    assert "Le siège de p3 se joue depuis une autre adresse" in left.subject
    assert "p3 change d'adresse" in body_to(g, GM)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_bare_address_answers_in_two_sentences_not_run_together(lang: str) -> None:
    """A bare ADRESSE was answered « …depuis l'adresse p3@example.org.Pour jouer depuis une
    autre adresse… »: the template's ``{% endif %}`` ate the line's end (trim_blocks)."""
    g = game(lang)
    g.mail("p3", "ADRESSE" if lang == "fr" else "ADDRESS")
    first, second = (
        ("Vous jouez depuis l'adresse p3@example.org.", "Pour jouer depuis une autre adresse")
        if lang == "fr"
        else ("You play from p3@example.org.", "To play from another address")
    )
    assert f"{first}\n{second}" in g.reply()
    g.mail("p3", f"ADRESSE {NEW}" if lang == "fr" else f"ADDRESS {NEW}")
    g.mail("p3", "ADRESSE" if lang == "fr" else "ADDRESS")
    assert ("l'abandonne.\n" if lang == "fr" else "drops it.\n") + second in g.reply()
