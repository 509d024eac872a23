# Two commands: `make run` (set up and start the app) and `make test` (set up and run every test).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DATA_DIR ?= data
# No model is ever fetched from a hub at run time; bundled and cached models load from disk.
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export ANONYMIZED_TELEMETRY ?= False

.PHONY: run serve test setup setup-dev browser lint bench clean

$(VENV)/.runtime: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	touch $@

$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt requirements-scale.txt $(VENV)/.llm
	$(PY) -m pip install -r requirements-dev.txt
	touch $@

# llama.cpp built for any x86-64 CPU (no -march=native, no AVX-512/AMX), so a build cached on one machine
# runs on another.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
$(VENV)/.llm: $(VENV)/.runtime requirements-llm.txt
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install -r requirements-llm.txt
	touch $@

$(VENV)/.scale: $(VENV)/.runtime requirements-scale.txt
	$(PY) -m pip install -r requirements-scale.txt
	touch $@

setup: $(VENV)/.runtime

setup-dev: $(VENV)/.dev

## Start the app on http://localhost:8501 with the sample filing ingested (offline engine).
run: setup
	$(PY) -m core.cli ingest sample_docs/northwind_10k_fy2025.html --data-dir $(DATA_DIR)
	WORKBENCH_DATA_DIR=$(DATA_DIR) $(PY) -m streamlit run app.py --server.headless true --browser.gatherUsageStats false

## One app server of a shared library (README, Scale-out): the servers come from WORKBENCH_* variables.
ADDRESS ?= 0.0.0.0
PORT ?= 8501
SECRETS ?= .streamlit/secrets.toml
serve: $(VENV)/.scale
	$(PY) -m streamlit run app.py --server.headless true --browser.gatherUsageStats false \
		--server.address $(ADDRESS) --server.port $(PORT) --secrets.files $(SECRETS)

## Headless Chromium for the browser tests (Debian's package; no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium; }

## Set up everything and run the whole test suite (unit, slow, browser).
test: setup-dev browser
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest

lint: setup-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench: setup-dev
	$(PY) benchmarks/ingest.py
	$(PY) benchmarks/retrieval.py
	$(PY) benchmarks/scale.py
	$(PY) benchmarks/research.py
	$(PY) benchmarks/parallel.py
	$(PY) benchmarks/evaluation.py
	$(PY) benchmarks/soak.py

clean:
	rm -rf $(VENV) $(DATA_DIR) .pytest_cache .ruff_cache
