"""The demos' words on the terminal (``pbem demo``, ``make demo``, the in-memory demo), in the
game's language: an operator watching a French game reads its summary in French; ``LANG=en``
keeps English. Neutral where a French word would agree with a player (« en vie », « hors
jeu »): a player may give no gender (the demos' Sacha), and pbem never guesses one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "banner": "{game} by email — {count} bot players, seed {seed}: the real daemon, an "
        "embedded SMTP server, Maildir mailboxes",
        "relay": "[list] mode = relay: the daemon itself distributes the list",
        "title": "{title} — {count} players, seed {seed}",
        "summary": "Summary",
        "winners": "Winners:",
        "winner": "Winner:",
        "nobody": "nobody",
        "unfinished": "The game did not finish (phase {phase}, day {day}).",
        "alive": "alive",
        "dead": "dead",
        "point": "point",
        "points": "points",
        "relayed": "relayed by the daemon",
        "listed": "on the list",
        "traffic": "{posts} posts {who}, {messages} messages through SMTP ({sent} written by "
        "the bots, who tried again {retried} times after a refusal), {deliveries} Maildir "
        "deliveries; {elapsed} s; daemon exit status {status}",
        "counts": "{public} public posts, {private} private mails, {events} events, {elapsed} s",
        "failed": "DEMO FAILED: {problem}",
        "kept": "Everything is kept in {root} (pbem status -c {config})",
    },
    "fr": {
        "banner": "{game} par courriel — {count} joueurs robots, graine {seed} : le vrai démon, "
        "un serveur SMTP intégré, des boîtes Maildir",
        "relay": "[list] mode = relay : le démon diffuse lui-même la liste",
        "title": "{title} — {count} joueurs, graine {seed}",
        "summary": "Bilan",
        "winners": "Vainqueurs :",
        "winner": "Vainqueur :",
        "nobody": "personne",
        "unfinished": "La partie ne s’est pas terminée (jour {day}).",
        "alive": "en vie",
        "dead": "hors jeu",
        "point": "point",
        "points": "points",
        "relayed": "relayés par le démon",
        "listed": "sur la liste",
        "traffic": "{posts} messages {who}, {messages} courriels passés par SMTP ({sent} écrits "
        "par les robots, qui ont réessayé {retried} fois après un refus), {deliveries} "
        "livraisons Maildir ; {elapsed} s ; code de sortie du démon : {status}",
        "counts": "{public} messages publics, {private} courriels privés, {events} événements, "
        "{elapsed} s",
        "failed": "ÉCHEC DE LA DÉMO : {problem}",
        "kept": "Tout est conservé dans {root} (pbem status -c {config})",
    },
}


def words(lang: str) -> Mapping[str, str]:
    """The demo's words in ``lang`` (English for any language the demos do not speak)."""
    return WORDS.get(lang, WORDS["en"])


def points(count: int, lang: str) -> str:
    """``1 point``, ``3 points`` (French and English alike, but for 0: « 0 point »)."""
    few = count <= 1 if lang == "fr" else count == 1
    return f"{count} {words(lang)['point' if few else 'points']}"


def seconds(value: float, digits: int, lang: str) -> str:
    """``1.5`` in English, « 1,5 » in French."""
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if lang == "fr" else text


def summary_lines(summary: Mapping[str, Any], finished: bool, lang: str) -> list[str]:
    """The demos' summary of a game (a summary whose roles and sides are named, as
    :func:`pbem.record.archive.named_summary` gives it): the winners, then one line a player,
    in columns as wide as their longest entry. A game of points (Dracula) names its best
    score and each player's."""
    w = words(lang)
    scores: Mapping[str, int] = summary.get("scores") or {}
    winners = ", ".join(summary["winners"]) or w["nobody"]
    label = w["winner"] if len(summary["winners"]) == 1 else w["winners"]
    if finished and scores:
        head = f"{label} {winners} ({points(max(scores.values(), default=0), lang)})"
    elif finished:
        head = f"{label} {summary.get('side')} — {winners}"
    else:
        head = w["unfinished"].format(phase=summary.get("phase"), day=summary.get("day"))
    rows = [
        (
            p["name"],
            p["role"],
            p["team"],
            w["alive"] if p["alive"] else w["dead"],
            "" if p["name"] not in scores else points(scores[p["name"]], lang),
        )
        for p in summary["players"]
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(4)]
    lines = [head]
    for *columns, score in rows:
        cells = [cell.ljust(width) for cell, width in zip(columns, widths, strict=True)]
        lines.append(" ".join(cells) + (f" {score:>10}" if score else ""))
    return [line.rstrip() for line in lines]
