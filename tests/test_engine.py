"""The closed-form engine (:func:`lssvm_cvx.linalg.engine.decompose`, issue 30 item 1): for
named terms a user composes, the solution equals an independent dense solve of the optimality
conditions, the held-out residuals equal brute-force refits (the observation or set leaves the
loss; the basis and the terms keep it), a path equals solves at each weight, and the engine
picks the representation by the terms' structure."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError, InputError
from lssvm_cvx.linalg.engine import RKHS, FittedTerm, decompose


def _problem(n: int = 25, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 2, n))
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    y = np.sin(2 * x) + 0.1 * rng.standard_normal(n)
    D = np.diff(np.eye(n), 2, axis=0)               # second differences: a roughness term
    s = rng.uniform(0.5, 2.0, n)
    return K, y, s, D.T @ D


def _dense(K, s, P, y):
    """``(α, b)`` of ½Σ s_i (y_i - (Kα)_i - b)² + ½α'Pα from its stationarity conditions
    (least squares: α may not be identifiable, the fitted values are)."""
    n = len(y)
    S = np.diag(s)
    one = np.ones(n)
    A = np.block([[K @ S @ K + P, (K @ S @ one)[:, None]],
                  [(one @ S @ K)[None, :], np.array([[one @ S @ one]])]])
    sol = np.linalg.lstsq(A, np.r_[K @ S @ y, one @ S @ y], rcond=None)[0]
    return sol[:n], sol[n]


def _refit_residuals(K, s, P, y, folds):
    """Brute force: each set leaves the loss (weight 0), the basis and the terms keep it."""
    r = np.full(len(y), np.nan)
    for V in folds:
        sv = s.copy()
        sv[V] = 0.0
        a, b = _dense(K, sv, P, y)
        r[V] = y[V] - (K[V] @ a + b)
    return r


TERMS = {
    "rkhs only": lambda K, R: {"rkhs": (RKHS, 0.3)},
    "rkhs + roughness": lambda K, R: {"rkhs": (RKHS, 0.3), "rough": (R, 0.05)},
    "roughness + ridge": lambda K, R: {"rough": (R, 0.05), "ridge": (np.eye(len(K)), 1e-2)},
    # roughness of the fitted values f = Kα: P = K R K, solved in the range of K
    "rkhs + fitted roughness": lambda K, R: {"rkhs": (RKHS, 0.3), "rough": (FittedTerm(R), 0.05)},
}
REPRESENTATION = {"rkhs only": "bordered", "rkhs + fitted roughness": "range"}


def _matrix(K, M):
    return K if M is RKHS else K @ M.fitted() @ K if isinstance(M, FittedTerm) else M


@pytest.mark.parametrize("case", sorted(TERMS))
def test_solve_loo_kfold_equal_dense_solves_and_refits(case):
    K, y, s, R = _problem()
    terms = TERMS[case](K, R)
    dec = decompose(K, s, terms)
    assert dec.representation() == REPRESENTATION.get(case, "augmented")
    P = sum(w * _matrix(K, M) for M, w in terms.values())
    a, b = dec.solve(y)
    a0, b0 = _dense(K, s, P, y)
    np.testing.assert_allclose(K @ a + b, K @ a0 + b0, atol=1e-8)
    n = len(y)
    np.testing.assert_allclose(dec.loo(y), _refit_residuals(K, s, P, y, [[i] for i in range(n)]),
                               atol=1e-7)
    folds = np.array_split(np.random.default_rng(1).permutation(n), 5)
    np.testing.assert_allclose(dec.kfold(y, folds), _refit_residuals(K, s, P, y, folds), atol=1e-7)


@pytest.mark.parametrize("case", sorted(TERMS))
def test_a_path_equals_solves_at_each_weight(case):
    K, y, s, R = _problem(seed=2)
    dec = decompose(K, s, TERMS[case](K, R))
    name = dec.names[0]
    ws = [1e-3, 0.1, 10.0]
    alphas, bs, loos = dec.path(name, ws, y)
    for w, a, b, r in zip(ws, alphas, bs, loos):
        a1, b1 = dec.solve(y, {name: w})
        np.testing.assert_allclose(K @ a + b, K @ a1 + b1, atol=1e-8)
        np.testing.assert_allclose(r, dec.loo(y, {name: w}), atol=1e-7)


def test_a_term_matrix_is_formed_once_and_only_when_weighted():
    K, y, s, R = _problem()
    calls = []

    def rough():
        calls.append(1)
        return R

    dec = decompose(K, s, {"rkhs": (RKHS, 0.3), "rough": (rough, 0.0)})
    dec.solve(y)
    assert calls == [] and dec.representation() == "bordered"   # the weight-0 term is not formed
    dec.solve(y, {"rough": 0.1})
    dec.loo(y, {"rough": 0.2})
    assert calls == [1]


def test_bad_names_and_borders_are_refused():
    K, y, s, R = _problem()
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3)})
    with pytest.raises(HyperparameterError, match="^term must be one of \\('rkhs',\\), got 'ridge'"):
        dec.solve(y, {"ridge": 1.0})
    with pytest.raises(HyperparameterError, match="^term must be one of"):
        dec.path("ridge", [1.0], y)
    with pytest.raises(HyperparameterError, match="RKHS norm"):
        decompose(K, s, {"rough": (R, 1.0)}, border=np.sign(y))


@pytest.mark.parametrize("case", sorted(TERMS))
def test_a_zero_loss_weight_stays_in_the_basis_and_the_terms_and_has_no_held_out_residual(case):
    """Points of loss weight 0 (semi-supervised: unlabelled) stay in the basis and the terms:
    the bordered system (which divides by s) cannot take them; the range of K (since the
    fifteenth session: its design's loss the labelled rows, ``Φ'MΦ`` over every row) and the
    augmented system do.  The fit equals the dense solve; the labelled points' LOO and k-fold residuals
    equal refits (the folds hold unlabelled points too); an unlabelled point's are NaN."""
    K, y, s, R = _problem()
    s[[0, 3, 4, 11, 20]] = 0.0
    terms = TERMS[case](K, R)
    dec = decompose(K, s, terms)
    assert dec.representation() == ("range" if case in REPRESENTATION else "augmented")
    P = sum(w * _matrix(K, M) for M, w in terms.values())
    a, b = dec.solve(y)
    a0, b0 = _dense(K, s, P, y)
    np.testing.assert_allclose(K @ a + b, K @ a0 + b0, atol=1e-8)
    n, out = len(y), s == 0
    folds = np.array_split(np.random.default_rng(1).permutation(n), 5)
    with np.errstate(divide="ignore", invalid="ignore"):   # the augmented system's 0/0
        for got, sets in ((dec.loo(y), [[i] for i in range(n)]), (dec.kfold(y, folds), folds)):
            assert np.all(np.isnan(got[out]))
            np.testing.assert_allclose(got[~out], _refit_residuals(K, s, P, y, sets)[~out],
                                       atol=1e-7)
        _, _, path = dec.path(dec.names[0], [0.1, 1.0], y)
        np.testing.assert_allclose(path[0][~out], dec.loo(y, {dec.names[0]: 0.1})[~out],
                                   atol=1e-9)


