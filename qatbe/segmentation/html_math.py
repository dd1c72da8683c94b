"""Mathematics as text: each formula on an HTML page becomes one line of TeX-like text, before the walk.

Why: the walk skips ``<math>`` like ``<svg>`` (its markup is no prose), and the renderers that draw formulas hide
the text they draw from (KaTeX marks its visual copy ``aria-hidden``; MediaWiki hides its MathML and shows an
image). So "When <math>a ≠ 0</math>, there are two solutions to ..." came out as "When , there are two solutions
to", and a question about a formula had nothing to find. Here each formula is replaced in the tree by a text node:
``$...$`` inline and ``$$...$$`` for display math, which markdown readers and language models read as TeX.

Where the TeX comes from, in order: the TeX the page keeps beside the formula (MathML's
``<annotation encoding="application/x-tex">``, KaTeX and MediaWiki write it; MediaWiki also puts it in the
``alttext`` of its ``<math>`` and the ``alt`` of its fallback image), else the MathML itself, written out as TeX
(``mathml_tex``). Why hand-written: no maintained package on PyPI converts MathML to TeX without an XSLT engine, and
the presentation elements a page uses are few (tokens, scripts, fractions, roots, rows, tables).

The renderers handled as wholes (the container is replaced, so neither its visual copy nor its hidden source is
read again): MediaWiki (``span.mwe-math-element``), MathJax 3 (``mjx-container``, whose ``mjx-assistive-mml``
holds the MathML) and KaTeX (``span.katex``); any other ``<math>`` is replaced by itself. Pages without ``<math``
in their bytes pay one compiled byte scan.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .._backend import kernel

# Presentation MathML tokens whose text is the formula's text.
_TOKENS = frozenset({"mi", "mn", "mo", "mtext", "ms", "mglyph"})
# Elements that only group their children (their children are read in order).
_GROUPS = frozenset({"math", "mrow", "mstyle", "mpadded", "merror", "menclose", "maction", "mlabeledtr", "none"})
# Deeper than this, a formula is read as its plain text: no real formula nests so deep, and the walk below is
# recursive.
_MAX_DEPTH = 60
# A formula longer than this (characters of TeX) is cut with an ellipsis: a page that draws a whole table as one
# MathML formula must not become one line of ten thousand characters.
_MAX_CHARS = 2000
# Script elements: what stands before each script after the base (over- and underscripts as super- and subscripts:
# the limits of a sum read the same either way).
_SCRIPTS = {"msup": ("^",), "msub": ("_",), "msubsup": ("_", "^"), "mover": ("^",), "munder": ("_",),
            "munderover": ("_", "^")}
_DISPLAY_WRAP = re.compile(r"^\{\\(?:display|text)style\s*(.*)\}$", re.DOTALL)
_SPACES = re.compile(r"\s+")


def has_math(data: bytes) -> bool:
    """Whether the page's bytes may hold a formula (a ``<math`` tag, in any case): the one test every page pays
    before any tree search, so it is the compiled sixteen-bytes-a-step scan."""
    return bool(kernel.contains_ci(data, b"<math"))


def replace_math(tree: LexborHTMLParser) -> int:
    """Replace every formula of ``tree`` by its TeX as text (see the module docstring); how many were replaced."""
    count = 0
    for node in tree.css("span.mwe-math-element"):
        _replace(node, _mediawiki(node), node.css_first("img.mwe-math-fallback-image-display") is not None)
        count += 1
    for node in tree.css("mjx-container"):
        math = node.css_first("math")
        if math is not None:
            _replace(node, _tex_of(math), node.attributes.get("display") == "true")
            count += 1
    for node in tree.css("span.katex"):
        math = node.css_first("math")
        if math is not None:
            parent = node.parent
            display = parent is not None and "katex-display" in (parent.attributes.get("class") or "")
            _replace(node, _tex_of(math), display)
            count += 1
    for node in tree.css("math"):
        _replace(node, _tex_of(node), node.attributes.get("display") == "block")
        count += 1
    return count


def _replace(node: LexborNode, tex: str, display: bool) -> None:
    """``node`` replaced by ``tex`` as one text node (gone, when the formula writes out as nothing)."""
    tex = _SPACES.sub(" ", tex).strip()
    if len(tex) > _MAX_CHARS:
        tex = tex[:_MAX_CHARS].rstrip() + " …"
    if not tex:
        node.decompose()
    else:
        node.replace_with(f" $${tex}$$ " if display else f"${tex}$")


def _mediawiki(node: LexborNode) -> str:
    """MediaWiki's formula: its TeX annotation, the math's ``alttext``, the fallback image's ``alt``, or the
    MathML written out."""
    math = node.css_first("math")
    if math is not None:
        return _tex_of(math)
    image = node.css_first("img[alt]")
    return _unwrap(image.attributes.get("alt") or "") if image is not None else ""


def _tex_of(math: LexborNode) -> str:
    """A ``<math>`` element's TeX: its annotation, its ``alttext``, or its presentation MathML written out."""
    annotation = math.css_first('annotation[encoding="application/x-tex"]')
    if annotation is not None:
        tex = annotation.text(deep=True)
        if tex.strip():
            return _unwrap(tex)
    alt = math.attributes.get("alttext")
    if alt and alt.strip():
        return _unwrap(alt)
    return mathml_tex(math)


