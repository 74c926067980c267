"""The record of a game: its sealed deal, its archive (model, pages, the mail that carries
them) and statistics across finished games.

- :mod:`pbem.record.deal`: the deal's commitment and its reveal (``pbem verify``);
- :mod:`pbem.record.seed`: every draw from one committed seed, the derivation versioned;
- :mod:`pbem.record.chain`: the hash chain the result posts carry;
- :mod:`pbem.record.export`: the open record (``pbem export``, docs/record.md);
- :mod:`pbem.record.replay`: ``pbem verify`` of a record (chain, replay, results);
- :mod:`pbem.record.archive`: the archive's model and its HTML and text pages;
- :mod:`pbem.record.mail`: the archive mailed to every player when a game ends;
- :mod:`pbem.record.stats`: statistics across finished games (``pbem stats``).

Nothing is imported here: a command that needs the deal's digest must not pay for jinja.
"""
