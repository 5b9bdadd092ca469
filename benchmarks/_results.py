"""The results file of the benchmarks: rows merged across runs, each stamped with its own run.

``benchmarks/run.py --only X`` reruns some rows; their new measurements replace the rows of the
same letters in ``results.json`` and every other row is kept as it was, so the file always holds
the newest measurement of every row, and says of each when, where and on which commit it was
taken (``measured_at``, ``machine``, ``commit``): timings of different runs come from different
machines, comparable within a row, never across dates. The rows are ordered by id (letter, then
number), so a suite added later merges in where its letter puts it.

docs/benchmarks.md prints the table and the line of dates from this file (tools/doc_numbers.py,
``<!-- table: benchmarks -->``): nothing of it is typed.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path
from typing import Any

COLUMNS = ("id", "benchmark", "measured", "goal", "met?", "note")
STAMP = ("measured_at", "machine", "commit")
"""The keys that say which run measured a row."""


def machine_line(env: Mapping[str, Any]) -> str:
    """The machine and software of a run, in one line: ``2 CPUs, Python 3.11.7, numpy …``."""
    return (
        f"{env['cpus']} CPUs, Python {env['python']}, numpy {env['numpy']}, scipy {env['scipy']}, torch {env['torch']}"
    )


def commit(repo: Path) -> str:
    """The short hash of the checked-out commit, ``+`` appended when the package or the benchmarks
    differ from it (a measurement of uncommitted code); ``unknown`` outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "gaugecli", "benchmarks/*.py"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def order(row_id: str) -> tuple[str, int, str]:
    """Sort key of a row id: ``a2`` before ``a10`` before ``b1``; an error row ``c?`` after its letter's."""
    match = re.fullmatch(r"([a-z]+)(\d*)(.*)", row_id)
    if match is None:
        return (row_id, 0, "")
    return (match[1], int(match[2]) if match[2] else 10**9, match[3])


def letter(row_id: str) -> str:
    """The suite letter of a row id (``f3`` → ``f``)."""
    return order(row_id)[0]


def legacy(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a results file, each stamped: a file written before rows carried their own stamp
    gives each row the date and machine of the run that measured it — its entry of the file's
    ``reruns`` where it names the row, else the file's own (commit unknown)."""
    runs = {row_id: rerun for rerun in payload.get("reruns", []) for row_id in rerun["rows"]}
    rows = []
    for row in payload.get("rows", []):
        row = dict(row)
        if "measured_at" not in row:
            run = runs.get(row["id"], payload)
            row["measured_at"] = run["created"]
            row["machine"] = machine_line(run["environment"])
            row["commit"] = "unknown"
        rows.append(row)
    return rows


def merge(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], letters: str) -> list[dict[str, Any]]:
    """``old``'s rows of the letters not rerun, with ``new``'s rows, ordered by id."""
    kept = [dict(r) for r in old if letter(r["id"]) not in letters]
    return sorted([*kept, *(dict(r) for r in new)], key=lambda r: order(r["id"]))


def load(path: Path) -> dict[str, Any] | None:
    """A results file, or ``None`` where there is none yet."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def markdown_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a Markdown table (one row a line; ``|`` and line breaks escaped)."""

    def esc(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for r in rows:
        cells = [r["id"], r["benchmark"], r["measured"], r["goal"], r["met_label"], r["note"]]
        lines.append("| " + " | ".join(esc(str(c)) for c in cells) + " |")
    return "\n".join(lines)


def _span(ids: list[str]) -> str:
    """``a1–a5`` for a run of one letter's rows, ``e1, e3`` where the run has gaps."""
    numbers = [order(i)[1] for i in ids]
    if len(ids) > 2 and numbers == list(range(numbers[0], numbers[0] + len(ids))):
        return f"{ids[0]}–{ids[-1]}"
    return ", ".join(ids)


def dates(rows: Sequence[Mapping[str, Any]]) -> str:
    """Which run measured which rows, a bullet a run, newest first: its date, commit, machine, and the
    machine's load where the run recorded it (on shared cores, what a timing is to be read against)."""
    runs: dict[tuple[str, str, str], list[str]] = {}
    loads: dict[tuple[str, str, str], list[float]] = {}
    for row in rows:
        key: tuple[str, str, str] = (str(row["measured_at"]), str(row["machine"]), str(row["commit"]))
        runs.setdefault(key, []).append(row["id"])
        if row.get("load"):
            loads[key] = row["load"]
    lines = []
    for (when, machine, at), ids in sorted(runs.items(), key=lambda kv: kv[0][0], reverse=True):
        spans = [_span(list(group)) for _, group in groupby(ids, key=letter)]
        where = f"commit {at}" if at != "unknown" else "commit not recorded"
        load = loads.get((when, machine, at))
        busy = f"; load {load[0]:.1f} → {load[1]:.1f} (1-minute average, start → end)" if load else ""
        noun = "row" if len(ids) == 1 else "rows"
        lines.append(f"* {noun} {', '.join(spans)}: {when}, {where}; {machine}{busy}")
    return "\n".join(lines)


def block(rows: Sequence[Mapping[str, Any]]) -> str:
    """What docs/benchmarks.md prints between ``<!-- table: benchmarks -->`` and ``<!-- /table -->``:
    the runs' dates and the table."""
    return dates(rows) + "\n\n" + markdown_table(rows)
