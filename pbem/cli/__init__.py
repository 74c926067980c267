"""The ``pbem`` command line: argument parsing and wiring, thin."""
