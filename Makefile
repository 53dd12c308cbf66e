# Two commands do all the set-up on a fresh machine:
#   make lab    start JupyterLab on the first notebook
#   make test   run every test: pytest, the notebooks under nbval, the browser test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: lab test lint test-newest bench browser-deps clean

# The server's root is the repository, so the file browser shows agtool/tools.py beside
# notebooks/ (a notebook alone on the command line would make its folder the root), and
# the first notebook opens. JupyterLab refuses to run as root unless told; a lab in a
# container often is root. tests/lab/test_browser.py runs this very rule.
lab: $(VENV)/.installed
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) --ServerApp.root_dir=. notebooks/01_contract.ipynb

# The lint first (fail fast: a few seconds, the suite takes minutes), then every test,
# on every core (pytest-xdist; conftest.py says which tests share a worker), then the stage
# and grader tests again under the newest Python on the machine. The lab's own modules are
# compiled to bytecode first: the suite starts a hundred Pythons (kernels, CLIs, zygotes), and
# where PYTHONDONTWRITEBYTECODE is set (container images set it) each would compile them again.
test: $(VENV)/.installed browser-deps
	@$(MAKE) --no-print-directory lint
	$(BIN)/python -m compileall -q agtool grader tests conftest.py
	$(BIN)/python -m pytest -n auto
	@$(MAKE) --no-print-directory test-newest

# Ruff's lint rules and formatting, then mypy's types, on agtool/, grader/ and tests/: what
# they check and skip is in pyproject.toml. The student kit's Makefile has no such step: a
# student is graded on the stages, not on formatting.
lint: $(VENV)/.installed
	$(BIN)/ruff check --no-cache agtool grader tests
	$(BIN)/ruff format --no-cache --check agtool grader tests
	$(BIN)/mypy

# The newest Python 3.12+ that runs: on PATH, or one pyenv has installed (pyenv's shims
# answer for versions that are not selected, so each is tried, not just found). Empty if none.
NEWEST_PYTHON = $(shell for v in 3.14 3.13 3.12; do \
  for p in python$$v $$HOME/.pyenv/versions/$$v*/bin/python$$v; do \
    "$$p" -c 'import sys' 2>/dev/null && { command -v "$$p"; exit; }; done; done)
NEWEST_VENV := .venv-newest
# What the stage and grader tests import: their lines of requirements.txt, so the versions agree.
NEWEST_NEEDS := langgraph jsonschema hypothesis tqdm pyseccomp nbformat pytest pytest-xdist
# The stage tests, the oracle's, and the sandbox's (fork, signals, prctl: what a new Python may
# change); the slow end-to-end grading tests run under the main Python only, to keep this cheap.
# Its pytest loads the plugins it names, as pyproject.toml's addopts does (there: why).
NEWEST_TESTS := tests/lesson/test_stage1_contract.py tests/lesson/test_stage2_check_args.py tests/lesson/test_stage3_check_result.py \
  tests/lesson/test_stage4_door.py tests/lesson/test_stage5_memo.py tests/lesson/test_stage6_graph.py \
  tests/grader/test_grader_oracle.py tests/sandbox/test_sandbox.py

test-newest:
	@py="$(NEWEST_PYTHON)"; \
	if [ -z "$$py" ]; then echo "test-newest: no Python 3.12 or later on this machine; the tests ran under $$($(BIN)/python -V) only"; \
	else $(MAKE) --no-print-directory NEWEST_PYTHON="$$py" $(NEWEST_VENV)/.installed && \
	  echo "test-newest: the stage and grader tests under $$($(NEWEST_VENV)/bin/python -V)" && \
	  $(NEWEST_VENV)/bin/python -m compileall -q agtool grader tests && \
	  $(NEWEST_VENV)/bin/python -m pytest -n auto -q -o addopts= --disable-plugin-autoload -p xdist -p hypothesispytest -p no:cacheprovider $(NEWEST_TESTS); fi

$(NEWEST_VENV)/.installed: requirements.txt pyproject.toml
	$(NEWEST_PYTHON) -m venv $(NEWEST_VENV)
	grep -E '^($(subst $(eval) ,|,$(NEWEST_NEEDS)))[=<>!~ ]' requirements.txt > $(NEWEST_VENV)/requirements.txt
	$(NEWEST_VENV)/bin/python -m pip install --quiet -r $(NEWEST_VENV)/requirements.txt
	$(NEWEST_VENV)/bin/python -m pip install --quiet --no-deps -e .
	touch $@

bench: $(VENV)/.installed
	$(BIN)/python -m agtool.door_speed

# Every package installs at the version the lab's lock pins (`python -m grader lock` writes it from
# the environment the tests passed in), so a fresh clone tests what the kit and the Gradescope
# bundle ship: their locks are parts of this one (tests/instructor/test_lock.py). The data notebook 09
# reads (DATA, its one pin) installs without its dependencies: it declares vllm and numpy for a harness
# the lab never runs.
LOCK := grader/instructor/locks/lab.txt
DATA := notebooks/requirements-data.txt
$(VENV)/.installed: requirements.txt $(DATA) pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -c $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -r $(DATA)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# The browser test drives Debian's Chromium (a Playwright browser download is not possible here).
browser-deps:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "The browser test needs Chromium: sudo apt-get install -y chromium"; fi; }

clean:
	rm -rf $(VENV) $(NEWEST_VENV)
