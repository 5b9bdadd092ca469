"""The documentation site's sources: every page of mkdocs.yml's nav exists, and the browser check's
own pieces work (the link checker and the raw-math detector of tools/check_site.py). The build itself is `make docs-site`
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
    generated: set[str] = set()  # every page is a file of docs/ (gallery.md is written by `make docs`)
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert nav - generated <= pages, f"in the nav but not in docs/: {sorted(nav - generated - pages)}"
    assert pages <= nav, f"in docs/ but not in the nav: {sorted(pages - nav)}"
    assert {"theory.md", "cli.md", "tutorial.md", "reference.md", "architecture.md"} <= nav


def test_the_architecture_page_includes_architecture_md() -> None:
    assert '--8<-- "ARCHITECTURE.md"' in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


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
