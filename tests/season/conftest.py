"""The season tests run the daemon against a real Dovecot, as tests/daemon does (the same
start-up check and clean-up of a killed session's servers)."""

from tests.daemon.conftest import pytest_sessionstart

__all__ = ["pytest_sessionstart"]
