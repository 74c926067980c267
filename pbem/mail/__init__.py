"""Pure email <-> game code: no I/O."""
