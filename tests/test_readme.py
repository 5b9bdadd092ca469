"""README.md is the front page, here and on the package index: short, every link absolute (the index
shows the README away from the repository, where a relative link is dead) and resolving to a file of
the repository or a page of the documentation site, a thumbnail for every figure linking its gallery
section, rendered as the index renders it (readme_renderer), and no number a reader sees that is not
one of the figures' printed readings (gaugecli.plots.readings) — the rest of what it held lives on
the documentation site."""

from __future__ import annotations

import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_gallery import NUMBER, _decimal, _prose

from gaugecli.plots import FIGURES
from gaugecli.plots.readings import declared, resolve

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# a link as Markdown or HTML writes it: ](target), href="target", src="target"
LINK = re.compile(r"\]\(([^)\s]+)\)|(?:href|src)=\"([^\"]+)\"")
# The project's addresses, written once in pyproject.toml's [project.urls]
URLS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
SITE = URLS["Documentation"]
SOURCE = URLS["Source"]
# the repository's files as served raw (what an <img> on the package index can show)
RAW = SOURCE.replace("https://github.com/", "https://raw.githubusercontent.com/") + "/main/"


def site_url(page: str, anchor: str = "") -> str:
    """The documentation site's address of ``docs/<page>`` (mkdocs' directory URLs: ``cli.md`` → ``cli/``)."""
    stem = page.removesuffix(".md")
    path = "" if stem == "index" else stem.removesuffix("/index") + "/"
    return SITE + path + (f"#{anchor}" if anchor else "")


def repository_file(url: str) -> tuple[Path, str] | None:
    """The file of this checkout an absolute link shows and its anchor: a page of the site is its
    docs/*.md (ARCHITECTURE.md for the architecture page, which includes it), a raw or blob address its
    file; ``None`` for the repository's own pages (its front page, its issues)."""
    address, _, anchor = url.partition("#")
    if address.startswith(SITE):
        stem = address.removeprefix(SITE).strip("/") or "index"
        for candidate in (ROOT / "docs" / f"{stem}.md", ROOT / "docs" / stem / "index.md"):
            if candidate.is_file():
                return (ROOT / "ARCHITECTURE.md" if stem == "architecture" else candidate), anchor
        return ROOT / "docs" / f"{stem}.md", anchor
    if address.startswith(RAW):
        return ROOT / address.removeprefix(RAW), anchor
    if address.startswith(SOURCE + "/blob/main/"):
        return ROOT / address.removeprefix(SOURCE + "/blob/main/"), anchor
    if address in (SOURCE, URLS["Issues"]):
        return None
    raise AssertionError(f"README.md links {url}: neither the site, the repository nor its issues")


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
        assert f'<a href="{site_url("gallery.md", name)}"><img src="{RAW}figures/{name}.png"' in readme, name
        if (ROOT / "figures" / f"{name}.png").is_file():  # a figure not yet rendered has no section yet
            assert name in gallery, f"docs/gallery.md has no section {name}"


def _nav() -> set[str]:
    """The pages of the site's navigation (mkdocs.yml): the pages the site builds and a link may name."""
    return set(re.findall(r":\s+\"?([\w/.-]+\.md)\"?\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M))


def test_every_link_of_the_readme_is_absolute_and_resolves() -> None:
    """Each link is an https address; each names a page of the site's nav or a file of the repository
    that exists, and an anchor names a heading (figures not yet rendered by `make figures` excepted)."""
    pending = {ROOT / "figures" / f"{name}.png" for name in FIGURES if not (ROOT / "figures" / f"{name}.png").is_file()}
    targets = {a or b for a, b in LINK.findall(_readme())}
    relative = sorted(t for t in targets if not t.startswith("https://"))
    assert not relative, f"README.md has links that are dead on the package index: {relative}"
    nav = _nav()
    for target in sorted(targets):
        found = repository_file(target)
        if found is None or found[0] in pending:
            continue
        path, anchor = found
        assert path.is_file(), f"README.md links {target}: no such file {path.relative_to(ROOT)}"
        if target.startswith(SITE):
            page = (
                path.relative_to(ROOT / "docs").as_posix() if path.is_relative_to(ROOT / "docs") else "architecture.md"
            )
            assert page in nav, f"README.md links {target}: {page} is not in mkdocs.yml's nav"
        if anchor and not path.name == "gallery.md":  # the gallery's sections: the test above
            assert anchor in _anchors(path), f"README.md links {target}: no such heading"


class _Links(HTMLParser):
    """The ``href``s and ``src``s of an HTML fragment, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is not None and (name, tag) in {("href", "a"), ("src", "img")}:
                (self.hrefs if name == "href" else self.images).append(value)


def test_the_readme_renders_on_the_package_index_with_its_images() -> None:
    """README.md through readme_renderer's Markdown renderer (the package index's, with its HTML
    sanitizer): it renders, every figure's thumbnail survives as an image with an absolute address, and
    no link or image of the rendered page is relative."""
    markdown = pytest.importorskip("readme_renderer.markdown")  # the test extra: readme-renderer[md]
    html = markdown.render(_readme())
    assert html, "readme_renderer could not render README.md"
    links = _Links()
    links.feed(html)
    assert {f"{RAW}figures/{name}.png" for name in FIGURES} <= set(links.images)
    assert {site_url("gallery.md", name) for name in FIGURES} <= set(links.hrefs)
    # the renderer's own permalinks to the headings (#user-content-…) stay on the page
    relative = [u for u in links.hrefs + links.images if not u.startswith(("https://", "#user-content-"))]
    assert not relative, f"relative addresses in the rendered README: {relative}"
    assert site_url("install.md") in links.hrefs and URLS["Issues"] in links.hrefs


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
