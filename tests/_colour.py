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


def delta_e2000(c1: str | tuple[float, ...], c2: str | tuple[float, ...]) -> float:
    """CIEDE2000 ΔE (Sharma, Wu & Dalal 2005, kL = kC = kH = 1): CIE76 corrected for the eye's
    weaker discrimination in saturated and in yellow-orange colours, where CIE76 overstates a
    difference (orange against vermillion: CIE76 25.6, CIEDE2000 far less)."""
    return delta_e2000_lab(lab(c1), lab(c2))


def delta_e2000_lab(lab1: np.ndarray, lab2: np.ndarray) -> float:
    """CIEDE2000 between two L*a*b* triples."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    C_bar = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(C_bar**7 / (C_bar**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360 if C1p else 0.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360 if C2p else 0.0
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    if C1p * C2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lp_bar, Cp_bar = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0:
        hp_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_bar = (h1p + h2p) / 2
    else:
        hp_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    T = (
        1
        - 0.17 * np.cos(np.radians(hp_bar - 30))
        + 0.24 * np.cos(np.radians(2 * hp_bar))
        + 0.32 * np.cos(np.radians(3 * hp_bar + 6))
        - 0.20 * np.cos(np.radians(4 * hp_bar - 63))
    )
    d_theta = 30 * np.exp(-(((hp_bar - 275) / 25) ** 2))
    R_C = 2 * np.sqrt(Cp_bar**7 / (Cp_bar**7 + 25.0**7))
    S_L = 1 + 0.015 * (Lp_bar - 50) ** 2 / np.sqrt(20 + (Lp_bar - 50) ** 2)
    S_C, S_H = 1 + 0.045 * Cp_bar, 1 + 0.015 * Cp_bar * T
    R_T = -np.sin(np.radians(2 * d_theta)) * R_C
    return float(np.sqrt((dLp / S_L) ** 2 + (dCp / S_C) ** 2 + (dHp / S_H) ** 2 + R_T * (dCp / S_C) * (dHp / S_H)))


def min_delta_e2000(colors: Iterable[str | tuple[float, ...]]) -> float:
    """The smallest CIEDE2000 between any two of ``colors`` (∞ for fewer than two)."""
    return min((delta_e2000(a, b) for a, b in itertools.combinations(list(colors), 2)), default=float("inf"))
