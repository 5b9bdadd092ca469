#!/usr/bin/env bash
# The sdist passes its own tests: build it, unpack it into a temporary folder, install it (from the
# tarball, so its build is checked too) into a throw-away venv with torch from constraints.txt, and run
# its test suite from the unpacked tree against that install.
#   tools/check_sdist.sh          the whole suite (`make check-sdist`; as long as `make test`)
#   tools/check_sdist.sh --ci     the tests that read what only the sdist can lose — docs/, figures/,
#                                 CITATION.cff, ARCHITECTURE.md, tools/, the schemas — and the packaging,
#                                 CLI, completion and tutorial tests (CI's budget has no room for the rest);
#                                 and, where .venv exists, the dependencies are taken from it (a .pth file)
#                                 instead of installed again: gaugecli itself is still built from the sdist
#                                 and installed alone (--no-deps), saving about a minute of CI
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
SUBSET=(tests/test_docs.py tests/test_citation.py tests/test_architecture.py tests/test_packaging.py
        tests/test_site.py tests/test_completion.py tests/test_tutorial.py tests/test_store.py tests/test_cli.py
        tests/test_readme.py tests/test_package_page.py)
tests=(tests)
[[ "${1:-}" == "--ci" ]] && tests=("${SUBSET[@]}")
work=$(mktemp -d "${TMPDIR:-/tmp}/gaugecli-sdist.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { echo "-- [$SECONDS s] $*"; }

step "build the sdist"
"$PYTHON" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install --quiet build
"$work/venv/bin/python" -m build --sdist --outdir "$work/dist" . > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
sdist=$(ls "$work"/dist/gaugecli-*.tar.gz)
echo "$(basename "$sdist"): $(du -h "$sdist" | cut -f1)"

step "unpack it and install it into a throw-away venv"
mkdir "$work/src" && tar -xzf "$sdist" -C "$work/src"
src=$(ls -d "$work"/src/gaugecli-*)
if [[ "${1:-}" == "--ci" && -d .venv ]]; then
    deps=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$deps" > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_deps_from_dot_venv.pth"
    "${pip[@]}" install --quiet --no-deps "$sdist"
else
    "${pip[@]}" install --quiet -c "$src/constraints.txt" "$sdist[test,dask,frame]"
fi
# the tests must run against the install, not the unpacked sources beside them
where=$(cd "$work" && "$work/venv/bin/python" -c 'import gaugecli; print(gaugecli.__file__)')
[[ "$where" == "$work/venv/"* ]] || { echo "gaugecli imports from $where, not the install"; exit 1; }

step "run its tests from the unpacked sdist: ${tests[*]}"
cd "$src"
OMP_NUM_THREADS=1 MPLBACKEND=Agg "$work/venv/bin/python" -P -m pytest -q -p no:cacheprovider ${CHECK_SDIST_PYTEST_ARGS:-} "${tests[@]}"
step "the sdist passes its tests"
