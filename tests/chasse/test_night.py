"""Every night's W1 and W2: Phoebe (CAS-213, CAS-315, CAS-613, CAS-D13), the council with Billie
(CAS-214, CAS-300, CAS-301, CAS-302, CAS-303, CAS-304, CAS-380, CAS-381, CAS-382, CAS-383, CAS-384, CAS-410, CAS-411, CAS-614, CAS-615, CAS-713, CAS-714, CAS-715,
CAS-X08, CAS-X09, CAS-D09, CAS-D10, CAS-D24), Cole (CAS-215, CAS-390, CAS-391, CAS-392, CAS-393, CAS-394, CAS-395, CAS-396, CAS-397, CAS-616, CAS-X03,
CAS-D11, CAS-D12) and the W2 prompts (CAS-224, CAS-716)."""

from __future__ import annotations

from pbem.core.events import Resolved
from tests.chasse.scenario import (
    DEADLINE,
    NAMES,
    Game,
    deal,
    mails_to,
    notices,
    recipients,
    run,
    setup_line,
)


def at_w1(**kwargs: object) -> Game:
    g = Game(**kwargs)  # type: ignore[arg-type]
    g.until("W1")
    return g


def test_cas_221_later_nights_have_w1_and_w2() -> None:
    """CAS-221, CAS-238: after Day 1, Night 2 runs W1 then W2, then Day 2."""
    g = at_w1()
    g.until("day", 1)
    g.deadline()  # T_day: nobody voted (CAS-404)
    phases = [(g.state.phase, g.state.number)]
    for _ in range(3):
        g.deadline()
        phases.append((g.state.phase, g.state.number))
    assert phases == [("W1", 2), ("W2", 2), ("day", 2), ("W1", 3)]


def test_cas_213_315_613_phoebe_probes_and_learns_the_card() -> None:
    """CAS-213, CAS-315, CAS-613, CAS-715: SONDER at W1; at T_W1 "X is <role>", to her only."""
    g = at_w1()
    assert recipients(g.events, "phoebe_prompt") == {"alice"}  # CAS-713
    g.do("alice", "SONDER dave")
    events = g.deadline()
    (result,) = notices(events, "phoebe_result")
    assert result.to == ("alice",) and result.params == {"target": "dave", "role": "demon"}


def test_cas_613_d13_probe_target_rules() -> None:
    """CAS-613, CAS-D13: a living player other than herself; changes allowed until T_W1."""
    g = at_w1()
    assert g.fails("alice", "SCAN alice").reason == "not_yourself"
    assert g.fails("bob", "SCAN dave").reason == "not_your_role"
    g.do("alice", "SCAN dave")
    g.do("alice", "SCAN judy")  # CAS-603: replaces
    events = g.deadline()
    assert notices(events, "phoebe_result")[0].params == {"target": "judy", "role": "billie"}


def test_cas_223_d13_phoebe_sees_the_card_before_coles_swap() -> None:
    """CAS-223, CAS-D13: step 7 runs before step 9: the probe shows the card before the swap."""
    g = at_w1()
    g.do("alice", "SCAN dave")
    g.do("mallory", "SWAP dave")
    events = g.deadline()
    assert notices(events, "phoebe_result")[0].params["role"] == "demon"
    assert g.role("dave") == "cole" and g.role("mallory") == "demon"
    (trace,) = [e for e in events if isinstance(e, Resolved)]
    assert [t["kind"] for t in trace.trace] == ["scan", "swap"]


def test_cas_302_381_d10_council_list_same_for_all_billie_disguised() -> None:
    """CAS-214, CAS-302, CAS-381, CAS-D10: every Demon and Billie get one same list, in
    alphabetical order, Billie among them as a Demon; re-sent every W1."""
    g = at_w1()
    prompts = notices(g.events, "council_prompt")
    assert recipients(g.events, "council_prompt") == {"dave", "erin", "frank", "judy"}
    assert {tuple(n.params["council"]) for n in prompts} == {("dave", "erin", "frank", "judy")}
    assert {n.to[0]: n.params["billie"] for n in prompts}["judy"] is True
    g.until("day", 1)
    g.deadline()
    assert len(notices(g.last, "council_prompt")) == 4  # Night 2: sent again


def test_cas_380_billie_knows_the_demons_by_mail() -> None:
    """CAS-380, CAS-381: Billie's mail lists the Demons and tells her the others are Demons."""
    mails, _ = run([setup_line(), DEADLINE, DEADLINE])
    (judy,) = [m for m in mails_to(mails, "judy") if "council" in m["subject"]]
    assert "dave, erin, frank and judy" in judy["body"]
    assert "You are Billie: the other names on this list are therefore the Demons." in judy["body"]
    (dave,) = [m for m in mails_to(mails, "dave") if "council" in m["subject"]]
    assert "You are Billie" not in dave["body"]
    assert "Billie, if in play, is among these names" in dave["body"]


