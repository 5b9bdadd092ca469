"""Helpers shared by the figures: simulate requirements with canonical names, and
reading a run dict (a ``simulate`` artifact's ``result``) into arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from gaugecli.plots.style import as_array

DEFAULT_STRENGTH = 4.0
"""The gauge strength of the single-D figures (fig2, fig6), SPEC's default ``-D 4``."""


def simulate_requirement(
    gauge: str,
    strength: float = DEFAULT_STRENGTH,
    *,
    mode: str = "flow",
    m: int = 1,
    n_samples: int | None = None,
    seed: int | None = None,
) -> Any:
    """A single-run ``simulate`` requirement with the SPEC defaults (``d = 16``, ``c0 = 0.1``,
    ``θ0 = π/2``, ``rtol = 1e-10``). Its name describes the run, so figures share it."""
    from gaugecli.experiments.common import DynamicsConfig, ModelConfig
    from gaugecli.experiments.simulate import SimulateConfig
    from gaugecli.plots.render import Requirement

    dynamics = DynamicsConfig(mode=mode) if n_samples is None else DynamicsConfig(mode=mode, n_samples=n_samples)
    config = SimulateConfig(
        model=ModelConfig(), dynamics=dynamics, gauge=gauge, strengths=(float(strength),), m=m, seed=seed
    )
    name = f"{mode}-{gauge}-D{strength:g}-m{m}"
    if mode == "sample":
        name += f"-n{dynamics.sample_size}-seed{seed or 0}"
    return Requirement("simulate", name, config)


def config_of(data: dict[str, Any], name: str) -> dict[str, Any]:
    """The JSON configuration of requirement ``name`` (render passes them as ``data["_configs"]``)."""
    return data.get("_configs", {}).get(name, {})


def eps_align(data: dict[str, Any], name: str) -> float:
    """``ε_align`` of run ``name`` (the SPEC default 0.01 when its configuration is absent)."""
    return float(config_of(data, name).get("model", {}).get("eps_align", 0.01))


class Run:
    """Array view of a run dict; per-neuron series are ``(n_times, m)``."""

    def __init__(self, run: dict[str, Any]) -> None:
        self.raw = run
        self.t = as_array(run["t"])
        self.loss = as_array(run["loss"])
        self.alignment = np.atleast_2d(as_array(run["alignment"]).reshape(len(self.t), -1))
        self.coefficient = np.atleast_2d(as_array(run["coefficient"]).reshape(len(self.t), -1))
        self.imbalance = np.atleast_2d(as_array(run["imbalance"]).reshape(len(self.t), -1))
        self.owner = int(run["owner"])
        self.t_spec = None if run.get("t_spec") is None else float(run["t_spec"])

    def get(self, key: str) -> np.ndarray:
        return as_array(self.raw.get(key))

    @property
    def m(self) -> int:
        return int(self.alignment.shape[1])

    @property
    def deltas(self) -> np.ndarray:
        """δ_j at t = 0."""
        return self.imbalance[0]

    @property
    def strength(self) -> float:
        """``D = max_j |δ_j(0)|``."""
        return float(np.max(np.abs(self.deltas)))

    @property
    def c0(self) -> float:
        """The initial complete coefficient ``Σ_j c_j(0)``."""
        return float(np.sum(self.coefficient[0]))

    @property
    def owner_alignment(self) -> np.ndarray:
        return self.alignment[:, self.owner]
