"""docs/tutorial.md is executed: its ``pycon`` blocks run in order, in one namespace, in a fresh
folder, and every output must be the one the page shows (doctest, with ``...`` as a wildcard)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"
_BLOCK = re.compile(r"^```pycon\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def test_the_tutorial_uses_the_public_api() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for call in ("gaugecli.simulate(", "gaugecli.load(", ".to_xarray()", ".to_dataframe()", "gaugecli.select("):
        assert call in text, f"the tutorial no longer shows {call}"


def test_the_tutorial_runs_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xarray", reason="the tutorial needs the 'frame' extra")
    pytest.importorskip("pandas", reason="the tutorial needs the 'frame' extra")
    blocks = _BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 5, "docs/tutorial.md lost its pycon blocks"
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, "docs/tutorial.md", str(PAGE), 0)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(optionflags=flags)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    assert runner.tries >= 15
