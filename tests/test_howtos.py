"""The how-tos (docs/howto/*.md) are recipes — a goal, then numbered steps, each with its commands,
what you see and what it means — and the numbers they show are the code's: every ``pycon`` block of a
page runs, in order, in one namespace, in a fresh folder, and each output must be the one the page
shows (doctest, ``...`` a wildcard), as the tutorial's (tests/test_tutorial.py)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

HOWTO = Path(__file__).resolve().parents[1] / "docs" / "howto"
PAGES = sorted(HOWTO.glob("*.md"))
_BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_howto_is_a_recipe(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# ") and "**Goal.**" in text, f"{page.name}: no goal"
    steps = re.findall(r"^## (\d+)\. ", text, re.MULTILINE)
    assert steps and steps == [str(i) for i in range(1, len(steps) + 1)], f"{page.name}: steps {steps}"
    assert "```bash" in text, f"{page.name}: no commands"
    assert "**What you see.**" in text and "**What it means.**" in text, page.name


@pytest.mark.parametrize(
    "page", [p for p in PAGES if _BLOCK.search(p.read_text(encoding="utf-8"))], ids=lambda p: p.name
)
def test_each_howto_runs_as_shown(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _BLOCK.findall(page.read_text(encoding="utf-8"))
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    assert runner.tries >= 3