@pytest.mark.parametrize("case", ["rkhs + fitted roughness", "rkhs + roughness"])
def test_gcv_with_unlabelled_points_scores_the_labelled_ones(case):
    """GCV ``n_L ||y_L - ŷ_L||² / tr(I - H_LL)²`` over the points in the loss, ``H_LL`` the
    hat matrix from their targets to their fits (formed column by column from unit solves): the
    range of K and the augmented system agree with it.  Until the fifteenth session the augmented system
    counted an unlabelled point's residual (its target is no observation) and 1 in the trace."""
    K, y, s, R = _problem()
    s[[0, 3, 4, 11, 20]] = 0.0
    dec = decompose(K, s, TERMS[case](K, R))
    lab = np.flatnonzero(s > 0)
    H = np.empty((lab.size, lab.size))
    for j, i in enumerate(lab):
        a, b = dec.solve(np.eye(len(y))[i])
        H[:, j] = (K @ a + b)[lab]
    a, b = dec.solve(y)
    r = (y - K @ a - b)[lab]
    want = lab.size * (r @ r) / np.trace(np.eye(lab.size) - H) ** 2
    assert dec.gcv(y) == pytest.approx(want, rel=1e-9)
    assert dec.system(representation="augmented").gcv(y) == pytest.approx(want, rel=1e-9)


