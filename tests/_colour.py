"""Colour difference for tests of colour choices, over :mod:`gaugecli.plots.layout_check`'s CIELAB
(sRGB, D65) and CIEDE2000 (checked there against Sharma, Wu & Dalal's published pairs): CIE76 ΔE
(the Euclidean distance in L*a*b*) and CIEDE2000 ΔE of matplotlib colours, and the least of either
over a set of colours. A just-noticeable difference is ΔE ≈ 2.3; series that share a panel should be
told apart at a glance, which the figure tests ask of them at ΔE ≥ 10 or more."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from gaugecli.plots.layout_check import delta_e_2000, srgb_to_lab


def lab(color: str | tuple[float, ...]) -> np.ndarray:
    """CIELAB coordinates (L*, a*, b*) of a matplotlib colour (sRGB, D65)."""
    from matplotlib.colors import to_rgb

    return srgb_to_lab(to_rgb(color))


def delta_e(c1: str | tuple[float, ...], c2: str | tuple[float, ...]) -> float:
    """CIE76 ΔE between two colours."""
    return float(np.linalg.norm(lab(c1) - lab(c2)))


def min_delta_e(colors: Iterable[str | tuple[float, ...]]) -> float:
    """The smallest CIE76 ΔE between any two of ``colors`` (∞ for fewer than two)."""
    return min((delta_e(a, b) for a, b in itertools.combinations(list(colors), 2)), default=float("inf"))


def delta_e2000(c1: str | tuple[float, ...], c2: str | tuple[float, ...]) -> float:
    """CIEDE2000 ΔE (k_L = k_C = k_H = 1): CIE76 corrected for the eye's weaker discrimination in
    saturated and in yellow-orange colours, where CIE76 overstates a difference."""
    return delta_e2000_lab(lab(c1), lab(c2))


def delta_e2000_lab(lab1: np.ndarray, lab2: np.ndarray) -> float:
    """CIEDE2000 between two L*a*b* triples."""
    return float(delta_e_2000(lab1, lab2))


def min_delta_e2000(colors: Iterable[str | tuple[float, ...]]) -> float:
    """The smallest CIEDE2000 between any two of ``colors`` (∞ for fewer than two)."""
    return min((delta_e2000(a, b) for a, b in itertools.combinations(list(colors), 2)), default=float("inf"))