def test_cas_384_billie_leftover_council_of_demons_only() -> None:
    """CAS-384: Billie undealt: the council is the Demons only."""
    g = at_w1(
        roles=deal(judy="innocent", niaj="demon", dave="innocent"), leftover=("billie", "demon")
    )
    assert recipients(g.events, "council_prompt") == {"erin", "frank", "niaj"}


def test_cas_300_410_614_714_x09_any_member_sends_last_name_counts() -> None:
    """CAS-X09, CAS-300, CAS-410, CAS-614, CAS-714, CAS-D09: Billie sends TUER dave, a Demon
    then TUER erin: each name relayed to the other members (the sender has his
    acknowledgement); the victim is erin, and the trace the archive reads names frank alone,
    who sent it (« Le conseil des Démons a désigné erin (par frank) »), not judy, who named
    dave."""
    g = at_w1()
    first = g.do("judy", "TUER dave")
    second = g.do("frank", "TUER erin")
    council = {"dave", "erin", "frank", "judy"}
    assert recipients(first, "council_relay") == council - {"judy"}
    assert notices(first, "council_relay")[0].params == {"sender": "judy", "target": "dave"}
    assert recipients(second, "council_relay") == council - {"frank"}
    events = g.deadline()
    assert g.state.victim == "erin"
    (fixed,) = notices(events, "council_victim")
    assert set(fixed.to) == council and fixed.params == {"victim": "erin"}  # CAS-715
    (trace,) = [e for e in events if isinstance(e, Resolved)]
    assert [(t["cause"], t["target"], t["actors"]) for t in trace.trace] == [
        ("council", "erin", ["frank"])
    ]


def test_cas_d09_council_submission_first() -> None:
    """CAS-D09 alternative: ``council_submission`` = first keeps the first name."""
    g = at_w1(council_submission="first")
    g.do("judy", "KILL niaj")
    g.do("frank", "KILL olivia")
    g.deadline()
    assert g.state.victim == "niaj"


def test_cas_614_d09_d24_valid_kill_targets() -> None:
    """CAS-614, CAS-D09, CAS-D24: any living player but the sender (council members included);
    only council members; only in W1."""
    g = at_w1()
    assert g.fails("dave", "KILL dave").reason == "not_yourself"
    assert g.fails("niaj", "KILL dave").reason == "not_your_role"
    g.do("dave", "KILL erin")  # a fellow Demon is a valid target
    g.deadline()
    assert g.fails("dave", "KILL niaj").reason == "subphase_only"


def test_cas_x08_382_council_may_kill_an_unmasked_billie() -> None:
    """CAS-X08, CAS-382, CAS-D09: the council designates billie: accepted; without Paige's heal
    she is eliminated and revealed as Billie."""
    g = at_w1()
    g.do("dave", "KILL judy")
    g.until("day", 1)
    assert not g.alive("judy")
    (dawn,) = notices(g.last, "dawn")
    assert dawn.params["dead"] == [{"name": "judy", "role": "billie"}]


def test_cas_303_615_council_chat_is_relayed_to_the_others() -> None:
    """CAS-303, CAS-615: CONSEIL text relayed verbatim with the sender's name to the other
    members, W1 and W2 only; not for others."""
    g = at_w1()
    events = g.do("judy", "COUNCIL let us take niaj")
    (chat,) = notices(events, "council_chat")
    assert set(chat.to) == {"dave", "erin", "frank"}
    assert chat.params == {"sender": "judy", "text": "let us take niaj"}
    assert g.fails("niaj", "COUNCIL hello").reason == "not_your_role"
    g.deadline()
    g.do("dave", "CONSEIL encore")  # W2: still open
    g.deadline()
    assert g.fails("dave", "COUNCIL by day").reason == "subphase_only"  # CAS-D28


def test_cas_304_no_name_no_victim() -> None:
    """CAS-304, CAS-D09: no name by T_W1: no victim; the council is told so."""
    g = at_w1()
    events = g.deadline()
    assert g.state.victim is None
    assert notices(events, "council_victim")[0].params == {"victim": None}
    g.deadline()
    assert notices(g.last, "dawn")[0].params["dead"] == []


