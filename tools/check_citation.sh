#!/usr/bin/env bash
# CITATION.cff validated by cffconvert in a throw-away venv (cffconvert 2 needs jsonschema < 4, which
# gaugecli's own floor excludes, so it is installed nowhere else), and its BibTeX checked against
# README.md: see tools/check_citation.py.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
venv=$(mktemp -d "${TMPDIR:-/tmp}/gaugecli-cff.XXXXXX")
trap 'rm -rf "$venv"' EXIT
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'cffconvert>=2,<3'
"$venv/bin/python" tools/check_citation.py CITATION.cff README.md
