"""Helpers shared by the tests of several areas."""