def test_one_labelled_point_or_a_negative_weight_is_not_the_range():
    """The range's design needs two rows in the loss (the primal normaliser divides by their
    spread); else the augmented system.  A negative loss weight is refused by ``decompose``
    itself (since the sixteenth session; before, the augmented system solved it)."""
    K, y, s, R = _problem()
    terms = {"rkhs": (RKHS, 0.3), "rough": (FittedTerm(R), 0.05)}
    one = np.zeros_like(s)
    one[4] = 1.0
    negative = s.copy()
    negative[2] = -1.0
    dec = decompose(K, one, terms)
    assert dec.representation() == "augmented"
    with pytest.raises(HyperparameterError, match="representation 'range'"):
        dec.system(representation="range")
    with pytest.raises(InputError, match="loss weights must be finite and >= 0"):
        decompose(K, negative, terms)
    one[7] = 2.0
    assert decompose(K, one, terms).representation() == "range"


def test_the_guide_section_runs_and_its_path_equals_solves():
    """The guide's engine example (docs/guide.rst, "The closed-form engine") runs, and the
    weight it picks from the path is the one per-weight solves pick."""
    import re
    import textwrap
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "guide.rst").read_text(encoding="utf-8")
    section = re.search(r"\nThe closed-form engine\n-+\n(.*?)\n[^\n]+\n-{4,}\n", text, re.S).group(1)
    code = textwrap.dedent(re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)",
                                     section).group(1))
    ns: dict = {}
    exec(compile(code, "guide-engine", "exec"), ns)
    dec, y, grid = ns["dec"], ns["y"], np.logspace(-3, 1, 9)
    assert dec.representation() == "bordered" and dec.representation({"rough": 0.05}) == "augmented"
    scores = [np.mean(dec.loo(y, {"rough": w}) ** 2) for w in grid]
    assert ns["best"] == grid[int(np.argmin(scores))]


