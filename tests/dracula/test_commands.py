"""The commands CMD-01 … CMD-21 in French and English (section 23)."""

from __future__ import annotations

import pytest

from pbem.core.commands import parse_line
from pbem.games.dracula import Dracula
from tests.dracula.scenario import NAMES

PAIRS = [
    ("VOTE Bob", "VOTE Bob", "vote"),  # CMD-01
    ("COEQUIPIER Bob", "PARTNER Bob", "partner"),  # CMD-02
    ("PIÈCE salle de bal", "ROOM ballroom", "room"),  # CMD-04
    ("LOUPE", "MAGNIFIER", "magnifier"),  # CMD-05
    ("AIL", "GARLIC", "garlic"),  # CMD-06
    ("BOUGIE", "CANDLE", "candle"),  # CMD-07
    ("CLÉ", "KEY", "key"),  # CMD-08
    ("PEINDRE Bob ment", "PAINT Bob ment", "paint"),  # CMD-09
    ("PIEU Bob", "STAKE Bob", "stake"),  # CMD-10
    ("MORDRE Bob", "BITE Bob", "bite"),  # CMD-11
    ("MORDRE PERSONNE", "BITE NOBODY", "abstain"),  # CMD-11
    ("DANSER Bob viens", "DANCE Bob viens", "dance"),  # CMD-12
    ("RÉPONDRE merci", "REPLY merci", "reply"),  # CMD-13
    ("MAUDIRE Bob Cid", "CURSE Bob Cid", "curse"),  # CMD-14
    ("TÉLÉPATHIE mordez", "TELEPATHY mordez", "telepathy"),  # CMD-15
    ("PASSE", "PASS", "pass"),  # CMD-16
    ("FUIR Bob", "FLEE Bob", "flee"),  # CMD-17
    ("COMBATTRE", "FIGHT", "fight"),  # CMD-18
    ("FLAMME Bob Bob", "FLAME Bob Bob", "flame"),  # CMD-19
    ("ETAT", "STATUS", "status"),  # CMD-20
    ("AIDE", "HELP", "help"),  # CMD-21
]


@pytest.mark.parametrize(("fr", "en", "verb"), PAIRS)
def test_french_and_english_keywords_are_equivalent(fr: str, en: str, verb: str) -> None:
    specs = Dracula().all_commands
    a = parse_line(fr, specs, NAMES)
    b = parse_line(en, specs, NAMES)
    assert a is not None and b is not None
    assert a == b and a.verb == verb


def test_cursed_declaration_on_the_list() -> None:
    """CMD-03: on the list, PIECE/ROOM is the cursed player's declaration."""
    specs = [s for s in Dracula().all_commands if s.public]
    cmd = parse_line("PIECE geoles", specs, NAMES)
    assert cmd is not None and cmd.verb == "declare" and cmd.word == "dungeons"


def test_dracula_roles_are_a_table_of_records() -> None:
    """DRA-007, DRA-003: Dracula and the vampires against the humans; no partners known."""
    from pbem.games.dracula.roles import ROLE_TABLE, ROLES, TEAMS

    assert ROLES == ("dracula", "vampire", "human")
    assert TEAMS == {"dracula": "vampires", "vampire": "vampires", "human": "humans"}
    assert not any(r.partners_know for r in ROLE_TABLE)


def test_cmd_04_help_and_a_bad_room_list_the_rooms_in_the_readers_words() -> None:
    """CMD-04, DRA-081: AIDE/HELP writes the rooms as the reader's language names them (never
    « GEOLES » to an English player) and never offers the sanctuary, which a ROOM order is
    refused for; a room the parser does not know is answered with the same list."""
    from pbem.core.errors import InvalidSyntax
    from pbem.table.wording import syntax

    room = next(s for s in Dracula().all_commands if s.verb == "room")
    assert syntax(room, "fr")["args"] == "BOUDOIR|SALLE DE BAL|GEÔLES|SALLE DE TORTURE"
    assert syntax(room, "en")["args"] == "BOUDOIR|BALLROOM|DUNGEONS|TORTURE CHAMBER"
    with pytest.raises(InvalidSyntax) as refused:
        parse_line("ROOM kitchen", (room,), NAMES)
    assert refused.value.params["choices"] == [
        "BOUDOIR",
        "SALLE DE BAL",
        "GEÔLES",
        "SALLE DE TORTURE",
    ]
    assert refused.value.params["choices_en"] == [
        "BOUDOIR",
        "BALLROOM",
        "DUNGEONS",
        "TORTURE CHAMBER",
    ]
    for shown in ("SALLE DE BAL", "GEÔLES", "TORTURE CHAMBER", "SANCTUAIRE"):  # read back
        assert parse_line(f"ROOM {shown}", (room,), NAMES).word is not None
