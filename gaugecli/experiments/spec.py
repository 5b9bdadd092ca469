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
    """One kind of experiment: a config in, a result out, one artifact kind in the cache. Types and
    functions of the numerics are ``"module:attribute"`` strings (:data:`Ref`), imported on first use."""

    name: str
    """The artifact kind (``runs/<name>/``), and the subcommand's name where it is one."""
    help: str
    """One line: the subcommand's entry in ``gaugecli --help``."""
    config: str
    """The config dataclass (``"module:Class"``), exported by the package under its own name."""
    result: str
    """The result dataclass (``"module:Class"``), exported by the package too."""
    compute: Ref
    """``compute(config, progress)`` → one result (but see ``runner``, ``keyed``, ``batch``)."""
    runner: bool = False
    """``compute(config, progress, runner)`` when the pipeline has a sweep runner for its points."""
    keyed: bool = False
    """``compute(…, key=config_hash)``: the function that names each of its chunks in the point cache."""
    batch: bool = False
    """``compute(configs, progress, runner)`` → one result per config, all at once."""
    seed: Callable[[Any], int | None] = first_seed
    """The seed an artifact's provenance records."""
    command: str | None = None
    """The subcommand that writes (and reruns) this kind, where it is not a command of its own
    (``None``: ``gaugecli <name>``; ``""``: none, a run only figures read)."""
    cli: str | None = None
    """The module of the subcommand's Typer ``app`` (``None``: ``gaugecli.cli.<name>``)."""
    fields: tuple[tuple[str | None, str], ...] = ()
    """For the rerun files: where in the config each parameter declaration's fields lie (a dotted
    attribute path, ``None`` for the config itself) and the ``Fields`` class (``"module:Class"``)."""
    rerun_flags: Mapping[str, Any] = field(default_factory=dict)
    """Options that come first in the rerun file (``select --sweep``)."""
    rerun_options: Callable[[Any], dict[str, Any]] | None = None
    """``rerun_options(config)``: the rerun file's options the declarations do not give, by TOML key."""
    rerun_unread: Callable[[Any], set[str]] | None = None
    """``rerun_unread(config)``: the parameters (by name) this run did not read, left out of its rerun
    file because the command refuses them as having no effect."""
    summary: str | None = None
    """The subcommand's terminal summary, ``summary(outcome, path)``."""
    figure: str | None = None
    """What ``--figure`` draws: a paper figure (a module of :mod:`gaugecli.plots`, fed this result as
    its first need) or ``"module:function"``, ``function(outcome, sizes)`` → a figure."""
    api: str | None = ""
    """The Python API function's name (``""``: ``name``; ``None``: none, the kind is written by
    another command's function through its ``api_configs``)."""
    api_doc: str = ""
    """The API function's docstring."""
    api_returns: str = "Any"
    """The API function's return annotation."""
    api_configs: Callable[..., tuple[str, list[Any], bool]] | None = None
    """A command's own API keywords: ``api_configs(config, params, build)`` → ``(kind, configs,
    many)``, where ``build(config, type, function, params)`` is the generic construction and ``many``
    says the function returns the list of results."""
    schema: Ref | None = None
    """The JSON Schema of its artifacts (``None``: ``gaugecli/store/schemas/<name>.json``)."""
    prefetch_rank: int | None = None
    """When a figure's runs are prefetched, the kinds start by rank, the longest first
    (:func:`gaugecli.pipeline.prefetch_order`; ``None``: after the ranked ones)."""
    prefetch_slice: int | None = None
    """A batch kind's configs per prefetch task instead (the slices go after the first two tasks)."""
    exports: Mapping[str, str] = field(default_factory=dict)
    """More public names the package exports, each with its module."""

    @property
    def command_name(self) -> str:
        """The subcommand that runs (and reruns) this kind (``""``: none)."""
        return self.name if self.command is None else self.command

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
    "gaugecli.experiments.laws_spec",
    "gaugecli.experiments.figure_runs_spec",
    "gaugecli.experiments.deep_spec",
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
