"""Regeneration checked by data: a regenerated figure's sidecar against the committed one.

Each figure writes the numbers it plots to ``figN.json``; :func:`compare_sidecars` reports every
series that moved beyond its tolerance (:data:`SERIES_TOLERANCES`), naming figure and series.
"""

from __future__ import annotations

import fnmatch
import math
from typing import Any

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9
Tolerance = tuple[str, float, float, str]
"""``(glob on "panel/series/field", rtol, atol, why)``: a figure module's ``SIDECAR_TOLERANCES``
lists its own (the figure id is prefixed here); the first match wins."""

SERIES_TOLERANCES: tuple[tuple[str, float, float, str], ...] = (
    ("*/loss*", 1e-6, 1e-12, "a loss below 1e-12 is at round-off (absolute error ~1e-16 per kernel term)"),
)
"""Tolerances shared by every figure, after each figure's own ``SIDECAR_TOLERANCES``. Series not
listed use :func:`compare_sidecars`' ``rtol``/``atol`` (defaults :data:`DEFAULT_RTOL` = 1e-6 relative,
:data:`DEFAULT_ATOL` = 1e-9 absolute: the runs are integrated with rtol = 1e-10, so a millionth absorbs
BLAS and platform differences while catching any change of the science). A masked value (null)
matches a number only if that number is within atol of 0."""


def _rules(fig_id: str) -> tuple[tuple[str, float, float, str], ...]:
    """The figure's own rules (module attribute ``SIDECAR_TOLERANCES``), then the shared ones."""
    from importlib import import_module

    from gaugecli.plots import FIGURES

    own: tuple[Tolerance, ...] = ()
    if fig_id in FIGURES:
        own = tuple(getattr(import_module(f"gaugecli.plots.{fig_id}"), "SIDECAR_TOLERANCES", ()))
    return tuple((f"{fig_id}/{pattern}", r, a, why) for pattern, r, a, why in own) + SERIES_TOLERANCES


def tolerance_for(path: str, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> tuple[float, float]:
    """The ``(rtol, atol)`` that applies to the series at ``path`` (``figN/panel/series/...``)."""
    for pattern, r, a, _why in _rules(path.split("/", 1)[0]):
        if fnmatch.fnmatchcase(path, pattern):
            return r, a
    return rtol, atol


def compare_sidecars(
    committed: dict[str, Any],
    regenerated: dict[str, Any],
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
) -> list[str]:
    """Human-readable drift between two sidecars (``figN.json`` artifacts or their ``result``).

    Compares ``panels`` only (not timestamps or provenance). Each message names the figure,
    the series and the size of the drift; an empty list means the figure regenerates.
    """
    a, b = _panels_of(committed), _panels_of(regenerated)
    fig_a, fig_b = a.get("figure"), b.get("figure")
    if fig_a != fig_b:
        return [f"figure ids differ: committed {fig_a!r}, regenerated {fig_b!r}"]
    messages: list[str] = []
    _diff(a.get("panels", {}), b.get("panels", {}), str(fig_a), rtol, atol, messages)
    return messages


def _panels_of(sidecar: dict[str, Any]) -> dict[str, Any]:
    return sidecar["result"] if "result" in sidecar and "panels" not in sidecar else sidecar


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _diff(x: Any, y: Any, path: str, rtol: float, atol: float, out: list[str]) -> None:
    if isinstance(x, dict) and isinstance(y, dict):
        for key in sorted(set(x) | set(y)):
            sub = f"{path}/{key}"
            if key not in y:
                out.append(f"{_where(sub)}: missing from the regenerated figure")
            elif key not in x:
                out.append(f"{_where(sub)}: new in the regenerated figure (not in the committed one)")
            else:
                _diff(x[key], y[key], sub, rtol, atol, out)
        return
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            if math.isfinite(tolerance_for(path, rtol, atol)[0]):  # an uncompared series may change length
                out.append(f"{_where(path)}: length changed from {len(x)} to {len(y)}")
            return
        if all(_is_number(v) or v is None for v in x + y):
            _diff_numbers(x, y, path, rtol, atol, out)
            return
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            _diff(u, v, f"{path}/{i}", rtol, atol, out)
        return
    if (_is_number(x) or x is None) and (_is_number(y) or y is None):
        _diff_numbers([x], [y], path, rtol, atol, out)
        return
    if x != y and math.isfinite(tolerance_for(path, rtol, atol)[0]):  # a text decided by round-off is not compared
        out.append(f"{_where(path)}: changed from {x!r} to {y!r}")


def _diff_numbers(x: list[Any], y: list[Any], path: str, rtol: float, atol: float, out: list[str]) -> None:
    import numpy as np

    r, a = tolerance_for(path, rtol, atol)
    if not math.isfinite(r):  # decided by round-off (the rule says why): not compared
        return
    u = np.array([np.nan if v is None else v for v in x], dtype=float)
    v = np.array([np.nan if w is None else w for w in y], dtype=float)
    nan_u, nan_v = np.isnan(u), np.isnan(v)
    # a masked value matches only a number within atol of zero
    masked_bad = (nan_u & ~nan_v & ~(np.abs(v) <= a)) | (nan_v & ~nan_u & ~(np.abs(u) <= a))
    both = ~nan_u & ~nan_v
    with np.errstate(invalid="ignore"):
        err = np.where(both, np.abs(u - v), 0.0)
        bound = a + r * np.abs(u) if math.isfinite(r) else np.full_like(u, np.inf)
        bad = both & (err > bound)
    if np.any(masked_bad):
        i = int(np.flatnonzero(masked_bad)[0])
        out.append(
            f"{_where(path)}: {int(masked_bad.sum())} value(s) masked in one figure but not the other "
            f"(first at index {i}: committed {x[i]!r}, regenerated {y[i]!r})"
        )
    if np.any(bad):
        i = int(np.argmax(np.where(bad, err, -1.0)))
        label = "" if len(u) == 1 else f" (worst at index {i} of {len(u)}, {int(bad.sum())} outside)"
        out.append(
            f"{_where(path)}: moved from {u[i]:.6g} to {v[i]:.6g}, |Δ| = {err[i]:.3g} "
            f"exceeds atol={a:g} + rtol={r:g}·|value|{label}"
        )


def _where(path: str) -> str:
    fig, _, rest = path.partition("/")
    return f"{fig}: series '{rest}'" if rest else fig
