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
