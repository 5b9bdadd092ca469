"""``gaugecli numbers``: each macro's value is its sidecar's at the printed digits, with the sidecar's
provenance; unknown figures and missing sidecars are one-line refusals (exit 2). And ``gaugecli
export`` of a figure's sidecar: its numbers as long-form rows (path, index, value)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gaugecli.cli import app
from gaugecli.plots import FIGURES
from gaugecli.plots.readings import declared, half_unit, lookup, parse

ROOT = Path(__file__).resolve().parents[1]
FIGURES_DIR = ROOT / "figures"
COMMITTED = [f for f in FIGURES if declared(f) and (FIGURES_DIR / f"{f}.json").is_file()]
EPS = 2.220446049250313e-16
MACRO = re.compile(r"^\\newcommand\{\\(gauge[A-Za-z]+)\}\{(.+?)\}  % (/.*)$")  # a pointer may hold spaces


def _run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert "Traceback" not in result.output
    assert result.exit_code == code, f"exit {result.exit_code}: {result.output!r} {result.exception!r}"
    return result.output


def _sidecar(figure: str) -> dict:
    return json.loads((FIGURES_DIR / f"{figure}.json").read_text(encoding="utf-8"))


def _from_tex(body: str) -> str:
    r"""``\ensuremath{3.95\times 10^{-14}}`` → ``3.95e-14``; ``79\%`` → ``79%``."""
    match = re.fullmatch(r"\\ensuremath\{(.+)\\times 10\^\{(-?\d+)\}\}", body)
    return f"{match[1]}e{match[2]}" if match else body.replace(r"\%", "%")


def test_fig3_prints_its_macros_the_ratio_slope_among_them() -> None:
    """The issue's example: ``\\gaugeFigThreeRatioSlope`` is the least-squares slope of fig3's sidecar,
    at four decimals (basis: correct rounding, half a unit in the fourth place)."""
    out = _run("numbers", "fig3", "--format", "tex", "--figures-dir", str(FIGURES_DIR))
    found = {m[1]: m for m in map(MACRO.match, out.splitlines()[1:]) if m}
    assert set(found) == {f"gaugeFigThree{r.name}" for r in declared("fig3")}
    slope = found["gaugeFigThreeRatioSlope"]
    assert slope[3] == "/result/panels/key/fit_slope/ratio"
    value = _sidecar("fig3")["result"]["panels"]["b"]["fit"]["slope"]  # the slope as panel (b) draws it
    assert re.fullmatch(r"\d\.\d{4}", slope[2]) and abs(float(slope[2]) - value) <= 5e-5 + 4 * EPS * value


@pytest.mark.parametrize("figure", COMMITTED)
def test_each_macro_is_its_sidecar_value_at_its_printed_digits(figure: str) -> None:
    """Basis: the printed text is the sidecar value correctly rounded, so they differ by at most half a
    unit in the last printed place (plus 4ε·|x| for the binary representation of both)."""
    out = _run("numbers", figure, "--format", "tex", "--figures-dir", str(FIGURES_DIR))
    sidecar = _sidecar(figure)
    lines = out.splitlines()
    assert (
        lines[0]
        == f"% {figure}: config {sidecar['config_hash'][:12]}, commit {sidecar['provenance']['git_commit'][:12]}"
    )
    macros = [MACRO.match(line) for line in lines[1:]]
    assert all(macros) and len(macros) == len(declared(figure))
    for match in macros:
        assert match is not None
        text, pointer = _from_tex(match[2]), match[3]
        value = lookup(sidecar, pointer.removeprefix("/result/"))
        assert abs(parse(text) - value) <= half_unit(text) + 4 * EPS * abs(value), (match[1], text, value)


def test_json_and_markdown_carry_value_path_config_hash_and_commit() -> None:
    figure = COMMITTED[0]
    sidecar = _sidecar(figure)
    rows = json.loads(_run("numbers", figure, "--format", "json", "--figures-dir", str(FIGURES_DIR)))
    assert [r["name"] for r in rows] == [r.name for r in declared(figure)]
    for row in rows:
        assert row["value"] == lookup(sidecar, row["path"].removeprefix("/result/"))  # the stored double itself
        assert row["config_hash"] == sidecar["config_hash"]
        assert row["git_commit"] == sidecar["provenance"]["git_commit"]
        assert row["macro"].startswith("\\gauge") and row["text"] and row["meaning"]
    md = _run("numbers", figure, "--format", "md", "--figures-dir", str(FIGURES_DIR)).splitlines()
    assert md[0].startswith("| figure | macro | printed |") and len(md) == 2 + len(rows)
    assert all(line.count(" | ") == 7 for line in md[2:])  # a `|` in a meaning is escaped


def test_without_figures_every_declared_committed_figure_is_printed() -> None:
    out = _run("numbers", "--figures-dir", str(FIGURES_DIR))
    assert [line.split(":")[0].lstrip("% ") for line in out.splitlines() if line.startswith("%")] == COMMITTED


def test_an_unknown_figure_is_refused_naming_the_valid_ones(tmp_path: Path) -> None:
    out = _run("numbers", "fig99", "--figures-dir", str(FIGURES_DIR), code=2)
    assert len(out.strip().splitlines()) == 1
    assert "fig99" in out and all(f in out for f in FIGURES)


def test_a_missing_sidecar_or_folder_is_a_one_line_refusal(tmp_path: Path) -> None:
    out = _run("numbers", "fig4", "--figures-dir", str(tmp_path), code=2)
    assert "fig4.json" in out and "gaugecli plot fig4" in out and len(out.strip().splitlines()) == 1
    out = _run("numbers", "--figures-dir", str(tmp_path / "nowhere"), code=2)
    assert "--figures-dir" in out and len(out.strip().splitlines()) == 1


def test_a_sidecar_missing_a_reading_names_the_path(tmp_path: Path) -> None:
    from gaugecli.plots.render import write_sidecar

    sidecar = _sidecar("fig4")
    del sidecar["result"]["panels"]["a"]["t_spec"]
    # rewritten with its own hashes, as a render that no longer records the reading would write it
    write_sidecar(tmp_path / "fig4.json", "fig4", sidecar["config"], {}, sidecar["result"]["panels"])
    out = _run("numbers", "fig4", "--figures-dir", str(tmp_path), code=2)
    assert "t_spec" in out and len(out.strip().splitlines()) == 1


@pytest.mark.parametrize("edit", ["value", "drop-hash", "not-an-object"])
def test_a_hand_edited_sidecar_is_refused_not_quoted(tmp_path: Path, edit: str) -> None:
    """Its hashes are checked as validate, export and load check them: an edited number is never printed."""
    sidecar: object = _sidecar("fig4")
    assert isinstance(sidecar, dict)
    if edit == "value":
        sidecar["result"]["panels"]["a"]["t_spec"] = 123.0
    elif edit == "drop-hash":
        sidecar["result"]["panels"]["a"]["t_spec"] = 123.0
        del sidecar["result_hash"]
    else:
        sidecar = []
    (tmp_path / "fig4.json").write_text(json.dumps(sidecar), encoding="utf-8")
    for fmt in ("tex", "json", "md"):
        out = _run("numbers", "fig4", "--format", fmt, "--figures-dir", str(tmp_path), code=2)
        assert "--figures-dir" in out and "fig4.json" in out and len(out.strip().splitlines()) == 1
        assert "123" not in out


def test_a_figure_named_twice_is_printed_once() -> None:
    """Each macro defined once: LaTeX refuses a second \\newcommand of the same name."""
    once = _run("numbers", "fig4", "--figures-dir", str(FIGURES_DIR))
    assert _run("numbers", "fig4", "fig3", "fig4", "--figures-dir", str(FIGURES_DIR)).startswith(once)
    macros = [
        m[1]
        for line in _run("numbers", "fig4", "fig4", "--figures-dir", str(FIGURES_DIR)).splitlines()
        if (m := MACRO.match(line))
    ]
    assert macros and len(macros) == len(set(macros)) == len(declared("fig4"))


# -- export of a figure's sidecar -------------------------------------------------------------------


def _rewritten(tmp_path: Path) -> str:
    """fig4's committed panels in a sidecar written by this version (with the result_hash that
    ``load`` checks; the committed files gain theirs when they are next regenerated)."""
    from gaugecli.plots.render import write_sidecar

    panels = _sidecar("fig4")["result"]["panels"]
    # a masked point (JSON null, as a run that stops early leaves), whether or not this render has one
    panels["b"]["nonowner"]["y"][-1] = None
    write_sidecar(tmp_path / "fig4.json", "fig4", {"figure": "fig4", "quick": False}, {}, panels)
    return "fig4"


def test_export_writes_a_figure_sidecar_as_long_form_rows(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    figure = _rewritten(tmp_path)
    out = _run("export", str(tmp_path / f"{figure}.json"), "--format", "csv")
    assert out.startswith(f"wrote {tmp_path / figure}.csv")
    table = pd.read_csv(tmp_path / f"{figure}.csv")
    assert list(table.columns) == ["path", "index", "value"]
    sidecar = json.loads((tmp_path / f"{figure}.json").read_text(encoding="utf-8"))["result"]
    # every reading is a row (a scalar: no index; a list element: its position), at full precision:
    # CSV holds each double's shortest repr, so reading back changes it by at most 2ε relative
    for reading in declared(figure):
        path, _, last = reading.path.rpartition("/")
        value = lookup({"result": sidecar}, reading.path)
        rows = table[(table["path"] == reading.path) & table["index"].isna()]
        if rows.empty:
            rows = table[(table["path"] == path) & (table["index"] == int(last))]
        assert len(rows) == 1, reading.path
        assert abs(float(rows["value"].iloc[0]) - value) <= 2 * EPS * abs(value)
    # a series keeps its length and order, masked values as NaN
    series = table[table["path"] == "panels/a/owner/y"]
    expected = np.array(sidecar["panels"]["a"]["owner"]["y"], dtype=float)
    assert list(series["index"]) == list(range(len(expected)))
    np.testing.assert_allclose(series["value"].to_numpy(float), expected, rtol=2 * EPS, atol=0)
    masked = table[table["path"] == "panels/b/nonowner/y"]["value"]
    assert masked.isna().any() and len(masked) == len(sidecar["panels"]["b"]["nonowner"]["y"])


def test_export_to_netcdf_refuses_a_figure_sidecar_in_one_line(tmp_path: Path) -> None:
    figure = _rewritten(tmp_path)
    out = _run("export", str(tmp_path / f"{figure}.json"), "--format", "netcdf", code=2)
    assert "no labelled view" in out and "--format csv or parquet" in out and len(out.strip().splitlines()) == 1
    assert not (tmp_path / f"{figure}.nc").exists()


def test_every_committed_figure_prints_its_numbers() -> None:
    """Every figure declares READINGS now: ``numbers`` with no figure prints one macro per reading of each."""
    out = _run("numbers", "--format", "tex", "--figures-dir", str(FIGURES_DIR))
    committed = [f for f in FIGURES if (FIGURES_DIR / f"{f}.json").is_file()]
    assert [line.split(":")[0][2:] for line in out.splitlines() if line.startswith("% ")] == committed
    assert sum(bool(MACRO.match(line)) for line in out.splitlines()) == sum(len(declared(f)) for f in committed)


def test_a_figure_without_readings_prints_a_note_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every figure declares readings now; a new one that does not yet gets a note on stderr, not a refusal."""
    import gaugecli.plots.readings as readings

    monkeypatch.setattr(readings, "declared", lambda figure: ())
    result = CliRunner().invoke(app, ["numbers", "fig4", "--figures-dir", str(FIGURES_DIR)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "Note: fig4 declares no quoted numbers (READINGS in gaugecli/plots/fig4.py)"
