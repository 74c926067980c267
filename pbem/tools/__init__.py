"""Offline drivers of the pipeline: ``pbem simulate``, bots, ``pbem demo`` and the mail demo."""