# ---------------------------------------------------------------- any array namespace (step 5)
# the range of K (a fitted-values term) is NumPy's only: elsewhere such a term is the
# augmented system's K M K, on this Gram (1-D, condition ~1e17) accurate to about 1e-5 only,
# which is why NumPy takes the range (test_the_range_of_k_agrees_with_refits_in_40_digits...)
@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu", "torch-cuda"])
@pytest.mark.parametrize("case", sorted(set(TERMS) - {"rkhs + fitted roughness"}))
def test_the_engine_on_another_namespace_equals_numpy(ns, case, to_namespace, to_numpy):
    """The same decomposition on PyTorch or ``array-api-strict`` arrays (issue 30, step 5: the
    bordered system, its spectral path and the augmented system factorise in the inputs'
    namespace, where the device module had its own twins): the representation, the solution,
    the LOO and k-fold residuals and a path of the first weight equal NumPy's to 1e-9 and stay
    in the inputs' namespace."""
    conv = to_namespace(ns)
    K, y, s, R = _problem()
    terms = TERMS[case](K, R)
    dec = decompose(K, s, terms)
    ddec = decompose(conv(K), conv(s), {k: (P if P is RKHS else conv(P), w)
                                          for k, (P, w) in terms.items()})
    assert ddec.representation() == dec.representation()
    folds = [np.arange(i, len(y), 5) for i in range(5)]
    a, b = dec.solve(y)
    da, db = ddec.solve(conv(y))
    assert type(da) is type(conv(y))
    np.testing.assert_allclose(to_numpy(da), a, rtol=1e-9, atol=1e-9 * np.abs(a).max())
    assert abs(float(db) - b) < 1e-9 * max(1.0, abs(b))
    for got, want in ((ddec.loo(conv(y)), dec.loo(y)),
                      (ddec.kfold(conv(y), folds, cover=True), dec.kfold(y, folds))):
        assert type(got) is type(conv(y))
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-9, atol=1e-12)
    key = next(iter(terms))
    ws = [0.01, 0.3, 3.0]
    _, _, want = dec.path(key, ws, y)
    _, _, got = ddec.path(key, ws, conv(y))
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu"])
def test_the_array_cholesky_blocks_equal_a_dense_inverse(ns, to_namespace, to_numpy):
    """``ArrayCholesky.inv_diag`` / ``inv_block`` (the held-out denominators off NumPy) against
    ``np.linalg.inv``; ``rcond`` against the exact 1-norm condition number."""
    from lssvm_cvx.linalg.arrays import factor_spd, namespace_of

    conv = to_namespace(ns)
    K, _, _, _ = _problem()
    H = K + 0.1 * np.eye(len(K))
    Hinv = np.linalg.inv(H)
    chol = factor_spd(namespace_of(conv(H))[0], conv(H))
    np.testing.assert_allclose(to_numpy(chol.inv_diag()), np.diag(Hinv), rtol=1e-10)
    idx = np.array([3, 0, 17, 9])
    np.testing.assert_allclose(to_numpy(chol.inv_block(idx)), Hinv[np.ix_(idx, idx)],
                               rtol=1e-10, atol=1e-12)
    assert chol.rcond == pytest.approx(1.0 / (np.linalg.norm(H, 1) * np.linalg.norm(Hinv, 1)),
                                       rel=1e-8)


@pytest.mark.parametrize("overwrite", [False, True])
def test_the_cholesky_inverse_diagonal_keeps_n_numbers_not_the_inverse(overwrite):
    """``Cholesky.inv_diag`` against ``np.linalg.inv`` (both LAPACK triangles: ``overwrite``
    on a C-ordered matrix factorises its transpose), answered from a kept diagonal: since
    2026-12-06 the factor does not hold ``L^{-1}`` (n² numbers) after a leave-one-out question;
    a caller mutating the answer does not change the next one, and ``inv_block`` (k-fold)
    still builds and keeps ``L^{-1}``."""
    from lssvm_cvx.linalg.cholesky import Cholesky

    K, _, _, _ = _problem()
    H = np.ascontiguousarray(K + 0.1 * np.eye(len(K)))
    Hinv = np.linalg.inv(H)
    chol = Cholesky.factor(H.copy(), overwrite=overwrite)
    assert chol.lower is not overwrite
    d = chol.inv_diag()
    np.testing.assert_allclose(d, np.diag(Hinv), rtol=1e-10)
    assert chol._Linv is None
    d[:] = np.nan
    np.testing.assert_allclose(chol.inv_diag(), np.diag(Hinv), rtol=1e-10)
    idx = np.array([3, 0, 17, 9])
    np.testing.assert_allclose(chol.inv_block(idx), Hinv[np.ix_(idx, idx)], rtol=1e-10,
                               atol=1e-12)
    assert chol._Linv is not None
    np.testing.assert_allclose(chol.Linv @ chol.L, np.eye(len(H)), atol=1e-10)


