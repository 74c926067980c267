"""The day and month names of the dates players read, per language.

Apart from :mod:`pbem.mail.render` so that the HTML pages (and the config, through the mail
headers) have them without importing jinja2 (start-up cost of every command).
"""

from __future__ import annotations

DAYS = {
    "fr": ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
}
MONTHS = {
    "fr": (
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
}


def day_of_month(day: int, lang: str) -> str:
    """The day's number as written before a month: French writes the first « 1er » (« le
    dimanche 1er février »), every other day as its number; English as its number."""
    return "1er" if day == 1 and lang == "fr" else str(day)
