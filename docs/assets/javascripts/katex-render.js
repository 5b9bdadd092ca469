// Typeset the math that pymdownx.arithmatex marked (`\( … \)` and `\[ … \]` inside elements of class
// "arithmatex") with the KaTeX files that the build copied from the npm registry
// (tools/mkdocs_hooks.py): no network at view time. Runs on every page Material shows.
document$.subscribe(({ body }) => {
  body.querySelectorAll(".arithmatex").forEach((element) => {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false, // invalid TeX shows as .katex-error, an unknown command in errorColor:
      errorColor: "#cc0000", // tools/check_site.py fails on either
    });
  });
});
