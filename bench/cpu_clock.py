"""Runs a bench script with ``time.perf_counter`` reading the process's CPU time
(``time.process_time``): on a machine shared with other work the wall clock counts the others'
too, the CPU time only the bench's own (``bench/compare.py`` runs ``simulate`` so on both sides,
so that the reference's own script is measured the same way).

usage: python bench/cpu_clock.py SCRIPT [ARGS...]
"""

from __future__ import annotations

import runpy
import sys
import time

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    time.perf_counter = time.process_time
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
