"""The spec of ``gaugecli phase``: a map of simulate or select over two parameters."""

from __future__ import annotations

from typing import Any

from gaugecli.experiments.spec import Experiment, no_seed


def _axis(axis: Any) -> str:
    """``NAME=START:STOP:NUM[:log]`` with START and STOP to the last bit (``repr``), so that the
    rerun's axis values, and hence its config hash, are the artifact's."""
    tail = ":log" if axis.scale == "log" else ""
    return f"{axis.name}={axis.start!r}:{axis.stop!r}:{axis.num}{tail}"


def rerun_options(config: Any) -> dict[str, Any]:
    """``gaugecli phase``'s own options and its base run's (the axes as ``NAME=START:STOP:NUM[:log]``;
    the base's D, m, owner or gauge and its start), by TOML key."""
    from gaugecli.experiments.simulate import SimulateConfig

    base = config.run_base
    out: dict[str, Any] = {
        "kind": config.kind,
        "x": _axis(config.x),
        "y": _axis(config.y),
        "metric": list(config.metrics),
        "limit-d": list(config.limit_strengths),
        "seeds": None if config.seeds is None else list(config.seeds),
        "m": base.m,
        "init": base.init,
        "eps": base.eps,
        "init-seed": base.init_seed,
    }
    if isinstance(base, SimulateConfig):
        out.update({"gauge": base.gauge, "gauge-strength": base.strengths[0]})
        kunin = {  # Kunin et al.'s setting, where given (their defaults leave the key out)
            "init-scale": base.init_scale,
            "eta-per-scale": base.eta_per_scale or None,
            "teacher": None if base.teacher == "standard" else base.teacher,
            "teacher-seed": base.teacher_seed,
            "inputs": None if base.inputs == "gaussian" else base.inputs,
            "checkpoints": None if base.checkpoints is None else list(base.checkpoints),
        }
        out.update(kunin)
    else:
        out.update({"gauge-strength": base.strength, "owner": base.owner})
    return {k: v for k, v in out.items() if v is not None}


def api_configs(config: Any, params: dict[str, Any], build: Any) -> tuple[str, list[Any], bool]:
    """Keywords ``kind``, ``x`` and ``y`` (``"NAME=START:STOP:NUM[:log]"``), ``metric`` (or
    ``metrics``), and any parameter of the base run — or ``base=`` a config; ``preset`` a map of
    :data:`~gaugecli.experiments.phase.PRESETS` (its first map where it has two), each of whose settings
    a keyword given overrides, as ``--preset`` on the command line."""
    from gaugecli.experiments.phase import PRESETS, PhaseConfig, parse_axis

    preset = params.pop("preset", None)
    if preset is not None and config is None:
        p = PRESETS[preset]
        given_metrics = "metrics" in params or "metric" in params
        settings: dict[str, Any] = {
            "kind": p.kind,
            "x": p.x,
            "y": p.y,
            **({} if given_metrics else {"metrics": p.metrics}),
        }
        settings |= {"seeds": p.seeds} if p.seeds is not None else {}
        settings |= dict(p.options) | dict(p.variants[0][1] if p.variants else ()) | dict(p.model) | dict(p.dynamics)
        params = {**settings, **params}
    if config is None:
        kind = params.pop("kind", "simulate")
        axes: dict[str, Any] = {
            name: parse_axis(params.pop(name), kind, name) if isinstance(params.get(name), str) else params.pop(name)
            for name in ("x", "y")
            if name in params
        }
        metrics = params.pop("metrics", params.pop("metric", None))
        own: dict[str, Any] = {
            name: params.pop(name) for name in ("limit_strengths", "seeds", "device") if name in params
        }
        base = params.pop("base", None)
        if params:
            from gaugecli.experiments.select import SelectConfig
            from gaugecli.experiments.simulate import SimulateConfig

            base_type: type = SimulateConfig if kind == "simulate" else SelectConfig
            base = build(base, base_type, SPEC.api_name, params)
        if own.get("device") is not None and base is not None and base.dynamics.mode.value != "flow":
            from dataclasses import replace  # a finite-sample base runs its torch work there (its --device)

            base = replace(base, dynamics=replace(base.dynamics, device=own.pop("device")))
        given: dict[str, Any] = (
            {"metrics": (metrics,) if isinstance(metrics, str) else tuple(metrics)} if metrics is not None else {}
        )
        keywords: dict[str, Any] = {"kind": kind, "base": base, **axes, **given, **own}
        config = build(None, PhaseConfig, SPEC.api_name, keywords)
    return SPEC.name, [build(config, PhaseConfig, SPEC.api_name, {})], False


SPEC = Experiment(
    name="phase",
    help="A map over two parameters of simulate or select: T_spec, ratio, outcome, the tangent kernel's change and distance, ….",
    config="gaugecli.experiments.phase:PhaseConfig",
    result="gaugecli.experiments.phase:PhaseResult",
    compute="gaugecli.experiments.phase:phase",
    runner=True,
    keyed=True,
    seed=no_seed,
    fields=(
        ("base.model", "gaugecli.experiments.params:Model"),
        ("base.dynamics", "gaugecli.experiments.params:Dynamics"),
    ),
    rerun_options=rerun_options,
    api_doc="""``gaugecli phase``: a map of simulate or select over two parameters. Keywords: ``kind``,
    ``x`` and ``y`` (``"NAME=START:STOP:NUM[:log]"``), ``metric`` (or ``metrics``), and any
    parameter of the base run (``m``, ``d``, ``gauge``, ``rtol``, …) — or ``base=`` a config; ``preset``
    a map of the command line's ``--preset`` (keywords given override its settings).""",
    api_returns="PhaseResult",
    api_configs=api_configs,
)

SPECS = (SPEC,)
