"""One-line descriptions of results and configs, for a result's ``repr``: its headline fields (the
type's ``HEADLINE``, else its first numbers, flags and short words), the configuration that made it
by its gauge, its gauge strength D and what it sets apart from the defaults, and where it is stored.
A run's field-by-field dataclass ``repr`` is ~10⁵ characters; this is one line. Pure text: no files."""

from __future__ import annotations

import dataclasses
import enum
from pathlib import Path
from typing import Any

import numpy as np


def describe(result: Any, config: Any = None, path: Path | None = None) -> str:
    """``RunObservables(owner=0, specialized=True, t_spec=161.8, converged=True,
    config=SimulateConfig(gauge='unfavorable', strengths=(16.0,)), path='runs/simulate/….json')``."""
    shown = [f"{name}={_short(getattr(result, name))}" for name in headline(result)]
    if config is not None:
        shown.append(f"config={config_text(config)}")
    if path is not None:
        shown.append(f"path={str(path)!r}")
    return f"{type(result).__name__}({', '.join(shown)})"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


HEADLINE_FIELDS = 6
"""How many fields a ``repr`` shows when its type names none."""


def headline(result: Any) -> tuple[str, ...]:
    """The fields ``repr`` shows: the type's ``HEADLINE``, else its first numbers, flags and short words."""
    named = getattr(type(result), "HEADLINE", ())
    if named:
        return tuple(named)
    out = [
        name
        for name, value in ((f.name, getattr(result, f.name)) for f in dataclasses.fields(result))
        if (_scalar(value) and value is not None) or (isinstance(value, (str, enum.Enum)) and len(str(value)) <= 40)
    ]
    return tuple(out[:HEADLINE_FIELDS])


def _short(value: Any) -> str:
    """A field as the ``repr`` shows it: a number to 4 digits, an array by its shape, a long list by its first items."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    if isinstance(value, np.ndarray):
        return f"array{list(value.shape)}"
    if isinstance(value, dict):
        items = [f"{k!r}: {_short(v)}" for k, v in list(value.items())[:8]]
        return "{" + ", ".join(items) + (f", … {len(value)} items" if len(value) > 8 else "") + "}"
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"[{', '.join(_short(v) for v in value[:3])}, … {len(value)} items]"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return f"{type(value).__name__}(…)"
    return repr(value)


ALWAYS_SHOWN = ("gauge", "strengths", "strength")
"""Config fields a ``repr`` shows even at their defaults: the gauge and its strength D, which say
which run a result is."""


def config_text(config: Any) -> str:
    """``SimulateConfig(gauge='unfavorable', strengths=(16.0,), model.d=8)``: a config by its gauge
    and gauge strength D and the fields it sets apart from its type's defaults (those of its
    ``model`` and ``dynamics`` by dotted name)."""
    return f"{type(config).__name__}({', '.join(_changed(config, ''))})"


def _changed(config: Any, prefix: str) -> list[str]:
    out: list[str] = []
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        if dataclasses.is_dataclass(value) and not isinstance(value, type) and type(default) is type(value):
            out += _changed(value, f"{prefix}{f.name}.")
        elif not _same(value, default) or (not prefix and f.name in ALWAYS_SHOWN):
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                text = config_text(value)
            else:
                text = repr(value.value if isinstance(value, enum.Enum) else value)
            out.append(f"{prefix}{f.name}={text}")
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays: an ambiguous truth value
        return False
