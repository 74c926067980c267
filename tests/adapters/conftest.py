"""The adapter tests talk to a real Dovecot and relay (tests/support/mailstack.py)."""

from __future__ import annotations

from tests.daemon.conftest import pytest_sessionstart
from tests.support.fixtures import stack

__all__ = ["pytest_sessionstart", "stack"]
