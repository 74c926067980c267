"""``pbem verify`` on an exported record (issue 24 item 4): the seed, the deal, the chain, the
replay of the rules and the published results; each tampering caught and its phase named."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.cli.main import main
from pbem.record.chain import links
from pbem.record.export import game_record
from pbem.record.replay import verify_record
from pbem.record.seed import commitment
from tests.archive.bot_games import GAMES, whole_game


def _record(game: str) -> dict[str, Any]:
    return json.loads(json.dumps(game_record(whole_game(game, "en")), ensure_ascii=False))


def _rechained(record: dict[str, Any]) -> dict[str, Any]:
    """A forger's record: the chain and commitment recomputed to fit what he changed."""
    start = commitment(int(record["seed"]["value"]))
    record["seed"]["commitment"] = record["chain"]["start"] = start
    chain = links(start, record["events"])
    record["chain"]["links"] = [link.to_json() for link in chain]
    for phase in record["phases"]:
        phase["digest"] = chain[phase["n"] - 1].digest if phase["n"] <= len(chain) else None
    return record


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_of_each_rule_set_verifies(game: str) -> None:
    verdict = verify_record(_record(game))
    assert verdict.ok, verdict.failure
    assert any("replay" in line for line in verdict.passed)


def test_one_order_changed_is_caught_at_its_phase() -> None:
    record = _record("lupus-in-tabula")
    index, vote = next(
        (i, e) for i, e in enumerate(record["events"]) if e["type"] == "VoteSet" and e["target"]
    )
    other = next(p["name"] for p in record["setup"]["players"] if p["name"] != vote["target"])
    record["events"][index] = {**vote, "target": other}
    phase = next(link["n"] for link in record["chain"]["links"] if index <= link["index"])
    verdict = verify_record(record)
    assert not verdict.ok and verdict.phase == phase
    assert f"phase {phase}: the chain differs" in str(verdict.failure)


@pytest.mark.parametrize("game", GAMES)
def test_an_orders_arrival_time_and_words_are_chained_and_exported(game: str) -> None:
    """Issue 24 item 2: each mail's accepted orders stand in the log with their seat, arrival
    time and words (``OrdersReceived``), listed among the phase's orders; moving one order's
    arrival by a minute is caught at its phase."""
    record = _record(game)
    stamps = [(i, e) for i, e in enumerate(record["events"]) if e["type"] == "OrdersReceived"]
    assert stamps and all(e["lines"] and e["at"] and e["seat"] for _, e in stamps)
    listed = [o for p in record["phases"] for o in p["orders"] if o["type"] == "OrdersReceived"]
    assert len(listed) == len(stamps)
    index, stamp = stamps[len(stamps) // 2]
    later = datetime.fromisoformat(stamp["at"]) + timedelta(minutes=1)
    record["events"][index] = {**stamp, "at": later.isoformat()}
    phase = next(link["n"] for link in record["chain"]["links"] if index <= link["index"])
    verdict = verify_record(record)
    assert not verdict.ok and verdict.phase == phase


def test_one_order_changed_and_the_chain_forged_is_caught_by_the_replay() -> None:
    """Even a forger who recomputes the whole chain cannot make another order give the
    recorded result: the seer's scan of someone else gives another answer (LUP seer), and
    the rules, run again, name the close that does not follow."""
    record = _record("lupus-in-tabula")
    index, scan = next(
        (i, e)
        for i, e in enumerate(record["events"])
        if e["type"] == "ActionSet" and e["verb"] == "scan"
    )
    roles = next(e for e in record["events"] if e["type"] == "RolesDealt")["roles"]
    scanned = roles[scan["targets"][0]] == "werewolf"
    other = next(
        p for p, role in roles.items() if (role == "werewolf") != scanned and p != scan["actor"]
    )
    record["events"][index] = {**scan, "targets": [other]}
    verdict = verify_record(_rechained(record))
    close = next(link["n"] for link in record["chain"]["links"] if index < link["index"])
    assert not verdict.ok and verdict.phase == close, verdict.failure
    assert "does not follow from the rules" in str(verdict.failure)


def test_one_draw_changed_through_the_seed_is_caught() -> None:
    record = _record("loup-garou")
    record["seed"]["value"] = str(int(record["seed"]["value"]) + 1)
    verdict = verify_record(record)
    assert verdict.phase == 0 and "commitment" in str(verdict.failure)
    # a forger who also recomputes the commitment and the chain: the deal no longer follows
    verdict = verify_record(_rechained(record))
    assert verdict.phase == 0 and "does not follow from the seed" in str(verdict.failure)


def test_one_drawn_result_changed_is_caught_by_the_replay() -> None:
    """A tie-break or night kill changed in the log (chain forged): the draw from the seed
    gives the recorded one, so the close is named."""
    record = _record("chasse-aux-sorcieres")
    index, death = next((i, e) for i, e in enumerate(record["events"]) if e["type"] == "PlayerDied")
    alive = next(
        p["name"]
        for p in record["setup"]["players"]
        if p["name"] not in {d["player"] for d in record["deaths"]}
    )
    record["events"][index] = {**death, "player": alive}
    forged = _rechained(copy.deepcopy(record))
    verdict = verify_record(forged)
    # the death is the resolution of the last close before it: that close is named
    phase = next(link["n"] for link in reversed(record["chain"]["links"]) if link["index"] < index)
    assert not verdict.ok and verdict.phase == phase, verdict.failure


def test_one_published_result_changed_is_caught() -> None:
    record = _record("dracula")
    record["result"]["winners"] = ["X"]
    verdict = verify_record(record)
    assert not verdict.ok and "published result" in str(verdict.failure)
    record = _record("dracula")
    record["deaths"][0]["cause"] = "old age"
    verdict = verify_record(record)
    assert verdict.phase == record["deaths"][0]["link"] and "death" in str(verdict.failure)


def test_one_hash_changed_is_caught_at_its_phase() -> None:
    record = _record("dracula")
    record["chain"]["links"][4]["digest"] = "0" * 64
    verdict = verify_record(record)
    assert verdict.phase == 5 and "phase 5: the chain differs" in str(verdict.failure)


def test_pbem_verify_reads_a_record_and_an_old_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pbem.record.archive import archive_files

    good = tmp_path / "g.record.json"
    good.write_text(json.dumps(_record("lupus-in-tabula")), encoding="utf-8")
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "OK: the chain holds" in out and "FAILED" not in out
    bad = _record("lupus-in-tabula")
    bad["chain"]["links"][2]["digest"] = "f" * 64
    good.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["verify", str(good)]) == 1
    assert "FAILED: phase 3" in capsys.readouterr().out
    old = tmp_path / "old.txt"
    old.write_text(archive_files(whole_game("lupus-in-tabula", "en"))["text"], encoding="utf-8")
    assert main(["verify", str(old)]) == 0
    assert "sealed deal only" in capsys.readouterr().out


