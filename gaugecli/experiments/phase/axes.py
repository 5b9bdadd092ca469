"""The two axes of ``gaugecli phase``: ``NAME=START:STOP:NUM[:log]``, NAME a numeric option of the
base command, and how one value of an axis sets one cell's configuration.

The names are not a list typed here: they are read off the declarations of the base command's
parameters (:mod:`gaugecli.experiments.params`: the model's, the dynamics' and the command's own),
each spelled as its flag without the dashes (``gauge_strength`` → ``gauge-strength``). A parameter
is an axis when it is a single number; left out are the per-neuron ``deltas`` (replaced by the
axes below) and seeds (a seed names a draw, it is no coordinate). Beyond the declarations: Adam's
``betas`` are the axes ``beta1`` and ``beta2`` (one coordinate each, the other as given); for
``simulate`` the axis ``gauge`` is an explicit δ given to every neuron (``--gauge -0.5``); for
``select`` the axes ``owner-delta`` and ``others-delta`` set the designated owner's δ and the
others' (``--deltas`` with the owner at ``owner``).

Stdlib only, like the declarations, so that a bad axis is refused before numpy is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from gaugecli.experiments import params as P
from gaugecli.experiments.declare import ConfigError, Fields, Param, number, require

SCALES = ("linear", "log")
NOT_AXES = {
    "deltas": "per-neuron δ",
    "seed": "a seed",
    "seeds": "a seed",
    "init_seed": "a seed",
    "basis_seed": "a seed",
    "teacher_seed": "a seed",
}
"""Numeric declarations that are no axis, and why (``deltas``: see the axes ``gauge``,
``owner-delta`` and ``others-delta``)."""
BETA_AXES = ("beta1", "beta2")
"""The axes of Adam's ``betas``, one coordinate each."""
INITIAL_MODEL_FIELDS = ("c0", "theta0")
"""The model's fields that enter only the initial condition (``f0 = c0 σ(u0·x)``, ``u0`` at θ0 to
the teacher), not the model a run integrates: cells that differ in them alone can share one ensemble."""


@dataclass(frozen=True)
class AxisSpec:
    """What an axis ``name`` sets: the declared :class:`Param` that checks its values, and where in
    the cell's configuration it goes (``target``: ``model``, ``dynamics`` or ``run``; ``field``).
    ``ensemble``: the axis changes the initial condition only (same model, dynamics and width),
    so that cells differing in it alone can be integrated as one ensemble."""

    name: str
    param: Param
    target: str
    field: str
    ensemble: bool


def _numeric(p: Param) -> bool:
    return p.type in (int, float) and not p.choices


@cache
def axis_specs(kind: str) -> dict[str, AxisSpec]:
    """Every axis of the base command ``kind`` (``simulate`` | ``select``), by name."""
    own: type[Fields] = P.Simulate if kind == "simulate" else P.Select
    specs: dict[str, AxisSpec] = {}
    for target, fields in (("model", P.Model), ("dynamics", P.Dynamics), ("run", own)):
        for field, p in fields.params.items():
            if not _numeric(p) or field in NOT_AXES or p.name in NOT_AXES:
                continue
            if p.plural and field != "strengths":  # simulate's -D list: one D per cell; Adam's betas: below
                continue
            name = p.option.removeprefix("--")
            if target == "model":
                ensemble = field in INITIAL_MODEL_FIELDS
            else:
                ensemble = target == "run" and field != "m"
            single = p.but(plural=False) if p.plural else p
            specs[name] = AxisSpec(name, single, target, field, ensemble)
    for name in BETA_AXES:  # Adam's β1,β2 one at a time (the other stays as given)
        specs[name] = AxisSpec(name, P.Dynamics.betas.but(name=name, plural=False), "dynamics", name, False)
    if kind == "simulate":
        gauge = P.DELTAS.but(name="gauge", plural=False)
        specs["gauge"] = AxisSpec("gauge", gauge, "run", "gauge", True)
    else:
        for name in ("owner-delta", "others-delta"):
            specs[name] = AxisSpec(name, P.DELTAS.but(name=name.replace("-", "_"), plural=False), "run", name, True)
    return dict(sorted(specs.items()))


def allowed(kind: str) -> str:
    return ", ".join(axis_specs(kind))