def test_a_known_representation_is_not_asked_again_and_a_wrong_one_is_refused(monkeypatch):
    """``system(representation=...)``: a caller that asked :meth:`representation` (one host
    synchronisation on a device) passes it on; the same system comes back, and a bordered
    representation where a weighted term is not the RKHS norm is refused (it would drop the
    term: a silent wrong answer)."""
    K, y, s, R = _problem()
    dec = decompose(K, s, {"rkhs": (RKHS, 0.3), "rough": (R, 0.0)})
    want = dec.solve(y)
    asked = []
    monkeypatch.setattr(type(dec), "representation",
                        lambda self, w=None: asked.append(w) or "bordered")
    for rep in ("bordered", "augmented"):
        a, b = dec.system(representation=rep).solve(y)
        np.testing.assert_allclose(K @ a + b, K @ want[0] + want[1], atol=1e-9)
    assert asked == []
    with pytest.raises(HyperparameterError, match="representation 'bordered'"):
        dec.system({"rough": 0.05}, representation="bordered")
    with pytest.raises(HyperparameterError, match="^representation must be one of .*got .lu."):
        dec.system(representation="lu")


# ---------------------------------------------------------------- the range of K (2026-11-30)
def _sinc_graph(n: int = 60, half: float = 2.0, seed: int = 0):
    from lssvm_cvx.terms import knn_laplacian
    rng = np.random.default_rng(seed)
    X = rng.uniform(-half, half, (n, 2))
    y = np.sinc(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, y, np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), knn_laplacian(X, 8)


@pytest.mark.parametrize("unlabelled", [False, True])
def test_the_range_of_k_agrees_with_refits_in_40_digits_where_the_augmented_system_did_not(
        unlabelled):
    """RKHS norm (weight 1e-5) + a kNN graph's smoothness of the fitted values (1e-2) on 60
    points, K's condition about 4e6: the fit and the exact LOO residuals against the same
    problem solved in 40-digit arithmetic (mpmath), in ``f = Kα`` (``α'Kα = f'K⁻¹f``) with K
    computed in that precision.  The engine now solves it in the range of K; on 66431c7's
    engine (the augmented system, and a generalised-eigen path) this test fails: its fitted
    values are 4e-3 ``||y||`` from the range's, its LOO residuals up to 5e-3 (checked by hand
    with the range refused), the range's within 1e-12 of the 40-digit ones.  ``unlabelled``:
    every third point has loss weight 0 (Laplacian RLS), which took the augmented system until
    the fifteenth session (at 1e-14's ridge: fit and LOO 3.2e-9 ``||y||`` off, the range's
    6e-13 and 1e-13, measured with ``representation="augmented"`` on the same problem)."""
    mp = pytest.importorskip("mpmath")
    X, y, K, L = _sinc_graph()
    n, w, wg = len(y), 1e-5, 1e-2
    sw = np.ones(n)
    if unlabelled:
        sw[::3] = 0.0
    dec = decompose(K, sw, {"rkhs": (RKHS, w), "graph": (FittedTerm(L), wg)})
    assert dec.representation() == "range"
    a, b = dec.solve(y)
    loo = dec.loo(y)
    _, _, path = dec.path("rkhs", [1e-3, w], y)
    np.testing.assert_array_equal(path[1], loo)         # the path is the systems' own
    mp.mp.dps = 40
    Xm = mp.matrix(X.tolist())
    Km = mp.matrix(n, n)
    for i in range(n):
        for j in range(n):
            Km[i, j] = mp.exp(-((Xm[i, 0] - Xm[j, 0]) ** 2 + (Xm[i, 1] - Xm[j, 1]) ** 2))
    F = w * mp.inverse(Km) + wg * mp.matrix(L.tolist())

    def exact(left: int | None):
        """``(f, b)`` with the point ``left`` out of the loss (None: the weights ``sw``)."""
        s = [0 if k == left else int(sw[k]) for k in range(n)]
        A, rhs = mp.matrix(n + 1, n + 1), mp.matrix(n + 1, 1)
        for k in range(n):
            for c in range(n):
                A[k, c] = F[k, c]
            A[k, k] += s[k]
            A[k, n] = A[n, k] = s[k]
            rhs[k] = s[k] * mp.mpf(float(y[k]))
        A[n, n] = sum(s)
        rhs[n] = sum(s[k] * mp.mpf(float(y[k])) for k in range(n))
        sol = mp.lu_solve(A, rhs)
        return np.array([float(sol[k]) for k in range(n)]), float(sol[n])

    ny = np.linalg.norm(y)
    f0, b0 = exact(None)
    assert np.abs(K @ a + b - (f0 + b0)).max() < 1e-11 * ny
    for i in range(1, n, 12):
        f, bi = exact(i)
        assert abs(y[i] - f[i] - bi - loo[i]) < 1e-11 * ny
    assert np.all(np.isnan(loo[sw == 0]))


