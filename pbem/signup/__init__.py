"""Sign-ups by mail (issue 13): a game opened without players takes them by mail, then starts.

- :mod:`pbem.signup.lobby`: the lobby's terms, events, state and checks (pure);
- :mod:`pbem.signup.decks`: the counts a game's rules accept and their decks (pure);
- :mod:`pbem.signup.table`: :class:`~pbem.signup.table.SignupTable`, the lobby driven by mail
  as the daemon and ``pbem simulate`` drive a game's Table, and the start;
- :mod:`pbem.signup.engine`: how the daemon loads such a game, and ``pbem open-game``'s setup;
- :mod:`pbem.signup.started`: a started game's setup and log (pure, below the Table).
"""
