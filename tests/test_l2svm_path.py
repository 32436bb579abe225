"""The ℓ2-SVM regularization path (Bonidal et al. 2013 §2.5-2.7) and model selection along it
(§3): exactness against CLARABEL, the derivatives of eq. (13), the span LOO prediction of
Proposition 4 against brute-force leave-one-out, the radius-margin bound, the expansion of
§2.7.3."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from lssvm_cvx import problems
from lssvm_cvx.exceptions import HyperparameterError, LabelError
from lssvm_cvx.formulations.l2svm import (
    EnclosingBall,
    L2SVMDual,
    asymptotic_alpha,
    b_infinity,
    dual_objective,
)
from lssvm_cvx.formulations.l2svm_active_set import Hessian, correct_active_set, evaluate, solve_fixed
from lssvm_cvx.kernels import RBF
from lssvm_cvx.kernels.factors import eigen_factor, nystroem_factor
from lssvm_cvx.selection.l2svm_criteria import span_loo, span_loo_outputs
from lssvm_cvx.selection.l2svm_path import expand, regularization_path


def banana(n, seed):
    ds = problems.get_problem("banana")
    tr, te = problems.random_split(ds.n_samples, [n, 300], seed)
    sc = StandardScaler().fit(ds.X[tr])
    return sc.transform(ds.X[tr]), ds.y[tr].astype(float), sc.transform(ds.X[te]), ds.y[te].astype(float)


@pytest.fixture(scope="module")
def prob():
    X, y, Xt, yt = banana(70, seed=11)
    k = RBF(1.0)
    return X, y, k, k(X)


@pytest.fixture(scope="module")
def exact_path(prob):
    X, y, k, K = prob
    return regularization_path(y, K=K, breakpoints="exact", X=X, kernel=k)


def well_inside_lambdas(path, n=12):
    """Geometric midpoints of ``n`` segments at evenly spaced positions along the path."""
    lo = np.r_[path.lambdas[1:], path.lam_min]
    mid = np.sqrt(lo * path.lambdas)
    idx = np.unique(np.linspace(0, len(mid) - 1, n).round().astype(int))
    return [float(mid[j]) for j in idx]


def test_exact_path_matches_clarabel_and_support(prob, exact_path):
    """At ≥ 10 sampled λ: dual objective within 1e-6 relative of CLARABEL and E = the QP's
    support set."""
    X, y, k, K = prob
    H = K * np.outer(y, y)
    f = L2SVMDual.from_gram(K, y, lam=1.0)
    lams = well_inside_lambdas(exact_path, 12)
    assert len(lams) >= 10
    for lam in lams:
        st = exact_path.state_at(lam)
        # the sample is strictly inside a segment: E and I are separated
        assert st.alpha_E.min() > 1e-5 * st.alpha_E.max()
        assert np.delete(st.g, st.E).min(initial=1.0) > 1e-7
        f.lam = lam
        qp = f.solve("CLARABEL")
        W_path = dual_objective(H, lam, st.alpha(len(y)))
        W_qp = dual_objective(H, lam, qp["alpha"])
        assert abs(W_path - W_qp) <= 1e-6 * abs(W_qp), (lam, W_path, W_qp)
        assert W_path >= W_qp - 1e-9 * abs(W_qp)  # the path is optimal, CLARABEL within its tolerance
        E_qp = np.flatnonzero(qp["alpha"] > 1e-6 * qp["alpha"].max())
        np.testing.assert_array_equal(st.E, E_qp, err_msg=f"λ = {lam:.3g}")
        assert st.alpha0 == pytest.approx(qp.scalar("b"), abs=1e-5 * max(1, abs(qp.scalar("b"))))


def test_exact_path_breakpoints_are_changes_of_E(prob, exact_path):
    """Just above a breakpoint the old E is consistent, just below it the new one is."""
    X, y, k, K = prob
    p = exact_path
    assert p.n_changes > 20
    assert np.all(np.diff(p.lambdas) < 0)
    hess = p.hess
    for k_ in range(1, len(p.lambdas), max(1, len(p.lambdas) // 15)):
        lo, hi = p.breakpoint_brackets[k_ - 1]
        assert np.log(hi / lo) <= 1e-8
        above = evaluate(hess, p.active_sets[k_ - 1], hi * (1 + 1e-6))
        below = evaluate(hess, p.active_sets[k_], lo * (1 - 1e-6))
        assert above.max_violation() < 1e-6 and below.max_violation() < 1e-6
        assert not np.array_equal(p.active_sets[k_ - 1], p.active_sets[k_])


def test_paper_mode_is_exact_at_its_lambdas(prob, exact_path):
    X, y, k, K = prob
    p = regularization_path(y, K=K, breakpoints="paper")
    ratios = p.lambdas[1:] / p.lambdas[:-1]
    assert ratios.min() >= 0.5 - 1e-12  # the halving safeguard
    for j in range(0, len(p.lambdas), max(1, len(p.lambdas) // 12)):
        lam = p.lambdas[j]
        ref = exact_path.state_at(lam)
        st = p.stored_state(j)
        assert st.max_violation() <= 1e-6
        np.testing.assert_allclose(st.alpha(len(y)), ref.alpha(len(y)), atol=1e-7 * ref.alpha_E.max())
    # and at any λ (inner loop from the nearest stored partition)
    for lam in (3e-5, 0.2, 40.0):
        np.testing.assert_allclose(p.solution_at(lam)[0], exact_path.solution_at(lam)[0],
                                   atol=1e-7 * exact_path.solution_at(lam)[0].max())


def test_start_of_path_eq14(prob):
    """At λ^1 = 1e7 all points are support vectors and λα → 4 m_∓ / m, b → b_∞ (eq. 14)."""
    X, y, k, K = prob
    p = regularization_path(y, K=K, lam_max=1e7, lam_min=1e3)
    assert p.active_sets[0].size == len(y)
    a, b = p.solution_at(1e7)
    np.testing.assert_allclose(1e7 * a, 1e7 * asymptotic_alpha(y, 1e7), rtol=1e-4)
    assert b == pytest.approx(b_infinity(y), abs=1e-4)


def test_derivatives_eq13_against_finite_differences(prob, exact_path):
    X, y, k, K = prob
    hess = exact_path.hess
    for lam in (2e-4, 0.05, 3.0):
        st = exact_path.state_at(lam, deriv=True)
        h = 1e-6 * lam
        sp = evaluate(hess, st.E, lam + h)
        sm = evaluate(hess, st.E, lam - h)
        fd_a = (sp.alpha_E - sm.alpha_E) / (2 * h)
        fd_0 = (sp.alpha0 - sm.alpha0) / (2 * h)
        fd_g = (sp.g - sm.g) / (2 * h)
        np.testing.assert_allclose(st.d_alpha_E, fd_a, rtol=1e-5, atol=1e-6 * np.abs(fd_a).max())
        assert st.d_alpha0 == pytest.approx(fd_0, rel=1e-5, abs=1e-7 * max(1.0, abs(fd_0)))
        np.testing.assert_allclose(st.d_g, fd_g, rtol=1e-5, atol=1e-6 * np.abs(fd_g).max())


def test_eq13_sign_typo_would_fail(prob, exact_path):
    """Flipping the sign of the first term of dα_E/dλ (a plausible misreading of eq. 13)
    disagrees with finite differences: the test above can fail."""
    X, y, k, K = prob
    hess = exact_path.hess
    lam = 0.05
    st = exact_path.state_at(lam, deriv=True)
    wrong = +0.5 * st.sys.chol.solve(st.alpha_E) - st.d_alpha0 * st.sys.u
    h = 1e-6 * lam
    fd = (evaluate(hess, st.E, lam + h).alpha_E - evaluate(hess, st.E, lam - h).alpha_E) / (2 * h)
    assert np.abs(wrong - fd).max() > 1e-2 * np.abs(fd).max()


def _lssvm_loo_bruteforce(H, y, lam, E):
    """y_i h^i(x_i) of the LS-SVM on d_E minus point i (kernel κ_λ), refitting for each i."""
    out = []
    for i in E:
        Ei = E[E != i]
        M = H[np.ix_(Ei, Ei)] + 0.5 * lam * np.eye(Ei.size)
        A = np.block([[np.zeros((1, 1)), y[Ei][None, :]], [y[Ei][:, None], M]])
        sol = np.linalg.solve(A, np.r_[0.0, np.ones(Ei.size)])
        out.append(H[i, Ei] @ sol[1:] + y[i] * sol[0])
    return np.array(out)


@pytest.mark.parametrize("lam", [1e-3, 0.1, 5.0])
def test_span_prediction_equals_bruteforce_lssvm_loo(prob, exact_path, lam):
    """Proposition 4 / eq. (20): y_i h^i(x_i) = 1 - α_i / (A_E(λ)^{-1})_ii exactly."""
    X, y, k, K = prob
    H = K * np.outer(y, y)
    st = exact_path.state_at(lam)
    brute = _lssvm_loo_bruteforce(H, y, lam, st.E)
    np.testing.assert_allclose(span_loo_outputs(st), brute, rtol=1e-7, atol=1e-8)
    assert span_loo(exact_path.hess, st) == pytest.approx(np.sum(brute <= 0) / len(y))


def test_span_with_low_rank_factor_equals_bruteforce(prob):
    """Same identity through the SMW diagonal of eq. (24) on the Hessian R R^T."""
    X, y, k, K = prob
    fac = nystroem_factor(X, k, 25, random_state=0)
    hess = Hessian(y, factor=fac)
    st, _ = correct_active_set(hess, np.arange(len(y)), 0.05)
    assert st.E.size > fac.rank and not st.dense  # SMW path taken
    Hr = fac.gram() * np.outer(y, y)
    brute = _lssvm_loo_bruteforce(Hr, y, 0.05, st.E)
    np.testing.assert_allclose(span_loo_outputs(st), brute, rtol=1e-6, atol=1e-7)


def test_span_prediction_vs_true_l2svm_loo(prob):
    """When removing i leaves E \\ {i} as the active set (the hypothesis of Theorem 2), the span
    prediction is the true ℓ2-SVM leave-one-out output."""
    X, y, k, K = prob
    lam = 0.05
    hess = Hessian(y, K=K)
    st = solve_fixed(y, lam, hess=hess)
    pred = dict(zip(st.E, span_loo_outputs(st)))
    checked = 0
    for i in st.E[:25]:
        keep = np.delete(np.arange(len(y)), i)
        sti = solve_fixed(y[keep], lam, K=K[np.ix_(keep, keep)])
        Ei = keep[sti.E]
        if np.array_equal(np.sort(Ei), st.E[st.E != i]):
            out = y[i] * (K[i, Ei] @ (y[Ei] * sti.alpha_E) + sti.alpha0)
            assert out == pytest.approx(pred[i], rel=1e-7, abs=1e-9)
            checked += 1
    assert checked >= 5


def test_radius_margin_bound(prob):
    X, y, k, K = prob
    p = regularization_path(y, K=K, lam_min=1e-3, lam_max=1e3)
    lams = p.lambdas[::5]
    vals = p.radius_margin(lams)
    for lam, v in zip(lams, vals):
        R2 = EnclosingBall.from_gram(K, None, lam=lam).radius2()
        a, b = p.solution_at(lam)
        Hl = K * np.outer(y, y) + 0.5 * lam * np.eye(len(y))
        assert a @ Hl @ a == pytest.approx(a.sum(), rel=1e-8)  # ||w̃||² = 1^T α
        assert v == pytest.approx(4 * R2 * a @ Hl @ a / len(y), rel=1e-5)
    lam_sel, _, crit = p.select("radius_margin")
    assert crit.min() == pytest.approx(vals.min(), rel=1) and lam_sel in p.lambdas


def test_selection_and_expansion_low_rank(prob):
    """§2.7.3: the landmark expansion reproduces the κ_r classifier exactly on the training
    points; the paper's support expansion reproduces it on d_E."""
    X, y, k, K = prob
    fac = nystroem_factor(X, k, 40, random_state=1)
    p = regularization_path(y, factor=fac, X=X, kernel=k, lam_min=1e-4, lam_max=1e4)
    lam, lams, vals = p.select("span")
    assert vals.shape == lams.shape and lam in lams and np.all((vals >= 0) & (vals <= 1))
    st = p.state_at(lam)
    h_r = y * (st.g + 1.0)  # κ_r classifier on the training points
    Z, coef, b = expand(p, st, expansion="landmarks")
    np.testing.assert_allclose(k(X, Z) @ coef + b, h_r, atol=1e-8 * np.abs(h_r).max())
    Z, coef, b = expand(p, st, expansion="support")
    np.testing.assert_allclose((k(X, Z) @ coef + b)[st.E], h_r[st.E], atol=1e-5 * np.abs(h_r).max())