@pytest.mark.parametrize(("n", "half"), [(60, 2.0), (150, 3.0)])
def test_the_augmented_systems_ridge_sits_below_the_penalty_so_its_fit_is_the_range_s(n, half):
    """The problem of the test above with the graph term given as the plain matrix ``K L K``
    (as a user's ``Quadratic(P)`` term hands it over: the engine cannot see it is on the fitted
    values, so the augmented system with its ridge solves it), against the range of K (held to the
    40-digit solves above).  Until the fourteenth session the ridge was ``1e-10·max|A|``, above
    the penalty's smallest eigenvalues (2.5e-11 at N = 60), and the refinement (stopped when the
    residual of (A) stops halving, which it does after a step) did not bring the fitted values
    back: they were 4.1e-3 ``||y||`` off at N = 60 and 8.0e-4 at N = 150, the LOO residuals
    5.3e-3 and 3.4e-3; with the ridge ``1e-14·max|A|``, 7.2e-9 / 6.0e-9 and 1.7e-8 / 1.8e-8
    (``notes/augmented_ridge.md``)."""
    X, y, K, L = _sinc_graph(n, half)
    w, wg, ny = 1e-5, 1e-2, np.linalg.norm(y)
    ref = decompose(K, np.ones(n), {"rkhs": (RKHS, w), "graph": (FittedTerm(L), wg)})
    dec = decompose(K, np.ones(n), {"rkhs": (RKHS, w), "graph": (K @ L @ K, wg)})
    assert (ref.representation(), dec.representation()) == ("range", "augmented")
    sysm = dec.system()
    a, b = sysm.solve(y)
    a0, b0 = ref.solve(y)
    diag = sysm.diagnostics(y)
    assert diag["jitter"] > 0 and diag["refinement_steps"] >= 1
    assert np.abs(K @ a + b - (K @ a0 + b0)).max() < 1e-7 * ny
    assert np.abs(sysm.loo(y) - ref.loo(y)).max() < 1e-7 * ny


