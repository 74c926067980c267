"""Sender authentication layers (F13 subset, requirements 5 and 7) and the configuration."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.adapters.codes import hash_secret, verify_secret
from pbem.daemon.auth import ar_pass, check_sender
from pbem.daemon.config import AuthConfig, ConfigError, load, parse_dns_server
from tests.support.cli_in_process import pbem_in_process
from tests.support.daemon_process import (
    ROOT,
    Daemon,
    game_state,
    mail,
    new_fake_game,
    pbem,
    send,
    wait_for,
    write_config,
)
from tests.support.mailparts import text_of
from tests.support.mailstack import MailStack

PLAYERS = {"Alice": "alice@example.test"}


def _msg(*ar: str, body: str = "CMD x") -> EmailMessage:
    m = mail("alice@example.test", body)
    for h in ar:
        m["Authentication-Results"] = h
    return m


def test_authentication_results_only_topmost_of_our_authserv_id() -> None:
    good = "mx.example.test; dkim=pass header.d=example.test; dmarc=pass header.from=example.test"
    assert ar_pass(_msg(good), "mx.example.test", "example.test")
    # a forged pass lower in the block is ignored; the top one is ours and fails
    forged = _msg("mx.example.test; dkim=fail; dmarc=fail", good)
    assert not ar_pass(forged, "mx.example.test", "example.test")
    # a pass from another authserv-id is not trusted
    assert not ar_pass(_msg("evil.example; dmarc=pass"), "mx.example.test", "example.test")
    # dkim=pass for another domain is not aligned
    other = _msg("mx.example.test; dkim=pass header.d=lists.example.test")
    assert not ar_pass(other, "mx.example.test", "example.test")


def test_authentication_results_pass_must_name_the_from_domain() -> None:
    """F13 regression (requirement 5): ``dmarc=pass`` used to count whatever From domain the
    MTA evaluated; a comment used to be searched for ``header.d=``."""
    ours = "mx.example.test"
    for header, ok in (
        ("mx.example.test; dmarc=pass (p=none dis=none) header.from=example.test", True),
        ("mx.example.test; dmarc=pass header.from=Example.Test", True),
        ("mx.example.test; dkim=pass (1024-bit key) header.d=example.test header.s=sel", True),
        ("mx.example.test; dmarc = pass header.from = example.test", True),
        # the MTA's pass was for another From (e.g. a From it parsed differently from us)
        ("mx.example.test; dmarc=pass header.from=evil.test", False),
        ("mx.example.test; dmarc=pass", False),  # for which From?
        ("mx.example.test; dkim=pass (header.d=example.test) header.d=evil.test", False),
        ("mx.example.test; dkim=pass header.d=evil.test header.i=@example.test", False),
        ("mx.example.test; dkim=pass header.d=sub.example.test", False),
        ("mx.example.test; dkim=fail header.d=example.test; x-dmarc=pass", False),
    ):
        assert ar_pass(_msg(header), ours, "example.test") is ok, header


def test_irreversible_commands_need_the_final_layers() -> None:
    """Requirement 5: ``final_methods`` adds layers for the commands the rules call final.
    A mail passing ``methods`` only is accepted but weak (its final commands are refused by
    the engine); with the code it is strong; the code line is removed either way."""
    stored = hash_secret("c0ffee")
    cfg = AuthConfig(("registered",), final_methods=("registered", "secret"))
    weak = check_sender(_msg(body="CMD x"), PLAYERS, cfg, {"Alice": stored})
    assert weak.ok and not weak.strong
    wrong = check_sender(_msg(body="SECRET bad\nCMD x"), PLAYERS, cfg, {"Alice": stored})
    assert wrong.ok and not wrong.strong
    strong = check_sender(_msg(body="SECRET c0ffee\nCMD x"), PLAYERS, cfg, {"Alice": stored})
    assert strong.ok and strong.strong and strong.message is not None
    assert "c0ffee" not in str(strong.message.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    plain = check_sender(_msg(body="CMD x"), PLAYERS, AuthConfig(), {})
    assert plain.ok and plain.strong  # no final_methods: methods decide alone
    # a public vote is then confirmed privately (requirement 6: never weaker than private)
    assert cfg.confirm_list_votes and not AuthConfig().confirm_list_votes


def test_secret_code_layer() -> None:
    stored = hash_secret("c0ffee")
    assert verify_secret("c0ffee", stored) and not verify_secret("bad", stored)
    cfg = AuthConfig(("registered", "secret"))
    v = check_sender(_msg(body="SECRET c0ffee\nCMD x"), PLAYERS, cfg, {"Alice": stored})
    assert v.ok and v.message is not None
    assert "c0ffee" not in v.message.as_string(), "the code never reaches the engine or a reply"
    v = check_sender(_msg(body="SECRET nope\nCMD x"), PLAYERS, cfg, {"Alice": stored})
    assert not v.ok and v.registered == "alice@example.test"
    # list posts are checked by the registered From only (requirement 6)
    assert check_sender(_msg(), PLAYERS, cfg, {"Alice": stored}, channel="list").ok


def test_forged_command_rejected_and_registered_address_told(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = write_config(
        stack,
        tmp_path,
        auth='[auth]\nmethods = ["registered", "dkim"]\nauthserv_id = "mx.example.test"',
    )
    new_fake_game(cfg, "g1", ["alice"])
    d = Daemon(cfg).start()
    data = tmp_path / "data"
    try:
        forged = mail("alice@example.test", "CMD forged", Reply_To="evil@example.test")
        forged["Authentication-Results"] = "mx.example.test; dkim=fail; dmarc=fail"
        genuine = mail("alice@example.test", "CMD genuine")
        genuine["Authentication-Results"] = "mx.example.test; dmarc=pass header.from=example.test"
        send(stack, forged, genuine)
        wait_for(
            lambda: [e.get("word") for e in game_state(data, "g1")[0]] == [None, "genuine"],
            what="only the genuine command",
            log=d.log,
        )
        wait_for(
            lambda: any(
                "refusée" in str(m["Subject"])  # the player's language (fr by default)
                for m in stack.messages("alice@example.test")
            ),
            what="notice to the registered address",
            log=d.log,
        )
        assert d.stop() == 0
    finally:
        d.kill()


def test_config_errors_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[moderator]\naddress = "nope"\nlanguage = "de"\ntimezone = "Mars/Base"\n'
        '[imap]\nhost = "h"\nport = 99999\ntls = "maybe"\nuser = "u"\npassword = "secret"\n'
        '[smtp]\nhost = "h"\nverp = "yes"\n[daemon]\ndata_dir = "/tmp/x"\nhard_bounces = 0\n'
        '[list]\nmode = "moderated"\n[auth]\nfinal_methods = ["pgp"]\nlist_votes = "maybe"\n'
        "[bogus]\n"
    )
    with pytest.raises(ConfigError) as err:
        load(bad)
    text = str(err.value)
    for needle in (
        "moderator.address: 'nope' is not an email address",
        "moderator.language",
        "unknown time zone 'Mars/Base'",
        "imap.port: 99999",
        "imap.tls: 'maybe'",
        "passwords never go in the TOML",
        "[bogus]: unknown section",
        "smtp.verp: expected bool, got 'yes'",
        "daemon.hard_bounces: 0 must be at least 1",
        "list.mode: 'moderated' must be one of external, relay",
        "auth.final_methods: expected a list from",
        "auth.list_votes: 'maybe' must be one of auto, from, confirm",
    ):
        assert needle in text, (needle, text)
    r = pbem(bad, "check-config")
    assert r.returncode == 2 and "passwords never go in the TOML" in r.stderr


def test_example_config_and_credentials_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    creds = tmp_path / "creds"
    creds.mkdir()
    (creds / "imap-password").write_text("i\n")
    (creds / "smtp-password").write_text("s\n")
    # the systemd unit's credentials, as the environment names them (no process needed)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(creds))
    c = load(ROOT / "config" / "pbem.example.toml")
    assert [c.imap.password, c.smtp.password, c.verp, c.hard_bounces] == ["i", "s", False, 3]


def test_operator_commands_need_no_password(tmp_path: Path) -> None:
    """Under the unit the passwords are the service's credentials only (issue 12): the commands
    that talk to no server read the config without them; serve and check-config still need
    them, and an inline password is refused by every command."""
    example = (ROOT / "config" / "pbem.example.toml").read_text()
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(example.replace('"/var/lib/pbem"', f'"{tmp_path / "state"}"'))
    (tmp_path / "state").mkdir()
    assert "password_file =" not in cfg.read_text().replace("# password_file", "")
    # what is checked is how each command reads the config, the same in the test process
    # (pbem.cli.daemon.main); the last one runs as the operator's process
    r = pbem_in_process(
        cfg, "new-game", "--id", "v1", *(f"--player=P{i} <p{i}@example.org>" for i in range(8))
    )
    assert r.returncode == 0, r.stderr
    status = pbem_in_process(cfg, "status", "--json")
    assert status.returncode == 3, status.stderr  # never started: no data (issue 21)
    assert [g["id"] for g in json.loads(status.stdout)["games"]] == ["v1"]
    for args in (("shunt", "list"), ("deadline", "list")):
        r = pbem_in_process(cfg, *args)
        assert r.returncode == 0, r.stderr
    r = pbem_in_process(cfg, "reachable", "v1", "P1")
    assert r.returncode == 0, r.stderr
    # offline, the file alone is checked (issue 21 item 3); the logins need the passwords
    assert pbem_in_process(cfg, "check-config", "--offline").returncode == 0
    r = pbem_in_process(cfg, "check-config")
    assert r.returncode == 2 and "no password source" in r.stderr
    cfg.write_text(cfg.read_text().replace("[smtp]\n", '[smtp]\npassword = "oops"\n'))
    r = pbem(cfg, "status")
    assert r.returncode == 2 and "passwords never go in the TOML" in r.stderr


def test_check_config_tries_both_servers(stack: MailStack, tmp_path: Path) -> None:
    cfg = write_config(stack, tmp_path)
    r = pbem(cfg, "check-config")
    assert r.returncode == 0, r.stderr
    assert "IMAP 127.0.0.1" in r.stdout and "logged in" in r.stdout and "SMTP" in r.stdout
    stack.smtp.stop()
    r = pbem(cfg, "check-config")
    assert r.returncode == 1 and "SMTP: FAILED" in r.stderr


def test_secret_codes_end_to_end(stack: MailStack, tmp_path: Path) -> None:
    import json

    cfg = write_config(stack, tmp_path, auth='[auth]\nmethods = ["registered", "secret"]')
    setup = {
        "game": "fake",
        "players": [{"name": n, "email": f"{n}@example.test"} for n in ("alice", "bob")],
    }
    (tmp_path / "s.json").write_text(json.dumps(setup))
    r = pbem(cfg, "new-game", "--setup", str(tmp_path / "s.json"), "--id", "g1", "--secrets")
    assert r.returncode == 0, r.stderr
    codes = dict(re.findall(r"secret code for (\w+): (\w+)", r.stdout))
    assert set(codes) == {"alice", "bob"}
    head = (tmp_path / "data" / "games" / "g1" / "head.json").read_text()
    assert codes["alice"] not in head, "only the hash is stored"
    d = Daemon(cfg).start()
    data = tmp_path / "data"
    try:
        send(
            stack,
            mail("alice@example.test", f"SECRET {codes['alice']}\nCMD good"),
            mail("bob@example.test", "CMD nocode"),
        )
        wait_for(
            lambda: [e.get("word") for e in game_state(data, "g1")[0]] == [None, "good"],
            what="only the command with its code",
            log=d.log,
        )

        def direct(user: str) -> list[EmailMessage]:
            return [m for m in stack.messages(user) if m["List-Id"] is None]

        wait_for(
            lambda: direct("alice@example.test") and direct("bob@example.test"),
            what="receipt and notice",
            log=d.log,
        )
        assert codes["alice"] not in text_of(direct("alice@example.test")[0])
        assert "code secret absent ou faux" in text_of(direct("bob@example.test")[0])
        assert codes["alice"] not in d.log(), "never logged"
        assert d.stop() == 0
    finally:
        d.kill()


def test_game_option_defaults_from_the_config(stack: MailStack, tmp_path: Path) -> None:
    """Issue 3 item 1: phase durations (any option) per game in the config, used by new-game;
    the command line overrides them; a bad game id or an old [phases] hour key is explained."""
    import json

    cfg = write_config(stack, tmp_path, engine="pbem.table:Table")
    with open(cfg, "a", encoding="utf-8") as f:
        f.write('\n[games."lupus-in-tabula"]\nnight_duration = "2h"\nround1_duration = "3h"\n')
    players = [f"--player=P{i} <p{i}@example.test>" for i in range(1, 9)]
    r = pbem_in_process(cfg, "new-game", "--game", "lupus-in-tabula", "--id", "g9",
                        "--option", "round1_duration=5h", *players)  # fmt: skip
    assert r.returncode == 0, r.stderr
    head = json.loads((tmp_path / "data" / "games" / "g9" / "head.json").read_text())
    assert '"night_duration": "2h"' in json.dumps(head) and '"round1_duration": "5h"' in json.dumps(
        head
    )
    bad = tmp_path / "bad.toml"
    bad.write_text(cfg.read_text() + '\n[games."chess"]\nx = 1\n[phases]\nnight = 24\n')
    with pytest.raises(ConfigError) as err:
        load(bad)
    assert "games.chess: unknown game" in str(err.value)
    assert "phases.night: phase durations are options of each game" in str(err.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1", ("127.0.0.1", 53)),
        ("127.0.0.1:5353", ("127.0.0.1", 5353)),
        ("::1", ("::1", 53)),
        ("[::1]", ("::1", 53)),
        ("[2001:db8::53]:5353", ("2001:db8::53", 5353)),
    ],
)
def test_dns_server_accepted_forms(text: str, expected: tuple[str, int]) -> None:
    """``[auth] dns_server``: where DKIM keys are asked for (requirement 5)."""
    assert parse_dns_server(text) == expected


def test_dns_server_config(tmp_path: Path) -> None:
    base = (
        '[moderator]\naddress = "m@example.test"\n[imap]\nhost = "h"\n[smtp]\nhost = "h"\n'
        '[daemon]\ndata_dir = "/tmp/x"\n[auth]\nmethods = ["registered", "dkim_verify"]\n'
    )
    cfg = tmp_path / "c.toml"
    cfg.write_text(base)
    assert (load(cfg).auth.dns_host, load(cfg).auth.dns_port) == (None, 53)
    cfg.write_text(base + 'dns_server = "127.0.0.1:5353"\n')
    assert (load(cfg).auth.dns_host, load(cfg).auth.dns_port) == ("127.0.0.1", 5353)
    for bad, needle in (
        ('"dns.example.test"', "not a host name"),
        ('"127.0.0.1:0"', "is not a UDP port"),
        ('"127.0.0.1:x"', "is not a UDP port"),
        ('"[::1]5353"', "expected [IPv6]:port"),
        ("53", "expected a string"),
    ):
        cfg.write_text(base + f"dns_server = {bad}\n")
        with pytest.raises(ConfigError) as err:
            load(cfg)
        assert "auth.dns_server: " in str(err.value) and needle in str(err.value), str(err.value)