def test_low_rank_path_is_exact_for_the_approximated_problem(prob):
    X, y, k, K = prob
    fac = nystroem_factor(X, k, 30, random_state=2)
    Kr = fac.gram()
    p = regularization_path(y, factor=fac, breakpoints="exact", lam_min=1e-4, lam_max=1e4)
    f = L2SVMDual.from_gram(Kr, y, lam=1.0)
    Hr = Kr * np.outer(y, y)
    for lam in well_inside_lambdas(p, 6):
        f.lam = lam
        qp = f.solve("CLARABEL")
        W = dual_objective(Hr, lam, p.solution_at(lam)[0])
        assert abs(W - dual_objective(Hr, lam, qp["alpha"])) <= 1e-6 * abs(W)


def test_eigen_factor_path_equals_dense_path(prob, exact_path):
    X, y, k, K = prob
    p = regularization_path(y, factor=eigen_factor(K), breakpoints="paper")
    for lam in (1e-5, 1e-2, 10.0):
        a1, b1 = p.solution_at(lam)
        a2, b2 = exact_path.solution_at(lam)
        np.testing.assert_allclose(a1, a2, atol=1e-6 * a2.max())


def test_newton_line_search_from_scratch(prob):
    """Chapelle's primal Newton method (the fallback of the inner loop) reaches the QP optimum."""
    from lssvm_cvx.formulations.l2svm_active_set import _newton

    X, y, k, K = prob
    hess = Hessian(y, K=K)
    lam = 1e-3
    st = _newton(hess, lam, np.zeros(len(y)), 0.0, 1e-9, 200)
    qp = L2SVMDual.from_gram(K, y, lam=lam).solve("CLARABEL")
    H = K * np.outer(y, y)
    expected = dual_objective(H, lam, qp["alpha"])
    assert dual_objective(H, lam, st.alpha(len(y))) == pytest.approx(expected, rel=1e-7)


