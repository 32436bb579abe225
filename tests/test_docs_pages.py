"""What the generated pages of the site show, checked without building it: the builder of every
formulation shows the cvxpy statements (its own or its helpers'), a closed form shows its linear
algebra, the docstring's explicit program is kept, and the estimators name the formulations
whose pages link to them (issue 29)."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import pytest

import lssvm_cvx
from lssvm_cvx.formulations import FORMULATIONS

EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext"


@pytest.fixture(scope="module")
def docs():
    sys.path.insert(0, str(EXT))
    try:
        yield importlib.import_module("lssvm_docs")
    finally:
        sys.path.remove(str(EXT))


def _builder(docs, cls):
    return docs._code_blocks(docs._defining(cls, "_build")._build, cls, lambda s: "cp." in s, "")


@pytest.mark.parametrize("name", sorted(FORMULATIONS))
def test_every_builder_shows_cvxpy_statements(docs, name):
    """The page's builder block creates variables and states an objective or constraints
    (in ``_build`` or in the package helpers it calls), never only a call to a wrapper."""
    text = _builder(docs, FORMULATIONS[name])
    assert "cp.Variable" in text, name
    assert any(k in text for k in ("cp.Minimize", "cp.Maximize", "==", "<=", ">=")), name


def test_the_epsilon_constraint_builders_show_their_program(docs):
    """The issue's case: ``_build`` is ``self._exprs()`` plus ``modified_epsilon_constraint``;
    the page shows both sources, where ``c``, ``e`` and the slack are created."""
    cls = FORMULATIONS["pareto_krr_alpha"]
    assert "cp." not in docs._code(docs._defining(cls, "_build")._build)   # the wrapper alone
    text = _builder(docs, cls)
    assert "def _exprs" in text and "def modified_epsilon_constraint" in text
    assert 'cp.Variable(T.shape[1], name="c")' in text
    assert cls.reparametrization and "α" in cls.reparametrization


def test_a_closed_form_wrapper_shows_its_linear_algebra(docs):
    cls = FORMULATIONS["l2svm_dual"]
    ccls = docs._defining(cls, "closed_form")
    text = docs._code_blocks(ccls.closed_form, cls, lambda s: len(s.strip().splitlines()) > 3, "")
    assert "def _active" in text and "def active_set_solution" in text


def test_the_docstring_program_is_kept(docs):
    intro = docs._intro(FORMULATIONS["pareto_krr_alpha"])
    assert intro.split("\n\n")[0].endswith("::")                 # reST literal block follows
    assert "s.t." in intro and "E_c" in intro


def test_estimators_name_registered_formulations():
    ests = [getattr(lssvm_cvx, n) for n in lssvm_cvx.__all__
            if inspect.isclass(getattr(lssvm_cvx, n)) and hasattr(getattr(lssvm_cvx, n), "fit")]
    assert len(ests) >= 13
    linked = set()
    for est in ests:
        names = est.formulations
        assert isinstance(names, tuple), est
        assert set(names) <= set(FORMULATIONS), (est, set(names) - set(FORMULATIONS))
        linked |= set(names)
    # every paper's main formulations are reachable from an estimator
    for name in ("lssvm", "areg_fusion", "componentwise_lssvm", "l2svm_dual", "pareto_krr_alpha",
                 "auto_lssvm", "regularized_lssvm"):
        assert name in linked, name


# ------------------------------------------------------------------------------ gallery figures
def _two_panels(title: str, xlim: tuple[float, float] = (0.0, 1.0)):
    plt = pytest.importorskip("matplotlib.pyplot")
    from lssvm_cvx.figures import slide_style

    with slide_style():
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
        for ax in (a1, a2):
            ax.plot([0, 1], [0, 1])
            ax.set_xlim(*xlim)
        a1.set_title(title)
        a2.set_title("KRR on the sinc data: σ² = 0.0268, λ = 0.179" if "\n" not in title
                     else "KRR on sinc")
        fig.tight_layout()
    return fig


def test_the_gallery_figure_check_catches_overlapping_texts(docs):
    """The scraper's check (``checked_matplotlib_scraper``): the Pareto example's long title
    ran into its neighbour, and the Laplacian example's tick labels of two panels touched."""
    plt = pytest.importorskip("matplotlib.pyplot")
    bad = _two_panels("Toy example 1: ε-constraint points on the flat part are dominated")
    assert any("overlaps" in b and "Toy example" in b for b in docs.text_overlaps(bad))
    ticks = _two_panels("short", xlim=(-1.5, 2.5))
    assert any("'2.5'" in b or "'−1.5'" in b for b in docs.text_overlaps(ticks))
    good = _two_panels("Toy example 1: ε-constraint points\non the flat part are dominated")
    assert docs.text_overlaps(good) == []
    plt.close("all")


def test_a_bar_in_a_data_comment_is_text_and_spans_are_kept(docs):
    """``|x|`` in a ``#:`` comment is an absolute value, which reStructuredText would read as
    an undefined substitution (``linalg.cholesky.RIDGES`` failed the ``-W`` build): the docs
    escape it, and leave literals and roles (``:math:`|a|```) as written; other docstrings
    (numpydoc tables) are not touched."""
    from docutils import nodes
    from docutils.core import publish_doctree

    line = "ridges (× max |diag H|) of ``|x|`` and :math:`|a|`"
    lines = [line]
    docs._bars_as_text(None, "data", "RIDGES", None, {}, lines)
    assert lines == ["ridges (× max \\|diag H\\|) of ``|x|`` and :math:`|a|`"]
    quiet = {"report_level": 4, "halt_level": 5}
    for text, problems in ((line, 1), (lines[0], 0)):   # the undefined substitution, then none
        tree = publish_doctree(text.replace(":math:", ""), settings_overrides=quiet)
        assert len(list(tree.findall(nodes.problematic))) == problems
    assert "max |diag H|" in tree.astext()
    same = [line]
    docs._bars_as_text(None, "function", "f", None, {}, same)
    assert same == [line]
