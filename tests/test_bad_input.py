"""A catalogue of bad inputs for every subcommand (SPEC §5: "Invalid input gets a one-line
error and a non-zero exit, never a traceback, and never a partial artifact").

Each row: the arguments, the exit code (2 for usage errors, 1 for runtime failures) and
words the one-line message must contain — the parameter it is about and the allowed range
or the remedy. Every case also checks that no file appeared anywhere in the sandbox.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gaugecli.cli import app

# Parser errors (unconvertible values, unknown choices and options, ``min=`` bounds, missing
# arguments) come from typer's vendored click; they too must be one line with exit code 2.

USAGE, RUNTIME = 2, 1

CASES = [
    # --- simulate: numbers out of range -------------------------------------------------------
    (["simulate", "-D", "0"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["simulate", "-D", "-1"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["simulate", "-D", "4", "-D", "-2"], USAGE, ["--gauge-strength", "-2"]),
    (["simulate", "--m", "0"], USAGE, ["--m", "≥ 1"]),
    (["simulate", "--theta0", "3.2"], USAGE, ["--theta0", "[0, π)"]),
    (["simulate", "--theta0", "3.141592653589793"], USAGE, ["--theta0", "[0, π)"]),
    (["simulate", "--theta0", "-0.1"], USAGE, ["--theta0", "[0, π)"]),
    (["simulate", "--mode", "gd", "--eta", "0"], USAGE, ["--eta", "> 0"]),
    (["simulate", "--mode", "gd", "--eta", "-1"], USAGE, ["--eta", "> 0"]),
    (["simulate", "--c0", "0"], USAGE, ["--c0", "[1e-6, 1e6]"]),
    (["simulate", "--c0", "-0.1"], USAGE, ["--c0", "[1e-6, 1e6]"]),
    (["simulate", "--eps-align", "0"], USAGE, ["--eps-align", "(0, 1)"]),
    (["simulate", "--eps-align", "1"], USAGE, ["--eps-align", "(0, 1)"]),
    (["simulate", "--rtol", "0"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    (["simulate", "--rtol", "0.5"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    (["simulate", "--rtol", "1e-14"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    (["simulate", "--mode", "sample", "--n-samples", "0"], USAGE, ["--n-samples", "≥ 1"]),
    (["simulate", "--t-max", "0"], USAGE, ["--t-max", "[1e-9, 1e14]"]),
    (["simulate", "--seeds", "-1"], USAGE, ["--seeds", "≥ 0"]),
    (["simulate", "--k", "0"], USAGE, ["--k", "≥ 1"]),
    (["simulate", "--d", "1"], USAGE, ["--d", "≥ 2"]),
    (["simulate", "--k", "3", "--d", "3"], USAGE, ["--d", "≥ 4", "k + 1"]),
    # --- simulate: NaN and inf ----------------------------------------------------------------
    (["simulate", "-D", "nan"], USAGE, ["--gauge-strength", "finite"]),
    (["simulate", "-D", "inf"], USAGE, ["--gauge-strength", "finite"]),
    (["simulate", "--c0", "nan"], USAGE, ["--c0", "finite"]),
    (["simulate", "--theta0", "inf"], USAGE, ["--theta0", "[0, π)"]),
    (["simulate", "--theta0", "nan"], USAGE, ["--theta0", "[0, π)", "nan"]),
    (["simulate", "--mode", "gd", "--eta", "inf"], USAGE, ["--eta", "finite"]),
    (["simulate", "--t-max", "nan"], USAGE, ["--t-max", "finite"]),
    (["simulate", "--gauge", "nan"], USAGE, ["--gauge", "finite"]),
    (["simulate", "--gauge", "-inf"], USAGE, ["--gauge", "finite"]),
    # --- simulate: wrong types, unknown choices, unknown options --------------------------------
    (["simulate", "--c0", "abc"], USAGE, ["--c0", "number"]),
    (["simulate", "-D", "abc"], USAGE, ["--gauge-strength"]),
    (["simulate", "--d", "2.5"], USAGE, ["--d", "integer"]),
    (["simulate", "--mode", "bar"], USAGE, ["--mode", "flow"]),
    (["simulate", "--bogus"], USAGE, ["--bogus"]),
    (["simulate", "--eta"], USAGE, ["--eta"]),
    (["simulate", "--gauge", "foo"], USAGE, ["--gauge", "favorable", "unfavorable", "balanced"]),
    # --- simulate: malformed lists ------------------------------------------------------------
    (["simulate", "--deltas", "1,,2"], USAGE, ["--deltas", "2,-1,0.5"]),
    (["simulate", "--deltas", ""], USAGE, ["--deltas", "2,-1,0.5"]),
    (["simulate", "--deltas", "a,b"], USAGE, ["--deltas", "2,-1,0.5"]),
    (["simulate", "--deltas", "1,nan"], USAGE, ["--deltas", "finite"]),
    # --- simulate: paths ----------------------------------------------------------------------
    (["simulate", "--out", "adir"], RUNTIME, ["--out", "directory", "adir/run.json"]),
    (["simulate", "--out", "file.txt/x.json"], RUNTIME, ["--out", "file.txt", "not a folder"]),
    (["simulate", "-D", "4", "-D", "8", "--out", "file.txt/x.json"], RUNTIME, ["--out", "file.txt"]),
    (["simulate", "--out", "newdir/"], USAGE, ["--out", "names a folder", "newdir/run.json"]),
    (["simulate", "--deltas", "1,-1", "--gauge", "unfavorable"], USAGE, ["--gauge", "--deltas"]),
    # an option that --deltas makes meaningless is refused, as in select
    (["simulate", "--deltas", "1,2", "--m", "3"], USAGE, ["--m", "no effect", "--deltas"]),
    (["simulate", "--deltas", "1,2", "-D", "3"], USAGE, ["-D", "no effect", "--deltas"]),
    # degenerate horizons: refused before a solver stalls on them (1e-300 stalled 14 s, 1e300 28 s)
    (["simulate", "--t-max", "1e-300"], USAGE, ["--t-max", "[1e-9, 1e14]"]),
    (["simulate", "--t-max", "1e300"], USAGE, ["--t-max", "[1e-9, 1e14]"]),
    (["reln", "--t-max", "1e-300"], USAGE, ["--t-max", "[1e-9, 1e14]"]),
    # a streamed sample estimated beyond --max-time is refused before it starts (was a warning)
    (
        ["simulate", "--mode", "sample", "--n-samples", "1000000000000"],
        USAGE,
        ["--n-samples", "days", "--max-time", "stays in memory"],
    ),
    (["select", "--mode", "sample", "--n-samples", "1000000000"], USAGE, ["--n-samples", "--max-time 3600"]),
    (["simulate", "--max-time", "-1"], USAGE, ["--max-time", "0"]),
    # --config: a bad file is one line naming --config; its values are validated as typed ones
    (["simulate", "--config", "unknown.toml"], USAGE, ["--config", "unknown option 'seedz'", "did you mean 'seeds'"]),
    (["simulate", "--config", "broken.toml"], USAGE, ["--config", "not TOML"]),
    (["simulate", "--config", "output.toml"], USAGE, ["--config", "'out'", "--out on the command line"]),
    (["simulate", "--config", "table.toml"], USAGE, ["--config", "'d'", "not a table"]),
    (["simulate", "--config", "missing.toml"], USAGE, ["--config", "cannot read"]),
    (["simulate", "--config", "adir"], USAGE, ["--config", "cannot read"]),
    (["simulate", "--config", "clash.toml"], USAGE, ["--m", "no effect", "--deltas"]),
    (["prune", "--config", "range.toml"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    # one rule for the flow solver's tolerance in every command that integrates a flow
    (["prune", "--rtol", "1e-20"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    (["phase", "--x", "foo=1:2:3"], USAGE, ["--x", "not an axis", "gauge-strength"]),
    (["phase", "--x", "gauge-strength=1:16:0:log"], USAGE, ["--x", "[2, 129]"]),
    (["phase", "--metric", "ratio", "--kind", "select"], USAGE, ["--metric", "simulate"]),
    (["perturb", "--rtol", "1e-20"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    (["lockin", "--rtol", "1e-20"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    pytest.param(["simulate", "--out", "a" * 300 + ".json"], RUNTIME, ["--out", "305", "255"], id="--out too long"),
    pytest.param(
        ["simulate", "--figure", "b" * 300 + ".pdf"], RUNTIME, ["--figure", "shorter"], id="--figure too long"
    ),
    (["simulate", "--figure", "fig.jpg"], USAGE, ["--figure", ".pdf"]),
    pytest.param(
        ["simulate", "--cache-dir", "c" * 300], RUNTIME, ["--cache-dir", "shorter"], id="--cache-dir too long"
    ),
    (["simulate", "--cache-dir", "file.txt"], USAGE, ["--cache-dir", "not a folder"]),
    # --- simulate: runtime failure ------------------------------------------------------------
    (["simulate", "--d", "4", "--mode", "gd", "--eta", "100"], USAGE, ["--eta", "stability bound", "--eta below"]),
    (["simulate", "--d", "4", "--mode", "sample-gd", "--eta", "100"], USAGE, ["--eta", "got 100", "--eta below"]),
    # --- options without effect in the chosen mode (SPEC §6) -----------------------------------
    (["simulate", "--mode", "sample", "--eta", "0.01"], USAGE, ["--eta", "no effect", "gd"]),
    (["simulate", "--eta", "0.01"], USAGE, ["--eta", "no effect", "flow"]),
    (["simulate", "--n-samples", "100"], USAGE, ["--n-samples", "no effect"]),
    (["simulate", "--seeds", "3"], USAGE, ["--seeds", "no effect"]),
    (["simulate", "--mode", "gd", "--rtol", "1e-8"], USAGE, ["--rtol", "no effect"]),
    (["simulate", "--batch-size", "10"], USAGE, ["--batch-size", "sgd"]),
    (["simulate", "--mode", "sgd", "--batches", "some"], USAGE, ["--batches", "fresh", "resampled"]),
    (["simulate", "--mode", "sgd", "--batches", "fresh", "--n-samples", "100"], USAGE, ["--n-samples", "resampled"]),
    (["select", "--seeds", "0,1"], USAGE, ["--seeds", "no effect"]),
    (["prune", "--no-sample", "--n-samples", "100"], USAGE, ["--n-samples", "no effect"]),
    (["simulate", "--d", "4", "--mode", "gd", "--eta", "100", "--out", "new/x.json"], USAGE, ["--eta below"]),
    (["simulate", "--imbalance-every-step"], USAGE, ["--imbalance-every-step", "no effect", "gd"]),
    (
        ["simulate", "--mode", "gd", "--eta", "1e-4", "--t-max", "400", "--m", "5", "--imbalance-every-step"],
        USAGE,
        ["--imbalance-every-step", "153 MiB", "2^24", "--t-max"],
    ),
    # --- select -------------------------------------------------------------------------------
    (["select", "--m", "5", "--owner", "5"], USAGE, ["--owner", "[0, 4]"]),
    (["select", "--m", "2", "--owner", "-1"], USAGE, ["--owner", "≥ 0"]),
    (["select", "--m", "2", "--owner", "2"], USAGE, ["--owner", "[0, 1]"]),
    (["select", "--m", "0"], USAGE, ["--m", "≥ 1"]),
    (["select", "-D", "0"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["select", "-D", "nan"], USAGE, ["--gauge-strength", "finite"]),
    (["select", "--deltas", "1,,2"], USAGE, ["--deltas", "2,-1,0.5"]),
    (["select", "--seeds", "-1"], USAGE, ["--seeds", "≥ 0"]),
    (["select", "--seeds", "a"], USAGE, ["--seeds", "integers"]),
    (["select", "--seeds", "0,,1"], USAGE, ["--seeds", "integers"]),
    (["select", "--sweep", "--ms", "1"], USAGE, ["--ms", "≥ 2"]),
    (["select", "--sweep", "--ms", "2,x"], USAGE, ["--ms", "integers"]),
    (["select", "--sweep", "--ms", "2", "--cache-dir", "file.txt"], USAGE, ["--cache-dir", "not a folder"]),
    (["select", "--sweep", "--ms", "2", "--scheduler", "bogus"], RUNTIME, ["--scheduler", "tcp://HOST:PORT"]),
    (["select", "--out", "adir"], RUNTIME, ["--out", "directory"]),
    (["select", "--sweep", "--ms", "2", "--out", "file.txt/x.json"], RUNTIME, ["--out", "file.txt"]),
    (["select", "--sweep", "--ms", "2", "--workers", "0"], USAGE, ["--workers", "1"]),
    (["select", "--m", "x"], USAGE, ["--m", "integer"]),
    # --- prune --------------------------------------------------------------------------------
    (["prune", "-D", "0"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["prune", "--ms", "1"], USAGE, ["--ms", "≥ 2"]),
    (["prune", "--ms", ""], USAGE, ["--ms", "integers"]),
    (["prune", "--seeds", "-1"], USAGE, ["--seeds", "≥ 0"]),
    (["prune", "--n-samples", "0"], USAGE, ["--n-samples", "≥ 1"]),
    (["prune", "--coalign-strength", "0"], USAGE, ["--coalign-strength", "(0, 1e6]"]),
    (["prune", "--c0", "inf"], USAGE, ["--c0", "finite"]),
    (["prune", "--out", "file.txt/x.json"], RUNTIME, ["--out", "file.txt"]),
    (["prune", "--workers", "0"], USAGE, ["--workers", "1"]),
    # --- perturb ------------------------------------------------------------------------------
    (["perturb", "--eps", "-0.1"], USAGE, ["--eps", "≥ 0"]),
    (["perturb", "--eps", "0,nan"], USAGE, ["--eps", "finite"]),
    (["perturb", "--eps", "0,4"], USAGE, ["--eps", "π − θ0"]),
    (["perturb", "-D", "0"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["perturb", "--m", "1"], USAGE, ["--m", "≥ 2"]),
    (["perturb", "--step-fractions", "0.1"], USAGE, ["--step-fractions", "at least 3"]),
    (["perturb", "--step-fractions", "0.01,0.02,-1"], USAGE, ["--step-fractions", "(0, 0.1]"]),
    (["perturb", "--step-fractions", "0.01,0.02,0.5"], USAGE, ["--step-fractions", "0.1"]),
    (["perturb", "--n-samples", "100"], USAGE, ["--n-samples", "at least 2"]),
    (["perturb", "--n-samples", "0,100"], USAGE, ["--n-samples", "≥ 1"]),
    (["perturb", "--sample-seeds", "0,-1"], USAGE, ["--sample-seeds", "≥ 0"]),
    (["perturb", "--seeds", "x"], USAGE, ["--seeds", "integers"]),
    (["perturb", "--out", "adir"], RUNTIME, ["--out", "directory"]),
    (["perturb", "--kind", "x"], USAGE, ["--kind", "adversarial"]),
    # --- plot ---------------------------------------------------------------------------------
    (["plot", "fig99"], USAGE, ["fig99", "fig1", "all"]),
    (["plot", "fig1", "--format", "jpg"], USAGE, ["--format", "pdf", "png", "svg"]),
    (["plot", "fig1", "--format", ""], USAGE, ["--format", "pdf"]),
    (["plot", "fig1", "--out-dir", "file.txt"], USAGE, ["--out-dir", "not a folder"]),
    (["plot", "fig1", "--cache-dir", "file.txt"], USAGE, ["--cache-dir", "not a folder"]),
    (["plot", "fig1", "--out-dir", "/dev/null"], USAGE, ["--out-dir", "not a folder"]),
    # an atomic write renames onto its target: a device or a pipe would become a regular file
    (["simulate", "--out", "pipe"], RUNTIME, ["--out", "device or pipe"]),
    # folders the OS refuses to create files in are found before computing (os.access says yes to root)
    (["plot", "fig3", "--out-dir", "/proc/gaugecli-figs"], RUNTIME, ["--out-dir", "cannot write", "another folder"]),
    (["simulate", "--cache-dir", "/proc/gaugecli-runs"], RUNTIME, ["--cache-dir", "cannot write", "another folder"]),
    (["verify", "--quick", "--report", "pipe"], RUNTIME, ["--report", "device or pipe"]),
    (["simulate", "--figure", "pipe.png"], RUNTIME, ["--figure", "device or pipe"]),
    (["validate", "pipe"], RUNTIME, ["pipe", "device or pipe"]),
    # --- laws: widths out of range, too few layers, over the budget, an activation it has no φ for ---
    (["laws", "--layer-widths", "3,0,1"], USAGE, ["--layer-widths", "[1, 64]", "got 0"]),
    (["laws", "--layer-widths", "3"], USAGE, ["--layer-widths", "at least 3"]),
    (["laws", "--layer-widths", "40,40,40,1"], USAGE, ["--layer-widths", "budget allows at most 60 parameters"]),
    (["laws", "--layer-widths", "3,4,1", "--activation", "erf"], USAGE, ["--activation", "relu, leaky-relu, linear"]),
    (["laws", "--layer-widths", "3,4,1", "--points", "0"], USAGE, ["--points", "[2, 16]"]),
    # --- deep: the layer, the duplicates, an owner beyond them, a gauge strength beyond the budget ---
    (["deep", "--layer", "3"], USAGE, ["--layer", "[1, 2]"]),
    (["deep", "--m", "9"], USAGE, ["--m", "[2, 8]"]),
    (["deep", "--m", "2", "--owner", "2"], USAGE, ["--owner", "below m = 2"]),
    (["deep", "-D", "1,100"], USAGE, ["--gauge-strength", "64"]),
    (["cache", "clear", "--kind", "nope", "--yes"], USAGE, ["--kind", "one of", "simulate"]),
    (["cache", "list", "--kind", "nope"], USAGE, ["--kind", "one of"]),
    (["cache", "clear", "--older-than", "-1", "--yes"], USAGE, ["--older-than", "≥ 0"]),
    (["cache", "clear", "--older-than", "nan", "--yes"], USAGE, ["--older-than", "finite"]),
    (["plot", "fig1", "--out-dir", "n" * 300], RUNTIME, ["--out-dir", "300 bytes", "shorter"]),
    (["plot"], USAGE, ["figure"]),
    # --- validate -----------------------------------------------------------------------------
    (["validate", "missing.json"], RUNTIME, ["missing.json", "no such file"]),
    (["simulate", "--gauge", "-2", "-D", "4", "-D", "8"], USAGE, ["--gauge-strength", "explicit", "give one"]),
    (["validate", "corrupt.json"], RUNTIME, ["corrupt.json", "not valid JSON", "rerun"]),
    (["validate", "empty.json"], RUNTIME, ["empty.json", "not valid JSON"]),
    (["validate", "binary.json"], RUNTIME, ["binary.json", "not valid JSON"]),
    (["validate", "adir"], RUNTIME, ["adir", "directory"]),
    (["validate", "list.json"], RUNTIME, ["list.json", "not a gaugecli artifact"]),
    (["validate", "newer.json"], RUNTIME, ["newer.json", "version 2", "newer", "rerun"]),
    (["validate", "older.json"], RUNTIME, ["older.json", "version 0", "older", "rerun"]),
    (["validate", "alien.json"], RUNTIME, ["alien.json", "unknown artifact kind", "simulate"]),
    pytest.param(
        ["validate", "badname.json"], RUNTIME, ["badname.json", "gaugecli.KIND/VERSION"], id="validate badname.json"
    ),
    (["validate", "noowner.json"], RUNTIME, ["noowner.json", "result", "'owner' is a required property"]),
    (["validate", "badowner.json"], RUNTIME, ["badowner.json", "result/owner"]),
    (["validate", "good.json", "corrupt.json"], RUNTIME, ["corrupt.json", "1 of 2"]),
    (["validate"], USAGE, ["files"]),
    # --- reln, verify -------------------------------------------------------------------------
    (["reln", "--mode", "gd"], USAGE, ["No such option: --mode"]),
    (["reln", "--psi-step", "60"], USAGE, ["--psi-step"]),
    (["reln", "--out", "newdir/"], USAGE, ["--out", "folder"]),
    (["verify", "--claims", "C9"], USAGE, ["--claims", "C1"]),
    (["verify", "--claims", ""], USAGE, ["--claims"]),
    (["verify", "--report", "rdir/"], USAGE, ["--report", "folder"]),
    # --- lockin -------------------------------------------------------------------------------
    (["lockin", "--assign", "select,sideways"], USAGE, ["--assign", "all-minus"]),
    (["lockin", "--assign", "all-minus"], USAGE, ["--assign", "select"]),
    (["lockin", "--per", "5"], USAGE, ["--span", "window + lag"]),
    (["lockin", "--floor", "1"], USAGE, ["--floor", "(0, 1)"]),
    (["lockin", "--scan-pers", "50,x"], USAGE, ["--scan-pers"]),
    (["simulate", "--m", "5", "--gauge", "unfavorable", "--eps", "1e-16"], USAGE, ["--eps", "[1e-12, 1]", "round-off"]),
    (["lockin", "--scan-eps", "0"], USAGE, ["--scan-eps", "(0, 1]"]),
    (["lockin", "--scan-eps", "1e-16,2"], USAGE, ["--scan-eps", "(0, 1]"]),
    (["lockin", "--figure", "lockin.txt"], USAGE, ["--figure", ".png"]),
    (["lockin", "--per", "100000000"], USAGE, ["--per", "GB", "epoch grids", "use --per ≤"]),
    (["reln", "--psi-step", "1e-7"], USAGE, ["--psi-step", "[0.1, 45]"]),
    # an option that another makes meaningless is an error, not silently ignored
    (["select", "--deltas", "4,-4", "--m", "3"], USAGE, ["--m", "no effect with --deltas"]),
    (["select", "--deltas", "-4,4", "--owner", "0"], USAGE, ["--owner", "no effect with --deltas"]),
    (["select", "--deltas", "4,-4", "-D", "2"], USAGE, ["-D", "no effect with --deltas"]),
    (["select", "--ms", "3"], USAGE, ["--ms", "--sweep"]),
    (["perturb", "--seeds", "5,6"], USAGE, ["--seeds", "no effect with --kind adversarial"]),
    (
        ["perturb", "--sweeps", "visible", "--n-samples", "500,1000"],
        USAGE,
        ["--n-samples", "samples sweep is not in --sweeps"],
    ),
    (["perturb", "--sweeps", "step,bogus"], USAGE, ["--sweeps", "selection"]),
    (["perturb", "--sweeps", "step,step"], USAGE, ["--sweeps"]),
    (["select", "--sweep", "--m", "3"], USAGE, ["--m", "no effect with --sweep"]),
    (["reln", "-D", "1e7"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["reln", "--select-strength", "1e308"], USAGE, ["--select-strength", "(0, 1e6]"]),
    (["perturb", "-D", "1e308"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["perturb", "--step-strength", "1e308"], USAGE, ["--step-strength", "(0, 1e6]"]),
    (["perturb", "--stability-fractions", "-1"], USAGE, ["--stability-fractions", "> 0"]),
    (["perturb", "--success-horizon", "1e308"], USAGE, ["--success-horizon", "(0, 1000]"]),
    (["prune", "--coalign-strength", "1e308"], USAGE, ["--coalign-strength", "(0, 1e6]"]),
    (["lockin", "-D", "1e308"], USAGE, ["--gauge-strength", "(0, 1e6]"]),
    (["lockin", "--scan-strength", "1e308"], USAGE, ["--scan-strength", "(0, 1e6]"]),
    # sizes that would not fit in memory: refused before anything is allocated, naming the flag
    (["lockin", "--m", "100000"], USAGE, ["--m", "GB", "use --m ≤"]),
    (["lockin", "--span", "1000000"], USAGE, ["--span", "GB", "use --span ≤"]),
    (["lockin", "--span", "1e308"], USAGE, ["--span", "epochs", "1e+09"]),
    (["lockin", "--n-samples", "10000000000"], USAGE, ["--n-samples", "finite sample", "use --n-samples ≤"]),
    (["reln", "--m", "100000"], USAGE, ["--m", "Jacobian", "use --m ≤"]),
    (["select", "--sweep", "--ms", "2,100000"], USAGE, ["--ms", "GB", "use --ms ≤"]),
    (["simulate", "--mode", "sgd", "--batch-size", "100000000000"], USAGE, ["--batch-size", "minibatch"]),
    (["simulate", "--d", "100000000000"], USAGE, ["--d", "vectors in R^d", "use --d ≤"]),  # 745 GiB a vector
    (
        ["perturb", "--success-n-samples", "16,10000000000"],
        USAGE,
        ["--success-n-samples", "GB", "use --success-n-samples ≤"],
    ),
    (["validate", "nan.json"], RUNTIME, ["nan.json", "not valid JSON", "NaN"]),
    (["validate", "edited-config.json"], RUNTIME, ["edited-config.json", "config_hash", "edited"]),
    (["validate", "edited-result.json"], RUNTIME, ["edited-result.json", "result_hash", "edited"]),
    (["plot", "fig1", "--venue", "nature"], USAGE, ["--venue", "neurips"]),
    (["plot", "fig1", "--width", "0.5"], USAGE, ["--width", "[1, 20]"]),
    (["plot", "all", "--width", "3.4"], USAGE, ["--width", "too narrow", "fig2"]),
    # --- export: a refused artifact or output writes nothing -----------------------------------
    (["export", "missing.json", "--format", "csv"], RUNTIME, ["missing.json", "no such file"]),
    (["export", "corrupt.json", "--format", "parquet"], RUNTIME, ["corrupt.json", "not valid JSON"]),
    (["export", "edited-result.json", "--format", "netcdf"], RUNTIME, ["edited-result.json", "result_hash"]),
    (["export", "edited-config.json", "--format", "csv"], RUNTIME, ["edited-config.json", "config_hash"]),
    (["export", "list.json", "--format", "csv"], RUNTIME, ["list.json", "not a gaugecli artifact"]),
    (["export", "good.json", "--format", "xlsx"], USAGE, ["--format", "csv", "parquet", "netcdf"]),
    (["export", "good.json"], USAGE, ["--format"]),
    (["export", "good.json", "--format", "csv", "--out", "adir"], RUNTIME, ["--out", "directory"]),
    (["export", "good.json", "--format", "csv", "--out", "file.txt/x.csv"], RUNTIME, ["--out", "not a folder"]),
    (["export", "good.json", "--format", "csv", "--out", "newdir/"], USAGE, ["--out", "folder"]),
    (["export", "good.json", "--format", "csv", "--out", "good.json"], USAGE, ["--out", "the artifact itself"]),
    (["export", "good.json", "--format", "netcdf", "--out", "pipe"], RUNTIME, ["--out", "device or pipe"]),
    # --- numbers: an unknown figure, a folder without its sidecar ---------------------------------
    (["numbers", "fig99"], USAGE, ["FIGURE", "fig99", "fig1", "lockin_nulls"]),
    (["numbers", "fig4", "--figures-dir", "adir"], USAGE, ["--figures-dir", "fig4.json", "gaugecli plot fig4"]),
    (["numbers", "--figures-dir", "file.txt"], USAGE, ["--figures-dir", "not a directory"]),
    (["numbers", "fig4", "--format", "docx"], USAGE, ["--format", "tex", "json", "md"]),
    # --- predict --------------------------------------------------------------------------------
    (["predict", "--ks", "0"], USAGE, ["--ks", "[1, 8]"]),
    (["predict", "--ks", "1,1"], USAGE, ["--ks", "must differ"]),
    (["predict", "--m-per-k", "100"], USAGE, ["--m-per-k", "[1, 64]"]),
    (["predict", "--spreads", "-1"], USAGE, ["--spreads", "[0, 1e4]"]),
    (["predict", "--spreads", "nan"], USAGE, ["--spreads", "finite"]),
    (["predict", "--runs", "1"], USAGE, ["--runs", "[2, 100000]"]),
    (["predict", "--init-scale-a", "0"], USAGE, ["--init-scale-a", "[1e-3, 10]"]),
    (["predict", "--init-scale-w", "20"], USAGE, ["--init-scale-w", "[1e-3, 10]"]),
    (["predict", "--ks", "4", "--d", "4"], USAGE, ["--d", "≥ 5", "--ks"]),
    (["predict", "--n-samples", "1"], USAGE, ["--n-samples", "[2, 100000]"]),
    (["predict", "--n-samples", "200000"], USAGE, ["--n-samples", "[2, 100000]"]),
    (["predict", "--n-samples", "64,64"], USAGE, ["--n-samples", "must differ"]),
    (["predict", "--spreads", "none", "--no-natural"], USAGE, ["--spreads", "--natural"]),
    (["predict", "--batch-size", "32"], USAGE, ["--batch-size", "--n-samples"]),
    (["predict", "--n-samples", "64", "--batch-size", "0"], USAGE, ["--batch-size", "≥ 1"]),
    (["predict", "--n-samples", "64", "--batch-size", "8", "--eta", "0"], USAGE, ["--eta", "[1e-4, 1]"]),
    (["predict", "--rtol", "1e-20"], USAGE, ["--rtol", "[1e-13, 1e-2)"]),
    (["predict", "--spreads", "none", "--no-natural"], USAGE, ["--spreads"]),
    # --- options a drawn start never reads: refused, never printed as used (issue 48) ----------
    (["simulate", "--init", "gaussian", "--gauge", "natural", "-D", "16"], USAGE, ["--gauge-strength", "natural"]),
    (["simulate", "--init", "gaussian", "--gauge", "natural", "--c0", "0.5"], USAGE, ["--c0", "gaussian"]),
    (["simulate", "--init", "gaussian", "--gauge", "natural", "--theta0", "1.0"], USAGE, ["--theta0", "gaussian"]),
    (["simulate", "--init", "gaussian", "--c0", "0.5"], USAGE, ["--c0", "gaussian"]),
    (["simulate", "--init", "random", "--theta0", "1.0"], USAGE, ["--theta0", "random"]),
    (["select", "--init", "gaussian", "--c0", "0.5"], USAGE, ["--c0", "gaussian"]),
    (["select", "--init", "gaussian", "--theta0", "1.0"], USAGE, ["--theta0", "gaussian"]),
    (
        ["phase", "--init", "gaussian", "--gauge", "natural", "--x", "c0=0.05:0.5:3", "--y", "theta0=0.5:2:3"],
        USAGE,
        ["--x", "c0", "gaussian", "flat"],
    ),
    (
        ["phase", "--init", "gaussian", "--gauge", "natural", "--x", "m=1:3:3", "--y", "gauge-strength=1:16:3"],
        USAGE,
        ["--y", "gauge-strength", "natural", "flat"],
    ),
    (["phase", "--kind", "select", "--init", "random", "--y", "theta0=0.5:2:3"], USAGE, ["--y", "theta0", "random"]),
]


def _case_id(case) -> str:
    return " ".join(a if a else "''" for a in case[0])


PARAMS = [c if hasattr(c, "marks") else pytest.param(*c, id=_case_id(c)) for c in CASES]


@pytest.fixture(scope="module")
def good_artifact(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The text of a small valid simulate artifact (GD: a fraction of a second)."""
    path = tmp_path_factory.mktemp("good") / "good.json"
    args = ["simulate", "--mode", "gd", "--eta", "0.05", "--d", "4", "--t-max", "1", "--out", str(path)]
    args += ["--cache-dir", str(path.parent / "runs")]  # not the working directory's runs/, shared by every test
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return path.read_text()


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, good_artifact: str) -> Path:
    """A working directory holding the files the cases refer to."""
    (tmp_path / "file.txt").write_text("a regular file\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "corrupt.json").write_text(good_artifact[: len(good_artifact) // 2])
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "list.json").write_text("[1, 2, 3]\n")
    (tmp_path / "good.json").write_text(good_artifact)
    (tmp_path / "unknown.toml").write_text("c0 = 0.1\nseedz = [0, 1]\n")
    (tmp_path / "broken.toml").write_text("c0 = [\n")
    (tmp_path / "output.toml").write_text('out = "run.json"\n')
    (tmp_path / "table.toml").write_text("d = { value = 16 }\n")
    (tmp_path / "clash.toml").write_text("deltas = [1.0, 2.0]\nm = 3\n")
    (tmp_path / "range.toml").write_text("rtol = 1e-20\n")
    os.mkfifo(tmp_path / "pipe")  # a special file in the sandbox (never /dev/null: a regression would replace it)
    os.mkfifo(tmp_path / "pipe.png")

    def variant(name: str, edit) -> None:
        artifact = json.loads(good_artifact)
        edit(artifact)
        (tmp_path / name).write_text(json.dumps(artifact))

    variant("newer.json", lambda a: a.update(schema="gaugecli.simulate/2"))
    variant("older.json", lambda a: a.update(schema="gaugecli.simulate/0"))
    variant("alien.json", lambda a: a.update(schema="gaugecli.alien/1"))
    variant("badname.json", lambda a: a.update(schema="simulate-v1"))
    variant("noowner.json", lambda a: a["result"].pop("owner"))
    variant("badowner.json", lambda a: a["result"].update(owner="zero"))
    variant("edited-config.json", lambda a: a["config"]["model"].update(c0=0.2))
    variant("edited-result.json", lambda a: a["result"].update(t_spec=0.5))
    (tmp_path / "nan.json").write_text(good_artifact.replace('"imbalance_drift": ', '"imbalance_drift": NaN, "x": ', 1))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and every folder (``None``) under ``root``."""
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None for p in root.rglob("*")}


@pytest.mark.parametrize(("args", "code", "needles"), PARAMS)
def test_bad_input_is_one_line_and_leaves_no_file(sandbox: Path, args: list[str], code: int, needles: list[str]):
    before = _snapshot(sandbox)
    result = CliRunner().invoke(app, args)
    output = result.output
    assert "Traceback" not in output
    assert result.exit_code == code, f"exit {result.exit_code}, output {output!r}, exception {result.exception!r}"
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines, "no message at all"
    if args[0] == "validate" and code == RUNTIME:
        assert all(line.startswith(("INVALID", "Error:", "valid ")) for line in lines), lines
        assert any(line.startswith("INVALID") for line in lines), lines
    else:
        assert len(lines) == 1, lines
        assert lines[0].startswith("Error:"), lines
    for needle in needles:
        assert needle.casefold() in output.casefold(), f"{needle!r} not in {output!r}"
    assert _snapshot(sandbox) == before, "a file or folder was created or changed"


def test_catalogue_covers_every_subcommand() -> None:
    commands = {c.values[0][0] if hasattr(c, "values") else c[0][0] for c in CASES}
    from gaugecli.cli.app import COMMANDS

    assert commands == set(COMMANDS)
    assert len(CASES) >= 30
