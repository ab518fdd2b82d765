#!/usr/bin/env bash
# Set up polytile on a fresh machine: a virtual environment at .venv with the core,
# every plugin and the example third-party plugin (and the notebook extra, which
# tests/integration/test_tour.py uses to run docs/tour.ipynb), then run the demo.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
packages=(-e ".[test,notebook]")
for plugin in plugins/*/ docs/examples/*/; do
    [ -f "$plugin/pyproject.toml" ] && packages+=(-e "$plugin")
done
.venv/bin/python -m pip install -qq "${packages[@]}"  # -qq: errors only, not setuptools chatter
.venv/bin/polytile solve examples/pentomino-6x10.toml
