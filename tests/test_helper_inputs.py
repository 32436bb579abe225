"""The papers' helper functions refuse bad input with the package's exceptions (twentieth
session, 2026-12-01).

A scan of the public functions of the formulation, selection and term modules called each one
with a NaN in an array argument, a string where a number or an array belongs, and a fraction
where a count belongs.  On 8732153 (before this session) 37 of the 147 bad calls below were
refused by the package; 74 crashed inside NumPy or SciPy (``could not convert string to float``,
``LinAlgError``, ``IndexError``) and 36 returned an answer: a NaN objective, a truncated count
(``RandomFourierMap(1.0, 2.5, 3)`` drew 2 columns), or, for
:func:`~lssvm_cvx.formulations.areg.recover_tikhonov_gamma`, a finite γ (the grid's end).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lssvm_cvx import model_selection as ms
from lssvm_cvx.exceptions import LssvmCvxError
from lssvm_cvx.formulations import areg, areg_cv, areg_ensemble, l2svm
from lssvm_cvx.formulations import multiobjective as mo
from lssvm_cvx.kernels import RBF, Linear, factors, psd
from lssvm_cvx.kernels import base as kbase
from lssvm_cvx.kernels.features import RandomFourierMap
from lssvm_cvx.linalg import bordered, engine, lstsq, penalties, refits, scores
from lssvm_cvx.linalg import folds as lfolds
from lssvm_cvx.linalg import quadratic as lquad
from lssvm_cvx.selection import componentwise_cv as ccv
from lssvm_cvx.selection import gnc, heldout, screen
from lssvm_cvx.selection import kernel_choice as kc
from lssvm_cvx.selection import l2svm_criteria as l2c
from lssvm_cvx.selection import l2svm_gradient as lg
from lssvm_cvx.selection import pareto_nlp as pnlp
from lssvm_cvx.terms import gradient_norm as gn
from lssvm_cvx.terms import quadratic as tq
from lssvm_cvx.terms import roughness as ro

rng = np.random.default_rng(0)
N = 12
X = rng.normal(size=(N, 2))
y = X[:, 0] + 0.1 * rng.normal(size=N)
yc = np.sign(y + 1e-3)
K = RBF(1.0)(X)
a = rng.normal(size=N)
c = np.abs(rng.normal(size=N)) + 0.1
folds = [np.arange(0, 4), np.arange(4, 8), np.arange(8, 12)]
F = rng.normal(size=(N, 3))
_M = np.random.default_rng(2).normal(size=(2 * N, N))

#: name -> (function, valid positional arguments); every array argument of floats gets a NaN
#: and a string in turn, every number a string
CALLS = {
    "tikhonov_c": (areg.tikhonov_c, (a, 2.0)),
    "recover_tikhonov_gamma": (areg.recover_tikhonov_gamma, (K, y, c)),
    "omega_cv": (areg_cv.omega_cv, (K, folds)),
    "fast_cv_matrices": (areg_cv.fast_cv_matrices, (K, folds)),
    "simplex_lstsq": (areg_ensemble.simplex_lstsq, (F, y)),
    "criterion_search": (areg_ensemble.criterion_search, (F, yc)),
    "asymptotic_alpha": (l2svm.asymptotic_alpha, (yc, 1.0)),
    "b_infinity": (l2svm.b_infinity, (yc,)),
    "primal_objective": (l2svm.primal_objective, (K, yc, 1.0, np.abs(a), 0.1)),
    "dual_objective": (l2svm.dual_objective, (K, 1.0, np.abs(a))),
    "kpcr_components": (mo.kpcr_components, (np.linspace(3, 0.1, N), 0.9)),
    "sigma2_range": (mo.sigma2_range, (X,)),
    "rbf_roughness": (ro.rbf_roughness, (X, 1.0)),
    "l2_complexity": (ro.l2_complexity, (K, a)),
    "fit_error": (ro.fit_error, (K, a, y)),
    "fourier_l2_norm": (ro.fourier_l2_norm, (1.0, a[:3], a[3:6])),
    "fourier_roughness": (ro.fourier_roughness, (a[:3], a[3:6])),
    "model_kernel": (gn.model_kernel, (X,)),
    "exact_diagonal": (gn.exact_diagonal, (1.0, 2)),
    "rbf_model_gradient": (gn.rbf_model_gradient, (X[:3], X, a, 1.0)),
    "loo_residuals": (ms.loo_residuals, (K, y, 2.0)),
    "gcv": (ms.gcv, (K, y, 2.0)),
    "rbf_gram_and_derivative": (lg.rbf_gram_and_derivative, (X, 1.0)),
    "span_gradient": (lg.span_gradient, (K, K * 0.1, yc, 1.0)),
    "default_lam_grid": (ccv.default_lam_grid, (y,)),
    "default_sigma2_grid": (ccv.default_sigma2_grid, (X,)),
    "loo_factors": (kc.loo_factors, (F, y, [0.5, 2.0])),
    "screen_landmarks": (screen.screen_landmarks, (N, 5)),
    "nystroem_features": (screen.nystroem_features, (K[:, :5], K[:5, :5])),
    "RandomFourierMap": (RandomFourierMap, (1.0, 2, 3)),
    # the searches (selection only: mended during the sweep of 6d4bca2)
    "select_gradient": (lambda X_, y_: lg.select_gradient(X_, y_, sigma2=1.0, lam=1.0, max_iter=2),
                        (X, yc)),
    "choose_kernels": (lambda X_, y_, g_: kc.choose_kernels(
        X_, y_, [(RBF(1.0), (0,)), (Linear(), (0,))], [0], gammas=g_), (X, y, [1.0, 10.0])),
    "cv_path": (lambda X_, y_, g_: ccv.cv_path(X_, y_, g_, _mean_predictor, folds=4),
                (X, y, [1.0, 0.1])),
    "screen_loo": (lambda F_, y_, w_: screen.screen_loo(F_, y_, w_, "mse"), (F, y, [0.1, 1.0])),
    # twenty-third session (notes/fuzz_more_helpers.py): a string as n crashed in NumPy and
    # 12.5 passed; a list of strings as the schedule crashed in float()
    "check_splits": (heldout.check_splits,
                     ([(np.r_[folds[1], folds[2]], folds[0])], N)),
    "check_schedule": (gnc.check_schedule, ([1.0, 0.5, 0.0],)),
    # twenty-fourth session (notes/fuzz_more_helpers.py, the gated half): the least-squares
    # solvers answered a NaN target with a NaN solution and crashed on a NaN or a string in
    # the matrix; gcv_score took n = 12.5; the factor and graph builders crashed in NumPy,
    # SciPy or scikit-learn on a NaN or a string
    "gcv_score": (scores.gcv_score, (1.0, N, 3.0)),
    "tikhonov_lstsq": (lstsq.tikhonov_lstsq, (F, y)),
    "min_norm_lstsq": (lstsq.min_norm_lstsq, (F, y)),
    "lsqr_lstsq": (lstsq.lsqr_lstsq, (F, y)),
    "make_folds": (lfolds.make_folds, (N, 3)),
    "brute_force_loo": (refits.brute_force_loo, (F, y, np.eye(3), 0.1, 1.0)),
    "knn_laplacian": (tq.knn_laplacian, (X, 3)),
    "nystroem_factor": (factors.nystroem_factor, (X, RBF(1.0), 5)),
    "icf_factor": (factors.icf_factor, (X, RBF(1.0))),
    "pivoted_cholesky": (factors.pivoted_cholesky, (K,)),
    "psd_factor": (psd.psd_factor, (K,)),
    # and in selection/ (notes/fuzz_selection.py): a string crashed in NumPy, SciPy or an
    # index; a NaN built a ball problem, gave held-out predictions or started SLSQP
    "dense_ball_problem": (l2c.dense_ball_problem, (K,)),
    "heldout_predictions": (lambda Y: heldout.heldout_predictions(_form(), _splits(), Y), (y,)),
    "screen_path": (lambda lm: screen.screen_path(_form(), "rkhs", [0.1, 1.0], y, lm, "mse"),
                    (np.arange(6),)),
    "kkt_residuals": (lambda gf, G: pnlp.kkt_residuals(np.ones(2), gf, np.zeros(1), G),
                      (np.ones(2), np.ones((1, 2)))),
    "epsilon_constraint_nlp": (lambda x0: pnlp.epsilon_constraint_nlp(
        _quadratic, [_linear], [1.0], x0), (np.array([0.5, 0.5]),)),
    # the core's public entries (notes/fuzz_core.py): strings crashed in NumPy, SciPy or
    # scikit-learn, a NaN border, target, weight or penalty answered
    "lssvm_system": (bordered.lssvm_system, (K, 2.0, np.ones(N))),
    "decompose": (lambda K_, s_, Y_: engine.decompose(K_, s_, {"rkhs": (engine.RKHS, 0.1)}).solve(Y_),
                  (K, np.ones(N), y)),
    "generalized_path": (lambda K_, s_, Pf, Pk, Y_, ws: lquad.generalized_path(K_, s_, Pf, Pk, Y_, ws),
                         (K, np.ones(N), 0.1 * np.eye(N), np.eye(N), y, [0.1, 1.0])),
    "constrained_lstsq": (lstsq.constrained_lstsq, (_M, np.ones(2 * N), _M @ a, np.ones(N))),
    "normal_lstsq": (lstsq.normal_lstsq, (_M, _M @ a)),
    "gcv_curve": (lstsq.gcv_curve, (np.linspace(3, 1, 4), np.ones(4), 0.5, N, np.array([0.1, 1.0]))),
    "normalizers": (penalties.normalizers, (X, np.eye(2))),
    "sq_dists": (kbase.sq_dists, (X, X[:3])),
    "check_psd": (kbase.check_psd, (K,)),
    "eigen_factor": (factors.eigen_factor, (K,)),
    "truncate": (factors.truncate, (K[:, :5],)),
    "make_factor": (lambda X_: factors.make_factor("icf", X_, RBF(1.0)), (X,)),
    "check_folds": (lfolds.check_folds, (folds, N)),
}


def _form():
    from lssvm_cvx.formulations.regularized import RegularizedLSSVM
    from lssvm_cvx.terms import RKHSNorm

    return RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={"rkhs": (RKHSNorm(), 0.1)})


def _splits():
    return [(np.arange(4, N), np.arange(4)), (np.arange(0, 8), np.arange(8, N))]


def _quadratic(z):
    return float(z @ z), 2 * z


def _linear(z):
    return float(z.sum()), np.ones_like(z)


def _mean_predictor(X_train, y_train, value, X_test):
    return np.full(len(X_test), y_train.mean())


def _mutants(args):
    for i, v in enumerate(args):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            w = v.copy()
            w.flat[0] = np.nan
            yield f"NaN in argument {i}", i, w
        if isinstance(v, (np.ndarray, float, int)):
            yield f"a string as argument {i}", i, "abc"
        if isinstance(v, list):
            yield f"NaN in argument {i}", i, [np.nan] + v[1:]
            yield f"a list of strings as argument {i}", i, ["a"] * len(v)
        if isinstance(v, int):
            yield f"{v + 0.5} as argument {i}", i, v + 0.5


CASES = [(name, label, i, bad) for name, (_, args) in CALLS.items()
         for label, i, bad in _mutants(args)]


@pytest.mark.parametrize("name", list(CALLS))
def test_the_valid_call_runs(name):
    fn, args = CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(*args)


@pytest.mark.parametrize(("name", "label", "i", "bad"), CASES,
                         ids=[f"{n}: {lab}" for n, lab, _, _ in CASES])
def test_bad_input_is_refused_by_the_package(name, label, i, bad):
    fn, args = CALLS[name]
    args = list(args)
    args[i] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(LssvmCvxError):
            fn(*args)


def test_a_short_target_vector_is_refused_by_the_searches():
    """``cv_path`` and ``screen_loo`` took a ``y`` one entry short (an ``IndexError`` or a
    reshape error later, or, for ``cv_path``, an answer over the first rows)."""
    with pytest.raises(LssvmCvxError, match="y has 11 entries"):
        ccv.cv_path(X[:, :1], y[:-1], [1.0], _mean_predictor, folds=3)
    with pytest.raises(LssvmCvxError, match="Y"):
        screen.screen_loo(F, y[:-1], [1.0], "mse")


def test_a_fold_out_of_range_and_a_short_gram_are_refused():
    with pytest.raises(LssvmCvxError, match="folds|fold"):
        areg_cv.omega_cv(K, [np.array([0, 99])] + folds[1:])
    with pytest.raises(LssvmCvxError):
        screen.nystroem_features(K[:, :4], K[:5, :5])
    with pytest.raises(LssvmCvxError):
        lg.span_gradient(K, K[:5, :5], yc, 1.0)
    with pytest.raises(LssvmCvxError):
        ro.fourier_roughness(a[:3], a[:2])


def test_recover_tikhonov_gamma_refuses_nan_targets_it_used_to_answer():
    """With a NaN in ``y`` the line search returned the grid's lower end, 1e-6, as γ."""
    bad = y.copy()
    bad[0] = np.nan
    with pytest.raises(LssvmCvxError, match="y"):
        areg.recover_tikhonov_gamma(K, bad, c)
    with pytest.raises(LssvmCvxError, match="grid_size"):
        areg.recover_tikhonov_gamma(K, y, c, grid_size=1.5)


