"""The game master's season by mail: every refused line says how to write it, AIDE shows each
command's form and an example that the desk accepts (one source), and a player who sends a
game master's command is told whose it is."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pbem.desk import COMMANDS
from pbem.desk.help import example, form
from tests.desk.desk_game import ADMIN, GAMES, DeskGame

WORDS = {
    "fr": {"form": "Forme :", "for": "exemple :", "example": "Exemple :"},
    "en": {"form": "Form:", "for": "for instance:", "example": "Example:"},
}


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_line_missing_or_with_an_extra_argument_is_answered_with_its_form(lang: str) -> None:
    g = DeskGame("lupus-in-tabula", lang=lang)
    words = WORDS[lang]
    remove, rollback, resume = (
        ("RETIRER", "ANNULER RESOLUTION", "REPRISE maintenant")
        if lang == "fr"
        else ("REMOVE", "ROLLBACK", "RESUME now")
    )
    g.admin(remove)
    reply = g.admin_reply()
    shape = "RETIRER nom [raison]" if lang == "fr" else "REMOVE name [reason]"
    assert f"{words['form']} {shape} ({words['for']} {remove} p1 " in reply
    # a bare rollback was answered « Durée illisible » alone: which duration, of what?
    g.admin(rollback)
    shape = "ANNULER RESOLUTION durée" if lang == "fr" else "ROLLBACK duration"
    assert f"{words['form']} {shape} ({words['for']} {rollback} 12h)." in g.admin_reply()
    g.admin(resume)
    keyword = resume.split()[0]
    assert f"{words['form']} {keyword}." in g.admin_reply()
    assert not g.table.paused and len(g.table.deadlines()) == 1


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("game", GAMES)
def test_the_help_shows_every_command_with_its_form_and_an_example(game: str, lang: str) -> None:
    g = DeskGame(game, lang=lang)
    g.admin("AIDE" if lang == "fr" else "HELP")
    reply = g.admin_reply()
    name = g.names[0]
    for command in COMMANDS:
        line = f"  - {command.HELP[lang]}"
        shown = example(command, lang, name)
        assert (f"{line} {WORDS[lang]['example']} {shown}\n" if shown else f"{line}\n") in reply
        assert form(command, lang).startswith(command.SPEC.keyword(lang))


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_example_of_the_help_is_accepted_as_written(lang: str) -> None:
    """One source: what AIDE shows is what the desk takes, each example on a fresh game."""
    for command in COMMANDS:
        g = DeskGame("lupus-in-tabula", lang=lang)
        shown = example(command, lang, g.names[0]) or command.SPEC.keyword(lang)
        if command.NAME == "resume":  # a pause to end
            g.admin("PAUSE")
        if command.NAME == "rollback":  # a resolution to undo
            g.deadline()
        g.admin(shown)
        reply = g.admin_reply()
        if command.NAME == "observer":  # nobody asked yet: the desk read it, and says so
            assert "friend@example.org" in reply or "ami@exemple.org" in reply
            assert "Forme" not in reply and "Form:" not in reply
            continue
        assert ("Refusées" if lang == "fr" else "Rejected") not in reply, (shown, reply)
        if command.NAME in ("help", "status", "roles", "history"):
            continue  # a question alone: its answer, titled by what it is, no ✓ line
        assert reply.startswith("Acceptées" if lang == "fr" else "Accepted"), (shown, reply)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_player_sending_a_game_masters_command_is_told_it_is_the_game_masters(
    lang: str,
) -> None:
    g = DeskGame("lupus-in-tabula", lang=lang)
    for line in ("PAUSE", "PROLONGER 24h", "CLORE", "ROLES"):
        g.mail(g.names[1], line)
        text = g.text_to(g.names[1])
        expected = (
            f"« {line.split()[0]} » est une commande du meneur"
            if lang == "fr"
            else f'"{line.split()[0]}" is a game master\'s command'
        )
        assert expected in text, text
        assert "PASSE" not in text and "PASS?" not in text  # not a player's typo of PASS
    assert not g.table.paused
    assert all(m.to != (ADMIN,) for m in g.sent[1:])


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_end_names_the_sides_in_the_game_masters_words_and_takes_them(lang: str) -> None:
    """« FIN loups » was refused with « (camps : villagers, werewolves) »: English ids in a
    French mail, and the French names were not taken."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.admin("FIN martiens" if lang == "fr" else "END martians")
    reply = g.admin_reply()
    if lang == "fr":
        assert "(camps : Villageois, Loups-Garous)" in reply and "werewolves" not in reply
    else:
        assert "(sides: Villagers, Werewolves)" in reply
    g.admin("FIN loups" if lang == "fr" else "END werewolves")
    outcome = g.table.rules.outcome(g.table.state)
    assert outcome is not None and outcome.side == "werewolves"


