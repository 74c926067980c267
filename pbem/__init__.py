"""pbem: an automated game master for play-by-email social-deduction games."""

__version__ = "0.1.0"
