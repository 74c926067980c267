"""Shared doubles, servers and fixtures of the tests (what more than one test folder uses)."""
