"""The TOML that reruns a cached artifact: ``runs/<kind>/<hash>.toml`` beside ``<hash>.json``.

Written from the artifact's configuration through the parameters' declarations (each field's
flag), so that any cached run — one a command made, or one a figure needed in ``make figures`` —
is rerun, or taken from the cache, by ``gaugecli <command> --config runs/<kind>/<hash>.toml`` (the
command its first line gives, valid where the run that wrote it was started).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gaugecli.experiments.declare import Fields
from gaugecli.experiments.spec import Live, experiment, experiments, resolve


def _table() -> dict[str, tuple[str, tuple[tuple[str | None, type[Fields]], ...]]]:
    return {
        spec.name: (spec.command_name, tuple((attribute, resolve(ref)) for attribute, ref in spec.fields))
        for spec in experiments()
        if spec.command_name and (spec.fields or spec.rerun_options is not None)
    }


COMMANDS: Mapping[str, tuple[str, tuple[tuple[str | None, type[Fields]], ...]]] = Live(_table)
"""Artifact kind → the command that reruns it, and where in its config each declaration's fields lie
(a dotted path: a field of a field), from each experiment's spec (its ``command_name`` and
``fields``; its ``rerun_flags`` and ``rerun_options`` add what the declarations do not give)."""


EXPLICIT_DELTAS_IMPLY = {"gauge", "strengths", "strength", "m", "owner"}
"""The fields that ``deltas`` sets or makes meaningless (``--deltas`` refuses them)."""


def options(kind: str, config: Any) -> dict[str, Any]:
    """The command's options (by flag) that rebuild ``config``: every declared field the command
    offers, at the value the artifact was made with (a field left to the mode, ``None``, is left out)."""
    from gaugecli.experiments.initial import ignored_by_config

    command_name, parts = COMMANDS[kind]
    spec = experiment(kind)
    assert spec is not None, kind
    by_flag = _parameters_by_flag(command_name)
    out: dict[str, Any] = dict(spec.rerun_flags)
    # per-neuron δ fix m and the owner and replace the gauge: those options would be refused with them
    implied = EXPLICIT_DELTAS_IMPLY if getattr(config, "deltas", None) is not None else set()
    # a drawn start never reads these: listed, they would read as used (and a rerun refuses them if edited)
    ignored = set(ignored_by_config(config)) | (spec.rerun_unread(config) if spec.rerun_unread else set())
    for attribute, fields in parts:
        holder = config
        for name in [] if attribute is None else attribute.split("."):
            holder = getattr(holder, name)
        for field, p in fields.params.items():
            param = by_flag.get(p.option)
            if param is None or not hasattr(holder, field) or (attribute is None and field in implied):
                continue  # not an option of this command (reln's mode, prune's k)
            if (
                field in ignored
                or p.name in ignored
                or (field in ("strengths", "strength") and "gauge_strength" in ignored)
            ):
                continue
            value = getattr(holder, field)
            if value is None:
                continue
            listed = p.plural or param.multiple or field == "seed"  # simulate's one seed, as --seeds
            out[_key(param)] = list(value) if isinstance(value, tuple) else [value] if listed else value
    if spec.rerun_options is not None:
        out.update(spec.rerun_options(config))
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
