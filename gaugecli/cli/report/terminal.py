"""How a summary is written to the terminal: the consoles, numbers and losses as printed, and tables
that fall back to ``column: value`` lines where the terminal is too narrow for them."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaugecli.pipeline import Outcome

ROUNDOFF_LOSS = 1e-15
"""The closed-form loss is a difference of O(1) kernel terms: below this it is round-off."""


@cache
def console() -> Any:
    from rich.console import Console

    return Console(soft_wrap=True)


@cache
def errors_console() -> Any:
    """Where warnings and side notes go: stderr, so that stdout holds only the summary or ``--json``."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)


def escape(text: str) -> str:
    """Rich markup-escape: artifact paths and messages may contain ``[``."""
    from rich.markup import escape as _escape

    return _escape(text)


def fmt(x: float | None, spec: str = ".4g") -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def fmt_loss(x: float | None) -> str:
    """A loss, or ``< 1e-15`` where it is below round-off (never ``0.000e+00`` or a negative)."""
    if x is None or math.isnan(x):
        return "—"
    return f"< {ROUNDOFF_LOSS:.0e}" if x < ROUNDOFF_LOSS else f"{x:.3e}"


def new_table(title: str, columns: tuple[str, ...]) -> Any:
    """A rich table titled ``title`` with right-justified ``columns``."""
    from rich.table import Table

    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right")
    return table


def show(table: Any) -> None:
    """Print ``table``; in a terminal too narrow for it, ``column: value`` lines instead (a rich
    table squeezed below its width cuts every number to an ellipsis)."""
    from rich.cells import cell_len

    out = console()
    heads = [str(c.header) for c in table.columns]
    rows = [list(r) for r in zip(*([str(cell) for cell in c.cells] for c in table.columns), strict=True)]
    # terminal cells, not characters: a wide character (CJK, some symbols) takes two
    widths = [
        max([cell_len(h), *(cell_len(line) for r in rows for line in r[j].splitlines())]) for j, h in enumerate(heads)
    ]
    if sum(widths) + 3 * len(widths) + 1 <= out.width:  # every cell on its line, as rich draws it
        out.print(table)
        return
    if table.title:
        out.print(table.title)
    for i, cells in enumerate(rows):
        out.print(f"row {i + 1}:")
        for head, value in zip(heads, cells, strict=True):
            out.print(f"  {head}: {' '.join(value.split())}")


def where(outcome: Outcome, path: Path | None) -> str:
    state = "computed" if outcome.computed else "reused from the cache"
    return f"{state}: {path}" if path is not None else state


def owner_label(owner: int | None) -> str:
    return "none" if owner is None else str(owner)
