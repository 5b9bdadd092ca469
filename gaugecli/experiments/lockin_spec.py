"""The spec of ``gaugecli lockin``: repulsion and spectral lock-in diagnostics."""

from __future__ import annotations

from gaugecli.experiments.spec import Experiment

SPEC = Experiment(
    name="lockin",
    help="Repulsion and spectral lock-in diagnostics (Xu, Tian): which signatures gauge selection leaves.",
    config="gaugecli.experiments.lockin:LockinConfig",
    result="gaugecli.experiments.lockin:LockinResult",
    compute="gaugecli.experiments.lockin:lockin",
    fields=(
        ("model", "gaugecli.experiments.params:Model"),
        ("dynamics", "gaugecli.experiments.params:Dynamics"),
        (None, "gaugecli.experiments.params:Lockin"),
    ),
    prefetch_rank=5,
    summary="gaugecli.cli.report:lockin",
    figure="lockin",
    api_doc="""``gaugecli lockin``: feature repulsion and spectral lock-in diagnostics, select vs aligned control.""",
    api_returns="LockinResult",
)

SPECS = (SPEC,)
