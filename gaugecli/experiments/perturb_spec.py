"""The spec of ``gaugecli perturb``: robustness of selection (claim C8)."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment


def read_kind(params: dict[str, Any]) -> dict[str, Any]:
    """``kind="random"`` or ``"adversarial"`` (the declaration's name, checked) as the config's bool
    ``adversarial``: the one place the command line and the Python API turn one into the other."""
    from gaugecli.experiments import params as P

    if "kind" in params:
        P.Perturb.kind.check(params["kind"])
        params["adversarial"] = params.pop("kind") == "adversarial"
    return params


def api_configs(config: Any, params: dict[str, Any], build: Any) -> tuple[str, list[Any], bool]:
    """``kind="random"`` or ``"adversarial"`` as on the command line (the config's ``adversarial``)."""
    from gaugecli.experiments.perturb import PerturbConfig

    return SPEC.name, [build(config, PerturbConfig, SPEC.api_name, read_kind(params))], False


def rerun_options(config: Any) -> dict[str, Any]:
    """``--kind``, which the config holds as ``adversarial`` (a bool), not under its declaration's name."""
    return {"kind": "adversarial" if config.adversarial else "random"}


def rerun_unread(config: Any) -> set[str]:
    """What the run did not read (the sweeps not run; the seeds of adversarial perturbations): the
    command refuses those as having no effect, so its rerun file leaves them out."""
    from gaugecli.experiments.params.perturb import unread

    return unread(config.sweeps, config.adversarial)


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
    rerun_options=rerun_options,
    rerun_unread=rerun_unread,
)

SPECS = (SPEC,)