def test_a_gnc_schedule_with_a_nan_inside_is_refused():
    """``(1, NaN, 0)`` passed ``check_schedule`` (twenty-third session): the comparisons of
    ``np.diff`` with a NaN are all False, so the schedule looked strictly decreasing."""
    with pytest.raises(LssvmCvxError, match="schedule"):
        gnc.check_schedule([1.0, np.nan, 0.0])
    assert gnc.check_schedule(np.array([1.0, 0.25, 0.0])) == (1.0, 0.25, 0.0)


@pytest.mark.parametrize("name", ["pivoted_cholesky", "psd_factor", "icf_factor_gram"])
def test_a_nan_off_the_diagonal_of_a_matrix_is_refused(name):
    """The mutants put their NaN at ``[0, 0]``; ``pivoted_cholesky`` checked its diagonal only,
    so a NaN off it reached the factor."""
    Kn = K.copy()
    Kn[0, 1] = Kn[1, 0] = np.nan
    fn = {"pivoted_cholesky": factors.pivoted_cholesky, "psd_factor": psd.psd_factor,
          "icf_factor_gram": lambda G: factors.icf_factor(None, None, K=G)}[name]
    with pytest.raises(LssvmCvxError, match="NaN|finite"):
        fn(Kn)


def test_the_penalized_engine_refuses_nan_in_its_design_targets_and_penalties():
    """:class:`~lssvm_cvx.linalg.PenalizedLS` (under ``brute_force_loo`` and the Auto
    searches) took its NumPy inputs with ``np.asarray``: a NaN target gave NaN residuals."""
    from lssvm_cvx.linalg.penalized import PenalizedLS

    G = np.eye(3)
    for args, what in [((F, np.r_[np.nan, y[1:]], G), "Y"),
                       ((np.r_[[[np.nan, 0.0, 0.0]], F[1:]], y, G), "design"),
                       ((F, y, np.diag([1.0, np.nan, 1.0])), "penalty")]:
        with pytest.raises(LssvmCvxError, match=what):
            PenalizedLS(*args)
    with pytest.raises(LssvmCvxError, match="weight of penalty"):
        PenalizedLS(F, y, G).weights("abc", 1.0)
    with pytest.raises(LssvmCvxError, match="Y"):
        PenalizedLS(F, y, G).bind(np.r_[np.nan, y[1:]])