def test_cas_411_victim_fixed_at_t_w1() -> None:
    """CAS-411: the victim is fixed at T_W1: KILL is refused in W2; Piper and Paige are told it."""
    g = at_w1()
    g.do("dave", "KILL niaj")
    events = g.deadline()
    assert g.fails("erin", "KILL olivia").reason == "subphase_only"
    assert notices(events, "piper_prompt")[0].params["victim"] == "niaj"
    assert notices(events, "paige_prompt")[0].params["victim"] == "niaj"


def test_cas_215_391_392_393_616_715_cole_swaps_and_both_are_told() -> None:
    """CAS-215, CAS-391, CAS-392, CAS-393, CAS-616, CAS-715, CAS-D11: ECHANGER at W1, the cards are
    exchanged at T_W1; Cole gets his new card, the target "you now hold Cole" without Cole's name."""
    g = at_w1()
    assert recipients(g.events, "cole_prompt") == {"mallory"}  # CAS-713
    g.do("mallory", "ECHANGER alice")
    events = g.deadline()
    assert g.role("mallory") == "phoebe" and g.role("alice") == "cole"
    (cole,) = notices(events, "cole_result")
    assert cole.to == ("mallory",) and cole.params == {
        "role": "phoebe",
        "target": "alice",
        "spent": False,
    }
    (target,) = notices(events, "cole_target")
    assert target.to == ("alice",) and target.params == {"swapper": None, "ended": False}


def test_cas_d11_option_tells_the_target_who_swapped() -> None:
    """CAS-D11: ``cole_target_told_swapper`` true names Cole to the target."""
    g = at_w1(cole_target_told_swapper=True)
    g.do("mallory", "SWAP alice")
    events = g.deadline()
    assert notices(events, "cole_target")[0].params["swapper"] == "mallory"


def test_cas_616_swap_targets() -> None:
    """CAS-616: a living player other than Cole; only the Cole card; only in W1."""
    g = at_w1()
    assert g.fails("mallory", "SWAP mallory").reason == "not_yourself"
    assert g.fails("niaj", "SWAP alice").reason == "not_your_role"
    g.deadline()
    assert g.fails("mallory", "SWAP alice").reason == "subphase_only"


def test_cas_397_new_cole_swaps_from_next_night() -> None:
    """CAS-397, CAS-393: the player who received the Cole card is prompted and may swap from the
    next night on; one swap per night."""
    g = at_w1()
    g.do("mallory", "SWAP niaj")
    g.deadline()
    assert g.role("niaj") == "cole"
    assert g.fails("niaj", "SWAP olivia").reason == "subphase_only"
    g.until("day", 1)
    g.deadline()
    assert recipients(g.last, "cole_prompt") == {"niaj"}
    g.do("niaj", "SWAP olivia")
    g.deadline()
    assert g.role("niaj") == "innocent" and g.role("olivia") == "cole"


def test_cas_x03_394_cole_becomes_a_demon_and_the_power_stops() -> None:
    """CAS-X03, CAS-394, CAS-D11: Cole swaps with dave (a Démon): Cole holds Démon and joins the
    council next night; dave holds Cole with no power; step 9 is never run again."""
    g = at_w1()
    g.do("dave", "KILL alice")
    g.do("mallory", "SWAP dave")
    events = g.deadline()
    assert g.state.victim == "alice"  # CAS-396: the victim stays the one designated
    assert g.role("mallory") == "demon" and g.role("dave") == "cole"
    assert notices(events, "cole_target")[0].params["ended"] is True
    assert g.fails("mallory", "KILL niaj").reason == "subphase_only"  # not a W1 council member now
    g.until("day", 1)
    g.deadline()
    night2 = g.last
    assert "mallory" in notices(night2, "council_prompt")[0].params["council"]
    assert "dave" not in recipients(night2, "council_prompt")
    assert notices(night2, "cole_prompt") == []
    assert g.fails("dave", "SWAP niaj").reason == "power_used"
    assert "swap" not in {c.verb for c in g.rules.available(g.state, "dave")}  # type: ignore[arg-type]


def test_cas_390_cole_is_a_force_of_good() -> None:
    """CAS-390: Cole is considered a simple Innocent, on the Forces of Good's side."""
    g = Game()
    assert g.rules.summary(g.state)["players"][10] == {
        "name": "mallory",
        "role": "cole",
        "team": "good",
        "alive": True,
        "conditions": [],
    }


