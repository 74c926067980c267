"""Logs as journald expects them (issue 12, sd-daemon(3)): under systemd no time stamps and
the syslog priority as a ``<N>`` prefix on every line; elsewhere time stamps; one start-up line
naming the version, config, data dir and games; ``--verbose``/``--quiet``."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from pbem import __version__
from pbem.adapters.login import EX_CONFIG
from pbem.daemon.logsetup import journal_stream, setup
from tests.support.daemon_process import Daemon, new_fake_game, write_config
from tests.support.mailstack import MailStack


def test_serve_logs_journal_priorities_without_timestamps_under_systemd(
    stack: MailStack, tmp_path: Path
) -> None:
    cfg = write_config(stack, tmp_path)
    new_fake_game(cfg, "g1", ["alice"])
    (cfg.parent / "pbem-imap.pass").write_text("wrong\n")
    log = cfg.parent / "pbem-daemon-1.log"  # the file the harness makes the daemon's stderr
    log.touch()
    st = os.stat(log)
    daemon = Daemon(cfg, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}").start()
    assert daemon.wait_exit() == EX_CONFIG, daemon.log()
    lines = log.read_text().splitlines()
    assert lines and all(re.match(r"<[0-7]>", ln) for ln in lines), lines
    assert not any(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", ln) for ln in lines)
    assert (
        f"<6>pbem.daemon.serve: pbem {__version__} starting: config {cfg}, data dir "
        f"{tmp_path / 'data'}, 1 game(s) loaded"
    ) in lines
    (refused,) = [ln for ln in lines if "login refused" in ln]
    assert refused.startswith("<2>pbem.daemon.serve: IMAP login refused")  # critical


def test_serve_logs_timestamps_when_stderr_is_not_the_journal(
    stack: MailStack, tmp_path: Path
) -> None:
    """JOURNAL_STREAM inherited by a process whose stderr goes elsewhere is not the journal."""
    cfg = write_config(stack, tmp_path)
    (cfg.parent / "pbem-imap.pass").write_text("wrong\n")
    daemon = Daemon(cfg, JOURNAL_STREAM="1:1").start()
    assert daemon.wait_exit() == EX_CONFIG
    starting = [ln for ln in daemon.log().splitlines() if "starting: config" in ln]
    assert re.match(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ INFO pbem\.daemon\.serve: pbem ", starting[0]
    )


def test_journal_format_prefixes_every_line_and_levels_follow_verbosity(tmp_path: Path) -> None:
    path = tmp_path / "err"
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    with path.open("w") as stream:
        try:
            assert setup(0, "journal", stream) == "journal"
            log = logging.getLogger("pbem.test")
            log.debug("hidden")
            log.info("hello")
            log.warning("careful")
            try:
                raise ValueError("boom")
            except ValueError:
                log.exception("failed")
            setup(-1, "journal", stream)  # --quiet
            log.info("not shown")
            log.warning("still shown")
            setup(1, "plain", stream)  # --verbose
            log.debug("debug shown")
        finally:  # the test session's own handlers back
            for h in list(root.handlers):
                root.removeHandler(h)
            for h in saved[0]:
                root.addHandler(h)
            root.setLevel(saved[1])
    lines = path.read_text().splitlines()
    assert lines[:3] == ["<6>pbem.test: hello", "<4>pbem.test: careful", "<3>pbem.test: failed"]
    assert "<3>Traceback (most recent call last):" in lines
    assert "<3>ValueError: boom" in lines
    assert "<4>pbem.test: still shown" in lines and not any("hidden" in ln for ln in lines)
    assert not any("not shown" in ln for ln in lines)
    assert re.search(r" DEBUG pbem\.test: debug shown$", lines[-1])


def test_journal_stream_must_name_standard_error(tmp_path: Path) -> None:
    path = tmp_path / "err"
    with path.open("w") as stream:
        st = os.fstat(stream.fileno())
        assert journal_stream(stream, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})
        assert not journal_stream(stream, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino + 1}"})
        assert not journal_stream(stream, {})
        assert not journal_stream(stream, {"JOURNAL_STREAM": "garbage"})
