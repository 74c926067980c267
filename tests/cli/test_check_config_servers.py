"""``pbem check-config`` against servers it cannot use: each failure says what is wrong and
which key to change, in one line, never an exception's class name (the sysadmin's first day:
``ConnectionRefusedError: [Errno 111]``, ``abort: unexpected response: b'220 …'``,
``SMTPResponseException: (-1, 'Malformed SMTP response line: * OK …')`` were what it said)."""

from __future__ import annotations

import socket
import socketserver
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.adapters.reach import unreachable
from pbem.cli.main import main


class _Greeter(socketserver.BaseRequestHandler):
    greeting = b""

    def handle(self) -> None:
        self.request.sendall(self.greeting)
        self.request.settimeout(5)
        while self.request.recv(4096):
            pass


def _greeter(greeting: bytes) -> socketserver.ThreadingTCPServer:
    handler = type("Greeter", (_Greeter,), {"greeting": greeting})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def swapped() -> Iterator[tuple[int, int]]:
    """An SMTP greeting where IMAP is configured and an IMAP one where SMTP is."""
    smtp = _greeter(b"220 mail.example.test ESMTP ready\r\n")
    imap = _greeter(b"* OK [CAPABILITY IMAP4rev1] ready\r\n")
    try:
        yield smtp.server_address[1], imap.server_address[1]
    finally:
        for s in (smtp, imap):
            s.shutdown()
            s.server_close()


def _refused_port() -> int:
    """A loopback port nothing listens on (bound, never listening: connections are refused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def _config(tmp_path: Path, imap: tuple[str, int], smtp: tuple[str, int]) -> Path:
    (tmp_path / "pass").write_text("x\n")
    (tmp_path / "data").mkdir(exist_ok=True)
    cfg = tmp_path / "pbem.toml"
    cfg.write_text(
        f"""
[moderator]
address = "mj@example.org"

[imap]
host = "{imap[0]}"
port = {imap[1]}
tls = "none"
timeout = 5
user = "mj@example.org"
password_file = "{tmp_path / "pass"}"

[smtp]
host = "{smtp[0]}"
port = {smtp[1]}
tls = "none"
timeout = 5
user = "mj@example.org"
password_file = "{tmp_path / "pass"}"

[daemon]
data_dir = "{tmp_path / "data"}"
"""
    )
    return cfg


def _failures(capsys: pytest.CaptureFixture[str], cfg: Path) -> dict[str, str]:
    assert main(["check-config", "-c", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = dict(line.split(": FAILED: ", 1) for line in err.splitlines())
    assert set(lines) == {"IMAP", "SMTP"}, err
    return lines


def test_the_imap_and_smtp_ports_swapped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], swapped: tuple[int, int]
) -> None:
    smtp_port, imap_port = swapped
    cfg = _config(tmp_path, ("127.0.0.1", smtp_port), ("127.0.0.1", imap_port))
    said = _failures(capsys, cfg)
    assert said["IMAP"].startswith(f"IMAP 127.0.0.1:{smtp_port}: this is an SMTP server")
    assert "'220 mail.example.test ESMTP ready'" in said["IMAP"] and "imap.port" in said["IMAP"]
    assert said["SMTP"].startswith(f"SMTP 127.0.0.1:{imap_port}: this is an IMAP server")
    assert "smtp.port" in said["SMTP"]


def test_nothing_listening_and_an_unknown_host(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _refused_port()
    cfg = _config(tmp_path, ("127.0.0.1", port), ("smtp.invalid", 587))
    said = _failures(capsys, cfg)
    assert said["IMAP"] == (
        f"IMAP 127.0.0.1:{port}: connection refused, nothing listens there: check imap.host, "
        "imap.port (993 for tls, 143 for starttls) and that the server runs"
    )
    assert said["SMTP"].startswith("SMTP smtp.invalid:587: host name 'smtp.invalid' not found")
    assert said["SMTP"].endswith("check smtp.host")


def test_tls_and_starttls_on_the_wrong_port() -> None:
    """The chains the libraries raise (read on the sysadmin's first day): implicit TLS against
    a plain port, STARTTLS against a server that offers none, an untrusted certificate."""
    plain = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:992)")
    wrapped = RuntimeError("Error connecting to h on port 587")
    wrapped.__cause__ = plain
    assert unreachable("SMTP", "h", 587, "tls", 30, wrapped) == (
        'SMTP h:587: the server does not speak TLS on this port (smtp.tls = "tls"): use its '
        'TLS port (smtp.port = 465), or smtp.tls = "starttls" on this one'
    )
    none = RuntimeError("Server does not support STARTTLS capability")
    assert unreachable("IMAP", "h", 993, "starttls", 60, none) == (
        "IMAP h:993: the server offers no STARTTLS on this port: on its TLS port "
        '(imap.port = 993) set imap.tls = "tls"'
    )
    cert = ssl.SSLCertVerificationError(1, "certificate verify failed")
    cert.verify_message = "self-signed certificate"
    assert "certificate is not trusted (self-signed certificate)" in unreachable(
        "IMAP", "h", 993, "tls", 60, cert
    )
    waited = RuntimeError("Timed out waiting for server ready message")
    assert unreachable("SMTP", "h", 465, "starttls", 30, waited) == (
        'SMTP h:465: no answer within 30 s: port 465 is the TLS port, set smtp.tls = "tls" '
        "(or smtp.port = 587 for starttls)"
    )
    assert unreachable("SMTP", "h", 25, "none", 30, TimeoutError()) == (
        "SMTP h:25: no answer within 30 s: check smtp.host and smtp.port, and that no "
        "firewall drops pbem's connections"
    )