def test_cas_395_d12_swap_with_the_victim_ends_the_cole_power() -> None:
    """CAS-395, CAS-396, CAS-D12: Cole swaps with the Demons' victim: the victim dies holding
    Cole (step 9 no longer runs), Cole lives on with the victim's card; a Prue card moved
    away by the swap does not retaliate."""
    g = at_w1()
    g.do("dave", "KILL bob")
    g.do("mallory", "SWAP bob")
    g.until("day", 1)
    assert not g.alive("bob") and g.role("bob") == "cole"
    assert g.alive("mallory") and g.role("mallory") == "prue"
    assert g.state.revenge is None
    assert notices(g.last, "dawn")[0].params["dead"] == [{"name": "bob", "role": "cole"}]
    g.deadline()
    assert notices(g.last, "cole_prompt") == [] and not g.state.cole_active()


def test_cas_d11_new_demon_or_billie_joins_the_council_next_night() -> None:
    """CAS-D11: Cole takes Billie's card: from the next night he is on the council, judy is not."""
    g = at_w1()
    g.do("mallory", "SWAP judy")
    g.until("day", 1)
    g.deadline()
    assert recipients(g.last, "council_prompt") == {"dave", "erin", "frank", "mallory"}


def test_cas_224_716_piper_and_paige_told_the_victim_after_the_swap() -> None:
    """CAS-224, CAS-716: at the start of W2 the current holders of Piper and Paige (after Cole's
    swap) learn the victim (or none) with their prompt."""
    g = at_w1()
    g.do("dave", "KILL niaj")
    g.do("mallory", "SWAP grace")
    events = g.deadline()
    assert g.state.phase == "W2"
    (piper,) = notices(events, "piper_prompt")
    assert piper.to == ("mallory",) and piper.params["victim"] == "niaj"
    (paige,) = notices(events, "paige_prompt")
    assert paige.to == ("heidi",) and paige.params["victim"] == "niaj"
    assert not any(n.public for n in events if hasattr(n, "public"))  # no public mail at W2


def test_cas_716_no_victim_told_as_none() -> None:
    """CAS-716: with no victim, Piper and Paige are told there is none."""
    mails, _ = run([setup_line(), DEADLINE, DEADLINE, DEADLINE])
    (paige,) = [m for m in mails_to(mails, "heidi") if "Night: your power" in m["subject"]]
    assert "no victim tonight" in paige["body"]


def test_cas_310_innocents_have_no_power() -> None:
    """CAS-310: a simple Innocent has no night command: only help, status, pass, and cancel
    once his PASS stands (CAS-603)."""
    g = at_w1()
    verbs = {"help", "status", "pass"}
    assert {c.verb for c in g.rules.available(g.state, "niaj")} == verbs  # type: ignore[arg-type]
    g.do("niaj", "RIEN")
    assert {c.verb for c in g.rules.available(g.state, "niaj")} == verbs | {"cancel"}  # type: ignore[arg-type]
    for line in ("SCAN dave", "KILL dave", "SWAP dave", "COUNCIL hi"):
        assert g.fails("niaj", line).reason == "not_your_role"
    g.deadline()
    for line in ("BURN dave", "HEAL"):
        assert g.fails("niaj", line).reason == "not_your_role"


def test_cas_d07_lovers_and_penny_stay_with_the_player_through_swaps() -> None:
    """CAS-D07: being a Lover or Penny's player belongs to the player: Cole swapping with a
    Lover who is Penny's player moves the card only; the spent power moves with the card."""
    g = Game()
    g.deadline()
    g.do("carol", "LOVERS peggy niaj")
    g.deadline()
    g.do("mallory", "SWAP peggy")
    g.deadline()
    assert g.role("mallory") == "innocent" and g.role("peggy") == "cole"
    assert g.state.lovers == ("peggy", "niaj") and g.state.penny == "peggy"
    conditions = {p["name"]: p["conditions"] for p in g.rules.summary(g.state)["players"]}
    assert conditions["peggy"] == ["lover", "penny"] and conditions["mallory"] == []
    g.do("grace", "BURN olivia")  # Piper spends her power ...
    g.until("day", 1)
    g.deadline()
    g.do("peggy", "SWAP grace")  # ... and the new Cole takes the Piper card: still spent
    g.deadline()
    assert g.role("peggy") == "piper"
    assert notices(g.last, "cole_result")[0].params["spent"] is True
    assert notices(g.last, "piper_prompt") == []
    assert g.fails("peggy", "BURN dave").reason == "power_used"


def test_cas_d10_council_list_order_never_shows_billie() -> None:
    """CAS-D10, CAS-380: the list is alphabetical, not in seating order (Billie seated first
    would otherwise stand out)."""
    seating = ("judy", *(n for n in NAMES if n != "judy"))
    g = at_w1(seating=seating)
    assert g.state.order[0] == "judy"
    assert notices(g.events, "council_prompt")[0].params["council"] == [
        "dave",
        "erin",
        "frank",
        "judy",
    ]
