"""Stored numbers do not depend on how they were computed: batch-mates, order, or process.

The stored grid of a flow is declared (:func:`gaugecli.core.integrate.crossings.declared_grid`); every run of
``simulate`` is integrated by itself. So a figure drawn alone and the same figure drawn after
other runs filled the cache, in another order, write byte-identical sidecars (no tolerance: the
same arithmetic on the same machine). Across machines the same numbers agree within the solver's
tolerance; ``make check-portable`` reruns these tests and the figure comparison on a second
arithmetic path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gaugecli.pipeline import Pipeline
from gaugecli.plots import fig1
from gaugecli.plots.render import render


def test_a_figure_alone_and_after_a_shuffled_batch_writes_the_same_sidecar(tmp_path: Path) -> None:
    from gaugecli.experiments.simulate import SimulateConfig

    alone = render("fig1", Pipeline(tmp_path / "a"), tmp_path / "fa", formats=("png",), quick=True)[-1]
    # another cache, filled first by one batch holding fig1's runs among others, in reverse order
    others = [SimulateConfig(gauge=g, strengths=(D,)) for g in ("favorable", "unfavorable") for D in (1.0, 64.0)]
    mixed = [n.config for n in fig1.needs(True).values()] + others
    Pipeline(tmp_path / "b").ensure_all("simulate", mixed[::-1])
    batched = render("fig1", Pipeline(tmp_path / "b"), tmp_path / "fb", formats=("png",), quick=True)[-1]
    assert alone.read_bytes() == batched.read_bytes()


def test_runs_are_stored_on_declared_times_only(tmp_path: Path) -> None:
    """Two runs that differ only in the sign of δ store the same declared grid, apart from their
    own crossing times (located on the dense output)."""
    from gaugecli.experiments.simulate import SimulateConfig

    plus, minus = (
        Pipeline(tmp_path).ensure("simulate", SimulateConfig(gauge=g, strengths=(16.0,))).result
        for g in ("favorable", "unfavorable")
    )
    own = {float(plus.t_spec), float(minus.t_spec)}
    np.testing.assert_array_equal(np.setdiff1d(plus.t, list(own)), np.setdiff1d(minus.t, list(own)))
    assert plus.t.size == minus.t.size == 401  # 400 declared points and the run's own T_spec


def test_declared_times_are_stored_from_the_dense_output(tmp_path: Path) -> None:
    """A declared time adds a sample and changes no other: the rest of the run is stored as before
    (the solver never sees the stored grid) — the times exactly, the states to a few ulps: the
    dense output evaluated on a longer vector of times may round its polynomial's last bit
    another way (another SIMD path), never more."""
    from dataclasses import replace

    from gaugecli.experiments.simulate import SimulateConfig

    base = SimulateConfig(gauge="unfavorable", strengths=(4.0,))
    run = Pipeline(tmp_path).ensure("simulate", base).result
    t_star = 0.4362624620972934
    more = Pipeline(tmp_path).ensure("simulate", replace(base, times=(t_star,))).result
    i = int(np.flatnonzero(more.t == t_star)[0])
    keep = np.arange(more.t.size) != i
    np.testing.assert_array_equal(more.t[keep], run.t)
    np.testing.assert_allclose(more.alignment[keep], run.alignment, rtol=4 * np.finfo(float).eps, atol=0.0)
    # the new sample lies between its neighbours (α grows monotonically along this run)
    assert more.alignment[i - 1, 0] <= more.alignment[i, 0] <= more.alignment[i + 1, 0]


def test_regenerating_keeps_files_whose_numbers_are_within_tolerance(tmp_path: Path) -> None:
    """``plot`` (``keep_unchanged``) leaves a figure's files byte for byte when the existing sidecar
    was drawn by the same renderer at the same configuration and every number is within its
    ``--compare`` tolerance — as another CPU's last digits are — and redraws it otherwise."""
    import json

    from gaugecli.plots.sidecar import tolerance_for
    from gaugecli.store.artifacts import config_hash, result_hash

    cache, out = Pipeline(tmp_path / "cache"), tmp_path / "out"
    first = render("fig1", cache, out, formats=("png",), quick=True)
    assert not first.kept
    png, sidecar = first[0], first[-1]
    original = json.loads(sidecar.read_text())

    def perturbed(scale: float) -> None:
        """The sidecar as another machine would have written it: (b)'s time T_spec(+D) moved by
        ``scale`` times its tolerance, the image replaced by a marker so that a redraw shows."""
        doc = json.loads(json.dumps(original))
        rtol, atol = tolerance_for("fig1/b/t_mark")
        doc["result"]["panels"]["b"]["t_mark"] += scale * (atol + rtol * abs(doc["result"]["panels"]["b"]["t_mark"]))
        doc["result_hash"] = result_hash(doc["result"])  # written there, so its hash is its own
        sidecar.write_text(json.dumps(doc))
        png.write_bytes(b"marker")

    perturbed(0.5)  # inside the tolerance: kept, nothing written
    again = render("fig1", cache, out, formats=("png",), quick=True, keep_unchanged=True)
    assert again.kept and png.read_bytes() == b"marker"
    perturbed(2.0)  # outside: redrawn, and the sidecar is the regenerated one again
    again = render("fig1", cache, out, formats=("png",), quick=True, keep_unchanged=True)
    assert not again.kept and png.read_bytes().startswith(b"\x89PNG")
    assert json.loads(sidecar.read_text()) == original
    # another configuration (here the layout) or a missing file is redrawn too
    doc = json.loads(sidecar.read_text())
    doc["config"]["layout"]["width"] += 0.5
    doc["config_hash"] = config_hash(doc["config"])
    sidecar.write_text(json.dumps(doc))
    assert not render("fig1", cache, out, formats=("png",), quick=True, keep_unchanged=True).kept
    png.unlink()
    assert not render("fig1", cache, out, formats=("png",), quick=True, keep_unchanged=True).kept
    # without keep_unchanged (the library default) the files are always written
    assert not render("fig1", cache, out, formats=("png",), quick=True).kept
