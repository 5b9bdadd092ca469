"""The TOML that reruns a cached artifact: ``runs/<kind>/<hash>.toml`` beside ``<hash>.json``.

Written from the artifact's configuration through the parameters' declarations (each field's
flag), so that any cached run — one a command made, or one a figure needed in ``make figures`` —
is rerun, or taken from the cache, by ``gaugecli <command> --config runs/<kind>/<hash>.toml`` (the
command its first line gives, valid where the run that wrote it was started).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from gaugecli.experiments import params as P
from gaugecli.experiments.declare import Fields

COMMANDS: dict[str, tuple[str, tuple[tuple[str | None, type[Fields]], ...]]] = {
    "simulate": ("simulate", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.Simulate))),
    "select": ("select", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.Select))),
    "select-sweep": ("select", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.OwnerSweep))),
    "prune": ("prune", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.Prune))),
    "perturb": ("perturb", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.Perturb))),
    "lockin": ("lockin", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.Lockin))),
    "reln": ("reln", (("model", P.Model), ("dynamics", P.Dynamics), (None, P.Reln))),
    "phase": ("phase", (("base.model", P.Model), ("base.dynamics", P.Dynamics))),
    "predict": ("predict", (("model", P.Model), (None, P.Predict))),
}
"""Artifact kind → the command that reruns it, and where in its config each declaration's fields lie
(a dotted path: a field of a field; ``phase`` adds its own options and its base run's, see
:func:`_phase_options`)."""


EXPLICIT_DELTAS_IMPLY = {"gauge", "strengths", "strength", "m", "owner"}
"""The fields that ``deltas`` sets or makes meaningless (``--deltas`` refuses them)."""


def options(kind: str, config: Any) -> dict[str, Any]:
    """The command's options (by flag) that rebuild ``config``: every declared field the command
    offers, at the value the artifact was made with (a field left to the mode, ``None``, is left out)."""
    from gaugecli.experiments.initial import ignored_by_config

    command_name, parts = COMMANDS[kind]
    by_flag = _parameters_by_flag(command_name)
    out: dict[str, Any] = {"sweep": True} if kind == "select-sweep" else {}
    # per-neuron δ fix m and the owner and replace the gauge: those options would be refused with them
    implied = EXPLICIT_DELTAS_IMPLY if getattr(config, "deltas", None) is not None else set()
    # a drawn start never reads these: listed, they would read as used (and a rerun refuses them if edited)
    ignored = set(ignored_by_config(config))
    for attribute, fields in parts:
        holder = config
        for name in [] if attribute is None else attribute.split("."):
            holder = getattr(holder, name)
        for field, p in fields.params.items():
            flag = "--kind" if field == "adversarial" else p.option
            param = by_flag.get(flag)
            if param is None or not hasattr(holder, field) or (attribute is None and field in implied):
                continue  # not an option of this command (reln's mode, prune's k)
            if field in ignored or (field in ("strengths", "strength") and "gauge_strength" in ignored):
                continue
            value = getattr(holder, field)
            if field == "adversarial":
                value = "adversarial" if value else "random"
            if value is None:
                continue
            listed = p.plural or param.multiple or field == "seed"  # simulate's one seed, as --seeds
            out[_key(param)] = list(value) if isinstance(value, tuple) else [value] if listed else value
    if kind == "phase":
        out.update(_phase_options(config))
    return out


@functools.cache
def _parameters_by_flag(command_name: str) -> dict[str, Any]:
    """The click parameters of ``gaugecli <command_name>`` by each of their flags. Built once per
    process: building the Typer group took ~20 ms a call, and ``plot all`` writes ~300 reruns."""
    import typer

    from gaugecli.cli.app import app

    command = typer.main.get_group(app).get_command(None, command_name)  # type: ignore[arg-type]
    assert command is not None, command_name
    return {flag: param for param in command.params for flag in param.opts}


def _axis(axis: Any) -> str:
    """``NAME=START:STOP:NUM[:log]`` with START and STOP to the last bit (``repr``), so that the
    rerun's axis values, and hence its config hash, are the artifact's."""
    tail = ":log" if axis.scale == "log" else ""
    return f"{axis.name}={axis.start!r}:{axis.stop!r}:{axis.num}{tail}"


def _phase_options(config: Any) -> dict[str, Any]:
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
    else:
        out.update({"gauge-strength": base.strength, "owner": base.owner})
    return {k: v for k, v in out.items() if v is not None}


def _key(param: Any) -> str:
    from gaugecli.cli.config_file import key_of

    return key_of(param)


def command_line(command: str, recipe: Path) -> str:
    """The command that reruns ``recipe`` (``<cache>/<kind>/<hash>.toml``) from where the run that wrote
    it was started: the paths as that run named them, and the cache named where it is not the default
    (``runs``), so the rerun reads the same cache."""
    import shlex

    cache = recipe.parent.parent
    tail = "" if cache == Path("runs") else f" --cache-dir {shlex.quote(str(cache))}"
    return f"gaugecli {command} --config {shlex.quote(str(recipe))}{tail}"


def write(kind: str, config: Any, artifact_path: Path) -> Path | None:
    """Write ``artifact_path.with_suffix('.toml')`` (once: an existing file is the same run's)."""
    if kind not in COMMANDS:
        return None
    path = artifact_path.with_suffix(".toml")
    if path.exists() and path.stat().st_size:  # empty: a write cut by a power loss (not fsynced, below)
        return path
    from gaugecli.cli.config_file import toml_lines
    from gaugecli.store.atomic import atomic_write_text
    from gaugecli.store.errors import ArtifactError

    command = COMMANDS[kind][0]
    header = [f"# Reruns {artifact_path.name} (or reads it from the cache): {command_line(command, path)}"]
    try:
        text = "\n".join(header + toml_lines(options(kind, config))) + "\n"
        atomic_write_text(path, text, "--cache-dir", durable=False)  # a cache entry's recipe, as its artifact
    except ArtifactError:  # a read-only cache (a colleague's) serves its runs without their recipes
        return None
    return path
