"""Formulas on HTML pages become TeX text (``html_math``): what each MathML element writes, which source of TeX
wins, and that a formula never costs the sentence around it (the fixture ``math_renderers`` shows whole pages)."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

import qatbe
from qatbe.segmentation.html_math import has_math, mathml_tex, replace_math


def tex(mathml: str) -> str:
    node = LexborHTMLParser(f"<p><math>{mathml}</math></p>").css_first("math")
    assert node is not None
    return mathml_tex(node)


@pytest.mark.parametrize(("mathml", "want"), [
    ("<mi>x</mi><mo>+</mo><mn>10</mn>", "x + 10"),
    ("<msup><mi>x</mi><mn>2</mn></msup>", "x^2"),
    ("<msup><mi>x</mi><mn>10</mn></msup>", "x^{10}"),
    ("<msub><mi>a</mi><mi>k</mi></msub>", "a_k"),
    ("<msubsup><mo>&#x222B;</mo><mn>0</mn><mn>1</mn></msubsup>", "∫_0^1"),
    ("<munderover><mo>&#x2211;</mo><mrow><mi>k</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover>", "∑_{k = 1}^n"),
    ("<mfrac><mn>1</mn><mi>n</mi></mfrac>", "\\frac{1}{n}"),
    ("<msqrt><mi>x</mi><mo>+</mo><mn>1</mn></msqrt>", "\\sqrt{x + 1}"),
    ("<mroot><mi>x</mi><mn>3</mn></mroot>", "\\sqrt[3]{x}"),
    ("<mfenced open='[' close=']'><mi>a</mi><mi>b</mi></mfenced>", "[a, b]"),
    (("<mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd>"
      "</mtr></mtable>"), "\\begin{matrix} 1 & 0 \\\\ 0 & 1 \\end{matrix}"),
    ("<mtext>if and only if</mtext>", "\\text{if and only if}"),
    ("<mi>a</mi><mphantom><mi>b</mi></mphantom><mspace width='1em'/><mi>c</mi>", "a c"),
    ("<semantics><mi>y</mi><annotation encoding='text/plain'>why</annotation></semantics>", "y"),
])
def test_presentation_mathml_is_written_as_tex(mathml: str, want: str) -> None:
    assert " ".join(tex(mathml).split()) == want


def test_the_tex_a_page_keeps_beats_the_mathml() -> None:
    """KaTeX and MediaWiki keep the TeX they drew from; it says more than the MathML written out (and MediaWiki's
    ``{\\displaystyle ...}`` wrapper only says how to draw it)."""
    page = ('<p>A <math alttext="{\\displaystyle \\alpha}"><mi>&#x3B1;</mi></math> and <math><semantics><mi>b</mi>'
            '<annotation encoding="application/x-tex">\\beta</annotation></semantics></math> and '
            '<math alttext="  "><mi>c</mi></math>.</p>')
    tree = LexborHTMLParser(page)
    assert replace_math(tree) == 3
    assert tree.css_first("p").text() == "A $\\alpha$ and $\\beta$ and $c$."


def test_a_page_without_math_is_left_alone() -> None:
    """``has_math`` is the byte test every page pays; it may say yes to a tag that only starts like ``<math``,
    and then the tree search finds nothing to replace."""
    assert not has_math(b"<p>No formulas, only <b>bold</b> and <svg><text>x</text></svg>.</p>")
    assert has_math(b"<MATH><MI>x</MI></MATH>") and has_math(b"a <math>")
    page = "<p>No formulas here, only <mathematics>words</mathematics> and <b>bold</b>.</p>"
    assert has_math(page.encode())
    tree = LexborHTMLParser(page)
    before = tree.html
    assert replace_math(tree) == 0 and tree.html == before


def test_a_sentence_keeps_its_formula_and_the_answer_can_be_found() -> None:
    page = ("<article><h1>Roots</h1><p>When <math><mi>a</mi><mo>&#x2260;</mo><mn>0</mn></math>, the roots of "
            "<math><mi>a</mi><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mi>b</mi><mi>x</mi><mo>+</mo><mi>c</mi>"
            "</math> are given by the quadratic formula.</p><p>Other text about gardens and weather.</p></article>")
    r = qatbe.extract(page, "quadratic formula roots", budget=40)
    assert "When $a ≠ 0$, the roots of $a x^2 + b x + c$ are given by the quadratic formula." in r.text


def test_a_deep_or_long_formula_is_bounded() -> None:
    """Nesting past the written-out depth is read as plain text (no recursion error); a formula longer than the
    cap is cut with an ellipsis (a whole table drawn as one formula must not become one enormous line)."""
    deep = "<mrow>" * 3000 + "<mi>z</mi>" + "</mrow>" * 3000
    r = qatbe.extract(f"<p>Deep <math>{deep}</math> end.</p>", None, format="html")
    assert "Deep $z$ end." in r.text
    long = "<mi>x</mi><mo>+</mo>" * 2000 + "<mn>1</mn>"
    text = qatbe.extract(f"<p>Long <math>{long}</math> end.</p>", None, budget=20000, format="html").text
    formula = text[text.index("$") + 1:text.rindex("$")]
    assert formula.endswith(" …") and len(formula) <= 2002


def test_same_page_same_text() -> None:
    page = '<p>x <math><mfrac><mn>1</mn><mn>2</mn></mfrac></math> y</p>'
    assert qatbe.extract(page, None).text == qatbe.extract(page.encode(), None).text == "x $\\frac{1}{2}$ y"
