"""CITATION.cff is valid CFF 1.2.0, cites the paper as the preferred citation, converts to a BibTeX
entry with a real key, title and authors, and has the package's version."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CFF = ROOT / "CITATION.cff"


def _cff() -> dict:
    data = yaml.safe_load(CFF.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _check_citation() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_citation", ROOT / "tools" / "check_citation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_citation_validates_against_the_cff_schema_and_converts_to_bibtex() -> None:
    """cffconvert needs jsonschema < 4, so it is in no extra: CI runs this check in a venv of its own
    (``tools/check_citation.sh``); here it runs only where cffconvert is importable."""
    pytest.importorskip("cffconvert", reason="cffconvert runs in its own venv: tools/check_citation.sh")
    text = _check_citation().check(CFF, ROOT / "README.md")
    assert text.startswith("@misc{gaugecli2026,")


def test_the_preferred_citation_is_the_paper() -> None:
    cff = _cff()
    assert cff["cff-version"] == "1.2.0"
    paper = cff["preferred-citation"]
    assert paper["type"] == "article"
    assert paper["title"] == "Hidden Gauge Controls Feature Specialization in ReLU Networks"
    assert paper["year"] == 2026
    assert [(a["family-names"], a["given-names"]) for a in paper["authors"]] == [("Wang", "Tongxi")]
    assert "cs.LG" in paper["notes"]


def test_the_software_entry_has_a_title_authors_and_the_projects_licence() -> None:
    cff = _cff()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff["type"] == "software"
    assert cff["title"].startswith("gaugecli: ")
    assert cff["authors"] and all(a.get("name") or a.get("family-names") for a in cff["authors"])
    assert cff["license"] == project["license"] == "MIT"
    assert cff["abstract"].strip()


def test_the_version_is_single_sourced_and_citation_cff_has_it() -> None:
    """pyproject.toml reads the version from ``gaugecli/_version.py`` (``gaugecli.__version__``); the
    installed metadata (what ``gaugecli --version`` prints) and CITATION.cff must say the same."""
    from importlib.metadata import version

    import gaugecli
    from gaugecli._version import __version__

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gaugecli._version.__version__"}
    assert gaugecli.__version__ == __version__ == version("gaugecli")
    assert str(_cff()["version"]) == gaugecli.__version__, "CITATION.cff's version is not gaugecli.__version__"
