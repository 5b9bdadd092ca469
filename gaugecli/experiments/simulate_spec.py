"""The spec of ``gaugecli simulate``: one run of the gradient flow (or descent) per configuration."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gaugecli.experiments.spec import Experiment


def compute(configs: Sequence[Any], progress: Any, _runner: Any) -> list[Any]:
    """One :class:`~gaugecli.core.analyses.observables.RunObservables` per config, all integrated in one batch
    (each by itself: a batch changes no number)."""
    from gaugecli.experiments.simulate import simulate_batch

    for config in configs:
        if len(config.runs()) != 1:
            raise ValueError(f"a simulate entry is one run; split it with config.runs() (got {len(config.runs())})")
    return simulate_batch(configs, progress)


def seed(config: Any) -> int | None:
    """A stochastic run's own seed; a deterministic flow records none."""
    return config.run_seed if config.dynamics.mode.stochastic else None


def api_configs(config: Any, params: dict[str, Any], build: Any) -> tuple[str, list[Any], bool]:
    """A configuration of several gauge strengths D is one run per D: the API returns their list."""
    from gaugecli.experiments.simulate import SimulateConfig

    return SPEC.name, build(config, SimulateConfig, SPEC.api_name, params).runs(), True


SPEC = Experiment(
    name="simulate",
    help="One configuration: loss, alignment, coefficients, δ, reaction and transport over time.",
    config="gaugecli.experiments.simulate:SimulateConfig",
    result="gaugecli.core.analyses.observables:RunObservables",
    compute=compute,
    batch=True,
    seed=seed,
    fields=(
        ("model", "gaugecli.experiments.params:Model"),
        ("dynamics", "gaugecli.experiments.params:Dynamics"),
        (None, "gaugecli.experiments.params:Simulate"),
    ),
    # each config is integrated by itself whatever its task (simulate_batch), so slicing changes no
    # number; as one task, the figures' ~140 runs (~30 s on one core) kept one worker busy while the
    # others idled at the end
    prefetch_slice=12,
    summary="gaugecli.cli.report:simulate",
    figure="gaugecli.plots.overview:draw_run",
    api_doc="""``gaugecli simulate``: one :class:`~gaugecli.core.analyses.observables.RunObservables` per run of
    ``config`` (one per gauge strength D, in order), each run integrated by itself.""",
    api_returns="list[RunObservables]",
    api_configs=api_configs,
)

SPECS = (SPEC,)
