# Lint, formatting, types and import contracts (run by .ci/run after the tests).
# Uses the tools of .venv (the README's test command installs them).
BIN ?= .venv/bin

.PHONY: check lint format types imports test

check: lint types imports

lint:
	$(BIN)/ruff check src tests benchmarks packaging scripts
	$(BIN)/ruff format --check src tests benchmarks packaging scripts

format:
	$(BIN)/ruff format src tests benchmarks packaging scripts

types:
	$(BIN)/mypy

imports:
	$(BIN)/lint-imports

test:
	$(BIN)/python -m pytest -q -n auto --dist loadfile
