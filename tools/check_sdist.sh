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
#                                 and installed alone (--no-deps), saving about a minute of CI; built by
#                                 .venv's setuptools (no isolated build environment), into a venv
#                                 without pip of its own
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

ci=0
[[ "${1:-}" == "--ci" && -d .venv ]] && ci=1
step "build the sdist"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check)
if ((ci)); then
    # .venv's setuptools builds it (no isolated build environment fetched from the registry, no `build`
    # installed first); `make check-sdist` keeps the isolated build, which also checks
    # [build-system].requires on its own
    "$PYTHON" -m venv --without-pip "$work/venv"
    .venv/bin/python -c 'import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])' \
        "$work/dist" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
else
    "$PYTHON" -m venv "$work/venv"
    "${pip[@]}" install --quiet build
    "$work/venv/bin/python" -m build --sdist --outdir "$work/dist" . > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
fi
sdist=$(ls "$work"/dist/gaugecli-*.tar.gz)
echo "$(basename "$sdist"): $(du -h "$sdist" | cut -f1)"

step "unpack it and install it into a throw-away venv"
mkdir "$work/src" && tar -xzf "$sdist" -C "$work/src"
src=$(ls -d "$work"/src/gaugecli-*)
if ((ci)); then
    deps=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$deps" > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_deps_from_dot_venv.pth"
    # the wheel built from the sdist (by .venv's pip and setuptools, from the tarball as pip unpacks it),
    # then installed alone into the throw-away venv, which has no pip of its own (ensurepip's few
    # seconds saved): .venv's pip installs into it (--python)
    .venv/bin/python -m pip --disable-pip-version-check wheel --quiet --no-deps --no-build-isolation \
        --wheel-dir "$work/wheel" "$sdist"
    .venv/bin/python -m pip --disable-pip-version-check --python "$work/venv/bin/python" install --quiet \
        --no-deps "$work"/wheel/gaugecli-*.whl
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
