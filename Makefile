# Quick start: `make demo` plays a game, `make test` runs the whole suite.
# The venv is made from the interpreter the install guide runs pbem on, the system's
# /usr/bin/python3 (Debian's, built with PGO and LTO), when it is Python >= 3.11 with venv's
# ensurepip; otherwise from the first python3 on PATH. So the suite tests what production runs
# (Debian's 3.11.2 reads some mail differently from pyenv's 3.11.7: pbem/mail/address.py), and
# `make bench` measures it (docs/balance.md, Speed). `make PYTHON=...` chooses another.
SYSTEM_PYTHON := $(shell /usr/bin/python3 -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo /usr/bin/python3)
PYTHON ?= $(or $(SYSTEM_PYTHON),python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
GAME   ?= lupus-in-tabula
LIST   ?= external
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest soak soak-properties bench clean mailstack man mailbox

DEMO_STAMP := $(VENV)/.installed-demo

# The venv is made once (`make demo` then `make test` share it). pip and the build backend are
# upgraded in one run, and the editable install builds with them (--no-build-isolation: no
# throwaway build environment). Python >= 3.11's own pip already does PEP 660 editable installs;
# the upgrade is for speed (pip 23.2's resolution of `.[dev]` costs more than the upgrade).
# BUILD_REQUIRES is pyproject.toml's [build-system] requires: keep them in step.
BUILD_REQUIRES := 'setuptools>=77'
PIP := $(BIN)/pip --disable-pip-version-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -q --upgrade pip $(BUILD_REQUIRES)
	$(PIP) install -q --no-build-isolation -e '.[dev]'
	touch $(STAMP)

# the demo needs only Python: the package and its `demo` extra (aiosmtpd), nothing else
$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install -q --upgrade pip $(BUILD_REQUIRES)
	$(PIP) install -q --no-build-isolation -e '.[demo]'
	touch $(DEMO_STAMP)

# LIST=relay: the daemon is the list ([list] mode = "relay"), not the demo's mail system.
# LANG=en: the mail in English (French by default). Only a LANG given on make's command line
# counts, not the locale's; the demo itself then runs in the C.UTF-8 locale.
ifeq ($(origin LANG),command line)
DEMO_LANG := $(LANG)
override LANG := C.UTF-8
else
DEMO_LANG := fr
endif
demo: $(DEMO_STAMP)
	$(BIN)/pbem demo --game $(GAME) --list $(LIST) --lang $(DEMO_LANG)

mailstack:
	@./scripts/install-mailstack.sh

lint: $(STAMP)
	$(BIN)/ruff check pbem tests bench
	$(BIN)/ruff format --check pbem tests bench

typecheck: $(STAMP)
	$(BIN)/mypy pbem

# worker processes of pytest-xdist: most daemon tests wait on servers and timers, so more
# workers than cores; one test at a time (`--maxschedchunk 1`) is handed to the first free
# worker, slowest first (tests/conftest.py)
PYTEST_WORKERS ?= 6

pytest: $(STAMP) mailstack
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist load --maxschedchunk 1

# mypy (about 7 s on one core) runs beside pytest, whose start (the controller compiling the
# test modules, the workers collecting) leaves a core idle; its report is printed after
# pytest's, and either failing fails `make test`. `make typecheck` alone runs it in the open.
test: lint
	@$(BIN)/mypy pbem > $(VENV)/mypy.out 2>&1 & typed=$$!; \
	$(MAKE) --no-print-directory pytest; tested=$$?; \
	wait $$typed; checked=$$?; echo "$(BIN)/mypy pbem"; cat $(VENV)/mypy.out; \
	[ $$tested -eq 0 ] && [ $$checked -eq 0 ]

# the man page and the bash completion are generated from the argparse tree (a test checks them)
man: $(STAMP)
	$(BIN)/python -m pbem.cli.manpage > docs/pbem.1
	$(BIN)/pbem completion bash > completion/pbem.bash

# the long forms of the random kill tests: F1, 200 random kill -9 during a burst of 600 mails
# (make test: 15); the store's write loop, 300 kill -9 (make test: 50)
soak: $(STAMP) mailstack
	PBEM_F1_KILLS=200 PBEM_STORE_KILLS=300 $(BIN)/pytest -s \
		tests/daemon/test_faults.py::test_f1_random_kills_during_burst \
		tests/adapters/test_store.py::test_kill9_trials_always_readable_at_last_commit

# the long form of the property tests (random bot games, fuzzed mail): the number of examples each
# was written with (make test: about a third, new random seeds each run; tests/support/examples.py)
soak-properties: $(STAMP)
	PBEM_SOAK=1 $(BIN)/pytest -n $(PYTEST_WORKERS) tests/lupus/test_properties.py \
		tests/chasse/test_playouts.py tests/loupgarou/test_lg_playouts.py \
		tests/dracula/test_properties.py tests/mail/test_envelope.py tests/mail/test_inbound.py

# every reader's mailbox of a whole bot game of each game (mbox: text and HTML parts), to open
# in a mail client: mailboxes/<game>/<address>.mbox (LANG_MAIL=en for the English texts)
LANG_MAIL ?= fr
mailbox: $(STAMP)
	$(BIN)/python -m pbem.tools.mailboxes mailboxes --lang $(LANG_MAIL)

# the benches of HEAD and of a reference commit side by side in one run (issue 23; simulate in
# lockstep, game by game, the others by alternating whole runs; not part of `make test`): `make bench REF=<commit>`; README's performance section holds a run
REF ?= a507d5c
BENCH_ARGS ?=
bench: $(STAMP) mailstack
	$(BIN)/python bench/compare.py --ref $(REF) $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
