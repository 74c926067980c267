"""Unknown configuration keys are errors naming the closest known key (issue 12), listed with
every other problem at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.daemon.config import ConfigError, load

GOOD = """
[moderator]
address = "moderator@example.test"
admins = ["gm@example.test"]

[imap]
host = "127.0.0.1"
tls = "none"
user = "moderator@example.test"
password_file = "imap.pass"
{imap}

[smtp]
host = "127.0.0.1"
tls = "none"
{smtp}

[daemon]
data_dir = "{data}"
{daemon}

{rest}
"""


def _write(tmp: Path, imap: str = "", smtp: str = "", daemon: str = "", rest: str = "") -> Path:
    (tmp / "imap.pass").write_text("secret\n")
    path = tmp / "pbem.toml"
    path.write_text(GOOD.format(imap=imap, smtp=smtp, daemon=daemon, rest=rest, data=tmp / "data"))
    return path


def test_unknown_config_key_is_an_error_with_did_you_mean(tmp_path: Path) -> None:
    path = _write(tmp_path, imap="poll_intervall = 30")
    with pytest.raises(ConfigError) as info:
        load(path)
    assert info.value.problems == [
        "imap.poll_intervall: unknown key (did you mean 'poll_interval'?)"
    ]


def test_unknown_keys_are_listed_with_every_other_problem(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        imap="poll_intervall = 30\nport = 99999",
        smtp="verp = 1\ncoalesce_reply = false",
        daemon="zzz_nothing_alike = 1",
        rest='[moderater]\nx = 1\n\n[games."lupus-in-tabula"]\nnight_durration = "18h"',
    )
    with pytest.raises(ConfigError) as info:
        load(path)
    problems = info.value.problems
    for needle in (
        "imap.poll_intervall: unknown key (did you mean 'poll_interval'?)",
        "imap.port: 99999 is not a TCP port (1..65535)",
        "smtp.verp: expected bool, got 1",
        "smtp.coalesce_reply: unknown key (did you mean 'coalesce_replies'?)",
        "daemon.zzz_nothing_alike: unknown key",
        "[moderater]: unknown section (did you mean 'moderator'?)",
        "games.\"lupus-in-tabula\".night_durration: unknown option (did you mean 'night_duration'?)",
    ):
        assert needle in problems, (needle, problems)
    assert "daemon.zzz_nothing_alike: unknown key" in problems  # no suggestion when none is close


def test_every_key_of_the_example_config_is_known(tmp_path: Path) -> None:
    """The shipped example must pass its own check (every key in it is read)."""
    example = Path(__file__).resolve().parents[2] / "config" / "pbem.example.toml"
    text = example.read_text().replace('"/var/lib/pbem"', f'"{tmp_path}"')
    (tmp_path / "pbem.toml").write_text(text.replace('user = "moderator@example.org"', ""))
    load(tmp_path / "pbem.toml")
