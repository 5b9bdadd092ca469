"""Python values ↔ JSON values, in one place.

:func:`to_jsonable` turns dataclasses, numpy arrays and scalars, enums and tuples into plain
JSON values (NaN and ±inf become ``null``, as JSON has no such numbers); :func:`from_jsonable`
rebuilds a typed value — a result dataclass with its arrays — from them, guided by type hints.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import gc
import json
import math
import types
import typing
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii
from typing import Any

import numpy as np

from gaugecli.core.types import LATER_FIELD, UNKEYED_FIELD

_LEAVES = frozenset({str, int, bool, type(None)})
"""Types that are their own JSON value (exactly these: a subclass, an enum say, takes the long way)."""


_PLANS: dict[type, tuple[tuple[str, bool, Any], ...]] = {}


def _plan(cls: type) -> tuple[tuple[str, bool, Any], ...]:
    """``(name, later, default)`` of each field of the dataclass ``cls``, in order (``later``: marked
    :data:`LATER_FIELD`). Read once per class: :func:`dataclasses.fields` of every instance encoded was
    most of a configuration's encoding, and a phase map hashes one configuration per cell. A field marked
    :data:`UNKEYED_FIELD` is planned as a later field whose default is :data:`_ALWAYS`: always left out."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = tuple(
            (f.name, True, _ALWAYS) if f.metadata.get(UNKEYED_FIELD) else
            (f.name, bool(f.metadata.get(LATER_FIELD)), f.default)
            for f in dataclasses.fields(cls)
        )  # fmt: skip
    return plan


_KEYED: dict[type, tuple[tuple[str, str, bool, Any], ...]] = {}


def _keyed_plan(cls: type) -> tuple[tuple[str, str, bool, Any], ...]:
    """``(name, key, later, default)`` of :func:`_plan`'s fields sorted by name (the canonical text's order),
    ``key`` the name's JSON text and its colon: sorted and escaped once per class, not once per instance."""
    plan = _KEYED.get(cls)
    if plan is None:
        plan = _KEYED[cls] = tuple(
            (name, f"{encode_basestring_ascii(name)}:", later, default) for name, later, default in sorted(_plan(cls))
        )
    return plan


_ALWAYS = object()
"""The planned default of an :data:`UNKEYED_FIELD`: whatever it holds, it is left out (:func:`_omitted`)."""


