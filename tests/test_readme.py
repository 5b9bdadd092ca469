"""README.md is the front page: short, every link resolving, a thumbnail for every figure linking its
gallery section, and no number a reader sees that is not one of the figures' printed readings
(gaugecli.plots.readings) — the rest of what it held lives on the documentation site."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_gallery import NUMBER, _decimal, _prose

from gaugecli.plots import FIGURES
from gaugecli.plots.readings import declared, resolve

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# a relative link as Markdown or HTML writes it: ](target), href="target", src="target"
LINK = re.compile(r"\]\(([^)\s]+)\)|(?:href|src)=\"([^\"]+)\"")


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _printed_readings() -> set[str]:
    """Every reading's printed text, of every figure that declares them and has a committed sidecar."""
    printed: set[str] = set()
    for name in FIGURES:
        path = ROOT / "figures" / f"{name}.json"
        if declared(name) and path.is_file():
            printed |= {q.text for q in resolve(name, json.loads(path.read_text(encoding="utf-8")))}
    return printed


def _typed(markdown: str, printed: set[str]) -> list[str]:
    """The decimal numbers (two significant digits or more) of the text outside code that are not printed readings."""
    return [t for t in NUMBER.findall(_prose(markdown)) if _decimal(t) and t.replace("−", "-") not in printed]


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub and the site's toc (pymdownx slugify, lower case) both write it."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"\s+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE)}


def test_every_decimal_number_in_the_readme_is_a_printed_reading() -> None:
    typed = _typed(_readme(), _printed_readings())
    assert not typed, f"README.md quotes numbers that are no figure's printed reading: {typed}"


def test_the_check_flags_a_typed_number_and_passes_a_printed_one() -> None:
    text = 'the ratio\'s slope 1.9934 and a gap of 0.4017 (`0.4023` in code) <td width="33%">, D = 4…1024'
    assert _typed(text, {"1.9934"}) == ["0.4017"]
    assert _typed(text, {"1.9934", "0.4017"}) == []


def test_the_readme_is_a_front_page() -> None:
    """At most ~1,500 words; the two set-up commands; a quick start of at most ten commands; the API in five lines."""
    readme = _readme()
    words = len(re.sub(r"<[^>]+>", " ", readme).split())
    assert words <= 1500, f"README.md has {words} words"
    sections = re.findall(r"^## (.+)$", readme, flags=re.MULTILINE)
    assert sections[:2] == ["Set-up: two commands", "Quick start"] and "Citation" in sections
    setup = readme.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    [commands] = re.findall(r"```bash\n(.*?)```", setup, flags=re.DOTALL)
    assert [line.split("#")[0].strip() for line in commands.splitlines()] == ["make figures", "make test"]
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```bash\n(.*?)```", quick, flags=re.DOTALL)
    lines = block.strip().splitlines()
    assert 1 <= len(lines) <= 10 and all(line.startswith("gaugecli ") and "#" in line for line in lines)
    api = readme.split("## Python API", 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"```python\n(.*?)```", api, flags=re.DOTALL)
    assert len(code.strip().splitlines()) <= 5


def test_every_command_the_readme_and_getting_started_show_exists() -> None:
    """The quick start and the tour it moved to (docs/getting-started.md) name real subcommands (docs/cli.md)."""
    known = set(re.findall(r"^## `gaugecli (\w+)`$", (ROOT / "docs" / "cli.md").read_text(encoding="utf-8"), re.M))
    for page in (README, ROOT / "docs" / "getting-started.md"):
        blocks = re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        used = {m for block in blocks for m in re.findall(r"^gaugecli (\w+)", block, flags=re.MULTILINE)}
        assert used and used <= known, f"{page.name}: unknown subcommands {sorted(used - known)}"


def test_a_thumbnail_per_figure_linking_its_gallery_section() -> None:
    readme = _readme()
    gallery = _anchors(ROOT / "docs" / "gallery.md")
    for name in FIGURES:
        assert f'<a href="docs/gallery.md#{name}"><img src="figures/{name}.png"' in readme, name
        if (ROOT / "figures" / f"{name}.png").is_file():  # a figure not yet rendered has no section yet
            assert name in gallery, f"docs/gallery.md has no section {name}"


def test_every_relative_link_of_the_readme_resolves() -> None:
    """Files exist and anchors name a heading (figures not yet rendered by `make figures` excepted)."""
    pending = {f"figures/{name}.png" for name in FIGURES if not (ROOT / "figures" / f"{name}.png").is_file()}
    targets = {a or b for a, b in LINK.findall(_readme())}
    local = {t for t in targets if not re.match(r"^[a-z]+:", t)}
    assert local
    for target in sorted(local):
        path, _, anchor = target.partition("#")
        if path in pending:
            continue
        assert (ROOT / path).is_file(), f"README.md links {target}: no such file"
        if anchor and not path.endswith("gallery.md"):  # the gallery's sections: the test above
            assert anchor in _anchors(ROOT / path), f"README.md links {target}: no such heading"


def test_the_readme_python_api_runs_and_its_time_is_the_reduced_equations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The five lines, executed as written (the cache in a scratch folder): the −16 neuron's T_spec is the
    reduced (c, θ) equations' — an independent route — and the artifact read back is the one select wrote."""
    pytest.importorskip("pandas")  # the frame extra, for .to_dataframe()
    from gaugecli.core.reduced.planar import reduced_specialization_time

    [code] = re.findall(r"```python\n(.*?)```", _readme().split("## Python API", 1)[1], flags=re.DOTALL)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    run, sel = namespace["run"], namespace["sel"]
    # rel 1e-8: the full flow at its default tolerances against the reduced equations (tests/test_reduced.py)
    assert run.t_spec == pytest.approx(reduced_specialization_time(-16.0, rtol=1e-13), rel=1e-8)  # type: ignore[attr-defined]
    assert (tmp_path / "runs" / "select" / f"{sel.config_hash}.json").is_file()  # type: ignore[attr-defined]
