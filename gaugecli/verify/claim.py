"""What a claim is: a statement, the runs it needs, and how its measurement is judged."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gaugecli.pipeline import Inputs, Need


@dataclass(frozen=True)
class Check:
    """A measurement beside its expectation: ``passed`` says whether it holds within tolerance."""

    quantity: str
    measured: Any
    expected: str
    tolerance: str
    passed: bool
    configuration: str = ""


@dataclass(frozen=True)
class Claim:
    """One claim of the paper (``C1`` … ``C8``, docs/theory.md, the model) or a finding of a later subcommand.

    ``needs(quick)`` names the runs it reads; ``evaluate(inputs, quick)`` measures and judges.
    """

    id: str
    statement: str
    needs: Callable[[bool], dict[str, Need]]
    evaluate: Callable[[Inputs, bool], Check]
    figure: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)


@dataclass
class ClaimOutcome:
    """The row of ``gaugecli verify`` and of the ``verify`` artifact's ``result.claims``."""

    id: str
    statement: str
    measured: Any
    expected: str
    tolerance: str
    passed: bool | None
    quantity: str = ""
    configuration: str = ""
    figure: str | None = None
    error: str | None = None


def at_most(value: float, bound: float, quantity: str, configuration: str = "") -> Check:
    ok = math.isfinite(value) and value <= bound
    return Check(quantity, rounded(value), f"≤ {bound:g}", "", ok, configuration)


def at_least(values: Sequence[float] | float, bound: float, quantity: str, configuration: str = "") -> Check:
    seq = list(values) if isinstance(values, Sequence) else [values]
    ok = all(math.isfinite(v) and v >= bound for v in seq)
    return Check(quantity, rounded(seq[0] if len(seq) == 1 else seq), f"≥ {bound:g}", "", ok, configuration)


def within(value: float, expected: float, tolerance: float, quantity: str, configuration: str = "") -> Check:
    ok = math.isfinite(value) and abs(value - expected) <= tolerance
    return Check(quantity, rounded(value), f"{expected:g}", f"± {tolerance:g}", ok, configuration)


def rounded(x: Any, digits: int = 4) -> Any:
    """Measured values as printed and stored: ``digits`` significant digits (lists and dicts too)."""
    if isinstance(x, float):
        return float(f"{x:.{digits}g}") if math.isfinite(x) else None
    if isinstance(x, (list, tuple)):
        return [rounded(v, digits) for v in x]
    if isinstance(x, dict):
        return {k: rounded(v, digits) for k, v in x.items()}
    return x