def _unwrap(tex: str) -> str:
    """TeX without MediaWiki's ``{\\displaystyle ...}`` wrapper, which says how to draw it, not what it says."""
    tex = tex.strip()
    found = _DISPLAY_WRAP.match(tex)
    return found.group(1).strip() if found is not None else tex


def mathml_tex(node: LexborNode, depth: int = 0) -> str:
    """Presentation MathML written out as TeX: tokens as their text, scripts as ``^``/``_``, fractions as
    ``\\frac``, roots as ``\\sqrt``, tables as rows of ``&``-separated cells; unknown elements as their children."""
    tag = node.tag or ""
    if depth > _MAX_DEPTH:
        return node.text(deep=True)
    if tag in _TOKENS:
        text = node.text(deep=True).strip()
        return f"\\text{{{text}}}" if tag == "mtext" and " " in text else text
    if tag == "mspace":
        return " "
    if tag in ("mphantom", "annotation", "annotation-xml"):
        return ""
    kids = [c for c in node.iter() if c.tag != "-comment"]
    parts = [mathml_tex(c, depth + 1) for c in kids]
    if tag == "semantics":
        return parts[0] if parts else ""
    marks = _SCRIPTS.get(tag)
    if marks is not None and len(parts) == len(marks) + 1:
        return parts[0] + "".join(mark + _group(part) for mark, part in zip(marks, parts[1:]))
    if tag == "mfrac" and len(parts) == 2:
        return f"\\frac{{{parts[0]}}}{{{parts[1]}}}"
    if tag == "msqrt":
        return f"\\sqrt{{{' '.join(p for p in parts if p)}}}"
    if tag == "mroot" and len(parts) == 2:
        return f"\\sqrt[{parts[1]}]{{{parts[0]}}}"
    if tag == "mfenced":
        opening = node.attributes.get("open") or "("
        closing = node.attributes.get("close") or ")"
        separator = (node.attributes.get("separators") or ",")[:1] or ","
        return f"{opening}{f'{separator} '.join(parts)}{closing}"
    if tag == "mtable":
        return "\\begin{matrix} " + " \\\\ ".join(p for p in parts if p) + " \\end{matrix}"
    if tag in ("mtr", "mlabeledtr"):
        return " & ".join(parts)
    return " ".join(p for p in parts if p)


def _group(tex: str) -> str:
    """A script's TeX, in braces unless it is one character (``x^2``, ``x^{10}``)."""
    tex = tex.strip()
    return tex if len(tex) == 1 else f"{{{tex}}}"
