"""The inbound policy: a fetched mail under its guard (:mod:`.guard`), then the table of steps
(:mod:`.steps`) that takes it to its game, one atomic write (RELIABILITY §3.4)."""