def test_decision_function_matches_kernel_expansion(prob, exact_path):
    X, y, k, K = prob
    Xn = X[:5] + 0.1
    a, b = exact_path.solution_at(0.1)
    np.testing.assert_allclose(exact_path.decision_function(Xn, 0.1), k(Xn, X) @ (a * y) + b, atol=1e-10)


# --------------------------------------------------------------------------- bad input
def test_path_bad_input(prob):
    X, y, k, K = prob
    with pytest.raises(HyperparameterError, match="lam_min < lam_max"):
        regularization_path(y, K=K, lam_min=1.0, lam_max=0.5)
    with pytest.raises(HyperparameterError, match="lam_min"):
        regularization_path(y, K=K, lam_min=0.0)
    with pytest.raises(HyperparameterError, match="breakpoints"):
        regularization_path(y, K=K, breakpoints="fast")
    y3 = y.copy()
    y3[0] = 3
    with pytest.raises(LabelError):
        regularization_path(y3, K=K)
    with pytest.raises(HyperparameterError, match="lam"):
        solve_fixed(y, -1.0, K=K)


@pytest.mark.slow
def test_exact_path_larger_problem_against_clarabel():
    """Exact mode on 300 banana points with the numerically exact eigen-factor (SMW solves):
    objective within 1e-6 of CLARABEL and identical support sets at the sampled λ where
    CLARABEL reports "optimal".  Near λ = 1e-6 (multipliers up to 4e6) CLARABEL stops
    "optimal_inaccurate" and the path's objective is *higher* (Problem 2 is a maximisation):
    there the path's own optimality conditions are checked."""
    X, y, _, _ = banana(300, seed=2)
    k = RBF(2.0)
    K = k(X)
    p = regularization_path(y, factor=eigen_factor(K), breakpoints="exact")
    assert p.hess.r < 300
    f = L2SVMDual.from_gram(K, y, lam=1.0)
    H = K * np.outer(y, y)
    n_ok = 0
    for lam in well_inside_lambdas(p, 12):
        st = p.state_at(lam)
        f.lam = lam
        qp = f.solve("CLARABEL", accept_inaccurate=True)
        W, Wq = dual_objective(H, lam, st.alpha(len(y))), dual_objective(H, lam, qp["alpha"])
        agree = abs(W - Wq) <= 1e-6 * abs(Wq)  # measured, whatever CLARABEL's status word
        if qp.status == "optimal":
            assert agree
        if agree:
            n_ok += 1
            interior = st.alpha_E.min() > 1e-4 * st.alpha_E.max()
            if qp.status == "optimal" and interior and np.delete(st.g, st.E).min(initial=1) > 1e-6:
                np.testing.assert_array_equal(st.E, np.flatnonzero(qp["alpha"] > 1e-6 * qp["alpha"].max()))
        else:
            assert W >= Wq - 1e-9 * abs(Wq)
            assert st.max_violation() <= p.hess.noise_level(lam)
    assert n_ok >= 8


def test_failed_inner_loop_shortens_the_step(prob, monkeypatch):
    """If the inner loop fails at λ^{l+1}, the path retries at the geometric midpoint."""
    import lssvm_cvx.selection.l2svm_path as mod
    from lssvm_cvx.exceptions import SolverError

    X, y, k, K = prob
    orig = mod.correct_active_set
    calls = {"failed": 0}

    def flaky(hess, E, lam, **kw):
        if 1e-2 < lam < 1.0 and calls["failed"] < 3:
            calls["failed"] += 1
            raise SolverError("forced", solver="test", status="forced")
        return orig(hess, E, lam, **kw)

    monkeypatch.setattr(mod, "correct_active_set", flaky)
    p = regularization_path(y, K=K, lam_min=1e-3, lam_max=1e3)
    assert calls["failed"] == 3
    ref = regularization_path(y, K=K, lam_min=1e-3, lam_max=1e3)
    for lam in (3e-3, 0.05, 0.5):
        np.testing.assert_allclose(p.solution_at(lam)[0], ref.solution_at(lam)[0], atol=1e-8)