def test_end_takes_a_sides_name_in_either_language_in_every_game() -> None:
    for game, word, side in (
        ("dracula", "vampires", "vampire"),
        ("chasse-aux-sorcieres", "démons", "demons"),
        ("loup-garou", "Villageois", "villagers"),
    ):
        g = DeskGame(game, lang="fr")
        g.admin(f"FIN {word}")
        outcome = g.table.rules.outcome(g.table.state)
        assert outcome is not None and outcome.side == side, (game, g.admin_reply())


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_rollback_tells_the_game_master_what_it_undid(lang: str) -> None:
    """LUP-100's night kill undone: the game master was only told « ✓ ANNULER RESOLUTION 24h
    (définitif) », and the list « la phase est rouverte » without naming it."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    kill = "TUER p5" if lang == "fr" else "KILL p5"
    g.mail("p1", kill)
    g.mail("p2", kill)
    g.deadline()
    assert not g.alive("p5")
    g.admin("ANNULER RESOLUTION 24h" if lang == "fr" else "ROLLBACK 24h")
    assert g.alive("p5")
    reply = g.admin_reply()
    when = g.table.renderer.when(min(g.table.deadlines().values()), lang)
    if lang == "fr":
        assert f"la phase rouverte est nuit 1, jusqu'au {when}." in reply
        assert "Annulé : la phase qu'elle avait ouverte, jour 1 (débat) ; la mort de p5." in reply
        assert "La phase rouverte : nuit 1." in g.public_text()
    else:
        assert f"the phase open again is night 1, until {when}." in reply
        assert "Undone: the phase it had opened, day 1 (debate); the death of p5." in reply
        assert "The phase open again: night 1." in g.public_text()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_each_act_is_confirmed_with_what_changed_and_who_was_told(lang: str) -> None:
    """The game master's reply was « ✓ PROLONGER 2j (définitif) » alone: no new deadline, and
    nothing of who had been told what."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    fr = lang == "fr"
    tag = "[Lupus in Tabula] "
    g.admin("PROLONGER 2j" if fr else "EXTEND 2d")
    reply = g.admin_reply()
    when = g.table.renderer.when(min(g.table.deadlines().values()), lang)
    assert (f"Nouvelle échéance : {when}." if fr else f"New deadline: {when}.") in reply
    (post,) = g.public()
    subject = post.subject.removeprefix(tag)
    assert (f"  - sur la liste : « {subject} »" if fr else f'  - on the list: "{subject}"') in reply
    g.admin("RETIRER p4 parti" if fr else "REMOVE p4 gone")
    reply = g.admin_reply()
    (farewell,) = g.to("p4")
    subject = farewell.subject.removeprefix(tag)
    assert (f"  - à p4 : « {subject} »" if fr else f'  - to p4: "{subject}"') in reply
    # a substitution: the newcomer by the seat's new name, the old address by itself
    g.admin(
        "REMPLACER p3 par zoe@example.org Zoé elle"
        if fr
        else "REPLACE p3 WITH zoe@example.org Zoe she"
    )
    reply = g.admin_reply()
    (goodbye,) = [m for m in g.last if m.to == ("p3@example.org",)]
    subject = goodbye.subject.removeprefix(tag)
    assert (
        f"  - à p3@example.org : « {subject} »" if fr else f'  - to p3@example.org: "{subject}"'
    ) in reply
    assert ("  - à Zoé : «" if fr else '  - to Zoe: "') in reply
    # an absence's notice to the game masters is his own copy: not listed as told
    g.admin("ABSENCE p1 le 24/12" if fr else "ABSENT p1 on 24/12")
    reply = g.admin_reply()
    assert "p1" in reply and "gm@example.org" not in reply


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_game_masters_typo_is_suggested_in_his_words_and_a_players_command_is_named(
    lang: str,
) -> None:
    """« EXTND 24h » in a French game was answered « Vouliez-vous dire EXTEND ou END ? », and
    the game master's VOTE or REGLES « Commande inconnue »."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.admin("EXTND 24h\nVOTE p2\nREGLES" if lang == "fr" else "PROLONGE 24h\nVOTE p2\nRULES")
    reply = g.admin_reply()
    if lang == "fr":
        assert "Vouliez-vous dire PROLONGER ou FIN ?" in reply
        assert "✗ VOTE p2 — « VOTE » est une commande de joueur" in reply
        assert "✗ REGLES — « REGLES » est une commande de joueur" in reply
    else:
        assert "Did you mean EXTEND?" in reply
        assert '✗ VOTE p2 — "VOTE" is a player\'s command' in reply
        assert '✗ RULES — "RULES" is a player\'s command' in reply


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_help_says_what_draculas_own_commands_do_amb_072(lang: str) -> None:
    """AMB-072's review of a telepathy: the help listed « - APPROUVER » and « - REFUSER »,
    bare words."""
    g = DeskGame("dracula", lang=lang)
    g.admin("AIDE" if lang == "fr" else "HELP")
    reply = g.admin_reply()
    if lang == "fr":
        assert "  - APPROUVER : envoie aux vampires le message télépathique de Dracula" in reply
        assert "  - REFUSER raison : refuse ce message ; Dracula reçoit la raison" in reply
    else:
        assert "  - APPROVE: sends the vampires Dracula's telepathic message" in reply
        assert "  - REFUSE reason: refuses that message; Dracula is told the reason" in reply


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_bare_end_by_mail_is_answered_with_how_to_end_the_game(lang: str) -> None:
    """A bare FIN/END line ends a mail's text (docs/daemon.md): the game master who sent it
    to end the game got « Aucune commande trouvée » and nothing else."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.admin("FIN\n\nCordialement" if lang == "fr" else "END")
    reply = g.admin_reply()
    if lang == "fr":
        assert "✗ FIN — Une ligne FIN seule termine le texte d'un courriel" in reply
        assert "écrivez FIN NUL (personne ne gagne) ou FIN suivi d'un camp." in reply
    else:
        assert "✗ END — A bare END line ends a mail's text" in reply
        assert "write END NONE (nobody wins) or END followed by a side." in reply
    assert not g.table.finished


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_helps_bench_placeholder_is_not_the_volunteers_keyword(lang: str) -> None:
    """« REMPLACER nom par remplaçant » read as the literal word REMPLACANT (the volunteers'
    command), which the desk refuses: « remplaçant n'est ni une adresse ni un remplaçant du
    banc ». The placeholder names what to write: the volunteer's name."""
    from pbem.core.match import fold
    from pbem.seats.substitution import BENCH

    g = DeskGame("lupus-in-tabula", lang=lang)
    g.admin("AIDE" if lang == "fr" else "HELP")
    reply = g.admin_reply()
    keywords = {fold(k) for k in (*BENCH.fr, *BENCH.en)}
    for line in reply.splitlines():
        words = line.replace("[", " ").replace("]", " ").split()
        assert not any(w.islower() and fold(w) in keywords for w in words), line
    shown = (
        "REMPLACER nom par nom-du-volontaire"
        if lang == "fr"
        else "REPLACE name WITH volunteer's-name"
    )
    assert shown in reply


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_game_master_reads_a_seats_history_as_the_seat_got_it(lang: str) -> None:
    """njudge's HISTORY for the master: the game master's HISTORIQUE was « une commande de
    joueur »; he gets the seat's own mails and orders (LUP-100's pack vote), never another's."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    kill = "TUER p5" if lang == "fr" else "KILL p5"
    g.mail("p1", kill)
    g.deadline()
    g.admin("HISTORIQUE p1 NUIT 1" if lang == "fr" else "HISTORY p1 NIGHT 1")
    reply = g.admin_reply()
    if lang == "fr":
        assert "Historique de la partie Lupus in Tabula vue par p1 : « NUIT 1 »" in reply
        assert "Pour p1 — " in reply and "Ses ordres" in reply
    else:
        assert 'History of the game Lupus in Tabula as p1 saw it: "NIGHT 1"' in reply
        assert "For p1 — " in reply and "Orders\n" in reply
    assert kill in reply
    g.admin("HISTORIQUE p4" if lang == "fr" else "HISTORY p4")
    assert kill not in g.admin_reply()  # a villager's history has none of the pack's mails


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_status_tells_the_game_master_the_phase_and_who_has_not_acted(lang: str) -> None:
    """Only ``pbem status`` on the server said who the phase still waits for; the game
    master's STATUT by mail listed absences and observers alone (LUP-100: the pack and the
    Seer act at night)."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.mail("p1", "TUER p5" if lang == "fr" else "KILL p5")
    g.admin("STATUT" if lang == "fr" else "STATUS")
    reply = g.admin_reply()
    when = g.table.renderer.when(min(g.table.deadlines().values()), lang)
    if lang == "fr":
        assert f"Phase en cours : nuit 1, jusqu'au {when}.\nPas encore joué : p2 et p3." in reply
    else:
        assert f"Phase in play: night 1, until {when}.\nNot acted yet: p2 and p3." in reply


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_command_the_game_master_posts_on_the_list_is_told_to_have_done_nothing(
    lang: str,
) -> None:
    """His « PAUSE » on the list went out as talk and paused nothing, and nobody said so."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    g.post(ADMIN, "PAUSE\nBonne soirée")
    assert not g.table.paused
    (reply,) = [m for m in g.last if m.to == (ADMIN,)]
    if lang == "fr":
        assert "✗ PAUSE — Sur la liste, ce n'est pas une commande" in reply.body
    else:
        assert "✗ PAUSE — On the list this is no command" in reply.body
    g.post(ADMIN, "Pause café pour tout le monde ce soir")  # talk, in his own words
    assert g.last == []


@pytest.mark.parametrize(
    ("game_lang", "line", "his", "help_word", "his_help"),
    [
        ("en", "PROLONGER 2j", "Nouvelle échéance :", "AIDE", "PROLONGER"),
        ("fr", "EXTEND 2d", "New deadline:", "HELP", "EXTEND"),
    ],
)
def test_a_game_master_is_answered_in_the_language_of_his_command_words(
    game_lang: str, line: str, his: str, help_word: str, his_help: str
) -> None:
    """A game master has no language of his own in pbem (no seat, none in the configuration)
    but that of his command words: a French game master of an English game (or the reverse)
    was answered in the game's; now in his, while the players' mails stay in the game's."""
    g = DeskGame("lupus-in-tabula", lang=game_lang)
    g.admin(line)
    reply = g.admin_reply()
    assert his in reply and f"✓ {line}" in reply
    (post,) = g.public()
    game_words = "has extended the current phase" if game_lang == "en" else "a prolongé la phase"
    assert game_words in post.body
    g.admin(help_word)
    assert his_help in g.admin_reply()
    g.admin("PAUSE")  # a word of both languages: the game's
    assert ("Accepted:" if game_lang == "en" else "Acceptées :") in g.admin_reply()


