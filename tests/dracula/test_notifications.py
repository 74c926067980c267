"""Section 24: every notification NTF-01 … NTF-45 has its template, in French and English,
and goes to exactly the people the spec names (checked in the scenario tests cited here)."""

from __future__ import annotations

import pytest

from pbem.mail.render import LANGS, templates_root
from tests.dracula.scenario import QUIET, Game, advance

NTF = {
    "NTF-01": "opening",  # test_round.test_round_start_roles_and_announcements
    "NTF-02": "role",
    "NTF-03": "round_start",
    "NTF-04": "telepathy",  # test_partners_telepathy (day)
    "NTF-05": "../common/reply",  # the engine's reply (acks and reasons)
    "NTF-06": "curse_flag",  # bounce: reasons/cursed_post (test_curse)
    "NTF-07": "dusk",
    "NTF-08": "pairing_open",
    "NTF-09": "pairs",
    "NTF-10": "night_start",
    "NTF-11": "thief_report",
    "NTF-12": "dracula_counts",
    "NTF-13": "magnifier_report",
    "NTF-14": "partner_room",
    "NTF-15": "key_joined",
    "NTF-16": "bite_prompt",
    "NTF-17": "phonograph_prompt",
    "NTF-18": "optional_prompt",
    "NTF-19": "converted",
    "NTF-20": "bit_vampire",
    "NTF-21": "bitten_too",
    "NTF-22": "crucifix_biter",
    "NTF-23": "crucifix_holder",
    "NTF-24": "bite_succeeded",
    "NTF-25": "stake_scene",
    "NTF-26": "staked_dead",
    "NTF-27": "waltz",
    "NTF-28": "waltz_reply",
    "NTF-29": "received_object",
    "NTF-30": "picked_up",
    "NTF-31": "destroyed",
    "NTF-32": "painting",
    "NTF-33": "dawn_curse",
    "NTF-34": "candle_report",
    "NTF-35": "cursed",
    "NTF-36": "paint_void",
    "NTF-37": "defaults",
    "NTF-38": "morning",
    "NTF-39": "telepathy",  # test_partners_telepathy (night)
    "NTF-40": "round_end",
    "NTF-41": "final_start",
    "NTF-42": "final_recap",
    "NTF-43": "final_result",
    "NTF-44": "game_end",
    "NTF-45": "curse_reminder",
}
PUBLIC = {"NTF-01", "NTF-03", "NTF-07", "NTF-08", "NTF-09", "NTF-10", "NTF-38"}
PUBLIC |= {"NTF-40", "NTF-41", "NTF-42", "NTF-43", "NTF-44"}


@pytest.mark.parametrize("ntf", sorted(NTF))
def test_each_notification_has_both_templates(ntf: str) -> None:
    for lang in LANGS:
        path = templates_root() / lang / "dracula" / f"{NTF[ntf]}.txt"
        assert path.resolve().is_file(), (ntf, lang)


def test_public_and_private_channels() -> None:
    """Section 24: the public notices go to the list, the others to named players only."""
    g = advance(Game(options=QUIET), 3)
    g.night({"Bob": "boudoir", "Cid": "boudoir"}, {"Bob": "Cid"})
    g.finish_night()
    by_template: dict[str, set[bool]] = {}
    for n in g.notices(since_mark=False):
        by_template.setdefault(n.template.removeprefix("dracula/"), set()).add(n.public)
        if not n.public:
            assert n.to, n.template
    for ntf, name in NTF.items():
        if name in by_template:
            assert by_template[name] == {ntf in PUBLIC}, (ntf, name)
    assert {"opening", "morning", "bite_prompt", "converted"} <= set(by_template)


def test_ntf_16_a_private_mail_names_its_round_and_night() -> None:
    """NTF-16 (DRA-110), NTF-19, NTF-36: a private mail of the night names its round and night,
    as the list's posts do (« Manche 1, nuit 2 »): « Les morsures » alone, read among the
    mails of five nights or in a seat's hand-over packet, tells no night from another. The
    mail and the packet read it alike, in French and in English."""
    from pbem.seats.handover import notice_section
    from pbem.table.mails import notice_mails
    from tests.dracula.scenario import table_from

    g = advance(Game(options=QUIET), 2)
    g.mark()
    g.night({"Ana": "boudoir", "Cid": "boudoir"})
    (prompt,) = g.to("Ana", "bite_prompt")
    for lang, title in (
        ("fr", "Manche 1, nuit 2 : les morsures"),
        ("en", "Round 1, night 2: bites"),
    ):
        table = table_from(g, lang=lang)
        (mail,) = notice_mails(table, prompt, "k")
        assert mail.subject == f"[Dracula] {title}", mail.subject
        section = notice_section(table, table.roster, prompt, lang, "Ana")
        assert section["subject"] == f"[Dracula] {title}", section
