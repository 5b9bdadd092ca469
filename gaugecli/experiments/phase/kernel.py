"""The probe set of the metrics ``kernel-change`` and ``kernel-distance-cos``, a fixed and seeded
Gaussian sample, on which :mod:`gaugecli.core.analyses.tangent` measures how the tangent kernel moves
over a run: ``‖K(t_h) − K(0)‖_F / ‖K(0)‖_F`` (its relative change, growth in size included) and
Kunin et al. (2024)'s cosine distance ``1 − ⟨K(t_h), K(0)⟩_F / (‖K(t_h)‖_F ‖K(0)‖_F)`` (its turn)."""

from __future__ import annotations

from gaugecli.core.analyses.tangent import gaussian_probes, kernel_change, kernel_distance_cos, tangent_kernel
from gaugecli.core.types import Array

__all__ = ["PROBES", "PROBE_SEED", "kernel_change", "kernel_distance_cos", "probes", "tangent_kernel"]

PROBES = 256
"""Probe points of the kernel: ``x ~ N(0, I_d)``, drawn once from :data:`PROBE_SEED`."""
PROBE_SEED = 20240601
"""The seed of the probe set (fixed: every cell of every map sees the same probes)."""


def probes(d: int, n: int = PROBES, seed: int = PROBE_SEED) -> Array:
    """The probe set ``X (n, d)`` (:func:`gaugecli.core.analyses.tangent.gaussian_probes`)."""
    return gaussian_probes(d, n, seed)
