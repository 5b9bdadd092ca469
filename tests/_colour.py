"""CIE colour difference for tests of colour choices: sRGB → CIELAB (D65) and the CIE76 ΔE
(Euclidean distance in L*a*b*). A just-noticeable difference is ΔE ≈ 2.3; series that share a
panel should be told apart at a glance, which the figure tests ask of them at ΔE ≥ 10 or more."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

WHITE_D65 = np.array([0.95047, 1.0, 1.08883])
"""The D65 white point in XYZ (Y = 1): sRGB's reference white."""
SRGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
"""IEC 61966-2-1 (sRGB) linear RGB → XYZ (D65)."""


def lab(color: str | tuple[float, ...]) -> np.ndarray:
    """CIELAB coordinates (L*, a*, b*) of a matplotlib colour (sRGB, D65)."""
    from matplotlib.colors import to_rgb

    rgb = np.array(to_rgb(color))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = SRGB_TO_XYZ @ linear / WHITE_D65
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(c1: str | tuple[float, ...], c2: str | tuple[float, ...]) -> float:
    """CIE76 ΔE between two colours."""
    return float(np.linalg.norm(lab(c1) - lab(c2)))


def min_delta_e(colors: Iterable[str | tuple[float, ...]]) -> float:
    """The smallest ΔE between any two of ``colors`` (∞ for fewer than two)."""
    return min((delta_e(a, b) for a, b in itertools.combinations(list(colors), 2)), default=float("inf"))
