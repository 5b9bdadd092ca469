"""The browser check of the built documentation site (``make check-site``, CI).

Serves the built site (``build/site`` by default) on 127.0.0.1, and

1. over **every** HTML page, statically: each local ``href``/``src`` resolves to a file of the site,
   and each ``#fragment`` to an ``id`` on its target page (``mkdocs build --strict`` checks the
   Markdown's links; this checks what was built, the theme's and the API reference's included);
2. in **headless Chromium** (Debian's ``chromium`` and ``chromium-driver``, driven by selenium), opens
   the index, theory, tutorial, API overview and reference, gallery and command-line pages, and
   checks that

   * the math is typeset: every ``.arithmatex`` element holds KaTeX output, none is a
     ``.katex-error`` or an unknown command drawn in KaTeX's error colour, and no raw ``$$``, ``$…$``, ``\\(`` or ``\\[`` is left in the visible text;
   * every image loaded;
   * the browser's console has no error (a missing file, a script error);
   * nothing was fetched from another host (the site works offline).

Exit status 0 when every check holds, 1 with one line per failure otherwise.
Usage: ``python tools/check_site.py [SITE_DIR] [--chromium PATH] [--chromedriver PATH]``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    "",
    "theory/",
    "tutorial/",
    "api/",
    "reference/",
    "gallery/",
    "cli/",
    "getting-started/",
    "install/",
    "changelog/",
]
"""Pages opened in the browser (the brief's index, theory and API pages, and those with math or images)."""
MATH_PAGES = {"", "theory/", "tutorial/"}
"""Pages that must contain typeset math."""

# visible text that is math the typesetter missed (outside code, KaTeX output and scripts)
_RAW_MATH = re.compile(r"\$\$|\\\(|\\\[|\$[^\s$][^$\n]*[^\s$\\]\$|\$[^\s$]\$")

_VISIBLE_TEXT_JS = r"""
const skip = "code, pre, script, style, .katex, .katex-display, kbd, samp, textarea";
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const parts = [];
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (!node.parentElement.closest(skip)) parts.push(node.nodeValue);
}
return parts.join(" ");
"""

_MATH_JS = r"""
const math = Array.from(document.querySelectorAll(".arithmatex"));
return {
  marked: math.length,
  untypeset: math.filter((el) => !el.querySelector(".katex")).map((el) => el.textContent.slice(0, 80)),
  // invalid TeX becomes .katex-error; an unknown command is drawn in KaTeX's error colour instead
  errors: Array.from(document.querySelectorAll('.katex-error, .katex-mathml mstyle[mathcolor="#cc0000"]'))
    .map((el) => el.textContent.slice(0, 80)),
  typeset: document.querySelectorAll(".katex").length,
};
"""

_IMAGES_JS = r"""
return Array.from(document.images).filter((img) => !(img.complete && img.naturalWidth > 0)).map((img) => img.src);
"""

_RESOURCES_JS = r"""
return performance.getEntriesByType("resource").map((entry) => entry.name);
"""


class _Links(HTMLParser):
    """The ``id``s of a page and the targets of its ``href``s and ``src``s."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("name"):
            self.ids.add(str(values["name"]))
        for attr in ("href", "src"):
            if values.get(attr) and not (tag == "link" and values.get("rel") in ("canonical",)):
                self.targets.append(str(values[attr]))


def _target_file(site: Path, page: Path, target: str) -> tuple[Path | None, str]:
    """The file a local link points to (``None`` for another host or scheme) and its fragment."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith(("mailto:", "javascript:", "data:")):
        return None, ""
    base = "/" + page.relative_to(site).as_posix()
    path = unquote(urlsplit(urljoin(base, parts.path)).path) if parts.path else base
    file = site / path.lstrip("/")
    if path.endswith("/") or file.is_dir():
        file = file / "index.html"
    return file, parts.fragment


def check_links(site: Path) -> list[str]:
    """Every local link of every built page resolves, fragments included."""
    parsed: dict[Path, _Links] = {}

    def links(page: Path) -> _Links:
        if page not in parsed:
            parser = _Links()
            parser.feed(page.read_text(encoding="utf-8"))
            parsed[page] = parser
        return parsed[page]

    failures = []
    pages = sorted(site.rglob("*.html"))
    for page in pages:
        for target in links(page).targets:
            file, fragment = _target_file(site, page, target)
            if file is None:
                continue
            where = page.relative_to(site)
            if not file.is_file():
                failures.append(f"{where}: broken link {target!r} (no {file.relative_to(site)})")
            elif fragment and file.suffix == ".html" and unquote(fragment) not in links(file).ids:
                failures.append(f"{where}: broken anchor {target!r} (no id {fragment!r} in {file.relative_to(site)})")
    if not pages:
        failures.append(f"{site}: no HTML page (build the site first: make docs-site)")
    return failures


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _driver(chromium: str, chromedriver: str) -> object:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
    ):
        options.add_argument(flag)
    # no network beyond this machine: a request to another host fails, and shows in the console
    options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))


