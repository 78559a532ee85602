# Inference Engine Map. `make serve` and `make test` set everything up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# requirements.txt: the direct pins, edited by hand. requirements.lock: every package, direct and
# transitive, with the SHA-256 of every file PyPI has for it; generated from requirements.txt by `make lock`.
LOCK := requirements.lock
PIP_TOOLS := pip-tools==7.6.2
PYPI := https://pypi.org/simple
STAMP := $(VENV)/.installed-$(shell cat $(LOCK) | sha1sum | cut -c1-12)
NODE_STAMP := node_modules/.installed-$(shell cat package-lock.json | sha1sum | cut -c1-12)
CHROMIUM ?= /usr/bin/chromium
export NO_MKDOCS_2_WARNING := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup serve build test check validate fix check-format bench chromium clean lock

setup: $(STAMP) $(NODE_STAMP)

# --require-hashes: pip installs nothing that is not in the lock, and only files whose hash is there
$(STAMP): $(LOCK)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r $(LOCK)
	rm -f $(VENV)/.installed-*
	touch $@

# After editing requirements.txt: `make lock` (keeps every other pin; LOCK_ARGS=--upgrade moves all of
# them to their newest release, LOCK_ARGS="--upgrade-package NAME" one). It resolves against PyPI alone,
# whatever this machine's pip configuration says, so the hashes are PyPI's. Commit both files.
lock:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	export PIP_CONFIG_FILE=/dev/null && unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_CONSTRAINT && \
	$(PYTHON) -m venv "$$tmp/venv" && \
	"$$tmp/venv/bin/pip" install --quiet --disable-pip-version-check --index-url $(PYPI) "$(PIP_TOOLS)" && \
	CUSTOM_COMPILE_COMMAND="make lock" "$$tmp/venv/bin/pip-compile" --quiet --generate-hashes --strip-extras \
	  --no-emit-index-url --index-url $(PYPI) $(LOCK_ARGS) --output-file $(LOCK) requirements.txt

$(NODE_STAMP): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "Installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@test -x $(CHROMIUM) || { echo "chromium missing at $(CHROMIUM)"; exit 1; }

serve: setup
	$(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8000 --livereload

build: setup
	$(VENV)/bin/mkdocs build --strict

# Two test processes (pytest-xdist), each test file whole in one of them; the site is built once for both
# (tests/conftest.py). `make test TEST_WORKERS=0` runs everything in one process.
TEST_WORKERS ?= 2
XDIST = $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)
test: setup chromium
	$(MAKE) --no-print-directory check-format
	$(PY) -m pytest $(XDIST)

# A contributor's loop: the data, the format, the rules and the unit tests; no site build, no browser
# (tests that build the site or drive Chromium carry the build and browser markers), and a quarter of the
# hypothesis budget (make test runs all of it).
check: $(STAMP)
	$(PY) -m selector validate
	$(PY) -m selector fix --check
	IEM_FUZZ_SCALE=$${IEM_FUZZ_SCALE:-0.25} $(PY) -m pytest $(XDIST) -m "not build and not browser"

validate: $(STAMP)
	$(PY) -m selector validate

# canonical layout of every data file (comments kept); exits 1 naming the file and line of invalid YAML
fix: $(STAMP)
	$(PY) -m selector fix

# the same check without writing: lists files `make fix` would change, exits 1 if any (part of `make test`)
check-format: $(STAMP)
	$(PY) -m selector fix --check

bench: setup chromium
	$(PY) tests/perf/bench.py

clean:
	rm -rf site .pytest_cache bench-results

# Mutation testing (not part of `make test`): mutmut (requirements-mutation.txt) on selector/rules.py, fit.py and
# inputs.py against their fast tests, a score per module; then hand-made mutations of the page scripts against
# the browser tests (tests/mutation/js_mutations.py). At most two test processes, niced. All of mutmut's ~6,000
# mutants take hours on two shared cores: MUTATION_ARGS="--sample 150" checks a seeded sample per module instead
# (add --module selector.rules for one module).
.PHONY: mutation mutation-js
MUTATION_ARGS ?=
mutation: setup chromium
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-mutation.txt
	nice -n 10 $(PY) tests/mutation/mutmut_run.py --max-children 2 $(MUTATION_ARGS); py=$$?; \
	nice -n 10 $(PY) tests/mutation/js_mutations.py; js=$$?; exit $$(( py || js ))

mutation-js: setup chromium
	nice -n 10 $(PY) tests/mutation/js_mutations.py
