"""docs/api.md is executed: its ``python`` blocks run in order, in one namespace, in a fresh folder
(``cache_dir="runs"`` writes there); each claim of the page is an ``assert`` of a block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def test_every_block_of_the_api_page_runs_and_its_claims_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xarray", reason="the page's labelled views need the 'frame' extra")
    pytest.importorskip("pandas", reason="the page's labelled views need the 'frame' extra")
    blocks = _BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 7, "docs/api.md lost its python blocks"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "api_page"}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/api.md, block {number}", "exec"), namespace)
    assert sum(block.count("assert ") for block in blocks) >= 15
