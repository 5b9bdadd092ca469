"""The Markdown report of ``gaugecli verify --report``: the table, then each figure with its claims."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown(result: Any, figures_dir: Path, report_dir: Path) -> str:
    """A report to attach to a review: each claim's measurement and verdict, and the figures."""
    verdict = {True: "**pass**", False: "**FAIL**", None: "not run"}
    lines = [
        "# gaugecli verify",
        "",
        "| claim | statement | configuration | measured quantity | measured | expected | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in result.claims:
        measured = c.error if c.error else c.measured
        lines.append(
            f"| {c.id} | {_cell(c.statement)} | {_cell(c.configuration)} | {_cell(c.quantity)} | {_cell(measured)} | "
            f"{_cell(c.expected)} {_cell(c.tolerance)} | {verdict[c.passed]} |"
        )
    by_figure: dict[str, list[str]] = {}
    for c in result.claims:
        if c.figure:
            by_figure.setdefault(c.figure, []).append(c.id)
    lines += ["", "## Figures", ""]
    for fig, ids in by_figure.items():
        png = Path(figures_dir) / f"{fig}.png"
        lines.append(f"### {fig} — {', '.join(ids)}")
        lines.append("")
        if png.exists():
            lines.append(f"![{fig}]({Path(os.path.relpath(png, report_dir)).as_posix()})")
        else:
            lines.append(f"_{png} not found: `gaugecli plot {fig} --out-dir {figures_dir}` draws it._")
        lines.append("")
    return "\n".join(lines) + "\n"
