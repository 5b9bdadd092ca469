"""The run's configuration as a summary states it: the header line of what the run used, and what the
activation, the weight decay and the step change in the reading of δ, T_spec and R + T."""

from __future__ import annotations

from typing import Any

from gaugecli.cli.report.terminal import escape


def model_tag(model: Any) -> str:
    """``σ = relu · teacher τ = linear · λ = 1e-2``: the activation, the teacher's where it differs, and the
    weight decay where there is one."""
    from gaugecli.core.activations import PARAMETERS
    from gaugecli.experiments.declare import number

    def name(activation: str) -> str:
        sloped = "negative_slope" in PARAMETERS.get(activation, ())
        return activation + (f" (β = {number(model.slope)})" if sloped else "")

    teacher = model.teacher_activation
    tau = "" if teacher in (None, model.activation) else f" · teacher τ = {name(teacher)}"
    return f"σ = {name(model.activation)}{tau}" + (f" · λ = {number(model.weight_decay)}" if model.weight_decay else "")


def header(command: str, config: Any, runs: list[Any] | None = None, gauges: str | None = None) -> str:
    """The run's effective configuration in one line: activation, mode, d, m, D or δ, n, seed, η,
    t_max and rtol — the values the run used, where a default was left to the mode. ``gauges``
    replaces the D part for a command that ran several gauges or strengths together."""
    from gaugecli.experiments.declare import number

    model = config.model
    dynamics = getattr(config, "dynamics", None)
    parts = [f"gaugecli {command}", model_tag(model)]
    if dynamics is not None:
        parts.append(f"mode {dynamics.mode.value}")
        if dynamics.optimizer is not None or dynamics.basis == "random":  # the update rule, as given
            rule = dynamics.update_rule(model.weight_decay).describe()
            parts.append(
                rule + (f" (basis random, seed {dynamics.basis_seed or 0})" if dynamics.basis == "random" else "")
            )
    parts.append(f"d = {model.d}" + (f", k = {model.k}" if model.k > 1 else ""))
    ignored = _ignored(config)
    start = [f"c0 = {number(model.c0)}"] * ("c0" not in ignored) + [f"θ0 = {model.theta0:.4g}"] * (
        "theta0" not in ignored
    )
    if start:  # what the start read: a drawn one reads neither (its scales are the config's)
        parts.append(", ".join(start))
    deltas = getattr(config, "deltas", None)
    if deltas is not None:
        parts.append("δ = " + ",".join(f"{x:+g}" for x in deltas))
    else:
        if hasattr(config, "m"):
            parts.append(f"m = {config.m}")
        strengths = getattr(config, "strengths", None) or [getattr(config, "strength", None)]
        gauge = getattr(config, "gauge", None)
        if gauges is not None:
            parts.append(gauges)
        elif "gauge_strength" in ignored:
            parts.append("δ natural (the draw's own)")
        elif gauge is not None and _explicit(gauge):  # an explicit δ reads no D
            parts.append(f"δ = {gauge}")
        elif strengths[0] is not None:
            parts.append(("D = " + ",".join(number(float(s)) for s in strengths)) + (f" ({gauge})" if gauge else ""))
    kunin = [  # Kunin et al.'s setting, where the run is in it
        f"τ = {number(config.scale)}" if getattr(config, "init", None) == "paired" else "",
        "teacher random" if getattr(config, "teacher", "standard") == "random" else "",
        "x on the unit sphere" if getattr(config, "inputs", "gaussian") == "sphere" else "",
    ]
    parts += [k for k in kunin if k]
    if dynamics is not None:
        if dynamics.sample_size is not None:
            parts.append(f"n = {dynamics.sample_size}")
        if dynamics.mode.stochastic:
            seeds = getattr(config, "seeds", None) or (getattr(config, "seed", None),)
            parts.append("seed = " + ",".join("0" if s is None else str(s) for s in seeds))
        etas = sorted({r.eta for r in runs or [] if r.eta is not None})
        if etas:
            parts.append(
                "η = " + ",".join(f"{e:.4g}" for e in etas) + ("" if dynamics.eta is not None else " (chosen)")
            )
        marks = getattr(config, "checkpoints", None)
        if dynamics.mode.stepped and marks:  # the last checkpoint is the horizon
            parts.append(f"steps = {number(float(max(marks)))}")
        else:
            horizon = "auto" if dynamics.t_max is None else number(dynamics.t_max)
            parts.append(f"t_max = {horizon}")
        if not dynamics.mode.stepped:
            parts.append(f"rtol = {number(dynamics.solver_rtol)}")
    elif hasattr(config, "rtol"):
        parts.append(f"rtol = {number(config.rtol)}")
    return " · ".join(parts)


def _explicit(gauge: str) -> bool:
    """``gauge`` is an explicit δ (a signed number), not a gauge word."""
    try:
        float(gauge)
    except ValueError:
        return False
    return True


def _ignored(config: Any) -> dict[str, str]:
    """The options the run's start never read (:func:`~gaugecli.experiments.initial.ignored_by_start`):
    a header prints none of them."""
    from gaugecli.experiments.initial import ignored_by_config

    return ignored_by_config(config)


def dynamics_lines(runs: list[Any]) -> list[str]:
    """What the summary must say besides the table: the step used, and symmetric starts."""
    lines = []
    for obs in runs:
        if obs.eta is not None:
            error = "not estimated" if obs.step_error is None else f"estimated T_spec error {obs.step_error:.2%}"
            lines.append(f"step η = {obs.eta:.4g} ({error}; {obs.stats.objective} loss)")
        if obs.imbalance_step_residual is not None:
            lines.append(
                "δ drift: the step's departure from the flow's law; GD's per-step identity "
                "δ_{k+1} = (1 − 2ηλ)δ_k + η²(g_a² − ‖g_w‖²/p) accounts for it to "
                f"{obs.imbalance_step_residual:.1e}"
            )
        if obs.symmetric_start:
            lines.append(f"[yellow]warning:[/] {escape(obs.symmetry_note or 'symmetric start: no unique owner')}")
    return list(dict.fromkeys(lines))


def model_lines(model: Any, runs: list[Any]) -> list[str]:
    """What the activation and weight decay change in a summary's reading of δ, T_spec and R + T."""
    from gaugecli.core.activations import activation_class

    lines = []
    cls = activation_class(model.activation)
    if cls.degree is None:
        drift = max((r.imbalance_drift for r in runs), default=float("nan"))
        lines.append(
            f"σ = {model.activation} is not homogeneous: it has no gauge, δ = a² − ‖w‖² is not conserved "
            f"(it drifted by {drift:.2g} relative to max(1, |δ(0)|)) and no gauge claim applies; R + T: no split (—)"
        )
    elif cls.degree != 1:
        lines.append(
            f"σ = {model.activation} has degree p = {cls.degree}: δ = a² − ‖w‖²/{cls.degree}, c = a‖w‖^{cls.degree}"
        )
    if model.weight_decay:
        lines.append(
            f"weight decay λ = {model.weight_decay:g}: δ drift is measured against its law δ(0)·e^(−2λt); "
            "R + T splits ‖∇L‖² of the loss L without the decay"
        )
    return lines
