"""One rule for a number given as a parameter (:func:`lssvm_cvx.checks.check_number` under
:func:`~lssvm_cvx.checks.check_positive`), and the helpers' checks done once (twenty-first
session, 2026-12-01).

Before, eleven sites wrote the rule themselves, in four ways: ``float(value)`` in a ``try``
(which takes the string ``"0.5"`` and ``True``), ``isinstance(value, Real)`` (which takes
``True``: a bool is a ``Real``), ``np.isfinite(value)`` alone (which crashes inside NumPy on
``None`` and on an array), and the scalar idiom ``as_targets([value], 1)``.  Each case of
``test_a_parameter_that_is_not_one_finite_number_is_refused`` fails on b2352d8, as do the
tests of ``fast_cv_matrices``, ``predict_interval``, ``alpha_front`` and the ratchet.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from lssvm_cvx.checks import check_number, check_positive
from lssvm_cvx.exceptions import HyperparameterError, InputError, LssvmCvxError

rng = np.random.default_rng(0)
X = rng.normal(size=(14, 2))
y = X[:, 0] + 0.1 * rng.normal(size=14)
yc = np.where(X[:, 0] > 0, 1.0, -1.0)


def test_check_number_takes_one_finite_real_and_nothing_else():
    assert check_number(np.float32(2.5), "v") == 2.5 and type(check_number(3, "v")) is float
    assert check_number(-1.0, "v") == -1.0 and check_number(np.array(0.5), "v") == 0.5
    for bad in (True, np.bool_(False), "0.5", b"1", None, [1.0], np.ones(2), 1 + 2j):
        with pytest.raises(HyperparameterError, match=r"^v must be a number, got "):
            check_number(bad, "v")
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(InputError, match=r"^v must be a finite number, got "):
            check_number(bad, "v", error=InputError)
    with pytest.raises(HyperparameterError, match=r"^v must be a finite number > 0, got -1"):
        check_positive(-1, "v")


def _sites():
    """(name, call) pairs: each call gives the site a bad value; all fail on b2352d8 (they
    returned an answer or crashed in NumPy)."""
    from lssvm_cvx.device.arrays import positive
    from lssvm_cvx.figures import slide_rc
    from lssvm_cvx.formulations import RegularizedLSSVM
    from lssvm_cvx.formulations.alpha_krr import WeightedSumAlphaKRR
    from lssvm_cvx.formulations.areg_fast_cv import ARegFastCV
    from lssvm_cvx.formulations.auto import AutoLSSVM
    from lssvm_cvx.formulations.l2svm import primal_objective
    from lssvm_cvx.formulations.multiobjective import KPCRObjectives, KRRObjectives
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.kernels.factors import eigen_factor
    from lssvm_cvx.linalg.lstsq import tikhonov_lstsq
    from lssvm_cvx.terms import RKHSNorm
    from lssvm_cvx.terms.roughness import RBFRoughness, fourier_l2_norm

    K = RBF(1.0)(X)
    return {
        "AReg fast CV xi='2'": lambda: ARegFastCV(X, y, xi="2").validate(),
        "AReg fast CV xi=True": lambda: ARegFastCV(X, y, xi=True).validate(),
        "Auto LS-SVM mu='0.1'": lambda: AutoLSSVM(X, y, mu="0.1").validate(),
        "Auto LS-SVM gamma=True": lambda: AutoLSSVM(X, y, gamma=True).validate(),
        "weighted-sum alpha KRR nu=True": lambda: WeightedSumAlphaKRR(X, y, nu=True).validate(),
        "KRR objectives t=True": lambda: KRRObjectives(X, y, t=True),
        "KPCR objectives delta_r='0.1'": lambda: KPCRObjectives(X, y, delta_r="0.1"),
        "KPCR objectives delta_r=nan": lambda: KPCRObjectives(X, y, delta_r=np.nan),
        "RBF roughness sigma2=True": lambda: RBFRoughness(X, True),
        "eigen_factor threshold='0'": lambda: eigen_factor(K, threshold="0"),
        "tikhonov_lstsq mu=None": lambda: tikhonov_lstsq(K, y, mu=None),
        "tikhonov_lstsq mu=[1, 2]": lambda: tikhonov_lstsq(K, y, mu=[1.0, 2.0]),
        "a term weight True": lambda: RegularizedLSSVM(
            X, y, kernel=RBF(1.0), terms={"rkhs": (RKHSNorm(), True)}).solve(),
        "a term weight '0.5'": lambda: RegularizedLSSVM(
            X, y, kernel=RBF(1.0), terms={"rkhs": (RKHSNorm(), "0.5")}).solve(),
        "slide_rc font_scale='2'": lambda: slide_rc(font_scale="2"),
        "device gamma='2'": lambda: positive("2"),
        "device gamma=True": lambda: positive(True),
        "primal_objective b=None": lambda: primal_objective(K, yc, 1.0, np.abs(y), None),
        "fourier_l2_norm a0=[1, 2]": lambda: fourier_l2_norm([1.0, 2.0], [1.0], [1.0]),
    }


SITES = sorted(_sites())


@pytest.mark.parametrize("name", SITES)
def test_a_parameter_that_is_not_one_finite_number_is_refused(name):
    with pytest.raises(LssvmCvxError, match="must be a"):
        _sites()[name]()


def test_a_term_weight_and_a_threshold_are_refused_in_the_rule_s_words():
    """The engine's term weights go through :func:`check_positive` (twenty-second session:
    ``check_weight`` converted with its own ``float()``), naming the term; ``eigen_factor``
    names its parameter ``threshold`` (it was "threshold (a number >= 0 or None)")."""
    from lssvm_cvx.formulations.multiobjective import KPCRObjectives
    from lssvm_cvx.kernels.factors import eigen_factor
    from lssvm_cvx.linalg.engine import RKHS, decompose

    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    for w, words in ((np.nan, "a finite number >= 0, got nan"), (-1, "a finite number >= 0"),
                     ("1", "a number >= 0, got '1'"), (True, "a number >= 0, got True"),
                     (np.ones(2), "a number >= 0")):
        with pytest.raises(HyperparameterError,
                           match=re.escape(f"weight of term 'r' must be {words}")):
            decompose(K, 1.0, {"r": (RKHS, w)})
    assert decompose(K, 1.0, {"r": (RKHS, np.float32(0.5))}).weights()["r"] == 0.5
    with pytest.raises(HyperparameterError, match=r"^threshold must be a finite number >= 0, got -1"):
        eigen_factor(K, threshold=-1.0)
    for d in (0.1, np.float32(0.25), 0.49):
        assert KPCRObjectives(X, y, delta_r=d).delta_r == d
    for d in (0.0, 0.5, -0.1):
        with pytest.raises(HyperparameterError, match=r"^delta_r must be in \(0, 0.5\)"):
            KPCRObjectives(X, y, delta_r=d)


def test_predict_interval_refuses_a_coverage_given_as_a_string():
    from lssvm_cvx.estimators.auto import AutoLSSVMRegressor

    m = AutoLSSVMRegressor().fit(X, y)
    with pytest.raises(HyperparameterError, match="coverage"):
        m.predict_interval(X[:2], coverage="0.9")
    iv = m.predict_interval(X[:2], coverage=0.9)
    assert iv.shape == (2, 2) and np.all(iv[:, 0] <= iv[:, 1])


def test_fast_cv_matrices_refuses_a_number_of_folds_by_name():
    """``fast_cv_matrices(K, 3)`` crashed in ``len(3)`` (TypeError) before the folds were
    checked; the Gram is checked once (it was twice, by ``omega_cv`` again)."""
    from lssvm_cvx.formulations.areg_cv import fast_cv_matrices, omega_cv
    from lssvm_cvx.kernels import RBF

    K = RBF(1.0)(X)
    with pytest.raises(LssvmCvxError, match="folds"):
        fast_cv_matrices(K, 3)
    folds = [np.arange(0, 5), np.arange(5, 10), np.arange(10, 14)]
    A, D = fast_cv_matrices(K, folds)
    Ocv = omega_cv(K, folds)
    np.testing.assert_allclose(A, (K + Ocv) / 2, rtol=0, atol=1e-15)       # L = 3
    np.testing.assert_allclose(D, (3 * Ocv - K) / 2, rtol=0, atol=1e-15)


def test_the_l2svm_dual_objective_method_equals_the_function():
    from lssvm_cvx.formulations import FORMULATIONS
    from lssvm_cvx.formulations.l2svm import dual_objective

    f = FORMULATIONS["l2svm_dual"].random_instance(16)
    a = np.abs(rng.normal(size=16))
    assert f.dual_objective(a) == dual_objective(f.H, f.lam, a)
    with pytest.raises(InputError, match="alpha"):
        f.dual_objective(a[:3])


def test_select_gradient_checks_eta_before_its_loop():
    """The loop's criteria (``_span``, ``_radius_margin``) take checked inputs; the search
    refuses a bad ``eta`` itself (the loop used to re-check the Gram at every evaluation)."""
    from lssvm_cvx.selection.l2svm_gradient import select_gradient

    with pytest.raises(HyperparameterError, match="eta"):
        select_gradient(X, yc, sigma2=1.0, lam=1.0, eta=-1.0)


def test_alpha_front_refuses_a_fractional_number_of_bounds():
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.multiobjective import alpha_front

    with pytest.raises(HyperparameterError, match="n_eps"):
        alpha_front(X, y, RBF(1.0), n_eps=2.5, solver="closed_form")


def _own_number_rules() -> set[tuple[str, int]]:
    """``(module, kind)`` of each short ``try: float(...) except (TypeError, ValueError)`` and each
    ``isinstance(..., Real)`` outside :mod:`lssvm_cvx.checks`."""
    root = Path(__file__).resolve().parents[1] / "lssvm_cvx"
    out = set()
    for path in sorted(root.rglob("*.py")):
        if path.name == "checks.py":
            continue
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Try) and len(node.body) <= 2 and any(
                    isinstance(stmt, (ast.Assign, ast.Return)) and isinstance(stmt.value, ast.Call)
                    and getattr(stmt.value.func, "id", None) == "float"
                    for stmt in node.body) and any(
                    h.type is not None and re.search(r"\b(TypeError|ValueError)\b", ast.unparse(h.type))
                    for h in node.handlers):
                out.add((rel, "float() in try"))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" \
                    and len(node.args) == 2 and "Real" in ast.unparse(node.args[1]):
                out.add((rel, "isinstance Real"))
    return out


#: the sites left, each guarded otherwise: the CLI's argparse type
#: (its own exception class), the harness's report cells and the sweep file's cells (a
#: missing value is NaN, a text cell stays text), a kernel's ``__mul__`` (a number is a
#: scale)
OWN_NUMBER_RULE = {
    ("cli.py", "float() in try"),
    ("harness/sweep_files.py", "float() in try"),
    ("harness/sweep_report.py", "float() in try"),
    ("harness/warm.py", "float() in try"),
    ("kernels/base.py", "isinstance Real"),
}


def test_numbers_are_checked_by_the_one_rule():
    """A new ``try: float(v)`` or ``isinstance(v, Real)`` check fails this: call
    :func:`lssvm_cvx.checks.check_number` or :func:`~lssvm_cvx.checks.check_positive`."""
    got = _own_number_rules()
    assert got == OWN_NUMBER_RULE, (sorted(got - OWN_NUMBER_RULE), sorted(OWN_NUMBER_RULE - got))
