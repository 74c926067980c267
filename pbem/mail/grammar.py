"""Agreement, elision and contraction for the templates (registered as jinja filters).

French articles contract with « de » and « à » (« du Voleur », « aux Loups-garous »), « le »,
« la » and « de » elide before a vowel or a mute h (« l'Ancien », « d'Inès ») but not before
an aspirated h (« le Hibou », « le Hamster-Garou »). Writing these by hand in each sentence
is how « de le boudoir » and « l'Hibou » reached players; the templates pipe a phrase that
starts with its article through one of these filters instead.

A player's grammatical gender (``"m"``, ``"f"`` or unknown) reaches a template as the
``genders`` parameter (name -> gender); :func:`agree` picks the form that agrees, and the
template supplies a neutral phrasing for the unknown case rather than guessing. A role noun
with a feminine (« Villageoise », « Possédée ») is declared once in the game's ``_names.jinja``:
its macros take the gender (:func:`gender_of`, the ``gender`` filter) and fall back on the
card's own name when it is unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import jinja2

GENDERS = ("m", "f")

# Words with an aspirated h that pbem's texts put after an article (the owl, the hamster...):
# the article neither elides nor contracts before them.
H_ASPIRE = frozenset(
    {
        "hache",
        "haine",
        "hameau",
        "hamster",
        "hamsters",
        "hasard",
        "haut",
        "héros",
        "hibou",
        "hiboux",
        "honte",
        "hurlement",
        "huit",
    }
)
_VOWELS = frozenset("aeiouyàâäéèêëîïôöùûüœæ")
_ARTICLE = re.compile(r"^(?:(les|le|la) |(l['’]))", re.IGNORECASE)


def vowel_sound(phrase: str) -> bool:
    """Whether ``phrase`` starts with a vowel or a mute h (elision before it)."""
    word = re.split(r"[\s\-']", phrase.strip().lower(), maxsplit=1)[0]
    if not word:
        return False
    if word[0] == "y":  # a y before a vowel is the consonant of « Yasmine », « yaourt »
        return len(word) > 1 and word[1] not in _VOWELS  # « d'Yves », « l'ypérite »
    if word[0] in _VOWELS:
        return True
    return word[0] == "h" and word not in H_ASPIRE


def elide(phrase: Any) -> str:
    """« le Ancien » -> « l'Ancien », « de Inès » -> « d'Inès »; « le Hibou » stays."""
    text = str(phrase)
    head, sep, rest = text.partition(" ")
    if sep and head.lower() in ("le", "la", "de", "que", "je", "ne") and vowel_sound(rest):
        return f"{head[:-1]}'{rest}"
    return text


def de(phrase: Any) -> str:
    """« de » before a phrase: « du Voleur », « de la Voyante », « de l'Ancien », « des
    Loups-garous », « d'Inès », « de Bob »."""
    text = str(phrase)
    match = _ARTICLE.match(text)
    if match is None:
        return elide(f"de {text}")
    article, rest = (match.group(1) or match.group(2)).lower(), text[match.end() :]
    if article == "les":
        return f"des {rest}"
    if article == "le" and not vowel_sound(rest):
        return f"du {rest}"
    return f"de {elide(text)}"


def au(phrase: Any) -> str:
    """« à » before a phrase: « au Maire », « à la Voyante », « à l'Ancien », « aux loups »."""
    text = str(phrase)
    match = _ARTICLE.match(text)
    if match is None:
        return f"à {text}"
    article, rest = (match.group(1) or match.group(2)).lower(), text[match.end() :]
    if article == "les":
        return f"aux {rest}"
    if article == "le" and not vowel_sound(rest):
        return f"au {rest}"
    return f"à {elide(text)}"


@jinja2.pass_context
def agree(context: jinja2.runtime.Context, name: Any, masc: str, fem: str, unknown: str) -> str:
    """The form that agrees with player ``name``'s gender; ``unknown`` (a neutral phrasing,
    never a guess) when the setup did not give it."""
    key = str(name)  # an undefined name fails here, whatever the genders (StrictUndefined)
    genders = context.get("genders")
    gender = genders.get(key) if isinstance(genders, Mapping) else None
    return masc if gender == "m" else fem if gender == "f" else unknown


@jinja2.pass_context
def agree_all(
    context: jinja2.runtime.Context,
    names: Any,
    masc: str,
    fem: str,
    masc_plural: str,
    fem_plural: str,
) -> str:
    """The word for players ``names`` together: one player's form agrees with him or her
    (masculine when not given); several take the feminine plural only when every one is a
    woman, the masculine plural otherwise, as French writes a mixed or unknown group
    (« Gagnantes : Alice et Chloé », « Gagnants : Alice et Bruno »)."""
    genders = context.get("genders")
    known = genders if isinstance(genders, Mapping) else {}
    said = [known.get(str(name)) for name in names]
    if len(said) == 1:
        return fem if said[0] == "f" else masc
    return fem_plural if said and all(g == "f" for g in said) else masc_plural


@jinja2.pass_context
def gender_of(context: jinja2.runtime.Context, name: Any) -> str | None:
    """Player ``name``'s gender (``"m"``, ``"f"``, or None when not given), for the role
    macros of each game's ``_names.jinja`` (« la Possédée », « une Villageoise »): the
    template hands it to the macro, so the macro module needs no context of its own."""
    key = str(name)
    genders = context.get("genders")
    gender = genders.get(key) if isinstance(genders, Mapping) else None
    return gender if gender in GENDERS else None


def parse_gender(value: Any) -> str | None:
    """A setup's ``gender`` or ``pronoun`` value as ``"m"``, ``"f"`` or None (not given,
    or chosen not to say); ValueError for anything else."""
    if value is None:
        return None
    word = str(value).strip().lower()
    table = {
        "m": "m",
        "masculin": "m",
        "male": "m",
        "il": "m",
        "he": "m",
        "f": "f",
        "féminin": "f",
        "feminin": "f",
        "female": "f",
        "elle": "f",
        "she": "f",
        "x": None,
        "they": None,
        "iel": None,
        "": None,
    }
    if word not in table:
        raise ValueError(value)
    return table[word]
