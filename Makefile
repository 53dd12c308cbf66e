# Two commands do all the set-up on a fresh machine:
#   make lab    start JupyterLab on the first notebook
#   make test   run every test: pytest, the notebooks under nbval, the browser test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: lab test bench browser-deps clean

# The server's root is the repository, so the file browser shows agtool/tools.py beside
# notebooks/ (a notebook alone on the command line would make its folder the root), and
# the first notebook opens. JupyterLab refuses to run as root unless told; a lab in a
# container often is root. tests/test_browser_lab.py runs this very rule.
lab: $(VENV)/.installed
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) --ServerApp.root_dir=. notebooks/01_contract.ipynb

test: $(VENV)/.installed browser-deps
	$(BIN)/python -m pytest

bench: $(VENV)/.installed
	$(BIN)/python -m agtool.bench

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# The browser test drives Debian's Chromium (a Playwright browser download is not possible here).
browser-deps:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "The browser test needs Chromium: sudo apt-get install -y chromium"; fi; }

clean:
	rm -rf $(VENV)
