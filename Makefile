# Set-up and checks. Every target works on a fresh machine: it creates .venv and installs the
# extras it needs first (each set once, again when pyproject.toml changes).
#   make lab    JupyterLab and Notebook 7 on copies of notebooks/ (the package + `lab`)
#   make check  lint, types (the JS too), the fast tests   (+ `test`; node and npm for js/)
#   make test   everything, browser tests too    (+ `test`, `browser`, and Debian's Chromium)
#   make lite   the notebooks as an offline JupyterLite site in build/lite/ (own build env,
#               downloads cached in .cache/lite/); make lite-serve serves it on 127.0.0.1
#   make widget the widget's bundle applypatch_ext/js/ from js/src/ (node and npm; committed)

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CACHE ?= .cache
# Bytecode is cached in $(CACHE)/pycache (never beside the sources), also where the environment
# says not to write it (PYTHONDONTWRITEBYTECODE): without it every test worker, kernel and
# command a test starts compiles the package, and pytest rewrites every test module, again.
export PYTHONPYCACHEPREFIX := $(abspath $(CACHE))/pycache
unexport PYTHONDONTWRITEBYTECODE
LAB_PORT ?= 8888
LAB_DIR ?= build/lab
LITE_PORT ?= 8000
# pytest-playwright's artifacts (traces, screenshots of failed browser tests).
TEST_RESULTS ?= test-results
# npm ci of js/ (the widget's bundler and type checker) has run since js/package*.json changed.
JS_STAMP := js/node_modules/.package-lock.json

.PHONY: install lab lab-fresh check test test-min test-py lint jscheck dist conformance bench \
    bench-browser fuzz lite lite-serve clean labextension widget

# Every venv is made by `python -m venv` (so it has pip, which the artefact tests use), and
# filled by uv, from PyPI into this venv: the same packages as pip would take, in seconds instead
# of minutes (CI fills four venvs: this one, the lowest versions, Python 3.12 and 3.13).
UV := $(VENV)/bin/uv
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# (its own target, so that a venv made before uv was used gets it too)
$(UV): | $(PY)
	$(PY) -m pip install --quiet "uv>=0.9"

# One stamp per set of extras: `make lab` never installs the test tools. The built labextension
# is copied into the venv (shared data, even in an editable install): a new build (its
# package.json names the new bundle) installs again, or JupyterLab would run the old one.
INSTALLED_FROM := pyproject.toml applypatch_ext/labextension/package.json
$(VENV)/.installed-%: $(INSTALLED_FROM) | $(UV)
	$(UV) pip install --quiet --python $(PY) -e ".[$(subst +,$(comma),$*)]"
	touch $@

comma := ,
LAB_STAMP := $(VENV)/.installed-lab
TEST_STAMP := $(VENV)/.installed-test
ALL_STAMP := $(VENV)/.installed-test+browser

install: $(ALL_STAMP)

# JupyterLab (and Notebook 7, at /tree) on copies of the teaching notebooks in $(LAB_DIR): what
# you run and save stays there, notebooks/ stays as committed (tools/teaching.py: a copy you
# changed is kept; lab-fresh replaces every copy).
lab: $(LAB_STAMP)
	$(PY) tools/teaching.py lab-copies --into $(LAB_DIR) $(if $(FRESH),--fresh,)
	$(PY) -m jupyterlab --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port=$(LAB_PORT) \
	    --ServerApp.root_dir=$(LAB_DIR) $(if $(filter 0,$(shell id -u)),--allow-root,)

lab-fresh:
	$(MAKE) lab FRESH=1

# mypy reads the browser tests and bench/ too: their Playwright and jupyter_server types come
# with the `browser` extra
lint: $(ALL_STAMP) jscheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# The widget's JS: its type check (TypeScript over the JSDoc of js/src, no emit) and whether the
# committed bundle is what js/src builds. npm ci runs once, again when js/package*.json change.
jscheck: $(JS_STAMP)
	cd js && node node_modules/typescript/bin/tsc -p .
	node js/build.mjs --check

