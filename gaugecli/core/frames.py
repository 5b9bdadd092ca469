"""Labelled views of results: ``to_xarray()`` and a long-form ``to_dataframe()`` of every result
type, from the dimension names each result type declares (its ``VIEW``).

A result dataclass becomes one node of labelled data: its arrays are variables over named
dimensions (``t``, ``neuron``, …; a 1-D field whose dimension bears its own name, such as ``t``,
is that dimension's coordinate), its numbers, booleans and ``None`` are 0-d variables (``None``
as NaN), its words are attributes. A nested result (``stats`` of a run, ``fit`` of a sweep) is a
child node, or — where :class:`View` ``absorbs`` it — merged into its parent under
``field.name``; a list of flat records (all numbers and words) is one child node stacked along a
record dimension, its words as coordinates along it; a list of records that hold arrays is one
child node per record (``runs/0``, ``runs/1``, …). A result with no child node is an
``xarray.Dataset``, any other an ``xarray.DataTree`` (which type is fixed by the result type, not
by its data). The configuration, when given, becomes attributes (``model.d``, ``strengths``, …).

The long form has one row per number: ``variable`` (the node path and name: ``loss``,
``runs/0/alignment``), one column per dimension (NaN where a variable lacks it), the coordinates
along the variable's dimensions, and ``value`` (float64).

pandas and xarray are the optional extra ``frame`` (``pip install 'gaugecli[frame]'``), imported
only when a view is asked for. Pure conversion: no files, no terminal.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

FRAME_EXTRA = "pip install 'gaugecli[frame]'"
"""How to install the libraries of the views (the ``frame`` extra)."""


def frame_libraries(what: str) -> tuple[Any, Any]:
    """``(pandas, xarray)``; an :class:`ImportError` naming the extra when they are absent."""
    try:
        import pandas as pd
        import xarray as xr
    except ImportError as exc:
        raise ImportError(f"{what} needs pandas and xarray ({exc.name} is not installed): {FRAME_EXTRA}") from None
    return pd, xr


@dataclass(frozen=True)
class View:
    """How one result type is labelled. ``dims``: an array field's dimension names, leading axes
    first (an axis left unnamed is ``<field>_<axis>``; for a dict of arrays, those of every entry);
    ``records``: the dimension a list of records is stacked along, or that its child nodes stand
    for (default: the field's name); ``absorb``: nested results merged into this node under
    ``field.name`` instead of becoming a child; ``coords``: a dimension and the absorbed (dotted)
    field that labels it; ``names``: a field's variable name in the view where its own would be a
    dimension's (xarray would take a variable named after a dimension for that dimension's label)."""

    dims: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    records: Mapping[str, str] = field(default_factory=dict)
    absorb: tuple[str, ...] = ()
    coords: Mapping[str, str] = field(default_factory=dict)
    names: Mapping[str, str] = field(default_factory=dict)


_T = ("t",)


def view_of(record: Any) -> View:
    """The :class:`View` a result type declares as its class attribute ``VIEW`` (the types above the
    core declare their own); any other gets the default view (every array's axes named
    ``<field>_<axis>``, save a field ``t``)."""
    view = getattr(type(record), "VIEW", None)
    return view if isinstance(view, View) else View()


_DEFAULT_DIMS = {"t": _T}
"""Dimensions that hold in every view: a 1-D field ``t`` is a time axis."""


def _is_record(value: Any) -> bool:
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)) or isinstance(value, dict)


def _items(record: Any) -> list[tuple[str, Any]]:
    if isinstance(record, dict):
        return [(str(k), v) for k, v in record.items()]
    return [(f.name, getattr(record, f.name)) for f in dataclasses.fields(record)]


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _numeric(value: Any) -> np.ndarray | None:
    """``value`` as a numeric array (``None`` → NaN; a list of rows padded with NaN to the longest,
    a ``None`` row all NaN), or ``None`` when it holds anything but numbers."""
    if isinstance(value, np.ndarray):
        return value if value.dtype.kind in "biuf" else None
    if not isinstance(value, (list, tuple)):
        return None
    if any(isinstance(v, (list, tuple, np.ndarray)) for v in value):
        rows = [None if v is None else _numeric(v) for v in value]
        if any(
            (r is None and v is not None) or (r is not None and r.ndim != 1) for r, v in zip(rows, value, strict=True)
        ):
            return None
        out = np.full((len(rows), max(r.shape[0] for r in rows if r is not None)), np.nan)
        for i, r in enumerate(rows):
            if r is not None:
                out[i, : r.shape[0]] = r
        return out
    if not all(_scalar(v) for v in value):
        return None
    if any(v is None for v in value):
        return np.array([np.nan if v is None else v for v in value], dtype=float)
    return np.asarray(value) if value else None  # an empty list: an attribute ("[]")


def _zero_d(value: Any) -> np.ndarray:
    return np.array(np.nan if value is None else value)


def _attr(value: Any) -> Any:
    """An attribute value netCDF can hold: a word or a number; anything else as JSON text."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (str, int, float, np.integer, np.floating)):
        return value
    return json.dumps(_plain(value), ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if _is_record(value):
        return {k: _plain(v) for k, v in _items(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def config_attrs(config: Any, prefix: str = "") -> dict[str, Any]:
    """A configuration as flat attributes: ``model.d``, ``dynamics.rtol``, ``strengths`` (``None``
    left out; lists of numbers as arrays, other lists as JSON text)."""
    out: dict[str, Any] = {}
    for name, value in _items(config):
        key = f"{prefix}{name}"
        if _is_record(value):
            out.update(config_attrs(value, f"{key}."))
        elif value is None:
            continue
        elif isinstance(value, (list, tuple)) and value and all(_scalar(v) and v is not None for v in value):
            out[key] = np.asarray([int(v) if isinstance(v, bool) else v for v in value])
        else:
            out[key] = _attr(value)
    return out


@dataclass
class _Node:
    """One node being built: its variables ``name → (dims, values)``, coordinates, attributes and children."""

    variables: dict[str, tuple[tuple[str, ...], np.ndarray]] = field(default_factory=dict)
    coords: dict[str, tuple[tuple[str, ...], np.ndarray]] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    children: dict[str, _Node] = field(default_factory=dict)


def _dims(name: str, shape: tuple[int, ...], declared: tuple[str, ...] | None) -> tuple[str, ...]:
    named = tuple(declared or ())[: len(shape)]
    return named + tuple(f"{name}_{axis}" for axis in range(len(named), len(shape)))


def _node(record: Any) -> _Node:
    view = view_of(record)
    node = _Node()
    _fill(node, record, view, "")
    for dim, path in view.coords.items():
        if path in node.variables:
            _, values = node.variables.pop(path)
            node.coords[dim] = ((dim,), values)
    for name in list(node.variables):  # a 1-D field named after its dimension labels it
        dims, values = node.variables[name]
        if dims == (name,):
            node.coords[name] = node.variables.pop(name)
    neurons = {v.shape[dims.index("neuron")] for dims, v in node.variables.values() if "neuron" in dims}
    if len(neurons) == 1 and "neuron" not in node.coords:
        node.coords["neuron"] = (("neuron",), np.arange(neurons.pop()))
    return node


def _fill(node: _Node, record: Any, view: View, prefix: str) -> None:
    dims = {**_DEFAULT_DIMS, **view.dims}
    for name, value in _items(record):
        key = f"{prefix}{view.names.get(name, name)}"
        if isinstance(value, enum.Enum):
            value = value.value
        if isinstance(value, str):
            node.attrs[key] = value
        elif value is None and name in view.dims:  # a series this run does not have (GD's step law in a flow)
            continue
        elif _scalar(value):
            node.variables[key] = ((), _zero_d(value))
        elif _is_record(value) and name in view.absorb and not prefix:
            _fill(node, value, view_of(value), f"{key}.")
        elif isinstance(value, dict) and value and all(_numeric(v) is not None for v in value.values()):
            for entry, array in value.items():  # a dict of arrays: each entry a variable of this node
                values = _numeric(array)
                assert values is not None
                node.variables[str(entry)] = (_dims(str(entry), values.shape, dims.get(name)), values)
        elif _is_record(value):
            node.children[key] = _node(value)
        elif isinstance(value, (list, tuple)) and value and all(_is_record(v) for v in value):
            node.children[key] = _records(list(value), view.records.get(name, name))
        elif (values := _numeric(value)) is not None:
            node.variables[key] = (_dims(key, values.shape, dims.get(name)), values)
        else:
            node.attrs[key] = _attr(value)


def _records(records: list[Any], dim: str) -> _Node:
    """A list of records: stacked along ``dim`` when every field is a number or a word, else one child each."""
    rows = [dict(_items(r)) for r in records]
    names = list(dict.fromkeys(k for row in rows for k in row))
    flat = all(_scalar(v) or isinstance(v, (str, enum.Enum)) for row in rows for v in row.values())
    if not flat:
        return _Node(children={str(i): _node(r) for i, r in enumerate(records)})
    node = _Node()
    for name in names:
        column = [row.get(name) for row in rows]
        column = [v.value if isinstance(v, enum.Enum) else v for v in column]
        if any(isinstance(v, str) for v in column):
            node.coords[name] = ((dim,), np.array(["" if v is None else str(v) for v in column], dtype=object))
        else:
            values = _numeric(column)
            assert values is not None
            node.variables[name] = ((dim,), values)
    if dim in node.coords or dim in node.variables:  # the dimension is a field's name: let it label it
        target = node.coords if dim in node.coords else node.variables
        node.coords[dim] = target.pop(dim)
    return node


def _dataset(xr: Any, node: _Node) -> Any:
    return xr.Dataset(
        {k: (d, v) for k, (d, v) in node.variables.items()},
        coords={k: (d, v) for k, (d, v) in node.coords.items()},
        attrs=node.attrs,
    )


def _tree(xr: Any, node: _Node) -> dict[str, Any]:
    out = {"/": _dataset(xr, node)}
    for name, child in node.children.items():
        out.update({("/" + name + path).rstrip("/"): ds for path, ds in _tree(xr, child).items()})
    return out


def to_xarray(result: Any, config: Any = None, attrs: Mapping[str, Any] | None = None) -> Any:
    """``result`` as an ``xarray.Dataset`` (no nested node) or ``xarray.DataTree``, with the
    attributes of ``config`` (:func:`config_attrs`) and ``attrs``."""
    _, xr = frame_libraries("to_xarray()")
    node = _node(result)
    node.attrs = {
        "result_type": type(result).__name__,
        **node.attrs,
        **(config_attrs(config, "config.") if config is not None else {}),
        **{k: _attr(v) for k, v in (attrs or {}).items()},
    }
    if not node.children:
        return _dataset(xr, node)
    return xr.DataTree.from_dict(_tree(xr, node))


def long_form(data: Any) -> Any:
    """The long form (module docstring) of a ``Dataset`` or ``DataTree``; an integer label column
    (``neuron``, ``feature``) is pandas' nullable ``Int64``, missing (``<NA>``) where a variable lacks
    that dimension."""
    pd, xr = frame_libraries("to_dataframe()")
    nodes = (
        [(n.path, n.to_dataset(inherit=False), n.coords) for n in data.subtree]
        if isinstance(data, xr.DataTree)
        else [("/", data, data.coords)]
    )
    frames: list[Any] = []
    dims: list[str] = []
    for path, ds, inherited in nodes:
        for name, array in ds.data_vars.items():
            if array.dtype.kind not in "biuf":
                continue
            # a dimension labelled by an ancestor node (a child's series over its parent's `t`)
            labels = {d: inherited[d] for d in array.dims if d not in array.coords and d in inherited}
            array = array.assign_coords(labels)
            label = str(name) if path == "/" else f"{path.strip('/')}/{name}"
            dims.extend(d for d in array.dims if d not in dims)
            if array.ndim == 0:
                frame = pd.DataFrame({"value": [float(array.values)]})
            else:
                frame = array.astype(float).to_dataframe(name="value").reset_index()
            frame.insert(0, "variable", label)
            frames.append(frame)
    if not frames:
        return pd.DataFrame({"variable": pd.Series(dtype=str), "value": pd.Series(dtype=float)})
    table = pd.concat(frames, ignore_index=True, sort=False)
    for dim in dims:  # an integer label (neuron, feature, record) stays an integer where a variable lacks it
        kinds = {f[dim].dtype.kind for f in frames if dim in f.columns}
        if kinds and kinds <= set("iub"):
            table[dim] = table[dim].astype("Int64")
    rest = [c for c in table.columns if c not in ("variable", "value", *dims)]
    return table[["variable", *dims, *rest, "value"]]


def plain_long_form(data: Any) -> Any:
    """A plain-JSON result (a figure's sidecar) in long form: ``path`` (its ``/``-separated keys,
    an inner list's position as a key), ``index`` (the position in the innermost list; missing
    for a scalar) and ``value`` — one row per number; booleans as 0/1, a masked ``null`` as NaN,
    text left out."""
    pd, _ = frame_libraries("to_dataframe()")
    paths: list[str] = []
    indices: list[int | None] = []
    values: list[float] = []

    def number(value: Any) -> float | None:
        if value is None:
            return math.nan
        if isinstance(value, (bool, int, float)):
            return float(value)
        return None

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, f"{path}/{key}" if path else str(key))
        elif isinstance(node, list):
            flat = [number(v) for v in node]
            if node and all(v is not None for v in flat):
                paths.extend([path] * len(node))
                indices.extend(range(len(node)))
                values.extend(v for v in flat if v is not None)
            else:
                for i, child in enumerate(node):
                    walk(child, f"{path}/{i}")
        elif node is not None and (v := number(node)) is not None:
            paths.append(path)
            indices.append(None)
            values.append(v)

    walk(data, "")
    return pd.DataFrame(
        {"path": pd.Series(paths, dtype=str), "index": pd.array(indices, dtype="Int64"), "value": values}
    )


def to_dataframe(result: Any, config: Any = None) -> Any:
    """The long form of :func:`to_xarray` of ``result``: one row per number."""
    return long_form(to_xarray(result, config))


class Labelled:
    """Mixin of the result types: ``.to_xarray()`` and ``.to_dataframe()`` by their ``VIEW``, a short
    ``repr``, and what made the result and where it is stored. ``config``, ``path`` and
    ``config_hash`` are not dataclass fields (neither compared nor serialised): the Python API sets
    ``config`` on what it returns (the configuration that made it), the pipeline ``path`` (the
    artifact written or reused in its run cache; ``None`` without one) and ``config_hash`` (the
    configuration's hash, its file name there).

    ``HEADLINE`` names the fields the ``repr`` shows (default: the first few numbers, flags and
    words of the result); the ``repr`` names the config by what it sets apart from the defaults."""

    HEADLINE: ClassVar[tuple[str, ...]] = ()
    config: Any = None
    path: Path | None = None
    config_hash: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # the class's own dict: @dataclass leaves a __repr__ found there in place (it writes its
        # field-by-field one, 96 629 characters for a run, only where the class has none)
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Labelled.__repr__  # type: ignore[method-assign]

    def __repr__(self) -> str:
        from gaugecli.core.describe import describe

        return describe(self, self.config, self.path)

    def to_xarray(self, config: Any = None) -> Any:
        """This result as an ``xarray.Dataset`` or ``DataTree`` (dims ``t``, ``neuron``, …), with
        the parameters of ``config`` — by default the configuration that made it — as attributes."""
        attrs = {"config_hash": self.config_hash} if self.config_hash else None
        return to_xarray(self, self.config if config is None else config, attrs)

    def to_dataframe(self, config: Any = None) -> Any:
        """This result as a long-form ``pandas.DataFrame``: ``variable``, one column per
        dimension, ``value`` — one row per number."""
        return long_form(self.to_xarray(config))