@pytest.mark.parametrize("bad", ["abc", [1.0] * (N - 1), np.r_[np.nan, np.ones(N - 1)],
                                 np.r_[-1.0, np.ones(N - 1)], np.zeros(N)])
def test_a_loss_and_an_estimator_refuse_bad_sample_weights_with_one_rule(bad):
    """``Loss.weights`` and the estimators' ``fit(..., sample_weight=...)`` wrote the rule
    twice (with two messages for a string) until the twenty-fourth session; both call
    :func:`lssvm_cvx.checks.check_sample_weight` now and say the same thing."""
    from lssvm_cvx import LSSVMRegressor
    from lssvm_cvx.exceptions import InputError
    from lssvm_cvx.losses import Squared

    with pytest.raises(InputError) as by_loss:
        Squared(sample_weight=bad).weights(N)
    with pytest.raises(InputError) as by_fit:
        LSSVMRegressor(gamma=1.0, sigma2=1.0).fit(X, y, sample_weight=bad)
    assert str(by_fit.value).startswith(str(by_loss.value).split(";")[0])


def test_an_estimator_needs_two_positive_weights_and_a_loss_one():
    from lssvm_cvx import LSSVMRegressor
    from lssvm_cvx.exceptions import InputError
    from lssvm_cvx.losses import Squared

    one = np.r_[1.0, np.zeros(N - 1)]
    assert Squared(sample_weight=one).weights(N).sum() == 1.0
    with pytest.raises(InputError, match="at least 2 need a positive weight"):
        LSSVMRegressor(gamma=1.0, sigma2=1.0).fit(X, y, sample_weight=one)


