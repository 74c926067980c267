"""Issue 22: a volunteer who signed up with « elle » or « il » is addressed accordingly once
the game runs: her role mail says « vous êtes une Villageoise » / « la Voyante », his « un
Villageois »; one who said nothing reads the card's name. The sign-up's pronoun becomes the
seat's gender (pbem.signup.table.game_setup) and every template agrees with it."""

from __future__ import annotations

import re

from tests.signup.helpers import names, opened, send, to
from tests.test_grammar import agreement_faults


def test_role_mails_agree_with_the_pronoun_given_at_sign_up() -> None:
    table, _ = opened(seats=(8, 8))
    players = names(8)
    pronouns = ["elle", "il", "", "elle", "il", "elle", "", "elle"]
    genders = {"elle": "f", "il": "m", "": None}
    start = None
    for i, (name, pronoun) in enumerate(zip(players, pronouns, strict=True)):
        start = send(table, f"v{i}@example.org", f"INSCRIPTION {name} {pronoun}".strip())
    assert table.started and start is not None
    said = {}
    for i, (name, pronoun) in enumerate(zip(players, pronouns, strict=True)):
        bodies = [o.body for o in to(start, f"v{i}@example.org")]
        role_line = next(
            m.group(0) for b in bodies if (m := re.search(rf"{name}, vous êtes [^.]+\.", b))
        )
        said[name] = role_line
        for body in bodies:
            assert not agreement_faults(body, "fr", set(players), genders[pronoun]), body
    women = [said[n] for n, p in zip(players, pronouns, strict=True) if p == "elle"]
    men = [said[n] for n, p in zip(players, pronouns, strict=True) if p == "il"]
    assert any("vous êtes une Villageoise." in line for line in women), women
    assert not any(re.search(r"vous êtes (un Villageois|le Voyant|le Possédé)\b", w) for w in women)
    assert not any(re.search(r"Villageoise|Voyante|Possédée", m) for m in men), men
