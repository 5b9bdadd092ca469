"""What the installed package and the sdist carry: the version single-sourced, the SPDX licence,
the typing marker and the schemas in the wheel, and in the sdist everything its tests read."""

from __future__ import annotations

import tomllib
from importlib import metadata, resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_installed_metadata() -> None:
    import gaugecli

    meta = metadata.metadata("gaugecli")
    assert meta["Version"] == gaugecli.__version__
    assert meta["License-Expression"] == "MIT"
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    # PEP 639: the SPDX expression supersedes the licence classifiers (setuptools refuses both)
    assert not [c for c in classifiers if c.startswith("License ::")]


def test_the_package_carries_its_typing_marker_and_schemas() -> None:
    package = resources.files("gaugecli")
    assert package.joinpath("py.typed").is_file()
    schemas = [p.name for p in package.joinpath("store", "schemas").iterdir() if p.name.endswith(".json")]
    assert "simulate.json" in schemas and len(schemas) >= 8


def test_the_extras_keep_cffconvert_out_and_jsonschema_at_4() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert not any("cffconvert" in r for reqs in extras.values() for r in reqs), "cffconvert needs jsonschema < 4"
    assert "jsonschema>=4" in project["dependencies"]
    assert {"test", "dask", "dev", "docs", "frame"} <= set(extras)


def test_the_sdist_manifest_carries_what_the_tests_read() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    for needed in ("CITATION.cff", "ARCHITECTURE.md", "CHANGELOG.md", "mkdocs.yml", "constraints.txt", "Makefile"):
        assert needed in manifest, f"MANIFEST.in does not include {needed}"
    for folder in ("docs", "tests", "tools", "figures", "benchmarks"):
        assert f"graft {folder}" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8"), folder
