"""The forked daemon of the tests (tests/support/daemon_fork.py) answers as the process of a
fresh ``python -m`` would: its exit status and output, a clean stop on SIGTERM and a death by
SIGKILL as :class:`subprocess.Popen` reports them (its environment: tests/daemon/test_logging.py,
whose ``JOURNAL_STREAM`` changes the log's format)."""

from __future__ import annotations

import signal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests.support import daemon_fork
from tests.support.daemon_process import ROOT, Daemon, env, write_config
from tests.support.mailstack import free_port


def _config(tmp_path: Path) -> Path:
    closed = free_port()  # nothing listens there: the daemon keeps retrying its IMAP login
    servers = SimpleNamespace(imap_port=closed, port=closed)
    stack: Any = SimpleNamespace(dovecot=servers, smtp=servers)
    return write_config(stack, tmp_path)


def _check_config(cfg: Path, log: Path, **extra: str) -> daemon_fork.Forked | None:
    args = ["check-config", "--offline", "-c", str(cfg)]
    return daemon_fork.start(
        "pbem.cli.daemon", args, cwd=ROOT, env=env(**extra), base=env(), log=log
    )


def test_a_forked_command_exits_with_its_status_and_its_output_in_its_log(
    tmp_path: Path,
) -> None:
    cfg = _config(tmp_path)
    log = tmp_path / "check.log"
    ok = _check_config(cfg, log)
    assert ok is not None and ok.wait(60) == 0
    first, *rest = log.read_text().splitlines()
    assert first == f"{cfg}: configuration is valid"
    assert all(line.startswith("warning: auth.") for line in rest), rest  # none of runpy's
    bad = _check_config(tmp_path / "none.toml", log)
    assert bad is not None and bad.wait(60) != 0
    assert "none.toml" in log.read_text()


def test_a_forked_daemon_stops_on_sigterm_and_dies_by_sigkill(tmp_path: Path) -> None:
    d = Daemon(_config(tmp_path))
    d.start()
    assert isinstance(d.proc, daemon_fork.Forked)
    assert d.proc.poll() is None
    assert d.stop() == 0, d.log()  # once its SIGTERM handler is installed: a clean stop
    assert "stopped" in d.run_log()
    d.start()
    assert isinstance(d.proc, daemon_fork.Forked)
    d.proc.kill()
    assert d.proc.wait(60) == -signal.SIGKILL
    d.proc.send_signal(signal.SIGTERM)  # an ended child is not signalled again
    assert d.proc.poll() == -signal.SIGKILL


def test_a_start_that_needs_a_fresh_process_is_not_forked(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    assert _check_config(cfg, tmp_path / "log", LD_PRELOAD="libnone.so") is None
    ok = _check_config(cfg, tmp_path / "log")  # and the fork server was not made in its image
    assert ok is not None and ok.wait(60) == 0