def check_pages(base: str, chromium: str, chromedriver: str, timeout: float = 20.0) -> list[str]:
    """The browser checks of the module docstring on :data:`PAGES`."""
    failures = []
    driver = _driver(chromium, chromedriver)
    try:
        for page in PAGES:
            url = base + page
            name = page or "index"
            driver.get(url)  # type: ignore[attr-defined]
            deadline = time.monotonic() + timeout
            while True:  # KaTeX typesets after the page's scripts run
                math = driver.execute_script(_MATH_JS)  # type: ignore[attr-defined]
                ready = driver.execute_script("return document.readyState") == "complete"  # type: ignore[attr-defined]
                if (ready and not math["untypeset"]) or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            if math["untypeset"]:
                failures.append(
                    f"{name}: {len(math['untypeset'])} math elements not typeset, e.g. {math['untypeset'][0]!r}"
                )
            if math["errors"]:
                failures.append(f"{name}: KaTeX could not typeset {math['errors'][0]!r} ({len(math['errors'])} in all)")
            if page in MATH_PAGES and math["typeset"] == 0:
                failures.append(f"{name}: no typeset math on a page that has math")
            text = driver.execute_script(_VISIBLE_TEXT_JS)  # type: ignore[attr-defined]
            raw = _RAW_MATH.search(text)
            if raw:
                start = max(raw.start() - 30, 0)
                failures.append(f"{name}: raw math left in the text: …{text[start : raw.end() + 30]!r}…")
            broken = driver.execute_script(_IMAGES_JS)  # type: ignore[attr-defined]
            failures += [f"{name}: image did not load: {src}" for src in broken]
            outside = [r for r in driver.execute_script(_RESOURCES_JS) if not r.startswith(base)]  # type: ignore[attr-defined]
            failures += [f"{name}: fetched from another host: {r}" for r in outside]
            for entry in driver.get_log("browser"):  # type: ignore[attr-defined]
                if entry.get("level") == "SEVERE":
                    failures.append(f"{name}: console error: {entry.get('message', '')[:200]}")
            print(f"  {name}: {math['typeset']} formulas typeset, {len(broken)} broken images", flush=True)
    finally:
        driver.quit()  # type: ignore[attr-defined]
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "build" / "site"), type=Path)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = parser.parse_args(argv)
    site: Path = args.site.resolve()
    for tool in (args.chromium, args.chromedriver):
        if not Path(tool).exists():
            print(f"check_site: {tool} is missing: apt-get install -y chromium chromium-driver", file=sys.stderr)
            return 1
    started = time.monotonic()
    failures = check_links(site)
    print(f"check_site: links of {len(list(site.rglob('*.html')))} pages checked", flush=True)
    server, base = _serve(site)
    try:
        failures += check_pages(base, args.chromium, args.chromedriver)
    finally:
        server.shutdown()
    for failure in failures:
        print(f"check_site: {failure}", file=sys.stderr)
    verdict = f"{len(failures)} failures" if failures else "every check holds"
    print(f"check_site: {len(PAGES)} pages in Chromium, {verdict} ({time.monotonic() - started:.1f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
