"""benchmarks/_results.py: a partial run (``--only``) merges its rows into the results file, each row
stamped with the run that measured it, and docs/benchmarks.md prints the table from that file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

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
    # a row named in the file's ``reruns`` takes that rerun's date and machine
    rerun = {"rows": ["a1"], "created": "2026-12-04 03:04 UTC", "environment": {**payload["environment"], "cpus": 4}}
    (row,) = _results.legacy(payload | {"reruns": [rerun]})
    assert row["measured_at"] == "2026-12-04 03:04 UTC" and row["machine"].startswith("4 CPUs")


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


def test_run_only_merges_into_the_results_and_a_failed_suite_keeps_its_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run.py --only ab`` against a results file holding rows a1, b1, c1: a's new row replaces a1 with
    this run's stamp, b's suite raises and b1 stays as it was (the error recorded beside), c1 untouched."""
    import json

    import run
    from _common import Row

    def broken(quick: bool) -> list[Row]:
        raise RuntimeError("timed out")

    monkeypatch.setattr(run, "_suites", lambda: {"a": lambda q: [Row("a1", "new a", "2 s", "—", True)], "b": broken})
    env = {"python": "3.11.7", "numpy": "2", "scipy": "1", "torch": "2", "cpus": 2, "blas_env": {}}
    monkeypatch.setattr(run, "_environment", lambda: env)
    old = {"created": "2026-11-30 09:17 UTC", "environment": env, "rows": [_row("a1"), _row("b1"), _row("c1")]}
    (tmp_path / "results.json").write_text(json.dumps(old), encoding="utf-8")
    assert run.main(["--only", "ab", "--out-dir", str(tmp_path)]) == 0
    payload = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in payload["rows"]}
    assert list(rows) == ["a1", "b1", "c1"]
    assert rows["a1"]["benchmark"] == "new a" and rows["a1"]["measured_at"] == payload["created"]
    assert rows["a1"]["machine"] == _results.machine_line(env) and len(rows["a1"]["load"]) == 2
    assert rows["b1"] == _row("b1") and rows["c1"] == _row("c1")
    assert [e["suite"] for e in payload["errors"]] == ["b"] and "timed out" in payload["errors"][0]["error"]
    assert "| a1 | new a | 2 s |" in (tmp_path / "results.md").read_text(encoding="utf-8")


def test_a_command_past_its_cap_is_reported_killed_with_the_workers_it_started() -> None:
    """``run_command``'s cap kills the command's whole process group: a worker that inherited its output
    pipes (as ``plot all``'s do) no longer keeps the launcher waiting until its outer timeout raises."""
    from _common import run_command

    spawner = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "time.sleep(120)\n"
    )
    run = run_command([sys.executable, "-c", spawner], timeout_s=1.0)
    assert run.timed_out and run.returncode != 0
