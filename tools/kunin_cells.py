"""Kunin et al.'s six cells from our command line, beside their own code's runs: writes the JSON that
docs/howto/kunin.md renders (default docs/data/kunin-cells.json).

Each run is ``gaugecli simulate`` in their setting (``--mode sample-gd --init paired --teacher random
--inputs sphere``, m = 50, n = 1000, d = 100, k = 3, η = 2·lr = 1e-2/τ², checkpoints 10 … 10⁴ steps),
run as a subprocess of the command line and cached in ``--cache-dir`` (a rerun computes only what is
missing). Their runs come from ``tools/kunin_theirs.py`` (their unmodified code, in a scratch venv):
give its JSON files with ``--theirs``. Per cell the JSON holds both sides' kernel distance S at the last
checkpoint over the seeds (mean, standard deviation, range), the difference of the means in units of
its standard error (Welch: ``|Δ| / √(s_o²/n_o + s_t²/n_t)``), and each side's call (rich, between,
lazy); ``--cost`` measures one run's CPU seconds from an empty cache.

    python tools/kunin_cells.py --seeds 100,101,102,103,104,105 --theirs theirs.json
    python tools/kunin_cells.py --quick --out /tmp/kunin-quick.json   # one small cell, seconds

``--quick`` runs one small cell of the same setting (m = 10, n = 60, d = 8, 300 steps) for CI.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "data" / "kunin-cells.json"
CELLS = ((0.1, -1.0), (0.1, 0.0), (0.1, 1.0), (0.447, -1.0), (0.447, 1.0), (1.995, 0.0))
"""(τ, δ) of the six cells (issue 54; tools/kunin_theirs.py runs the same)."""
BASE_LR = 5e-3
"""Their learning rate is ``BASE_LR/τ²`` on ``(1/n) Σ (f − y)²``: our η = 2·lr on ½·mean."""
FULL = {"m": 50, "n": 1000, "d": 100, "k": 3, "steps": (10, 100, 1_000, 10_000), "test": 10_000}
QUICK = {"m": 10, "n": 60, "d": 8, "k": 2, "steps": (10, 100, 300), "test": 400}
RICH, LAZY = 0.1, 0.01
"""The call at the last checkpoint, from the mean S over the seeds: rich where ``S ≥ RICH``, lazy where
``S < LAZY``, between otherwise. S = 1 − cos θ of the angle θ between the kernels at the start and at
the checkpoint: ``S < 0.01`` is a turn of less than 8° (a linearised model's kernel does not turn at
all), ``S ≥ 0.1`` one of more than 26°."""


def command(scale: float, delta: float, seed: int, size: dict[str, object], cache: Path) -> list[str]:
    """``gaugecli simulate`` in their setting for the cell (τ, δ) and ``seed``."""
    steps = size["steps"]
    assert isinstance(steps, tuple)
    return [
        sys.executable,
        "-m",
        "gaugecli",
        "simulate",
        "--mode",
        "sample-gd",
        "--m",
        str(size["m"]),
        "--d",
        str(size["d"]),
        "--k",
        str(size["k"]),
        "--init",
        "paired",
        f"--init-scale={scale!r}",
        f"--gauge={delta!r}",
        f"--init-seed={seed}",
        "--teacher",
        "random",
        f"--teacher-seed={seed}",
        "--inputs",
        "sphere",
        "--n-samples",
        str(size["n"]),
        f"--seeds={seed}",
        "--test-samples",
        str(size["test"]),
        f"--eta={2 * BASE_LR / scale**2!r}",
        "--checkpoints",
        ",".join(str(s) for s in steps),
        "--cache-dir",
        str(cache),
        "--json",
        "--quiet",
    ]


def ours(scale: float, delta: float, seed: int, size: dict[str, object], cache: Path) -> dict[str, object]:
    """One run of ours, through the command line: its measured series."""
    done = subprocess.run(command(scale, delta, seed, size, cache), capture_output=True, text=True, check=True)
    line = json.loads(done.stdout.strip().splitlines()[-1])
    result = json.loads(Path(line["path"]).read_text())["result"]
    eta = result["eta"]
    return {
        "scale": scale,
        "delta": delta,
        "seed": seed,
        "steps": [round(t / eta) for t in result["checkpoint_t"]],
        "kernel_distance": result["kernel_distance"],
        "test_loss": [2 * x for x in result["test_loss"]],  # as theirs: mean (f − y)²
        "hamming_distance": result["hamming_distance"],
        "parameter_distance": result["parameter_distance"],
    }


def spread(values: list[float]) -> dict[str, float]:
    """Mean, sample standard deviation (0 for one value), min and max."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "mean": mean, "sd": sd, "min": min(values), "max": max(values)}


def call(s: float) -> str:
    """rich, between or lazy (:data:`RICH`, :data:`LAZY`)."""
    return "rich" if s >= RICH else "lazy" if s < LAZY else "between"


