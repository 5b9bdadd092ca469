"""Validate CITATION.cff with cffconvert and check the BibTeX it converts to.

cffconvert 2 needs ``jsonschema < 4``, which gaugecli's own floor (``jsonschema >= 4``) excludes, so
it is neither a dependency nor an extra: ``tools/check_citation.sh`` runs this script in a
throw-away venv that has cffconvert alone (CI does; so does ``make check-citation``).
``tests/test_citation.py`` runs it too wherever cffconvert happens to be importable.

Checks: CITATION.cff is valid CFF 1.2.0 (cffconvert's schema); its BibTeX, made with the key
:data:`KEY`, carries that key, the title and the authors; and the BibTeX block of README.md's
citation section is exactly that conversion (so the README is regenerated, never hand-edited:
``python tools/check_citation.py --print``).

Usage: ``python tools/check_citation.py [--print] [CITATION.cff [README.md]]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = "gaugecli2026"
"""The BibTeX key of the software (cffconvert's own default is ``YourReferenceHere``)."""


def bibtex(cff: Path) -> tuple[str, dict]:
    """CITATION.cff validated and converted to BibTeX with the key :data:`KEY`, and as cffconvert read it."""
    from cffconvert.cli.create_citation import create_citation

    citation = create_citation(str(cff), None)
    citation.validate()  # raises on any schema violation
    return str(citation.as_bibtex(reference=KEY)), citation.cffobj


def check(cff: Path, readme: Path | None) -> str:
    """Every check of the module docstring; returns the BibTeX. Raises ``AssertionError``."""
    text, data = bibtex(cff)
    assert text.startswith("@misc{" + KEY + ",\n"), f"BibTeX key is not {KEY}: {text.splitlines()[0]}"
    assert "YourReferenceHere" not in text
    fields = dict(re.findall(r"^(\w+) = \{(.*)\},?$", text, re.MULTILINE))
    assert fields.get("title") == data["title"], f"BibTeX title {fields.get('title')!r}"
    names = [a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in data["authors"]]
    assert fields.get("author") == " and ".join(names), f"BibTeX author {fields.get('author')!r}"
    assert fields.get("year") == str(data["date-released"])[:4], f"BibTeX year {fields.get('year')!r}"
    if readme is not None:
        blocks = re.findall(r"```bibtex\n(.*?)```", readme.read_text(encoding="utf-8"), re.DOTALL)
        assert text in blocks, (
            f"{readme.name}'s BibTeX of the software is not cffconvert's conversion of {cff.name}; it is:\n{text}"
        )
    return text


def main(argv: list[str]) -> int:
    show = "--print" in argv
    paths = [Path(a) for a in argv if a != "--print"]
    cff = paths[0] if paths else ROOT / "CITATION.cff"
    readme = paths[1] if len(paths) > 1 else (None if show else ROOT / "README.md")
    if show:
        print(bibtex(cff)[0], end="")
        return 0
    check(cff, readme)
    print(
        f"{cff.name}: valid CFF; BibTeX @misc{{{KEY}, …}} with title and authors; {readme.name if readme else ''} agrees"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
