"""The spec of ``gaugecli perturb``: robustness of selection (claim C8)."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment


def api_configs(config: Any, params: dict[str, Any], build: Any) -> tuple[str, list[Any], bool]:
    """``kind="random"`` or ``"adversarial"`` as on the command line (the config's ``adversarial``)."""
    from gaugecli.experiments import params as P
    from gaugecli.experiments.perturb import PerturbConfig

    if "kind" in params:
        P.Perturb.kind.check(params["kind"])
        params["adversarial"] = params.pop("kind") == "adversarial"
    return SPEC.name, [build(config, PerturbConfig, SPEC.api_name, params)], False


SPEC = Experiment(
    name="perturb",
    help="Robustness (claim C8): visible perturbations, GD step size, sample size.",
    config="gaugecli.experiments.perturb:PerturbConfig",
    result="gaugecli.experiments.perturb:PerturbResult",
    compute="gaugecli.experiments.perturb:perturb",
    runner=True,
    fields=(
        ("model", "gaugecli.experiments.params:Model"),
        ("dynamics", "gaugecli.experiments.params:Dynamics"),
        (None, "gaugecli.experiments.params:Perturb"),
    ),
    prefetch_rank=1,
    summary="gaugecli.cli.report:perturb",
    figure="fig7",
    api_doc="""``gaugecli perturb``: robustness of selection (claim C8); ``kind="random"`` or ``"adversarial"``
    as on the command line (the config's ``adversarial``).""",
    api_returns="PerturbResult",
    api_configs=api_configs,
)

SPECS = (SPEC,)
