"""benchmarks/_results.py: a partial run (``--only``) merges its rows into the results file, each row
stamped with the run that measured it, and docs/benchmarks.md prints the table from that file."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tools"))

import _results  # noqa: E402
import doc_numbers as T  # noqa: E402


def _row(row_id: str, when: str = "2026-12-01 10:00 UTC", commit: str = "abc1234") -> dict[str, object]:
    return {
        "id": row_id,
        "benchmark": f"bench {row_id}",
        "measured": "1 s",
        "goal": "—",
        "met": None,
        "met_label": "n/a",
        "note": "a | b",
        "measured_at": when,
        "machine": "2 CPUs, Python 3.11.7",
        "commit": commit,
        "data": {},
    }


def test_a_partial_run_replaces_its_letters_rows_and_keeps_the_others_in_id_order() -> None:
    old = [_row("a1"), _row("a2"), _row("e1"), _row("e2"), _row("f1")]
    new = [_row(i, "2026-12-06 18:00 UTC", "def5678") for i in ("e1", "e2", "e3", "q1")]
    merged = _results.merge(old, new, "eq")
    assert [r["id"] for r in merged] == ["a1", "a2", "e1", "e2", "e3", "f1", "q1"]
    stamps = {r["id"]: (r["measured_at"], r["commit"]) for r in merged}
    assert stamps["a2"] == ("2026-12-01 10:00 UTC", "abc1234")
    assert stamps["e3"] == ("2026-12-06 18:00 UTC", "def5678")
    # a row gone from a rerun suite goes with it (its letter was rerun)
    assert [r["id"] for r in _results.merge(old, [_row("e1")], "e")] == ["a1", "a2", "e1", "f1"]
    assert sorted(["a10", "b1", "a2", "c?"], key=_results.order) == ["a2", "a10", "b1", "c?"]


def test_a_file_without_row_stamps_gives_each_row_the_files_run() -> None:
    payload = {
        "created": "2026-11-30 09:17 UTC",
        "environment": {"cpus": 2, "python": "3.11.7", "numpy": "2", "scipy": "1", "torch": "2"},
        "rows": [{k: v for k, v in _row("a1").items() if k not in _results.STAMP}],
    }
    (row,) = _results.legacy(payload)
    assert row["measured_at"] == "2026-11-30 09:17 UTC" and row["commit"] == "unknown"
    assert row["machine"] == "2 CPUs, Python 3.11.7, numpy 2, scipy 1, torch 2"


def test_the_dates_line_names_each_runs_rows_newest_first() -> None:
    rows = [_row(i) for i in ("a1", "a2", "a3")] + [
        _row("e1", "2026-12-06 18:00 UTC", "def5678") | {"load": [8.62, 9.5]}
    ]
    assert _results.dates(rows) == (
        "* row e1: 2026-12-06 18:00 UTC, commit def5678; 2 CPUs, Python 3.11.7; load 8.6 → 9.5 (1-minute average, "
        "start → end)\n* rows a1–a3: 2026-12-01 10:00 UTC, commit abc1234; 2 CPUs, Python 3.11.7"
    )
    table = _results.markdown_table(rows)
    assert table.splitlines()[2] == "| a1 | bench a1 | 1 s | — | n/a | a \\| b |"


def test_a_pages_table_block_is_rewritten_from_the_results() -> None:
    page = "# B\n\n<!-- table: benchmarks -->\nold table\n<!-- /table -->\n\nafter\n"
    fresh = T.render(page, tables=lambda name: "\nnew table\n\n")
    assert fresh == "# B\n\n<!-- table: benchmarks -->\n\nnew table\n\n<!-- /table -->\n\nafter\n"
    assert T.render(fresh, tables=lambda name: "\nnew table\n\n") == fresh
    assert T.marked(page)