# Both cores: pytest-xdist, the tests that share a server or a module's fixture on one worker
# (tests/conftest.py). `make check JOBS=0` runs in one process.
JOBS ?= 2
XDIST = $(if $(filter 0,$(JOBS)),,-n $(JOBS) --dist loadgroup)

# Lint, types and every test that is neither `slow` nor `browser` (no browser is started);
# runs without ../shared (the reference scenarios are then skipped, saying so).
check: lint
	$(PY) -m pytest -q -p no:cacheprovider $(XDIST) -m "not slow and not browser"

# The browser tests drive Debian's Chromium (never `playwright install`: it downloads a browser).
test: lint $(ALL_STAMP)
	@test -x /usr/bin/chromium || { apt-get update && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }
	$(PY) -m pytest $(XDIST) --browser-tests --output=$(TEST_RESULTS) --screenshot=only-on-failure

# The fast tests (those of `make check`) with exactly the lowest versions of the runtime
# dependencies that pyproject.toml allows (tools/lower_bounds.py), on the lowest Python, with
# the suite's own warning settings. Its own venv, .venv-min.
MIN_VENV := .venv-min
FAST = -p no:cacheprovider -m "not slow and not browser" $(XDIST)
$(MIN_VENV)/.installed: pyproject.toml tools/lower_bounds.py | $(UV)
	$(PYTHON) -m venv $(MIN_VENV)
	$(PYTHON) tools/lower_bounds.py > $(MIN_VENV)/constraints.txt
	$(UV) pip install --quiet --python $(MIN_VENV)/bin/python -e ".[test]" \
	    -c $(MIN_VENV)/constraints.txt
	touch $@

test-min: $(MIN_VENV)/.installed
	$(MIN_VENV)/bin/python tools/lower_bounds.py --check
	$(MIN_VENV)/bin/python -m pytest -q $(FAST)

# The fast tests on every other Python the package claims (its classifiers: 3.12, 3.13), each
# in .venv-3.N with the `test` extra; a version this machine lacks is skipped, saying so. The
# node tests are left out there: they do not depend on the Python that starts them.
test-py: | $(UV)
	@set -e; $(PYTHON) tools/pythons.py --except 3.11 | while read -r version interpreter; do \
	    if [ "$$interpreter" = "-" ]; then \
	        echo "test-py: SKIPPED Python $$version: no python$$version on PATH or in pyenv"; \
	        continue; fi; \
	    venv=.venv-$$version; \
	    if [ ! -f $$venv/.installed ] || [ pyproject.toml -nt $$venv/.installed ]; then \
	        $$interpreter -m venv $$venv && \
	        $(UV) pip install --quiet --python $$venv/bin/python -e ".[test]" && \
	        touch $$venv/.installed; fi; \
	    echo "test-py: the fast tests on $$($$venv/bin/python --version)"; \
	    $$venv/bin/python -m pytest -q $(FAST) --ignore=tests/jupyter/test_js.py; \
	done

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

# The sdist and the wheel in dist/, as a release would build them: `python -m build` makes the
# sdist, then the wheel from the sdist (each in an isolated build environment from PyPI). Then
# `pip install dist/*.whl` installs it anywhere; tests/test_artefacts.py checks both.
dist: $(TEST_STAMP)
	rm -rf dist
	$(PY) -m build --outdir dist .
	@ls -l dist

# The widget that anywidget loads: js/src/ bundled by esbuild (exact version in
# js/package-lock.json) into applypatch_ext/js/widget.js, its CSS beside it and SOURCES.sha256,
# all committed, so that installing from a clone needs no node. Rebuild after changing js/.
$(JS_STAMP): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund
	touch $@

widget: $(JS_STAMP)
	node js/build.mjs

# Ours against the reference binary on every scenario and on the 814 model-written patches of
# tests/data/model-patches, in both line-ending modes (about 8 minutes on two cores).
conformance: $(TEST_STAMP)
	$(PY) tools/conformance.py --cache $(CACHE) --jobs 2

# (section j saves notebooks through a real Jupyter server: the `browser` extra brings it)
bench: $(ALL_STAMP)
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
	rm -rf $(VENV) $(MIN_VENV) .venv-3.* $(CACHE) .pytest_cache .mypy_cache .ruff_cache \
	    $(TEST_RESULTS) dist
