"""The experiment spec: one object per experiment kind that says everything the layers above need
of it — its name, one-line help, parameter declarations, config and result types, compute function,
summary, figure hook and API function — and the one registry of them.

Every layer that used to list the commands by name (the Typer app's command list, the rerun files'
table, the pipeline's kinds, the Python API's run functions, the package's exports, ``--figure``)
loops over :func:`experiments` instead, so a command's name is written once, in its spec.

Stdlib only, and every type or function of the numerics is named as a ``"module:attribute"`` string
resolved on first use (:func:`resolve`): ``gaugecli --help`` and a refused option read the specs
without importing numpy, scipy or torch. A spec module (``experiments/<name>_spec.py``, beside its
experiment) holds ``SPECS``, a tuple of :class:`Experiment`; :data:`MODULES` lists the spec modules
in the order of ``gaugecli --help``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

Ref = str | Callable[..., Any]
"""A function or type, or where to find it: ``"package.module:attribute"`` (imported on first use)."""


@functools.cache
def _resolved(ref: str) -> Any:
    module, _, attribute = ref.partition(":")
    return getattr(import_module(module), attribute)


def resolve(ref: Any) -> Any:
    """The object ``ref`` names (a ``"module:attribute"`` string), or ``ref`` itself."""
    return _resolved(ref) if isinstance(ref, str) else ref


def attribute(ref: str) -> str:
    """The attribute part of ``"module:attribute"`` (a type's public name)."""
    return ref.partition(":")[2]


def first_seed(config: Any) -> int | None:
    """The seed an artifact's provenance records: the first of ``config.seeds`` (if any)."""
    seeds = getattr(config, "seeds", None)
    return seeds[0] if seeds else None


def own_seed(config: Any) -> int | None:
    """The seed an artifact's provenance records: ``config.seed`` (if any)."""
    return getattr(config, "seed", None)


def no_seed(config: Any) -> None:
    """An artifact whose provenance records no seed (its runs have their own)."""
    return None


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """One kind of experiment: a config in, a result out, one artifact kind in the cache.

    ``compute(config, progress)`` (``runner=True``: ``compute(config, progress, runner)`` when a
    sweep runner is given; ``keyed=True``: with ``key=`` the function that names each of its chunks in
    the sweep cache, the config hash) makes one result; ``batch=True``: ``compute(configs, progress, runner)``
    makes one result per config at once. ``command``: the subcommand that runs it and reruns its
    artifacts (``None``: it is a command of its own, named ``name``); a kind that is not a command
    (``select-sweep``) names the command that writes it. ``cli``: the module of the command's Typer
    ``app`` (default ``gaugecli.cli.<name>``). ``fields``: where in the config each
    parameter declaration's fields lie (a dotted attribute path, ``None`` for the config itself), for
    the rerun files; ``rerun_flags``: options that come first in them (``select --sweep``), and
    ``rerun_options(config)``: the command's options the declarations do not give, last.
    ``summary``: the command's terminal summary. ``figure``: what ``--figure`` draws — a paper figure
    (a module of :mod:`gaugecli.plots`, fed this result as its first need) or a ``"module:function"``
    ``(outcome, sizes) -> figure``. ``api``: the Python API function's name (``None``: none; the
    command's API function may write this kind through ``api_configs``), ``api_doc`` its docstring,
    ``api_returns`` its return annotation, and ``api_configs(config, params, build)`` → ``(kind,
    configs, many)`` a command's own keywords (``build(config, type, function, params)`` is the
    generic construction; ``many``: the function returns the list of results). ``schema``: the JSON
    Schema of its artifacts (a dict, or where to find it; ``None``: the one shipped in
    ``gaugecli/store/schemas/<name>.json``). ``exports``: more public names the package exports.
    ``prefetch_rank``: when a figure's runs are prefetched, the kinds start by rank (the longest
    first, :func:`gaugecli.pipeline.prefetch_order`; ``None``: after the ranked); ``prefetch_slice``:
    a batch kind's configs per prefetch task instead (the slices go after the first two tasks)."""

    name: str
    help: str
    config: str
    result: str
    compute: Ref
    runner: bool = False
    keyed: bool = False
    batch: bool = False
    seed: Callable[[Any], int | None] = first_seed
    command: str | None = None
    cli: str | None = None
    fields: tuple[tuple[str | None, str], ...] = ()
    rerun_flags: Mapping[str, Any] = field(default_factory=dict)
    rerun_options: Callable[[Any], dict[str, Any]] | None = None
    summary: str | None = None
    figure: str | None = None
    api: str | None = ""
    api_doc: str = ""
    api_returns: str = "Any"
    api_configs: Callable[..., tuple[str, list[Any], bool]] | None = None
    schema: Ref | None = None
    prefetch_rank: int | None = None
    prefetch_slice: int | None = None
    exports: Mapping[str, str] = field(default_factory=dict)

    @property
    def command_name(self) -> str:
        """The subcommand that runs (and reruns) this kind."""
        return self.command or self.name

    @property
    def is_command(self) -> bool:
        """Whether ``gaugecli <name>`` exists (a kind such as ``select-sweep`` belongs to another)."""
        return self.command is None

    @property
    def api_name(self) -> str | None:
        """The name of the Python API function (``gaugecli.<api_name>``), if any."""
        return self.name if self.api == "" else self.api

    @property
    def types(self) -> dict[str, str]:
        """The package's exports this spec adds: its config and result types, by public name."""
        return {attribute(ref): ref.partition(":")[0] for ref in (self.config, self.result)} | dict(self.exports)


MODULES: list[str] = [
    "gaugecli.experiments.simulate_spec",
    "gaugecli.experiments.select_spec",
    "gaugecli.experiments.prune_spec",
    "gaugecli.experiments.lockin_spec",
    "gaugecli.experiments.perturb_spec",
    "gaugecli.experiments.reln_spec",
    "gaugecli.experiments.phase_spec",
    "gaugecli.experiments.predict_spec",
]
"""The spec modules, in the order of ``gaugecli --help``: the registry (a test adds one for a toy command)."""


def experiments() -> Iterator[Experiment]:
    """Every registered experiment, in :data:`MODULES` order (read anew each call: cheap, modules
    once imported are looked up, and a registry changed by a test is seen at once)."""
    for module in MODULES:
        yield from import_module(module).SPECS


def experiment(name: str) -> Experiment | None:
    """The experiment of artifact kind ``name`` (``None``: no experiment writes that kind)."""
    return next((spec for spec in experiments() if spec.name == name), None)


class Live(Mapping[str, Any]):
    """A read-only mapping rebuilt from the registry on every read (``COMMANDS``, ``KINDS``): a
    table that looks like the hand-written one it replaces and follows the registry."""

    def __init__(self, build: Callable[[], dict[str, Any]]) -> None:
        self._build = build

    def __getitem__(self, key: str) -> Any:
        return self._build()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._build())

    def __repr__(self) -> str:
        return repr(self._build())