def test_a_game_with_the_game_masters_acts_and_a_rollback_verifies() -> None:
    """Pauses, extensions, an announcement, a rollback and an early close are links of the
    chain like any order; the replay folds them as the table did and still agrees."""
    import random
    from datetime import timedelta

    from pbem.table import Table
    from pbem.tools.demo import demo_setup, play
    from pbem.tools.simulate import EPOCH
    from tests.archive.bot_games import SALT

    setup = {**demo_setup("loup-garou", 0, 3, "en"), "deal_salt": SALT, "admins": ["gm@v.example"]}
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    now = EPOCH + timedelta(hours=1)
    for n, line in enumerate(["PAUSE", "RESUME", "EXTEND 24h", "ANNOUNCE Hello"]):
        table.apply(table.admin_lines([line], "gm@v.example", now, f"k{n}"))
    key = min(table.deadlines().items(), key=lambda kv: kv[1])[0]
    table.apply(table.close(key, now))
    table.apply(table.admin_lines(["ROLLBACK 24h"], "gm@v.example", now, "k9"))
    closed = table.admin_lines(["CLOSE"], "gm@v.example", now, "k10")
    table.apply(closed)
    play(table, random.Random(3), now=now)
    assert table.finished
    # the early close's result post carries its link, as stamped by the desk (PhaseClosed.at)
    post = next(o.body for o in closed.outgoing if o.public)
    encoded = [table.rules.codec.encode(e) for e in table.events]
    chain = links(commitment(setup["seed"]), encoded)
    cut = next(i for i, e in enumerate(closed.events) if e["type"] == "PhaseClosed")
    index = encoded.index(closed.events[cut])
    link = next(link for link in chain if link.index == index)
    assert f"Game fingerprint no. {link.n}: {link.digest}" in post
    kinds = {e["type"] for e in (table.rules.codec.encode(e) for e in table.events)}
    assert {"Paused", "Resumed", "DeadlineMoved", "RolledBack", "DeskNotice"} <= kinds
    record = json.loads(json.dumps(game_record(table), ensure_ascii=False))
    verdict = verify_record(record)
    assert verdict.ok, verdict.failure
    acts = [a["type"] for p in record["phases"] for a in p["acts"]]
    assert "RolledBack" in acts and "Paused" in acts


def test_pbem_verify_checks_the_fingerprints_a_player_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The list's posts, saved as an mbox (quoted-printable, as mail carries French), are
    compared with the record: a record rewritten after the posts went out is caught."""
    import mailbox
    import random
    from email.message import EmailMessage

    from pbem.table import Table
    from pbem.tools.demo import demo_setup, play
    from pbem.tools.simulate import EPOCH
    from tests.archive.bot_games import SALT

    setup = {**demo_setup("lupus-in-tabula", 0, 2, "fr"), "deal_salt": SALT}
    table, step = Table.new(setup, EPOCH)
    table.apply(step)
    sent = play(table, random.Random(2))
    box = mailbox.mbox(tmp_path / "list.mbox")
    for post in (o for o in sent if o.public):
        msg = EmailMessage()
        msg["Subject"] = post.subject
        msg.set_content(post.body, cte="quoted-printable")
        box.add(msg)
    box.close()
    record_path = tmp_path / "g.record.json"
    record = game_record(table)
    record_path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    args = ["verify", str(record_path), "--posts", str(tmp_path / "list.mbox")]
    assert main(args) == 0
    assert "fingerprints posted are the record's" in capsys.readouterr().out
    # the operator rewrites the log after the fact and recomputes the chain: the posts differ
    forged = json.loads(json.dumps(record))
    forged["events"][40] = {**forged["events"][40], "forged": True}
    record_path.write_text(json.dumps(_rechained(forged), ensure_ascii=False), encoding="utf-8")
    assert main(args) == 1
    phase = next(link["n"] for link in record["chain"]["links"] if link["index"] >= 40)
    assert f"FAILED: phase {phase}: the fingerprint posted differs" in capsys.readouterr().out
