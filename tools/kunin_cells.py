"""Kunin et al.'s six cells from our command line, beside their own code's runs: writes the JSON that
docs/howto/kunin.md renders (default docs/data/kunin-cells.json).

Each run is ``gaugecli simulate`` in their setting (``--mode sample-gd --init paired --teacher random
--inputs sphere``, m = 50, n = 1000, d = 100, k = 3, η = 2·lr = 1e-2/τ², checkpoints 10 … 10⁴ steps),
run as a subprocess of the command line and cached in ``--cache-dir`` (a rerun computes only what is
missing). Their runs come from ``tools/kunin_theirs.py`` (their unmodified code, in a scratch venv):
give its JSON files with ``--theirs``. Per cell the JSON holds both sides' kernel distance S at the last
checkpoint over the seeds (mean, standard deviation, range), the difference of the means in units of
its standard error (Welch: ``|Δ| / √(s_o²/n_o + s_t²/n_t)``), and each side's rich/lazy call.

    python tools/kunin_cells.py --seeds 100,101,102,103,104,105 --theirs theirs.json
    python tools/kunin_cells.py --quick --out /tmp/kunin-quick.json   # one small cell, seconds

``--quick`` runs one small cell of the same setting (m = 10, n = 60, d = 8, 300 steps) for CI.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "data" / "kunin-cells.json"
CELLS = ((0.1, -1.0), (0.1, 0.0), (0.1, 1.0), (0.447, -1.0), (0.447, 1.0), (1.995, 0.0))
"""(τ, δ) of the six cells (issue 54; tools/kunin_theirs.py runs the same)."""
BASE_LR = 5e-3
"""Their learning rate is ``BASE_LR/τ²`` on ``(1/n) Σ (f − y)²``: our η = 2·lr on ½·mean."""
FULL = {"m": 50, "n": 1000, "d": 100, "k": 3, "steps": (10, 100, 1_000, 10_000), "test": 10_000}
QUICK = {"m": 10, "n": 60, "d": 8, "k": 2, "steps": (10, 100, 300), "test": 400}
RICH = 0.05
"""The rich/lazy call at the last checkpoint: ``S ≥ RICH`` is rich. S = 1 − cos of the angle between
the kernels; 0.05 is a turn of 18°, far above a lazy run's S (the kernel of a linearised model
does not turn at all) and below every small-scale cell's, where both codes' S is at least ~0.1."""


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


def compare(cells: list[tuple[float, float]], mine: list[dict], theirs: list[dict]) -> list[dict[str, object]]:
    """Per cell: S at the last checkpoint on each side, Welch's standardised difference, the calls."""
    rows = []
    for scale, delta in cells:
        row: dict[str, object] = {"scale": scale, "delta": delta}
        for name, runs in (("ours", mine), ("theirs", theirs)):
            final = [r["kernel_distance"][-1] for r in runs if (r["scale"], r["delta"]) == (scale, delta)]
            if final:
                stats = spread(final)
                row[name] = {**stats, "call": "rich" if stats["mean"] >= RICH else "lazy"}
        if "ours" in row and "theirs" in row:
            o, t = row["ours"], row["theirs"]
            assert isinstance(o, dict) and isinstance(t, dict)
            error = math.sqrt(o["sd"] ** 2 / o["n"] + t["sd"] ** 2 / t["n"])
            row["welch"] = abs(o["mean"] - t["mean"]) / error if error > 0 else math.inf
            row["same_call"] = o["call"] == t["call"]
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="100,101,102", help="our seeds (one per run of each cell)")
    parser.add_argument("--theirs", type=Path, nargs="*", default=[], help="JSON files of tools/kunin_theirs.py")
    parser.add_argument("--cache-dir", type=Path, default=ROOT / "runs")
    parser.add_argument("--quick", action="store_true", help="one small cell (CI)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
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
        "setting": {**setting, "base_lr": BASE_LR, "rich_threshold": RICH, "their_code": code},
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