def cpu_seconds(scale: float, delta: float, seed: int, size: dict[str, object]) -> float:
    """CPU seconds (user + system) of one run of ours from an empty cache: the command's whole cost,
    start-up included, independent of the machine's load as wall time is not."""
    with tempfile.TemporaryDirectory() as cache:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command(scale, delta, seed, size, Path(cache)), capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compare(cells: list[tuple[float, float]], mine: list[dict], theirs: list[dict]) -> list[dict[str, object]]:
    """Per cell: S at the last checkpoint on each side, Welch's standardised difference, the calls."""
    rows = []
    for scale, delta in cells:
        row: dict[str, object] = {"scale": scale, "delta": delta}
        for name, runs in (("ours", mine), ("theirs", theirs)):
            mine_here = [r for r in runs if (r["scale"], r["delta"]) == (scale, delta)]
            if mine_here:
                stats = spread([r["kernel_distance"][-1] for r in mine_here])
                steps = mine_here[0]["steps"]
                by_step = [sum(r["kernel_distance"][i] for r in mine_here) / len(mine_here) for i in range(len(steps))]
                row[name] = {**stats, "call": call(stats["mean"]), "steps": steps, "mean_by_step": by_step}
        if "ours" in row and "theirs" in row:
            o, t = row["ours"], row["theirs"]
            assert isinstance(o, dict) and isinstance(t, dict)
            error = math.sqrt(o["sd"] ** 2 / o["n"] + t["sd"] ** 2 / t["n"])
            row["welch"] = abs(o["mean"] - t["mean"]) / error if error > 0 else math.inf
            row["same_call"] = o["call"] == t["call"]
        rows.append(row)
    return rows


HOWTO = ROOT / "docs" / "howto" / "kunin.md"
BEGIN = (
    "<!-- kunin-cells: generated by tools/kunin_cells.py --write-doc from docs/data/kunin-cells.json; do not edit -->"
)
END = "<!-- /kunin-cells -->"


def render(data: dict) -> str:
    """The how-to's tables, from the JSON: per cell both sides' S at the last step over the seeds
    (mean ± standard deviation, runs), Welch's standardised difference and the calls; then the mean S
    at every checkpoint; then the cost of one run of ours and of their whole grid."""
    rows = data["cells"]
    lines = [
        r"| τ | δ | S ours | S theirs | \|Δ\|/SE | call ours | call theirs |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in rows:
        o, t = c.get("ours"), c.get("theirs")
        side = [f"{x['mean']:.3g} ± {x['sd']:.2g} ({x['n']})" if x else "—" for x in (o, t)]
        welch = f"{c['welch']:.1f}" if "welch" in c else "—"
        calls = [x["call"] if x else "—" for x in (o, t)]
        lines.append(
            f"| {c['scale']:g} | {c['delta']:+g} | {side[0]} | {side[1]} | {welch} | {calls[0]} | {calls[1]} |"
        )
    steps = next((c["ours"]["steps"] for c in rows if c.get("ours")), [])[1:]  # S(0) = 0: the start itself
    lines += [
        "",
        "| τ | δ | code | " + " | ".join(f"S at {k}" for k in steps) + " |",
        "|---|---|---|" + "---|" * len(steps),
    ]
    for c in rows:
        for name in ("ours", "theirs"):
            if c.get(name):
                means = " | ".join(f"{v:.3g}" for v in c[name]["mean_by_step"][1:])
                lines.append(f"| {c['scale']:g} | {c['delta']:+g} | {name} | {means} |")
    cost = data.get("cpu_seconds_per_run")
    if cost is not None:
        grid = 17 * 17 * 16
        lines += [
            "",
            f"One run of ours from an empty cache: {cost:.1f} CPU-s, start-up included; their whole grid "
            f"({grid} runs): {cost * grid / 3600:.1f} CPU-hours.",
        ]
    return "\n".join(lines)


def write_doc(data: dict, page: Path = HOWTO) -> None:
    """Replace the generated block of ``page`` by :func:`render` of ``data``."""
    from doc_numbers import replace_block

    replace_block(page, BEGIN, END, render(data))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="100,101,102", help="our seeds (one per run of each cell)")
    parser.add_argument("--theirs", type=Path, nargs="*", default=[], help="JSON files of tools/kunin_theirs.py")
    parser.add_argument("--cache-dir", type=Path, default=ROOT / "runs")
    parser.add_argument("--quick", action="store_true", help="one small cell (CI)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--cost", action="store_true", help="also measure one run's CPU seconds (a fresh cache)")
    parser.add_argument("--write-doc", action="store_true", help="only render --out's JSON into docs/howto/kunin.md")
    args = parser.parse_args(argv)
    if args.write_doc:
        write_doc(json.loads(args.out.read_text()))
        return
    size, cells = (QUICK, [CELLS[0]]) if args.quick else (FULL, list(CELLS))
    seeds = [int(s) for s in args.seeds.split(",")]
    mine = [ours(scale, delta, seed, size, args.cache_dir) for scale, delta in cells for seed in seeds]
    theirs: list[dict] = []
    code = None
    for path in args.theirs:
        data = json.loads(path.read_text())
        code = data["code"]
        theirs += data["runs"]
    setting = {k: (list(v) if isinstance(v, tuple) else v) for k, v in size.items()}
    out = {
        "setting": {**setting, "base_lr": BASE_LR, "rich": RICH, "lazy": LAZY, "their_code": code},
        "cpu_seconds_per_run": cpu_seconds(*cells[0], seeds[0], size) if args.cost else None,
        "cells": compare(cells, mine, theirs),
        "ours": mine,
        "theirs": theirs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n")
    tmp.replace(args.out)


if __name__ == "__main__":
    main()