def test_a_term_written_on_the_fitted_values_gets_its_matrix_and_the_range_of_k():
    """A user's term that defines only ``fitted_quadratic`` (``½ f'Mf``, ``f = Kα``) is
    quadratic with ``P = K M K``; its model is solved in the range of K, and its fit, LOO
    residuals and path equal those of the same model written with ``P`` itself
    (:class:`~lssvm_cvx.terms.Quadratic`, the augmented system) where both are accurate."""
    from lssvm_cvx.formulations import RegularizedLSSVM
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.terms import Quadratic, RKHSNorm, Term

    X, y, K, L = _sinc_graph(n=50, seed=3)

    class FittedSmoothness(Term):
        def fitted_quadratic(self, ctx):
            return L

    ours = RegularizedLSSVM(X, y, kernel=RBF(0.3),
                            terms={"rkhs": (RKHSNorm(), 0.1), "smooth": (FittedSmoothness(), 0.05)})
    theirs = RegularizedLSSVM(X, y, kernel=RBF(0.3),
                              terms={"rkhs": (RKHSNorm(), 0.1),
                                     "smooth": (Quadratic(ours.context.K @ L @ ours.context.K), 0.05)})
    assert FittedSmoothness().is_quadratic
    assert ours.decomposition().representation() == "range"
    assert theirs.decomposition().representation() == "augmented"
    np.testing.assert_allclose(ours.terms_["smooth"][0].matrix(ours.context),
                               ours.context.K @ L @ ours.context.K, rtol=1e-12, atol=1e-15)
    a, b = ours.decomposition().solve(y)
    a0, b0 = theirs.decomposition().solve(y)
    Kx = ours.context.K
    np.testing.assert_allclose(Kx @ a + b, Kx @ a0 + b0, atol=1e-9 * np.linalg.norm(y))
    np.testing.assert_allclose(ours.loo_residuals(), theirs.loo_residuals(),
                               atol=1e-9 * np.linalg.norm(y))
    ws = [0.01, 1.0]
    np.testing.assert_allclose(ours.path("smooth", ws).residuals,
                               theirs.path("smooth", ws).residuals, atol=1e-9 * np.linalg.norm(y))
    # the cvxpy builder and its twin see the same term
    sol = ours.solve(solver="CLARABEL")
    np.testing.assert_allclose(Kx @ sol.values["alpha"] + sol.values["b"], Kx @ a + b,
                               atol=1e-5 * np.linalg.norm(y))


def test_a_fitted_values_term_zero_on_the_range_of_k_changes_nothing():
    """A term ``f'Mf`` that vanishes on every ``f`` in K's range (here K = 11'
    (rank one) and M a complete graph's Laplacian, ``M1 = 0``: zero to rounding on K's range)
    is dropped from the range's design rather than refused for its non-positive trace: the
    fit and the LOO residuals are those of the RKHS norm alone, at any weight of the term."""
    K, y, s, _ = _problem(n=12)
    one = np.ones(12)
    Kc = np.outer(one, one)
    M = 12 * np.eye(12) - Kc
    dec = decompose(Kc, s, {"rkhs": (RKHS, 0.3), "g": (FittedTerm(M), 5.0)})
    ref = decompose(Kc, s, {"rkhs": (RKHS, 0.3)})
    assert dec.representation() == "range"
    assert dec.range_design()[0].names == ["rkhs"]
    a, b = dec.solve(y)
    a0, b0 = ref.solve(y)
    np.testing.assert_allclose(Kc @ a + b, Kc @ a0 + b0, atol=1e-10)
    np.testing.assert_allclose(dec.loo(y), ref.loo(y), atol=1e-10)


@pytest.mark.parametrize("ns", ["array_api_strict", "torch-cpu"])
def test_a_fitted_values_term_on_another_namespace_is_the_augmented_system(ns, to_namespace,
                                                                          to_numpy):
    """The range of K is NumPy's; on another namespace a :class:`FittedTerm` is formed there as
    ``K M K`` and factorised by the augmented system, whose LOO residuals equal NumPy's range
    on a well-conditioned Gram (narrow RBF, condition about 1e9) to 1e-12."""
    conv = to_namespace(ns)
    rng = np.random.default_rng(0)
    n = 30
    x = rng.uniform(-2, 2, n)
    K = np.exp(-(x[:, None] - x[None]) ** 2 / 0.05)
    y = np.sin(2 * x)
    M = np.diag(np.r_[1.0, 2.0 * np.ones(n - 2), 1.0]) - np.eye(n, k=1) - np.eye(n, k=-1)
    terms = {"rkhs": (RKHS, 0.1), "g": (FittedTerm(M), 0.05)}
    dec, ddec = decompose(K, np.ones(n), terms), decompose(conv(K), conv(np.ones(n)), terms)
    assert (dec.representation(), ddec.representation()) == ("range", "augmented")
    np.testing.assert_allclose(to_numpy(ddec.loo(conv(y))), dec.loo(y), rtol=0, atol=1e-12)


