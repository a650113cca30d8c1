# Set-up and checks. Every target works on a fresh machine: it creates .venv and installs the
# extras it needs first (each set once, again when pyproject.toml changes).
#   make lab    JupyterLab on notebooks/         (the package + the `lab` extra)
#   make check  lint, types, the fast tests      (+ `test`)
#   make test   everything, browser tests too    (+ `test`, `browser`, and Debian's Chromium)
#   make lite   the notebooks as an offline JupyterLite site in build/lite/ (own build env,
#               downloads cached in .cache/lite/); make lite-serve serves it on 127.0.0.1

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CACHE ?= .cache
LAB_PORT ?= 8888
LITE_PORT ?= 8000
# pytest-playwright's artifacts (traces, screenshots of failed browser tests).
TEST_RESULTS ?= test-results

.PHONY: install lab check test lint conformance bench bench-browser fuzz lite lite-serve clean labextension

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# One stamp per set of extras: `make lab` never installs the test tools.
$(VENV)/.installed-%: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[$(subst +,$(comma),$*)]"
	touch $@

comma := ,
LAB_STAMP := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
ALL_STAMP := $(VENV)/.installed-test+browser

install: $(ALL_STAMP)

lab: $(LAB_STAMP)
	$(PY) -m jupyterlab --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
	    --ServerApp.root_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Lint, types and every test that is neither `slow` nor `browser`, with the `test` extra only;
# runs without ../shared (the reference scenarios are then skipped, saying so).
check: lint
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow and not browser"

# The browser tests drive Debian's Chromium (never `playwright install`: it downloads a browser).
test: lint $(ALL_STAMP)
	@test -x /usr/bin/chromium || { apt-get update && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
	$(PY) -m pytest --browser-tests --output=$(TEST_RESULTS) --screenshot=only-on-failure

# The JupyterLab 4 / Notebook 7 extension that edits %%apply_patch cells as a patch: sources in
# labextension/, built into $(LABEXT) (committed, ~11 KB, so that installing from a clone needs
# no node), shipped in the wheel as share/jupyter/labextensions/applypatch-ext. Rebuild after
# changing labextension/: the machine's node and npm, exact versions from its package-lock.json,
# JupyterLab's core package list from the installed jupyterlab; then the venv gets the new copy.
LABEXT := applypatch_ext/labextension
LAB_CORE = $$($(CURDIR)/$(PY) -c 'import jupyterlab, os; print(os.path.dirname(jupyterlab.__file__))')/staging

labextension/node_modules/.package-lock.json: labextension/package.json labextension/package-lock.json
	cd labextension && npm ci --no-audit --no-fund

labextension: $(LAB_STAMP) labextension/node_modules/.package-lock.json
	rm -rf $(LABEXT)
	cd labextension && node node_modules/@jupyterlab/builder/lib/build-labextension.js \
	    --core-path "$(LAB_CORE)" .
	sha256sum labextension/package.json labextension/package-lock.json labextension/src/*.js \
	    > $(LABEXT)/SOURCES.sha256
	$(PY) -m pip install --quiet --no-deps -e .

conformance: $(TEST_STAMP)
	$(PY) tools/conformance.py --cache $(CACHE)

bench: $(TEST_STAMP)
	$(PY) bench/run.py --cache $(CACHE) --output bench/RESULTS.md

# The live widget in a real JupyterLab and Debian's Chromium (as `make test`): long tasks, time
# to the final state, the saved notebook's growth per call; a section of bench/RESULTS.md.
bench-browser: $(ALL_STAMP)
	@test -x /usr/bin/chromium || { apt-get update && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
	$(PY) bench/browser.py --output bench/RESULTS.md

fuzz: $(TEST_STAMP)
	APPLYPATCH_FUZZ_SCALE=50 $(PY) -m pytest tests/reliability -q -p no:cacheprovider

# Needs only python3 and npm: the build environment is .cache/lite/venv, not .venv.
lite:
	$(PYTHON) tools/build_lite.py --cache $(CACHE)/lite --output build/lite

lite-serve:
	@test -f build/lite/index.html || $(MAKE) lite
	$(PYTHON) tools/serve_lite.py --port $(LITE_PORT) --directory build/lite

clean:
	rm -rf $(VENV) $(CACHE) .pytest_cache .mypy_cache .ruff_cache $(TEST_RESULTS)