@dataclass(frozen=True)
class Axis:
    """One axis: ``num`` values of the parameter ``name`` from ``start`` to ``stop`` (both included),
    evenly spaced on a ``linear`` or ``log`` scale."""

    name: str
    start: float
    stop: float
    num: int
    scale: str = "linear"

    @property
    def values(self) -> tuple[float, ...]:
        """The axis' values, ``start`` and ``stop`` exactly."""
        n, a, b = self.num, self.start, self.stop
        if self.scale == "log":  # in decades: 1e-3:1:4:log is 1e-3, 1e-2, 0.1, 1 exactly
            la, lb = math.log10(a), math.log10(b)
            inner = [10.0 ** (la + (lb - la) * i / (n - 1)) for i in range(1, n - 1)]
        else:
            inner = [a + (b - a) * i / (n - 1) for i in range(1, n - 1)]
        return (a, *inner, b)

    def text(self) -> str:
        """As the command line takes it: ``c0=0.01:0.5:9:log``."""
        tail = ":log" if self.scale == "log" else ""
        return f"{self.name}={number(self.start)}:{number(self.stop)}:{self.num}{tail}"


FORM = "NAME=START:STOP:NUM[:log]"


def parse_axis(text: str, kind: str, param: str = "x") -> Axis:
    """``NAME=START:STOP:NUM[:log]`` → :class:`Axis`, checked by :func:`check_axis`."""
    name, sep, rest = str(text).partition("=")
    name = name.strip()
    require(bool(sep) and bool(name), param, f"must be {FORM}, e.g. c0=0.01:0.5:9:log (got {text!r})")
    _check_name(name, kind, param)
    parts = [s.strip() for s in rest.split(":")]
    scale = parts.pop().lower() if len(parts) == 4 else "linear"
    require(len(parts) == 3, param, f"must be {FORM}, e.g. {name}=1:64:7:log (got {text!r})")
    try:
        start, stop = float(parts[0]), float(parts[1])
    except ValueError:
        raise ConfigError(param, f"START and STOP of {name} must be numbers (got {text!r})") from None
    try:
        num = int(parts[2])
    except ValueError:
        raise ConfigError(param, f"NUM of {name} must be an integer (got {parts[2]!r})") from None
    axis = Axis(name, start, stop, num, scale)
    check_axis(axis, kind, param)
    return axis


def _check_name(name: str, kind: str, param: str) -> None:
    require(name in axis_specs(kind), param, f"{name!r} is not an axis of {kind}; choose one of {allowed(kind)}")


def check_axis(axis: Axis, kind: str, param: str = "x") -> None:
    """Refuse an axis that ``kind`` cannot map (a :class:`ConfigError` naming ``param``): NAME an
    axis of ``kind``, the scale ``linear`` or ``log``, NUM an integer in
    [2, :data:`~gaugecli.experiments.params.MAX_AXIS_POINTS`], START ≠ STOP, both finite and > 0
    on a log scale, and every value in the parameter's declared range (the message names the
    parameter). The rules between parameters (an option without effect in the mode, say) are
    checked when the cells' configurations are built."""
    name, start, stop, num, scale = axis.name, axis.start, axis.stop, axis.num, axis.scale
    _check_name(name, kind, param)
    require(scale in SCALES, param, f"the scale of {name} must be log or linear (got {scale!r})")
    require(
        isinstance(num, int) and 2 <= num <= P.MAX_AXIS_POINTS,
        param,
        f"NUM of {name} must be an integer in [2, {P.MAX_AXIS_POINTS}] (got {num!r}): a map needs two "
        f"values, and {P.MAX_AXIS_POINTS}² runs is the most one call makes",
    )
    require(
        math.isfinite(start) and math.isfinite(stop),
        param,
        f"START and STOP of {name} must be finite (got {start!r}, {stop!r})",
    )
    require(start != stop, param, f"START and STOP of {name} must differ (got {number(start)} twice)")
    if scale == "log":
        require(
            start > 0 and stop > 0,
            param,
            f"a log axis needs START, STOP > 0 (got {name}={number(start)}:{number(stop)})",
        )
    spec = axis_specs(kind)[name]
    for value in axis.values:
        try:
            spec.param.check(cell_value(spec, value, param))
        except ConfigError as err:  # named as the axis: the flag it came from, then the parameter
            if err.param != spec.param.name:
                raise
            raise ConfigError(param, f"{name} {err.message}") from None


def cell_value(spec: AxisSpec, value: float, param: str = "x") -> Any:
    """``value`` as the parameter takes it: an integer parameter's value must be a whole number."""
    if spec.param.type is int:
        whole = round(value)
        require(
            abs(value - whole) <= 1e-9 * max(1.0, abs(value)),
            param,
            f"{spec.name} takes integers; {number(value)} is not one (choose START, STOP and NUM so that every value is)",
        )
        return int(whole)
    return float(value)
