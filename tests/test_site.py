"""The documentation site's sources: every page of mkdocs.yml's nav exists, the gallery covers every
committed figure with its claim and its reading, and the browser check's own pieces work (the link
checker and the raw-math detector of tools/check_site.py). The build itself is `make docs-site`
(`mkdocs build --strict`) and the browser check `make check-site`, both in CI."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_page_of_the_nav_exists_and_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = set(re.findall(r"^\s+- (?:[^:\n]+: )?\"?([\w/.-]+\.md)\"?$", config, re.MULTILINE))
    nav |= set(re.findall(r": ([\w/.-]+\.md)$", config, re.MULTILINE))
    generated = {"gallery.md"}  # tools/mkdocs_hooks.py writes it from README.md's figures table
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert nav - generated <= pages, f"in the nav but not in docs/: {sorted(nav - generated - pages)}"
    assert pages <= nav, f"in docs/ but not in the nav: {sorted(pages - nav)}"
    assert {"theory.md", "cli.md", "tutorial.md", "reference.md", "architecture.md"} <= nav


def test_the_architecture_page_includes_architecture_md() -> None:
    assert '--8<-- "ARCHITECTURE.md"' in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_the_gallery_has_every_figure_with_its_claim_and_reading() -> None:
    hooks = _tool("mkdocs_hooks")
    rows = {name: (claim, reading) for name, claim, reading in hooks.figure_rows()}
    pdfs = {p.stem for p in (ROOT / "figures").glob("*.pdf")}
    # a main-text version (figN_main.*) belongs to its full figure: no row, no sidecar of its own
    mains = {stem.removesuffix("_main") for stem in pdfs if stem.endswith("_main")}
    committed = pdfs - {f"{name}_main" for name in mains}
    assert mains <= committed and all((ROOT / "figures" / f"{name}_main.png").is_file() for name in mains)
    assert committed and set(rows) == committed, f"README's figures table vs figures/: {sorted(set(rows) ^ committed)}"
    for name in committed:
        assert (ROOT / "figures" / f"{name}.png").is_file() and (ROOT / "figures" / f"{name}.json").is_file()
        claim, reading = rows[name]
        assert claim and len(reading) > 40, name
    page = hooks.gallery_markdown()
    for name in committed:
        assert f"](figures/{name}.png)" in page and f"(figures/{name}.pdf)" in page and f"(figures/{name}.json)" in page


def test_the_link_checker_finds_broken_links_and_anchors(tmp_path: Path) -> None:
    check_site = _tool("check_site")
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="a/">ok</a><a href="a/#here">ok</a><a href="https://elsewhere.invalid/">external</a>'
        '<a href="b/">broken</a><a href="a/#nowhere">broken anchor</a><img src="missing.png">',
        encoding="utf-8",
    )
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">x</h2><a href="../">up</a>', encoding="utf-8")
    failures = check_site.check_links(tmp_path)
    assert len(failures) == 3, failures
    assert any("'b/'" in f for f in failures) and any("nowhere" in f for f in failures)
    assert any("missing.png" in f for f in failures)


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("the loss $L$ falls", True),
        ("$$ L = 1 $$", True),
        (r"inline \(x\) left", True),
        (r"display \[x\] left", True),
        ("costs $5 and $6 in total", False),
        ("T_spec ≈ 0.436 (δ = +D)", False),
    ],
)
def test_the_raw_math_detector(text: str, raw: bool) -> None:
    assert bool(_tool("check_site")._RAW_MATH.search(text)) is raw