def _omitted(value: Any, default: Any) -> bool:
    """Whether a :data:`LATER_FIELD` holding ``value`` is left out: while it holds its ``default``
    (an array is never a field's default: == would compare elementwise); an :data:`UNKEYED_FIELD` always."""
    return default is _ALWAYS or value is default or (not isinstance(value, np.ndarray) and bool(value == default))


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, numpy arrays and scalars, enums and tuples → JSON values; NaN/inf → null.
    A field marked :data:`LATER_FIELD` is left out while it holds its default."""
    kind = type(obj)
    if kind in _LEAVES:
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    if hasattr(kind, "__dataclass_fields__") and not isinstance(obj, type):
        out = {}
        for name, later, default in _plan(kind):
            value = getattr(obj, name)
            if later and _omitted(value, default):
                continue
            of = type(value)  # the leaves inline: most fields of a configuration are numbers, words or None
            if of in _LEAVES:
                out[name] = value
            elif of is float:
                out[name] = value if math.isfinite(value) else None
            else:
                out[name] = to_jsonable(value)
        return out
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        # without a Python-level pass over every number: arrays are most of an artifact
        if obj.dtype.kind == "f":
            finite = np.isfinite(obj)
            if bool(np.all(finite)):
                return obj.tolist()
            masked = obj.astype(object)
            masked[~finite] = None
            return masked.tolist()
        if obj.dtype.kind in "iub":
            return obj.tolist()
        return to_jsonable(obj.tolist())
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        return x if math.isfinite(x) else None
    return obj


_TEXTS: dict[int, tuple[Any, str]] = {}
"""The canonical text of frozen dataclasses already written, by identity (the object kept, so that its id
is not reused; equal is not enough: ``-0.0 == 0.0``); emptied when it reaches :data:`TEXTS_KEPT`."""
TEXTS_KEPT = 1 << 15
_ENCODE = json.JSONEncoder(allow_nan=False, sort_keys=True, separators=(",", ":")).encode


def _leaf(x: Any) -> str:
    """The JSON text of a word, number, boolean or None, as json's encoder writes it (``float.__repr__``,
    ``int.__repr__``, its ASCII string escape)."""
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is float:
        return float.__repr__(x) if math.isfinite(x) else "null"
    if type(x) is int:
        return int.__repr__(x)
    return encode_basestring_ascii(x)


def canonical_json(obj: Any) -> str:
    """``json.dumps(to_jsonable(obj), sort_keys=True, allow_nan=False, separators=(",", ":"))``: the text
    every hash is of, written from the texts of its parts, each frozen dataclass's kept by identity — a
    phase map hashes each cell's configuration, then each chunk of them (and the run cache each chunk's
    key again): every cell is written once. A frozen dataclass whose fields hold a list, a dict or an
    array is written anew each time (those can change under the same object)."""
    return _canonical(obj)[0]


def _canonical(obj: Any) -> tuple[str, bool]:
    """``(text, fixed)``: :func:`canonical_json` of ``obj``, and whether it cannot change under the same object."""
    kind = type(obj)
    if kind is float or kind in _LEAVES:
        return _leaf(obj), True
    if hasattr(kind, "__dataclass_fields__") and not isinstance(obj, type):
        known = _TEXTS.get(id(obj))
        if known is not None and known[0] is obj:
            return known[1], True
        fixed = bool(kind.__dataclass_params__.frozen)
        parts = []
        for name, key, later, default in _keyed_plan(kind):
            value = getattr(obj, name)
            if later and _omitted(value, default):
                continue
            of = type(value)  # the leaves inline: most fields of a configuration are numbers, words or None
            if of is float or of in _LEAVES:
                parts.append(key + _leaf(value))
                continue
            text, still = _canonical(value)
            fixed = fixed and still
            parts.append(key + text)
        text = "{" + ",".join(parts) + "}"
        if fixed:
            if len(_TEXTS) >= TEXTS_KEPT:
                _TEXTS.clear()
            _TEXTS[id(obj)] = (obj, text)
        return text, fixed
    if kind is tuple:
        texts = [_canonical(v) for v in obj]
        return "[" + ",".join(t for t, _ in texts) + "]", all(f for _, f in texts)
    if kind is list:
        return "[" + ",".join(_canonical(v)[0] for v in obj) + "]", False
    if kind is dict:
        items = {str(k): v for k, v in obj.items()}  # to_jsonable's keys (the last of two that read the same)
        return "{" + ",".join(
            f"{encode_basestring_ascii(k)}:{_canonical(items[k])[0]}" for k in sorted(items)
        ) + "}", False
    return _ENCODE(to_jsonable(obj)), isinstance(obj, enum.Enum)  # an enum's value is fixed


@contextlib.contextmanager
def acyclic() -> Iterator[None]:
    """Python's cycle collector paused while JSON values are built or parsed.

    JSON values (dicts, lists, numbers, strings) hold no reference cycles, so a collection during
    their making finds nothing; yet an artifact's series are thousands of small lists (a 401 × 1
    array is 401 of them), whose allocations trigger collections that walk every object of the
    process — in a command that has loaded scipy, numba and typer, ≈ 20 ms for each artifact of the
    fig3 sweep, several times its encoding. Reference counting frees everything as before; the
    collector runs again, as scheduled, after the block (the previous state is restored)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _is_array_type(tp: Any) -> bool:
    return tp is np.ndarray or typing.get_origin(tp) is np.ndarray


@functools.cache
def _hints(tp: type) -> dict[str, Any]:
    return typing.get_type_hints(tp)  # resolving string annotations: most of a small record's load


_SCALARS = (float, int)


def _items(item: Any, data: Any) -> list[Any]:
    if item in _SCALARS:  # a list of numbers (a series): without a recursive call per number
        return [None if x is None else item(x) for x in data]
    return [from_jsonable(item, x) for x in data]


def from_jsonable(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` (dataclasses, lists, tuples, dicts, arrays, optionals,
    enums) from JSON data; the inverse of :func:`to_jsonable` (``null`` in an array → NaN)."""
    if data is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if any(_is_array_type(o) for o in options):
            return from_jsonable(next(o for o in options if _is_array_type(o)), data)
        records = [o for o in options if isinstance(o, type) and dataclasses.is_dataclass(o)]
        if isinstance(data, dict) and len(records) > 1:  # of several dataclasses, the one whose fields the data has
            fitting = [o for o in records if set(data) <= {f.name for f in dataclasses.fields(o)}]
            return from_jsonable(fitting[0] if fitting else records[0], data)
        for option in options:  # the first option the data fits
            if isinstance(data, dict) and dataclasses.is_dataclass(option):
                return from_jsonable(option, data)
            if not isinstance(data, dict) and not dataclasses.is_dataclass(option):
                return from_jsonable(option, data)
        return data
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        values = {f.name: from_jsonable(hints[f.name], data[f.name]) for f in dataclasses.fields(tp) if f.name in data}
        return tp(**values)
    if _is_array_type(tp):
        return np.array(data, dtype=float)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(data)
    if origin is tuple:
        args = typing.get_args(tp)
        item = args[0] if args else Any
        return tuple(_items(item, data))
    if origin is list:
        (item,) = typing.get_args(tp) or (Any,)
        return _items(item, data)
    if origin is dict:
        _, item = typing.get_args(tp) or (str, Any)
        return {k: from_jsonable(item, v) for k, v in data.items()}
    if tp is float:
        return float(data)
    if tp is int:
        return int(data)
    return data
