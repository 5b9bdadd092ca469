"""CITATION.cff is valid CFF 1.2.0 and cites the paper as the preferred citation."""

from pathlib import Path

CFF = Path(__file__).resolve().parent.parent / "CITATION.cff"


def test_citation_validates_against_the_cff_schema() -> None:
    from cffconvert.cli.create_citation import create_citation

    citation = create_citation(str(CFF), None)
    citation.validate()  # raises on any schema violation
    cff = citation.cffobj
    assert cff["cff-version"] == "1.2.0"
    paper = cff["preferred-citation"]
    assert paper["title"] == "Hidden Gauge Controls Feature Specialization in ReLU Networks"
    assert paper["year"] == 2026
    assert [a["family-names"] for a in paper["authors"]] == ["Wang"]
    assert "cs.LG" in paper["notes"]


def test_the_version_is_the_same_in_pyproject_citation_and_the_installed_package() -> None:
    """The version is written in pyproject.toml and CITATION.cff: one test keeps the two (and the
    installed metadata, which ``gaugecli --version`` prints) the same."""
    import re
    import tomllib
    from importlib.metadata import version

    project = tomllib.loads((CFF.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    line = re.search(r"^version:\s*(\S+)\s*$", CFF.read_text(encoding="utf-8"), re.MULTILINE)
    assert line is not None, "CITATION.cff has no version line"
    cited = line.group(1).strip("'\"")
    assert project == cited == version("gaugecli")