# ------------------------------------------------ one decomposition for a grid of weights
def test_a_reweighted_decomposition_shares_what_is_formed_and_equals_a_fresh_one():
    """:meth:`Decomposition.reweighted` changes the default weights only: the term matrix
    (a callable here, counted) and the range of K's eigendecomposition are formed once for
    every copy, and each copy's solve, LOO and path equal those of a decomposition built at its
    weights."""
    X, y, K, L = _sinc_graph(n=40, seed=1)
    calls = []

    def graph():
        calls.append(1)
        return K @ L @ K

    n = len(y)
    base = decompose(K, np.ones(n), {"rkhs": (RKHS, 0.1), "graph": (FittedTerm(L), 0.01),
                                     "plain": (graph, 0.0)})
    designs = set()
    for w_rkhs, w_plain in [(0.1, 0.0), (0.01, 0.0), (0.01, 0.02), (1.0, 0.02)]:
        dec = base.reweighted({"rkhs": w_rkhs, "plain": w_plain})
        fresh = decompose(K, np.ones(n), {"rkhs": (RKHS, w_rkhs), "graph": (FittedTerm(L), 0.01),
                                          "plain": (K @ L @ K, w_plain)})
        assert dec.weights() == fresh.weights() and base.weights()["rkhs"] == 0.1
        assert dec.representation() == fresh.representation()
        np.testing.assert_allclose(dec.loo(y), fresh.loo(y), rtol=0, atol=1e-12)
        for got, ref in zip(dec.path("graph", [1e-3, 1.0], y), fresh.path("graph", [1e-3, 1.0], y)):
            np.testing.assert_allclose(np.array(got), np.array(ref), rtol=0, atol=1e-10)
        if dec.representation() == "range":
            designs.add(id(dec.range_design()[0]))
    assert len(calls) == 1 and len(designs) == 1
    with pytest.raises(HyperparameterError, match="^term must be one of"):
        base.reweighted({"nope": 1.0})


def test_a_grid_over_two_weights_forms_a_terms_matrix_once_per_sigma2():
    """``RegularizedLSSVMRegressor`` with a grid over the RKHS weight and a user's
    fitted-values term: the term's matrix is formed once per σ² (until the fourteenth session,
    once per σ² and RKHS weight, 7 times here, each with the Gram and K's eigendecomposition),
    and the scores equal those of one estimator per RKHS weight."""
    from lssvm_cvx import RegularizedLSSVMRegressor
    from lssvm_cvx.terms import RKHSNorm, Term

    X, y, _, L = _sinc_graph(n=40, seed=2)
    calls = []

    class Counted(Term):
        def fitted_quadratic(self, ctx):
            calls.append(1)
            return L

    terms = {"smooth": (Counted(), 0.01), "rkhs": (RKHSNorm(), 0.1)}
    grid = {"smooth": [1e-3, 1e-1], "rkhs": [1e-2, 1e-1, 1.0]}
    est = RegularizedLSSVMRegressor(terms=terms, selection="loo", loo="loss",
                                    sigma2_grid=[0.5, 1.0], weight_grid=grid).fit(X, y)
    assert len(calls) == 2 + 1                  # per σ², and the final fit at the best weights
    scores = est.cv_results_["mean_test_score"]
    for s2 in (0.5, 1.0):
        for wr in grid["rkhs"]:
            one = RegularizedLSSVMRegressor(terms={**terms, "rkhs": (RKHSNorm(), wr)},
                                            selection="loo", loo="loss", sigma2=s2,
                                            weight_grid={"smooth": grid["smooth"]}).fit(X, y)
            rows = [k for k, p in enumerate(est.cv_results_["params"])
                    if p.get("sigma2") == s2 and p["terms__rkhs"] == wr]
            np.testing.assert_allclose(scores[rows], one.cv_results_["mean_test_score"],
                                       rtol=0, atol=1e-12)
