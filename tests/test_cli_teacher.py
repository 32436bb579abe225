"""The command for a teacher (issue 29, items 4 and 5): ``lssvm-cvx formulations`` as short
lines, ``--show`` without reStructuredText, with ``--latex``/``--source``/``--json`` and a
keyword search; the slide style of :mod:`lssvm_cvx.figures`; ``lssvm-cvx figure``."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

from lssvm_cvx.catalogue import catalogue, list_line, paper_short, plain_text, search
from lssvm_cvx.cli import build_parser, main
from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.formulations import FORMULATIONS
from lssvm_cvx.formulations.equations import latex_of, to_unicode

#: reStructuredText left in a text meant for a terminal
REST = re.compile(r"``|:\w+:`|\*\*|^\s*::\s*$|\w::\s*$|`\w[^`]*`", re.M)


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


# --- lssvm-cvx formulations ----------------------------------------------------------------
def test_list_is_one_short_line_per_formulation(capsys):
    assert main(["formulations"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = sorted(n for n in FORMULATIONS if not n.startswith("_"))
    assert [ln.split()[0] for ln in lines[1:]] == names
    assert max(len(ln) for ln in lines) <= 100, max(lines, key=len)
    text = "\n".join(lines)
    assert "Transactions on Computational" not in text  # the citation is --show's
    assert re.search(r"^lssvm +closed form +Pelckmans et al\. 2006 +primal \(1\), dual system \(2\)$",
                     text, re.M)
    assert re.search(r"^componentwise_fusion +cvxpy only ", text, re.M)


def test_list_line_cuts_long_equation_lists():
    entry = {"name": "x" * 30, "has_closed_form": False, "citation": "Doe, Roe & Poe (1999), T",
             "paper": "k", "equations": {f"label {i}": f"({i})" for i in range(40)}}
    line = list_line(entry)
    assert len(line) <= 100 and line.endswith(", …") and "Doe et al. 1999" in line
    assert paper_short({"citation": "Sorber, L. (2017), Auto LS-SVM"}) == "Sorber 2017"
    assert paper_short({"citation": "A composition (Pelckmans et al. 2006)"}) == "Pelckmans et al. 2006"
    assert paper_short({"citation": "", "paper": "l2svm-path-bonidal-2013"}) == "Bonidal 2013"


@pytest.mark.parametrize("name", sorted(n for n in FORMULATIONS if not n.startswith("_")))
def test_show_is_plain_text(name, capsys):
    assert main(["formulations", "--show", name]) == 0
    out = capsys.readouterr().out
    assert not REST.search(out), (name, REST.search(out))
    assert out.startswith(f"{name} — ") and "equations:" in out and "--latex" in out
    for glued in ("s.t.α", "αs.t.", "”", "\\"):  # tokens glued by the LaTeX conversion
        assert glued not in out, (name, glued)


def test_show_equations_read_as_written(capsys):
    assert main(["formulations", "--show", "l2svm_dual"]) == 0
    out = capsys.readouterr().out
    assert "+ 1ᵀα s.t. α ≥ 0, yᵀα = 0" in out  # was "+ 1ᵀαs.t. α≥0"
    assert main(["formulations", "--show", "pareto_krr_alpha"]) == 0
    out = capsys.readouterr().out
    assert "f″(x)" in out and "f”" not in out
    assert "eta = h/s" in out and "``" not in out and ":class:" not in out


def test_to_unicode_keeps_spaces_and_primes():
    assert to_unicode(r"\min_\alpha\ x\quad\text{s.t.}\ \alpha \ge 0 \tag{3}") == "min_α x s.t. α ≥ 0    (3)"
    assert to_unicode(r"\int \big(f''(x)\big)^2\,dx") == "∫(f″(x))² dx"
    assert to_unicode(r"\hat Y^d \ne 0") == "Ŷ^d ≠ 0"
    assert to_unicode(r"\tfrac{L\Omega_{CV} - \Omega}{L-1}\alpha") == "(LΩ_CV - Ω)/(L-1)α"
    assert to_unicode(r"(K + \lambda I)^{-1}y,\ \ \tfrac{1}{2n}") == "(K + λI)⁻¹y, 1/(2n)"
    assert to_unicode(r"d\in S,\ \Omega + I") == "d∈S, Ω + I"


def test_plain_text_strips_rest():
    text = ("Same as :class:`L2SVMPrimal` and :meth:`~a.B.selected`; ``eta = h/s``, `\\alpha`,"
            " **minus**.  Primal::\n\n    x\n\n::\n\n    y")
    assert plain_text(text) == ("Same as L2SVMPrimal and selected; eta = h/s, \\alpha, minus.  "
                                "Primal:\n\n    x\n\n    y")


def test_show_latex_of_l2svm_dual(capsys):
    assert main(["formulations", "--show", "l2svm_dual", "--latex"]) == 0
    out = capsys.readouterr().out
    for tex in latex_of(FORMULATIONS["l2svm_dual"]).values():
        assert f"\\[\n{tex}\n\\]" in out
    assert r"\max_{\alpha}" in out and r"\tag{Problem 2}" in out and "% dual Problem 2" in out


def test_show_source(capsys):
    assert main(["formulations", "--show", "lssvm", "--source"]) == 0
    out = capsys.readouterr().out
    assert "# the cvxpy problem: lssvm_cvx.formulations.lssvm.LSSVM._build\ndef _build(self)" in out
    assert "def objective(self" in out and "def closed_form(self" in out
    assert main(["formulations", "--show", "componentwise_fusion", "--source"]) == 0
    out = capsys.readouterr().out
    assert "def _build(self" in out and "# the closed form: none" in out


def test_show_json_has_latex_and_sources(capsys):
    assert main(["formulations", "--show", "l2svm_dual", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["latex"] == dict(latex_of(FORMULATIONS["l2svm_dual"]))
    assert d["builder_source"]["source"].startswith("def _build(")
    assert d["objective_source"]["defined in"].endswith(".objective")
    assert d["closed_form_source"]["source"].startswith("def closed_form(")
    assert d["citation"].startswith("Bonidal") and d["equations"]["dual"] == "Problem 2"
    assert d["class"] == "lssvm_cvx.formulations.l2svm.L2SVMDual"
    assert d["variables"] and d["parameters"] and not REST.search(d["description"])


def test_search_by_keyword(capsys):
    # an estimator's method name (ParetoKernelRidge(method="modified_eps")): the label of (25)-(26)
    assert main(["formulations", "--show", "modified_eps"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("pareto_krr_alpha — ") and "modified eps-constraint" in cap.err
    assert main(["formulations", "--show", "ParetoAlphaKRR", "--latex"]) == 0  # a class name
    assert r"E_c^+(\alpha)\le h\,\varepsilon" in capsys.readouterr().out
    assert main(["formulations", "--show", "predict"]) == 0  # a method of several: listed
    out = capsys.readouterr().out
    assert out.startswith("6 formulations mention 'predict'") and "componentwise_l1" in out
    assert main(["formulations", "--show", "predict", "--json"]) == 0
    assert {m["name"] for m in json.loads(capsys.readouterr().out)["matches"]} >= {"componentwise_l1"}
    cat = catalogue()
    assert search("eps-constraint", cat) == [("pareto_krr_alpha_eps", "equation label eps-constraint")]
    assert [n for n, _ in search("sorber", cat)] == ["auto_lssvm", "auto_lssvm_classifier"]
    assert search("no_such_word", cat) == []


def test_show_usage_errors_are_one_line(capsys):
    for argv, words in ((["formulations", "--show", "nope"], "unknown formulation 'nope'"),
                        (["formulations", "--show", "lsvm"], "did you mean lssvm"),
                        (["formulations", "--latex"], "--latex needs --show"),
                        (["formulations", "--source"], "--source needs --show"),
                        (["formulations", "--show", "lssvm", "--latex", "--json"], "not allowed")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and err.startswith("lssvm-cvx: error:") and words in err, err


def test_show_latex_as_a_command():
    run = subprocess.run([sys.executable, "-m", "lssvm_cvx", "formulations", "--show", "l2svm_dual",
                          "--latex"], capture_output=True, text=True, check=True)
    assert r"\tag{Problem 2}" in run.stdout and run.stderr == ""


# --- lssvm_cvx.figures -----------------------------------------------------------------------
def test_slide_style():
    import matplotlib
    from matplotlib.figure import Figure

    from lssvm_cvx.figures import OKABE_ITO, slide_rc, slide_style

    rc = slide_rc()
    assert rc["font.size"] >= 14 and rc["xtick.labelsize"] >= 14 and rc["legend.fontsize"] >= 14
    assert rc["figure.figsize"] == (6.4, 4.8) and rc["lines.linewidth"] >= 2
    assert slide_rc(1.5)["font.size"] == 1.5 * rc["font.size"]
    before = matplotlib.rcParams["font.size"]
    with slide_style():
        assert matplotlib.rcParams["axes.prop_cycle"].by_key()["color"] == list(OKABE_ITO)
        ax = Figure().add_subplot()
        assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()
        assert ax.plot([0, 1])[0].get_linewidth() >= 2
    assert matplotlib.rcParams["font.size"] == before
    for bad in (0, -1, float("nan"), "big", True):
        with pytest.raises(HyperparameterError, match="font_scale"):
            slide_rc(bad)


def test_save_figure(tmp_path):
    from matplotlib.figure import Figure

    from lssvm_cvx.figures import save_figure, slide_style

    with slide_style():
        fig = Figure()
        fig.add_subplot().plot([0, 1], [1, 0])
    w, h = _png_size(save_figure(fig, tmp_path / "a.png"))
    assert 1000 < w <= 1280 and 700 < h <= 960  # 6.4 x 4.8 in at 200 dpi, cropped tight
    w2, _ = _png_size(save_figure(fig, tmp_path / "b.PNG", dpi=100))
    assert abs(w2 - w / 2) <= 2
    svg = save_figure(fig, tmp_path / "a.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    assert save_figure(fig, tmp_path / "c.svg").read_text() == svg  # reproducible
    with pytest.raises(InputError, match="path.*svg or .png"):
        save_figure(fig, tmp_path / "a.pdf")
    with pytest.raises(HyperparameterError, match="dpi"):
        save_figure(fig, tmp_path / "a.png", dpi=0)
    with pytest.raises(HyperparameterError, match="dpi"):
        save_figure(fig, tmp_path / "a.png", dpi=10_000)
    with pytest.raises(InputError, match="path: cannot write"):
        save_figure(fig, tmp_path / "missing" / "a.svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png", "a.svg", "b.PNG", "c.svg"]


@pytest.mark.parametrize("name", sorted(n for n in FORMULATIONS if not n.startswith("_")))
def test_every_formulation_has_a_figure(name, tmp_path):
    from lssvm_cvx.figures import formulation_figure, save_figure

    fig = formulation_figure(name, n=30)
    assert fig.axes
    ax = fig.axes[0]
    assert ax.lines or ax.collections, name
    title = fig.get_suptitle()
    assert title.startswith(name) and " — eq. " in title, title
    assert ax.get_title(loc="left"), name  # what is plotted, and the solver
    assert re.search(r"closed\u00a0form|CLARABEL", ax.get_title(loc="left"))
    assert save_figure(fig, tmp_path / "f.svg").stat().st_size > 1000
    assert _png_size(save_figure(fig, tmp_path / "f.png", dpi=40))[0] > 100


def test_figure_says_what_it_plots():
    from lssvm_cvx.figures import formulation_figure

    fig = formulation_figure("auto_lssvm", n=30)  # 1-D: the prediction on a grid
    ax = fig.axes[0]
    assert "on a grid" in ax.get_title(loc="left") and len(ax.lines[0].get_xdata()) == 400
    ens = formulation_figure("areg_ensemble", n=30).axes[0].get_title(loc="left")
    assert "validation points" in ens and "alpha_lam" in ens  # one combined output, named
    dual = formulation_figure("l2svm_dual", n=30).axes[0].get_title(loc="left")
    assert "alpha by training point" in dual  # no model output in the solution: said so
    l1 = formulation_figure("regularized_lssvm_l1", n=30).axes[0].get_title(loc="left")
    assert "CLARABEL" in l1  # the class has a closed form, not with the l1 term
    with pytest.raises(HyperparameterError, match="unknown formulation"):
        formulation_figure("nope")
    with pytest.raises(HyperparameterError, match="n must"):
        formulation_figure("lssvm", n=2)


def test_figure_of_a_2d_classifier_draws_regions(monkeypatch):
    from lssvm_cvx.figures import formulation_figure
    from lssvm_cvx.kernels import RBF

    cls = FORMULATIONS["lssvm_classifier"]

    def two_d(klass, n=50, *, seed=0, **kwargs):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, 2))
        return klass(X, np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, "b", "a"), kernel=RBF(1.0))

    monkeypatch.setattr(cls, "random_instance", classmethod(two_d))
    ax = formulation_figure("lssvm_classifier", n=40).axes[0]
    assert "regions" in ax.get_title(loc="left")
    assert len(ax.collections) >= 4  # filled regions, f = 0, f = ±1, the two classes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["class a", "class b"]


# --- lssvm-cvx figure ------------------------------------------------------------------------
def test_figure_command(tmp_path, monkeypatch, capsys):
    assert "figure" in build_parser().format_help()
    out = tmp_path / "x.svg"
    assert main(["figure", "pareto_krr_alpha", "--out", str(out)]) == 0
    assert out.read_text().startswith("<?xml") and f"wrote {out}" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    assert main(["figure", "pareto_krr_sum", "--n", "20", "--font-scale", "1.5"]) == 0
    assert (tmp_path / "pareto_krr_sum.svg").is_file()  # NAME.svg by default


def test_figure_as_a_command(tmp_path):
    out = tmp_path / "x.png"
    run = subprocess.run([sys.executable, "-m", "lssvm_cvx", "figure", "pareto_krr_alpha", "--out",
                          str(out), "--dpi", "50", "--n", "30"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert _png_size(out)[0] > 200


def test_figure_usage_errors_are_one_line(tmp_path, capsys):
    (tmp_path / "d.svg").mkdir()
    cases = [
        (["nope"], "unknown formulation 'nope'"),
        (["lsvm"], "did you mean lssvm"),
        (["lssvm", "--dpi", "0"], "argument --dpi"),
        (["lssvm", "--dpi", "abc"], "argument --dpi"),
        (["lssvm", "--dpi", "5000"], "--dpi: at most 1200"),
        (["lssvm", "--out", str(tmp_path / "no" / "x.svg")], "--out: cannot write in"),
        (["lssvm", "--out", str(tmp_path / "x.pdf")], "--out: the file must end in .svg or .png"),
        (["lssvm", "--out", str(tmp_path / "d.svg")], "is a folder"),
        (["lssvm", "--font-scale", "0"], "argument --font-scale"),
        (["lssvm", "--n", "2"], "argument --n"),
        (["lssvm", "--seed", "-1"], "argument --seed"),
    ]
    for argv, words in cases:
        assert main(["figure", *argv]) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and err.startswith("lssvm-cvx: error:") and words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svg"]  # nothing written
