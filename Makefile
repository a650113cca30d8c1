# Set-up and checks. `make lab` and `make test` work on a fresh machine: each creates .venv
# and installs what it needs first.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
CACHE ?= .cache
LAB_PORT ?= 8888

.PHONY: install lab test lint conformance bench fuzz clean labextension

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

lab: $(STAMP)
	$(PY) -m jupyterlab --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
	    --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# The browser tests drive Debian's Chromium (never `playwright install`: it downloads a browser).
test: lint
	@test -x /usr/bin/chromium || { apt-get update && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
	$(PY) -m pytest

# The JupyterLab 4 / Notebook 7 extension that edits %%apply_patch cells as a patch: sources in
# labextension/, built into $(LABEXT) (committed, ~11 KB, so that installing from a clone needs
# no node), shipped in the wheel as share/jupyter/labextensions/applypatch-ext. Rebuild after
# changing labextension/: the machine's node and npm, exact versions from its package-lock.json,
# JupyterLab's core package list from the installed jupyterlab; then the venv gets the new copy.
LABEXT := applypatch_ext/labextension
LAB_CORE = $$($(CURDIR)/$(PY) -c 'import jupyterlab, os; print(os.path.dirname(jupyterlab.__file__))')/staging

labextension/node_modules/.package-lock.json: labextension/package.json labextension/package-lock.json
	cd labextension && npm ci --no-audit --no-fund

labextension: $(STAMP) labextension/node_modules/.package-lock.json
	rm -rf $(LABEXT)
	cd labextension && node node_modules/@jupyterlab/builder/lib/build-labextension.js \
	    --core-path "$(LAB_CORE)" .
	sha256sum labextension/package.json labextension/package-lock.json labextension/src/*.js \
	    > $(LABEXT)/SOURCES.sha256
	$(PY) -m pip install --quiet --no-deps -e .

conformance: $(STAMP)
	$(PY) tools/conformance.py --cache $(CACHE)

bench: $(STAMP)
	$(PY) bench/run.py --cache $(CACHE) --output bench/RESULTS.md

fuzz: $(STAMP)
	APPLYPATCH_FUZZ_SCALE=50 $(PY) -m pytest tests/reliability -q -p no:cacheprovider

clean:
	rm -rf $(VENV) $(CACHE) .pytest_cache .mypy_cache .ruff_cache
