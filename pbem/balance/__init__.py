"""Balance known before play: whole games through the rules only (:mod:`.fastgame`), many of
them in parallel (:mod:`.run`), what they say (:mod:`.report`), and the odds table the project
ships (:mod:`.odds`) for the game master's sign-up post. ``pbem balance`` is its command."""
