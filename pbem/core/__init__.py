"""The game-agnostic kernel: pure, no I/O, no clock, no global random."""
