"""The specs of the runs only figures read: the reduced and ``D → ∞`` equations that fig1–fig3
draw and fig12's heavy-ball flow, each a cached kind of its own with no subcommand (``command=""``) and no API function."""

from __future__ import annotations

from gaugecli.experiments.spec import Experiment, no_seed


def _figure_run(name: str, module: str, config: str, result: str, compute: str, help: str) -> Experiment:
    """A deterministic kind written and read by the figures alone."""
    ref = f"gaugecli.experiments.{module}"
    return Experiment(
        name=name,
        help=help,
        config=f"{ref}:{config}",
        result=f"{ref}:{result}",
        compute=f"{ref}:{compute}",
        seed=no_seed,
        command="",
        api=None,
    )


SPECS = (
    _figure_run(
        "reduced-window",
        "reduced_window",
        "ReducedWindowConfig",
        "ReducedWindow",
        "reduced_window",
        "fig1 (c): where the gap between the ±D students exceeds a level, on the reduced flow's dense output.",
    ),
    _figure_run(
        "limit-constants",
        "limits",
        "LimitConstantsConfig",
        "LimitConstants",
        "limit_constants",
        "The D → ∞ constants lim D·T_spec(+D) and lim T_spec(−D)/D of the reduced equations.",
    ),
    _figure_run(
        "limit-paths",
        "limits",
        "LimitPathsConfig",
        "LimitPaths",
        "limit_paths",
        "fig2: the limiting paths of both gauges in the (c, θ) plane and the clock-free gap between them.",
    ),
    _figure_run(
        "ratio-slope",
        "ratio_slope",
        "RatioSlopeConfig",
        "RatioSlope",
        "ratio_slope",
        "fig3: the local slope of T_spec(−D)/T_spec(+D) at large D, from the reduced equations.",
    ),
    _figure_run(
        "speed-ratio",
        "speed_ratio",
        "SpeedRatioConfig",
        "SpeedRatio",
        "speed_ratio",
        "fig3 (d): the ±D angular-speed ratio along the +D run, the pair integrated by angle.",
    ),
    _figure_run(
        "limit-dissipation",
        "limit_dissipation",
        "LimitDissipationConfig",
        "LimitDissipation",
        "limit_dissipation",
        "fig6: the D → ∞ reaction and transport totals of both gauges.",
    ),
    _figure_run(
        "heavy-ball-pair",
        "heavy_ball_pair",
        "HeavyBallPairConfig",
        "HeavyBallPair",
        "heavy_ball_pair",
        "fig12 (b): T_spec(±D) and their ratio's local slopes under the heavy-ball flow, momentum's ODE limit.",
    ),
)
