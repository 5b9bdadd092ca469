"""Figure registry: which artifacts a figure needs, the artifact cache, rendering, and
the data-level regeneration check.

* :func:`requirements` — the experiment configurations behind a figure (``quick`` = a
  coarser profile for tests and previews);
* :func:`ensure_artifact` — an artifact from the cache ``<cache_dir>/<kind>-<name>-<hash16>.json``,
  or computed and written atomically when it is missing, corrupt or of another schema;
* :func:`render` — ``figN.pdf``/``.png``/``.svg`` plus ``figN.json``, a ``figure`` artifact
  with the numbers plotted;
* :func:`compare_sidecars` — drift between a committed and a regenerated ``figN.json``.

Every artifact is keyed by the hash of its own configuration (and the package version),
so figures that share a run (fig2, fig3 and fig6 all use the D = 4 flow runs) share one file,
and an artifact's content never depends on which figure asked for it first.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaugecli.plots import FIGURES

FORMATS = ("pdf", "png", "svg")

Warn = Callable[[str], None]
Progress = Callable[[float], None]

# kind → (module, function): each function is ``fn(config, progress=None) -> result``.
EXPERIMENTS: dict[str, tuple[str, str]] = {
    "simulate": ("gaugecli.experiments.simulate", "simulate"),
    "select": ("gaugecli.experiments.select", "select"),
    "select-sweep": ("gaugecli.experiments.select", "owner_sweep"),
    "prune": ("gaugecli.experiments.prune", "prune"),
    "perturb": ("gaugecli.experiments.perturb", "perturb"),
}


class UnknownFigureError(ValueError):
    """A figure id that is not one of :data:`FIGURES`; the message lists the valid ids."""

    def __init__(self, fig_id: str) -> None:
        super().__init__(f"unknown figure {fig_id!r}; choose one of {', '.join(FIGURES)} (or 'all')")
        self.fig_id = fig_id


@dataclass(frozen=True)
class Requirement:
    """One artifact a figure reads: experiment ``kind``, a file-name ``name`` and its ``config``.

    ``name`` describes the configuration (not the figure), so figures share runs.
    """

    kind: str
    name: str
    config: Any


# ------------------------------------------------------------------------------------------
# registry


def _figure_module(fig_id: str) -> Any:
    if fig_id not in FIGURES:
        raise UnknownFigureError(fig_id)
    return importlib.import_module(f"gaugecli.plots.{fig_id}")


def requirements(fig_id: str, quick: bool = False) -> list[Requirement]:
    """The artifacts figure ``fig_id`` needs, in the order it reads them."""
    return list(_figure_module(fig_id).requirements(quick))


def artifact_path(req: Requirement, cache_dir: Path) -> Path:
    """``<cache_dir>/<kind>-<name>-<config_hash[:16]>.json``."""
    from gaugecli.store.artifacts import config_hash

    return Path(cache_dir) / f"{req.kind}-{req.name}-{config_hash(req.config)[:16]}.json"


# ------------------------------------------------------------------------------------------
# the cache


def _experiment(kind: str) -> Callable[..., Any]:
    try:
        module, function = EXPERIMENTS[kind]
    except KeyError:
        raise ValueError(
            f"no experiment produces artifacts of kind {kind!r}; known: {', '.join(EXPERIMENTS)}"
        ) from None
    # looked up at call time, so a monkeypatched experiment function is the one that runs
    return getattr(importlib.import_module(module), function)


def _compute(req: Requirement, progress: Progress | None) -> Any:
    result = _experiment(req.kind)(req.config, progress=progress)
    if req.kind == "simulate":  # simulate returns one RunObservables per run of the config
        if len(result) != 1:
            raise ValueError(f"requirement {req.name}: a simulate requirement must be a single run (got {len(result)})")
        result = result[0]
    return result


def ensure_artifact(
    req: Requirement, cache_dir: Path, *, warn: Warn | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """The artifact of ``req``: read from the cache when valid, else computed and cached.

    A cached file that is not valid JSON, fails its schema, has another schema version
    or a different configuration hash is reported through ``warn`` and recomputed.
    """
    from gaugecli.store.artifacts import ArtifactError, build_artifact, config_hash, now, read_artifact, write_artifact

    path = artifact_path(req, cache_dir)
    expected = config_hash(req.config)
    if path.exists():
        try:
            artifact = read_artifact(path, req.kind)
        except ArtifactError as exc:
            _say(warn, f"{exc} — recomputing {req.kind} {req.name}")
        else:
            if artifact.get("config_hash") == expected:
                if progress is not None:
                    progress(1.0)
                return artifact
            _say(warn, f"{path}: its config_hash does not match its configuration — recomputing {req.kind} {req.name}")
    started = now()
    result = _compute(req, progress)
    artifact = build_artifact(req.kind, req.config, result, seed=getattr(req.config, "seed", None), started=started)
    write_artifact(path, artifact)
    return artifact


def _say(warn: Warn | None, message: str) -> None:
    if warn is not None:
        warn(message)


def _scaled(progress: Progress | None, start: float, width: float) -> Progress | None:
    if progress is None:
        return None
    return lambda fraction: progress(min(1.0, start + width * min(max(fraction, 0.0), 1.0)))


# ------------------------------------------------------------------------------------------
# rendering


def figure_data(
    fig_id: str,
    cache_dir: Path,
    *,
    quick: bool = False,
    warn: Warn | None = None,
    progress: Progress | None = None,
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """``(data, config_hashes, parameters)`` for ``figN.build``: each requirement's result by
    name (and every configuration, by name, under ``data["_configs"]``), the full hash of
    each, and any closed-form parameters (fig1)."""
    module = _figure_module(fig_id)
    reqs = requirements(fig_id, quick)
    data: dict[str, Any] = {"_configs": {}}
    hashes: dict[str, str] = {}
    for i, req in enumerate(reqs):
        artifact = ensure_artifact(req, cache_dir, warn=warn, progress=_scaled(progress, i / len(reqs), 1 / len(reqs)))
        data[req.name] = artifact["result"]
        data["_configs"][req.name] = artifact["config"]
        hashes[req.name] = artifact["config_hash"]
    parameters: dict[str, Any] = {}
    if hasattr(module, "closed_form_data"):  # fig1: closed forms, no integration
        closed = module.closed_form_data(quick)
        data.update(closed)
        parameters = closed.get("parameters", {})
    if progress is not None:
        progress(1.0)
    return data, hashes, parameters


def render(
    fig_id: str,
    cache_dir: Path | str,
    out_dir: Path | str,
    formats: Sequence[str] = ("pdf", "png"),
    quick: bool = False,
    warn: Warn | None = None,
    progress: Progress | None = None,
) -> list[Path]:
    """Write ``out_dir/figN.<fmt>`` for each format and the sidecar ``out_dir/figN.json``.

    Missing artifacts are computed into ``cache_dir``. PDF and SVG are vector with
    embedded TrueType fonts; PNG is 300 dpi. Returns the paths written (sidecar last).
    """
    from gaugecli.store.artifacts import build_artifact, check_writable, now, package_version
    from gaugecli.plots import style

    module = _figure_module(fig_id)
    formats = _check_formats(formats)
    out_dir, cache_dir = Path(out_dir), Path(cache_dir)
    for target in [out_dir / f"{fig_id}.{fmt}" for fmt in formats] + [out_dir / f"{fig_id}.json"]:
        check_writable(target)  # before any computation
    started = now()
    data, hashes, parameters = figure_data(fig_id, cache_dir, quick=quick, warn=warn, progress=progress)

    written: list[Path] = []
    version = package_version()
    subject = "config hashes: " + (", ".join(f"{k}={v[:16]}" for k, v in hashes.items()) or "none (closed form)")
    with style.context():
        fig, panels = module.build(data)
        # lay out once, then freeze: every format gets the same geometry, whatever was saved before
        fig.canvas.draw()
        fig.set_layout_engine("none")
        for fmt in formats:
            path = out_dir / f"{fig_id}.{fmt}"
            _save(fig, path, fmt, fig_id, version, subject)
            written.append(path)
    config = {"figure": fig_id, "quick": quick, "requirements": hashes}
    if parameters:
        config["parameters"] = parameters
    sidecar = {"figure": fig_id, "config_hashes": hashes, "panels": panels}
    artifact = build_artifact("figure", config, sidecar, seed=None, started=started)
    written.append(_write_sidecar(out_dir / f"{fig_id}.json", artifact))
    return written


def _check_formats(formats: Iterable[str]) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(f.strip().lower().lstrip(".") for f in formats))
    bad = [f for f in out if f not in FORMATS]
    if not out or bad:
        raise ValueError(f"unsupported figure format {', '.join(bad) or '(none)'}; choose from {', '.join(FORMATS)}")
    return out


def _save(fig: Any, path: Path, fmt: str, fig_id: str, version: str, subject: str) -> None:
    """Save atomically: render to a temporary file in the target folder, then rename."""
    import os
    import tempfile

    creator = f"gaugecli {version}"
    title = f"gaugecli {fig_id}"
    metadata: dict[str, Any]
    if fmt == "pdf":
        metadata = {"Creator": creator, "Subject": subject, "Title": title, "CreationDate": None, "Producer": None}
    elif fmt == "png":
        metadata = {"Software": creator, "Description": subject, "Title": title}
    else:  # svg (Dublin Core keys)
        metadata = {"Creator": creator, "Description": subject, "Title": title, "Date": None}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        fig.savefig(tmp, format=fmt, dpi=300 if fmt == "png" else "figure", metadata=metadata)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_sidecar(path: Path, artifact: dict[str, Any]) -> Path:
    from gaugecli.store.artifacts import atomic_write_text
    from gaugecli.store.schemas import validate

    validate(artifact)
    atomic_write_text(path, json.dumps(artifact, indent=1, allow_nan=False) + "\n")
    return path


# ------------------------------------------------------------------------------------------
# regeneration check

DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-9
SERIES_TOLERANCES: tuple[tuple[str, float, float, str], ...] = (
    # (glob on "figN/panel/series/field", rtol, atol, why); the first match wins
    (
        "fig6/*/residual-unresolved*",
        math.inf,
        math.inf,
        "below ‖∇L‖ = 1e-5 the identity residual is round-off of a vanishing gradient: only its length is compared",
    ),
    ("fig6/*/residual*", 0.0, 1e-8, "resolved identity residual is round-off (≤ 1e-10): compared absolutely"),
    ("fig6/*", 1e-6, 1e-20, "R(t), T(t), ‖∇L‖² span 20 decades: relative, down to their round-off ~1e-20"),
    ("*/loss*", 1e-6, 1e-12, "a loss below 1e-12 is at round-off (absolute error ~1e-16 per kernel term)"),
    ("fig5/*", 1e-5, 1e-9, "P(t) is followed to 1e-12; its absolute round-off is ~1e-12"),
    ("fig7/*/probability*", 0.0, 1e-12, "selection frequencies are exact fractions of the seeds"),
    ("fig1/*", 1e-9, 1e-12, "closed forms"),
)
"""Per-series tolerances of :func:`compare_sidecars`. Series not listed use its ``rtol``/``atol``
(defaults :data:`DEFAULT_RTOL` = 1e-6 relative, :data:`DEFAULT_ATOL` = 1e-9 absolute: the runs are
integrated with rtol = 1e-10, so a millionth absorbs BLAS and platform differences while catching any
change of the science). A masked value (null) matches a number only if that number is within atol of 0."""


def tolerance_for(path: str, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL) -> tuple[float, float]:
    """The ``(rtol, atol)`` that applies to the series at ``path`` (``figN/panel/series/...``)."""
    for pattern, r, a, _why in SERIES_TOLERANCES:
        if fnmatch.fnmatchcase(path, pattern):
            return r, a
    return rtol, atol


def compare_sidecars(
    committed: dict[str, Any],
    regenerated: dict[str, Any],
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
) -> list[str]:
    """Human-readable drift between two sidecars (``figN.json`` artifacts or their ``result``).

    Compares ``panels`` only (not timestamps or provenance). Each message names the figure,
    the series and the size of the drift; an empty list means the figure regenerates.
    """
    a, b = _panels_of(committed), _panels_of(regenerated)
    fig_a, fig_b = a.get("figure"), b.get("figure")
    if fig_a != fig_b:
        return [f"figure ids differ: committed {fig_a!r}, regenerated {fig_b!r}"]
    messages: list[str] = []
    _diff(a.get("panels", {}), b.get("panels", {}), str(fig_a), rtol, atol, messages)
    return messages


def _panels_of(sidecar: dict[str, Any]) -> dict[str, Any]:
    return sidecar["result"] if "result" in sidecar and "panels" not in sidecar else sidecar


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _diff(x: Any, y: Any, path: str, rtol: float, atol: float, out: list[str]) -> None:
    if isinstance(x, dict) and isinstance(y, dict):
        for key in sorted(set(x) | set(y)):
            sub = f"{path}/{key}"
            if key not in y:
                out.append(f"{_where(sub)}: missing from the regenerated figure")
            elif key not in x:
                out.append(f"{_where(sub)}: new in the regenerated figure (not in the committed one)")
            else:
                _diff(x[key], y[key], sub, rtol, atol, out)
        return
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            out.append(f"{_where(path)}: length changed from {len(x)} to {len(y)}")
            return
        if all(_is_number(v) or v is None for v in x + y):
            _diff_numbers(x, y, path, rtol, atol, out)
            return
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            _diff(u, v, f"{path}/{i}", rtol, atol, out)
        return
    if (_is_number(x) or x is None) and (_is_number(y) or y is None):
        _diff_numbers([x], [y], path, rtol, atol, out)
        return
    if x != y:
        out.append(f"{_where(path)}: changed from {x!r} to {y!r}")


def _diff_numbers(x: list[Any], y: list[Any], path: str, rtol: float, atol: float, out: list[str]) -> None:
    import numpy as np

    r, a = tolerance_for(path, rtol, atol)
    u = np.array([np.nan if v is None else v for v in x], dtype=float)
    v = np.array([np.nan if w is None else w for w in y], dtype=float)
    nan_u, nan_v = np.isnan(u), np.isnan(v)
    # a masked value matches only a number within atol of zero
    masked_bad = (nan_u & ~nan_v & ~(np.abs(v) <= a)) | (nan_v & ~nan_u & ~(np.abs(u) <= a))
    both = ~nan_u & ~nan_v
    with np.errstate(invalid="ignore"):
        err = np.where(both, np.abs(u - v), 0.0)
        bound = a + r * np.abs(u) if math.isfinite(r) else np.full_like(u, np.inf)
        bad = both & (err > bound)
    if np.any(masked_bad):
        i = int(np.flatnonzero(masked_bad)[0])
        out.append(
            f"{_where(path)}: {int(masked_bad.sum())} value(s) masked in one figure but not the other "
            f"(first at index {i}: committed {x[i]!r}, regenerated {y[i]!r})"
        )
    if np.any(bad):
        i = int(np.argmax(np.where(bad, err, -1.0)))
        label = "" if len(u) == 1 else f" (worst at index {i} of {len(u)}, {int(bad.sum())} outside)"
        out.append(
            f"{_where(path)}: moved from {u[i]:.6g} to {v[i]:.6g}, |Δ| = {err[i]:.3g} "
            f"exceeds atol={a:g} + rtol={r:g}·|value|{label}"
        )


def _where(path: str) -> str:
    fig, _, rest = path.partition("/")
    return f"{fig}: series '{rest}'" if rest else fig