def test_the_sample_weight_rule_is_written_once():
    """The message of the rule appears in one module of the package."""
    from pathlib import Path

    import lssvm_cvx

    root = Path(lssvm_cvx.__file__).parent
    sites = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
             if "sample_weight must be finite and >= 0" in p.read_text(encoding="utf-8")]
    assert sites == ["checks.py"]


def test_the_float_conversion_rule_is_written_once():
    """"Numbers, not a string or a ragged list" is :func:`lssvm_cvx.checks.as_float64`; until
    the twenty-fifth session five modules wrote its ``try`` and message themselves.  The message
    lives in one module, and the sites that call it refuse a string with their own class."""
    from pathlib import Path

    import lssvm_cvx
    from lssvm_cvx.checks import check_sample_weight
    from lssvm_cvx.exceptions import InputError, InputTypeError
    from lssvm_cvx.linalg.bordered import lssvm_system
    from lssvm_cvx.linalg.penalized import PenalizedLS
    from lssvm_cvx.linalg.problem_checks import check_loss_weights
    from lssvm_cvx.selection.pareto_nlp import kkt_residuals

    root = Path(lssvm_cvx.__file__).parent
    sites = [p.relative_to(root).as_posix() for p in root.rglob("*.py")
             if "must be numbers, got a" in p.read_text(encoding="utf-8")]
    assert sites == ["checks.py"]
    F, G = X[:, :2], np.eye(2)
    for call, error, name in [
            (lambda: check_sample_weight("abc", N), InputError, "sample_weight"),
            (lambda: lssvm_system([["a", "b"], ["c", "d"]], 1.0, None), InputTypeError, "Omega"),
            (lambda: PenalizedLS([["a"]] * N, y, G), InputTypeError, "design Phi"),
            (lambda: PenalizedLS(F, y, [["a", "b"], ["c", "d"]]), InputTypeError, "penalty"),
            (lambda: check_loss_weights(["a"] * N, N), InputTypeError, "loss weights"),
            (lambda: kkt_residuals("abc", [1.0], [0.0], [[1.0]]), InputError, "z")]:
        with pytest.raises(error, match=f"{name}.*must be numbers"):
            call()
    with pytest.raises(InputError, match="grad_obj must be finite"):
        kkt_residuals([0.0], [np.nan], [0.0], [[1.0]])