@pytest.mark.parametrize(
    ("lang", "line", "hours"),
    [
        ("fr", "PROLONGER 2 jours", 48),
        ("fr", "PROLONGER 1 jour et 12 heures", 36),
        ("fr", "PROLONGER 30 minutes", 0.5),
        ("en", "EXTEND 2 days", 48),
        ("en", "EXTEND 1 day and 6 hours", 30),
    ],
)
def test_a_duration_written_in_words_is_taken(lang: str, line: str, hours: float) -> None:
    """« PROLONGER 2 jours » was refused « Durée illisible »: a game master writes the unit in
    words as often as « 2j »; the words of either language are read, a trailing « et » is not."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    _, due = g.earliest()
    g.admin(line)
    assert f"✓ {line} " in g.admin_reply()
    assert g.earliest()[1] == due + timedelta(hours=hours)
    g.admin(f"{line.split()[0]} 2 jours et")
    assert g.earliest()[1] == due + timedelta(hours=hours)  # refused: nothing moved


def test_the_daemon_manual_lists_every_desk_command_in_both_languages() -> None:
    """docs/daemon.md's table of the game master's commands lacked ABSENCE, ADRESSE and STATUT
    (his STATUT row sat in the sign-up players' table): every command AIDE lists has a row."""
    manual = (Path(__file__).parents[2] / "docs" / "daemon.md").read_text(encoding="utf-8")
    table = manual[manual.index("| `PAUSE [raison]`") :]
    rows = table[: table.index("\n\n")].splitlines()
    for command in COMMANDS:
        fr, en = f"| `{command.SPEC.fr[0]}", f"| `{command.SPEC.en[0]}"
        assert any(r.startswith(fr) and en in r for r in rows), command.NAME


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_resume_does_not_say_the_game_stays_paused(lang: str) -> None:
    """REPRISE was answered « Nouvelle échéance : … (la partie reste en pause d'ici là) »: the
    reply read the pause before its own Resumed was applied. PROLONGER in a pause says it."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    fr = lang == "fr"
    still = "la partie reste en pause" if fr else "the game stays paused"
    g.admin("PAUSE")
    g.advance(3600)
    g.admin("PROLONGER 1j" if fr else "EXTEND 1d")
    assert still in g.admin_reply()
    g.admin("REPRISE" if fr else "RESUME")
    reply = g.admin_reply()
    assert not g.table.paused
    when = g.table.renderer.when(min(g.table.deadlines().values()), lang)
    assert (f"Nouvelle échéance : {when}.\n" if fr else f"New deadline: {when}.\n") in reply
    assert still not in reply


@pytest.mark.parametrize(
    ("lang", "asked", "subject"),
    [
        ("fr", "AIDE", "Aide : ce que vous pouvez envoyer"),
        ("fr", "STATUT", "État de la partie"),
        ("fr", "ROLES", "La table : rôles et camps"),
        ("fr", "HISTORIQUE p1", "Historique de la partie"),
        ("en", "HELP", "Help: what you can send"),
        ("en", "STATUS", "Game status"),
        ("en", "ROLES", "The table: roles and sides"),
        ("en", "HISTORY p1", "History of the game"),
    ],
)
def test_a_game_masters_question_alone_is_answered_under_a_subject_that_says_so(
    lang: str, asked: str, subject: str
) -> None:
    """His AIDE or STATUT was answered « Vos commandes » over « ✓ AIDE », though it ordered
    nothing, while a player's is titled by what it answers: so is his now. With an act or a
    second kind of question, the receipt as before."""
    g = DeskGame("lupus-in-tabula", lang=lang)
    (reply, *_) = g.admin(asked)
    assert reply.to == (ADMIN,) and reply.subject == f"[Lupus in Tabula] {subject}"
    assert "✓" not in reply.body
    mixed = "STATUT\nROLES" if lang == "fr" else "STATUS\nROLES"
    for body in (mixed, f"{asked}\nPAUSE"):
        (reply, *_) = g.admin(body)
        assert reply.subject.endswith(("Vos commandes", "Your commands")) and "✓" in reply.body
