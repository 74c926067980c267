"""A header's addresses are read alike on every Python pbem runs on (:mod:`pbem.mail.address`).

Debian 12's own python3.11 (3.11.2, the interpreter of docs/install-debian.md) carries the
strict address parser of CVE-2023-27043, as 3.13 does; the suite's 3.11.7 does not. Before
pbem chose the reading, a From like ``alice@example.test <mallory@evil.test>`` was alice in the
suite and nobody in production, and F13's notice to alice (``tests/daemon/test_forgery.py``)
was never sent there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.mail import address
from pbem.mail.address import getaddresses, parseaddr

ROOT = Path(__file__).resolve().parents[2]

ODD_FROMS = (
    "alice@example.test <mallory@evil.test>",  # F13: the MTA reads mallory, pbem alice
    '"Dupont, Jean" <jean@example.test>',
    "Jean Dupont <jean@example.test>",
    "jean@example.test (Jean)",
    '"alice@example.test" <mallory@evil.test>',
    "Émilie <émilie@exemple.fr>",
    "<>",
    "",
)

_READ = """
import json, sys
from pbem.mail.address import getaddresses, parseaddr
froms = json.loads(sys.argv[1])
print(json.dumps([[getaddresses([f]), parseaddr(f)] for f in froms]))
"""


def _readings(python: str) -> object:
    """What ``python`` reads in :data:`ODD_FROMS`, through pbem's own functions."""
    r = subprocess.run(
        [python, "-c", _READ, json.dumps(ODD_FROMS)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    return json.loads(r.stdout)


def _production_python() -> str:
    """Debian's python3: what the install guide's venv runs (the suite's needs it too,
    ``tests/install/conftest.py``)."""
    python = "/usr/bin/python3"
    if not os.path.exists(python):
        pytest.fail("no /usr/bin/python3: the install tests need the system's python3 too")
    return python


def test_the_system_python_reads_addresses_as_the_suites_python_does() -> None:
    assert _readings(_production_python()) == _readings(sys.executable)


def test_the_f13_from_is_alice_and_mallory_not_nobody() -> None:
    """The reading the forgery checks rest on (F13): the first address is the one pbem
    checks the DMARC domain against, and the one it tells of the forgery."""
    forged = ODD_FROMS[0]
    assert getaddresses([forged]) == [("", "alice@example.test"), ("", "mallory@evil.test")]
    assert parseaddr(forged) == ("", "alice@example.test")


def test_a_strict_parser_is_asked_for_the_lenient_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """On an interpreter whose parser is strict by default (3.13, Debian's 3.11.2), pbem
    passes ``strict=False``; on one without the choice (3.11.7), nothing."""
    asked: list[dict[str, object]] = []

    def strict_by_default(values: object, *, strict: bool = True) -> list[tuple[str, str]]:
        asked.append({"strict": strict})
        return [("", "")] if strict else [("", "alice@example.test")]

    monkeypatch.setattr(address, "_LENIENT", address._lenient_keywords(strict_by_default))
    monkeypatch.setattr(address.email.utils, "getaddresses", strict_by_default)
    assert getaddresses(["alice@example.test <mallory@evil.test>"]) == [("", "alice@example.test")]
    assert asked == [{"strict": False}]
    assert address._lenient_keywords(lambda values: []) == {}
