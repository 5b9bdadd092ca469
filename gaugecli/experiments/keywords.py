"""Configs from keywords: a command's parameters by name (``gauge_strength=16``, ``d=8``,
``mode="gd"``) built into its config dataclass, with the config's own checks.

The names are those of the :class:`~gaugecli.experiments.declare.Param` declarations (the flags
without dashes) or the config's field names; a keyword of the ``model`` or ``dynamics`` goes to
that part. The Python API and the command line build their configs here, the command line from
the values of the options it made from the same declarations (:mod:`gaugecli.cli.options`).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from typing import Any


def _plural(tp: Any) -> bool:
    """A tuple field (``strengths``, ``seeds``): a single value given for it is a one-item tuple."""
    options = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    return any(typing.get_origin(o) is tuple for o in options)


def _is_float(tp: Any) -> bool:
    """A float field, or a tuple of floats (``float | None``, ``tuple[float, ...]``)."""
    options = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    for o in options:
        if o is float or (typing.get_origin(o) is tuple and float in typing.get_args(o)):
            return True
    return False


def _as_float(v: Any) -> Any:
    return float(v) if isinstance(v, int) and not isinstance(v, bool) else v


def _value(tp: Any, value: Any) -> Any:
    # a float field given an int (gauge_strength=16) holds the float, as the command line's does: the
    # config hashes as it will be read back from its artifact
    if _plural(tp) and value is not None:
        items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        return tuple(_as_float(v) for v in items) if _is_float(tp) else items
    return _as_float(value) if _is_float(tp) else value


def build(config_type: type, function: str, params: Mapping[str, Any]) -> Any:
    """``config_type`` built from keywords: its own fields, under their names or their parameters'
    (``gauge_strength`` for ``strengths``), and the fields of its ``model`` and ``dynamics`` (``d``,
    ``activation``, ``mode``, ``rtol``, …). An unknown keyword is a :class:`TypeError`; a former
    name of a parameter (its declaration's ``deprecated``) is read as the parameter, with a
    :class:`DeprecationWarning`."""
    from gaugecli.experiments.config import DynamicsConfig, ModelConfig

    hints = typing.get_type_hints(config_type)
    names = {f.name for f in dataclasses.fields(config_type)}
    declared = _declared(config_type)
    alias = {p.name: name for name, p in declared.items() if name in names and p.name != name}
    former = {old: p.name for name, p in declared.items() if name in names for old in p.deprecated}
    parts: dict[str, dict[str, Any]] = {"": {}, "model": {}, "dynamics": {}}
    nested = {"model": ModelConfig, "dynamics": DynamicsConfig}
    for key, value in params.items():
        if key in former:
            import warnings

            message = (
                f"{function}(): {key!r} is deprecated; use {former[key]!r} (the old name goes in the next release)"
            )
            warnings.warn(message, DeprecationWarning, stacklevel=3)
            key = former[key]
        name = alias.get(key, key)
        if name in names:
            if name in parts[""]:
                raise TypeError(f"{function}() got {name!r} twice (as {key!r} too); give it once")
            parts[""][name] = _word(declared.get(name), _value(hints[name], value))
            continue
        for part, tp in nested.items():
            if part in names and key in {f.name for f in dataclasses.fields(tp)}:
                parts[part][key] = _word(_declared(tp).get(key), _value(typing.get_type_hints(tp)[key], value))
                break
        else:
            valid = sorted(names - {"model", "dynamics"} | set(alias) | _nested_names(names, nested))
            raise TypeError(f"{function}() got an unknown parameter {key!r}; valid: {', '.join(valid)}")
    for part, tp in nested.items():
        if parts[part]:
            if part in parts[""]:
                raise TypeError(f"{function}() got {part}= and {', '.join(parts[part])} of it; give one of them")
            parts[""][part] = tp(**parts[part])
    return config_type(**parts[""])


def _word(param: Any, value: Any) -> Any:
    """A word given for a parameter declared as an Enum (``mode="gd"``) as its member (``Mode.gd``)."""
    kind = getattr(param, "type", None)
    if not (isinstance(value, str) and isinstance(kind, type) and issubclass(kind, enum.Enum)):
        return value
    from gaugecli.experiments.declare import ConfigError

    try:
        return kind(value)
    except ValueError:
        words = ", ".join(m.value for m in kind)
        raise ConfigError(param.name, f"must be one of {words} (got {value!r})") from None


def _nested_names(names: set[str], nested: Mapping[str, type]) -> set[str]:
    return {f.name for part, tp in nested.items() if part in names for f in dataclasses.fields(tp)}


def _declared(config_type: type) -> dict[str, Any]:
    """The parameter declarations of ``config_type`` (``SimulateConfig`` → ``params.Simulate``)."""
    from gaugecli.experiments import params as P

    fields = getattr(P, config_type.__name__.removesuffix("Config"), None)
    return dict(getattr(fields, "params", {}))
