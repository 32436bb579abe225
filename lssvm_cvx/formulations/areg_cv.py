"""Fusion of AReg training with L-fold cross-validation (Pelckmans, Suykens & De Moor 2006,
§5 and Appendix A.6).

* :class:`ARegCV` [``areg_cv``] — the full implementation: one vector ``c`` shared by all
  folds (eq. 34), the per-fold AReg training and validation equations (eq. 29-32) stacked
  into one linear system (the paper's eq. 37, lost in the text and re-derived below), solved
  with the least-squares criterion of §5.2.  :class:`ARegClassifierCV`
  [``areg_classifier_cv``] is the same for the classifier.
* :class:`ARegFastCV` [``areg_fast_cv``] — the fast implementation: the dual
  characterisation with ``Ω_CV`` (Lemma 5.2, eq. 45-48) fused with the validation equations
  and weight ``ξ`` (Algorithm 5.1, eq. 52); :class:`ARegClassifierFastCV`
  [``areg_classifier_fast_cv``] is eq. (67)-(69).
* :class:`ARegStability` [``areg_stability``] — the α-stability variant (Remark 5.3,
  eq. 55-56) with the ∞-norm, a second-order cone program (no closed form).

Folds: ``V_1..V_L`` partition the ``N`` points; ``T_l`` is the complement of ``V_l``.

Derivation of the stacked system (the lost eq. 37)
--------------------------------------------------
Fold ``l`` trains AReg (eq. 29) on ``T_l`` with constants ``c^{(l)} = c[T_l]`` (eq. 34:
``c^{(l)} = I(T_l, D) c``, the indicator matrix of eq. 33) and validates on ``V_l``
(eq. 31).  Eq. (32) for fold ``l`` in the unknowns ``(c^{(l)}, e^{(l)v}, b^{(l)}, α^{(l)})``
is, with ``a = 1`` the bias border and ``r = y``::

    a_T'α^{(l)}                                           = 0         (bias, 1 row)
    e^v[V_l]  + a_V b^{(l)} + Ω_{V_l T_l} α^{(l)}          = r[V_l]    (validation, n_l rows)
    c[T_l]    + a_T b^{(l)} + (Ω_{T_l T_l} + I) α^{(l)}    = r[T_l]    (training, N_l rows)

Each point is validated exactly once, so ``e^{(l)v} = e^v[V_l]`` (below eq. 32) and the
validation residuals of all folds form one vector ``e^v ∈ R^N``.  Substituting (34) and
stacking the folds gives eq. (37): ``(N + 1)L`` equations (``1 + n_l + N_l = N + 1`` per fold)
in the ``(N + 1)L + N`` unknowns ``z = (c ∈ R^N, e^v ∈ R^N, b ∈ R^L, α^{(1..L)} ∈ R^{(L-1)N})``::

    [ 0          0          0       A_bias  ] [ c   ]   [ 0   ]
    [ 0          I(V, D)    B_V     W       ] [ e^v ] = [ r_V ]      (eq. 37,
    [ I(T, D)    0          B_T     H       ] [ b   ]   [ r_T ]       :meth:`ARegCV.stacked_system`)
                                              [ α   ]

with ``H = blkdiag_l(Ω_{T_l T_l} + I)``, ``W = `` the ``Ω_{V_l T_l}`` blocks,
``B_T = blkdiag_l(a[T_l])``, ``B_V = blkdiag_l(a[V_l])``, ``A_bias = blkdiag_l(a[T_l]')``
and ``I(T, D)`` the stacked indicator matrices of eq. (33).  For fixed ``c`` the remaining
``(N+1)L`` unknowns are determined (each fold is the bordered system (9) with
``Ω_{T_l} + I ≻ 0``): they are exactly the per-fold AReg solutions (``test_cv_stacked_
system_with_fixed_c``).  The ``N`` extra degrees of freedom are ``c``, fixed by the criterion
of §5.2, the sum over the folds of the Lemma 3.2 cost::

    min  ½ Σ_l ||α^{(l)} + c[T_l]||² + ½ ||e^v||²   s.t. eq. (37)

(``α^{(l)} + c[T_l]`` are fold ``l``'s training residuals, eq. 30a).  This is the builder.

Closed form.  By (9), fold ``l``'s solution is affine in ``c``:
``α^{(l)} = C_l(r_T - c_T)``, ``b^{(l)} = g_l'(r_T - c_T)``, with ``C_l`` the α-block of the
inverse of ``[[0, a_T'], [a_T, Ω_{T_l} + I]]`` and ``g_l = H_l^{-1}a_T / (a_T'H_l^{-1}a_T)``.
Hence the training residuals ``α^{(l)} + c_T = C_l r_T + (I - C_l)c_T`` and the validation
residuals ``e^v[V_l] = r_V - K_l r_T + K_l c_T`` with ``K_l = Ω_{V_l T_l}C_l + a_V g_l'`` are
affine in ``c``, and the criterion is an ordinary least-squares problem in ``c ∈ R^N``
(``LN`` rows).  It is solved through its normal equations (Cholesky when well conditioned,
else the minimum-norm eigen-solve of :func:`~lssvm_cvx.formulations.areg.min_norm_lstsq`:
with a linear kernel, or an RBF Gram singular to working precision, the models are unique but
``c`` is not).  Cost: one factorization and one
explicit ``C_l`` per fold plus the ``LN × N`` solve — against a dense solve of the
``((N+1)L + N)``-unknown KKT system of eq. (37) (tested to agree on small problems).

Ill-posedness and the well-posed variants.  The least-squares matrix ``G`` in ``c``
(:meth:`ARegCV.cv_lstsq`, ``LN × N``) is numerically rank deficient for wide kernels (see the
condition numbers in ``benchmarks/results/areg_cv_wellposed.md``), and its
exact minimum-norm optimum fits those directions with huge ``c``.  Two regularized solutions:
:meth:`ARegCV.solve_lsqr` (``k`` LSQR steps from ``c = 0``: the minimiser over the Krylov space
``K_k(G'G, G'h)``, the paper's CG route of Remark 5.4) and :meth:`ARegCV.solve_tikhonov`
(``(G'G + μI)c = G'h``, ``μ`` by GCV of the final model, :meth:`ARegCV.final_gcv`; not in the
paper).

Lemma 5.2 and the fast algorithm: which weight multiplies Ω_CV
--------------------------------------------------------------
In eq. (44) each training point's fitted value is averaged over the ``L - 1`` fold models
that train on it: ``(1/(L-1)) Σ_{l: k ∈ T_l} w^{(l)'}φ(x_k)`` with ``w^{(l)} = Σ_{i∈T_l} α_i
φ(x_i)`` (50b).  The pair ``(i, k)`` is trained on together in ``L - 2`` folds when ``i`` and
``k`` are validated in different folds and in ``L - 1`` folds when they share a validation
fold, so (eq. 51)::

    (1/(L-1)) Σ_{l: k ∈ T_l} w^{(l)'}φ(x_k) = [((L-2)/(L-1)) Ω + (1/(L-1)) Ω_CV] α       (*)

with ``Ω_CV`` the block diagonal of eq. (45).  Eq. (46) prints ``1/(L-1) Ω_CV`` — correct;
eq. (52) (and 67) print ``1/L Ω_CV`` — wrong (``test_fast_cv_omega_cv_weight`` fails on it).
The validation residual of point ``j ∈ V_l`` under fold model ``l`` (eq. 47) is
``e^v_j = y_j - Σ_{i ∈ T_l} α_i K(x_i, x_j) - b = y_j - ((Ω - Ω_CV)α)_j - b``, so with the
averaged training residual ``ē = y - (*) - b``::

    ē - e^v = (1/(L-1)) (Ω - L Ω_CV) α.

Eq. (52) writes the third block row as ``(-1/(L-1) Ω_CV + L/(L-1) Ω) α + (ē - e^v) = 0``,
i.e. ``ē - e^v = (1/(L-1))(Ω_CV - L Ω) α``: Ω and Ω_CV are swapped in print (eq. 67 prints yet
another form, ``(1/(L-1))(Ω_CV,y - Ω_y)``).  We use ``(LΩ_CV - Ω)/(L-1) α + (ē - e^v) = 0``
(``test_fast_cv_third_row``).

Two more slips of §5.2: with the printed weight ``1/(2(L-1))`` on the fitting term of
(43)-(44), stationarity in ``ē_i`` gives ``ē_i = c_i + (L-1)α_i``, not (50a)
``ē_i = c_i + α_i``; eq. (46) (its ``+ I_N``) and (50a) hold with the weight ``½``, which we
use (``test_fast_cv_primal_weight``).  And eq. (41) defines the CV model as the average of the
``L`` fold models, ``w̄ = (1/L)Σ_l w^{(l)}``, which by (50b) is
``((L-1)/L) Σ_i α_i φ(x_i)``, while eq. (48) prints ``w̄ = Σ_i α_i φ(x_i)`` (that is
``(1/(L-1))Σ_l w^{(l)}``, the average appropriate for a *training* point, which lies in only
``L - 1`` training sets).  A new point is in no validation set, so every fold model applies:
we evaluate (41), ``f(x) = ((L-1)/L) Σ_i α_i K(x_i, x) + b`` (:meth:`ARegFastCV.model`;
``test_fast_cv_model_eq41``).  It also generalizes markedly better than the printed (48): on
200 draws of the linear toy of Table 2, test MSE 0.50 against 0.93; on sinc 0.020 against
0.026 (ξ = 1; the paper's own fast-CV numbers, 0.59 and 0.024, are in line with (41)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..checks import as_gram
from ..exceptions import HyperparameterError
from ..kernels import RBF, Kernel
from ..linalg.folds import check_folds, make_folds
from ..linalg.lstsq import LSQR_ITER, MU_GRID, normal_lstsq
from ..linalg.scores import gcv_score
from ..solution import Solution
from .areg import AREG_REF, ARegData, default_width
from .base import BuiltProblem, Reference
from .lssvm import AREG_PAPER
from .tasks import classifier_preset

__all__ = [
    "make_folds",
    "omega_cv",
    "fast_cv_matrices",
    "ARegCV",
    "ARegClassifierCV",
    "FoldData",
]


def omega_cv(Omega: np.ndarray, folds: Sequence[np.ndarray]) -> np.ndarray:
    """``Ω_CV`` of eq. (45): the blocks ``Ω_{V_l V_l}`` on the diagonal, zero elsewhere
    (``folds``: a partition of the points, :func:`~lssvm_cvx.linalg.folds.check_folds`)."""
    Omega = as_gram(Omega)
    return _omega_cv(Omega, check_folds(folds, Omega.shape[0]))


def _omega_cv(Omega: np.ndarray, folds: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`omega_cv` on a checked Gram and partition."""
    out = np.zeros_like(Omega)
    for f in folds:
        out[np.ix_(f, f)] = Omega[np.ix_(f, f)]
    return out


def fast_cv_matrices(Omega: np.ndarray, folds: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(A, D)`` of the fast CV system: the averaged training map of eq. (46),
    ``A = ((L-2)/(L-1)) Ω + (1/(L-1)) Ω_CV``, and the third block row of eq. (52) as derived in
    the module docstring, ``D = (L Ω_CV - Ω)/(L-1)`` (so that ``Dα + (ē - e^v) = 0``)."""
    Omega = as_gram(Omega)
    folds = check_folds(folds, Omega.shape[0])   # before len(): an int is refused by name
    L = len(folds)
    Ocv = _omega_cv(Omega, folds)
    A = ((L - 2) * Omega + Ocv) / (L - 1)
    D = (L * Ocv - Omega) / (L - 1)
    return A, D


class FoldData(ARegData):
    """Training data with a partition into folds (``folds``: an int ``L`` or index sets)."""

    def __init__(self, X: Any, y: Any, *, folds: int | Sequence[Sequence[int]] | None = 10,
                 seed: int | None = 0, kernel: Kernel | None = None, Omega: Any | None = None,
                 task: str | None = None):
        super().__init__(X, y, kernel=kernel, Omega=Omega, task=task)
        self.folds = folds
        self.seed = seed

    @property
    def fold_sets(self) -> list[np.ndarray]:
        """The validated validation sets ``V_1..V_L`` (cached)."""
        f = self.folds
        key = (f if f is None or isinstance(f, (int, np.integer)) else id(f), self.seed, self.n)
        if getattr(self, "_folds_key", None) != key:
            self._fold_sets = make_folds(self.n, self.folds, self.seed)
            self._folds_key = key
        return self._fold_sets

    def train_sets(self) -> list[np.ndarray]:
        """``T_l``: the complement of each ``V_l`` (sorted)."""
        mask = np.ones(self.n, dtype=bool)
        out = []
        for v in self.fold_sets:
            mask[:] = True
            mask[v] = False
            out.append(np.flatnonzero(mask))
        return out

    def validate(self) -> None:
        self.rhs()
        _ = self.fold_sets  # validates the folds


# ------------------------------------------------------------------------------ item 4: full CV
class ARegCV(FoldData):
    """Fusion of AReg training with L-fold cross-validation, one ``c`` for all folds
    (§5.1-5.2, eq. 29-34 and the stacked system (37) derived in the module docstring).

    Builder (the least-squares criterion of §5.2 under eq. 37)::

        min  ½ Σ_l ||α^{(l)} + c[T_l]||² + ½ ||e^v||²
        s.t. (Ω_{T_l} + I)α^{(l)} + 1 b^{(l)} + c[T_l] = y[T_l]     ("training", all l)
             1'α^{(l)} = 0                                           ("bias", all l)
             Ω_{V_l T_l}α^{(l)} + 1 b^{(l)} + e^v[V_l] = y[V_l]      ("validation", all l)

    ``alpha`` is the stacked ``(α^{(1)}, ..., α^{(L)})`` (length ``(L-1)N``), ``b`` has one
    bias per fold.  No hyperparameter: ``c`` is a variable.  The closed form solves the
    least-squares problem in ``c`` (module docstring).  The final model of §6 ("a model
    computed on the complete dataset with the regularization trade-off tuned") is AReg (9) on
    all ``N`` points with this ``c``: :meth:`final_model`.

    Parameters
    ----------
    X, y :
        Data (all ``N`` points; each is validated in one fold).
    folds :
        ``L`` (shuffled folds seeded by ``seed``) or the validation index sets.
    """

    name: ClassVar[str] = "areg_cv"
    reference = Reference(AREG_REF, AREG_PAPER, {"per fold": "(29)-(32)", "shared c": "(34)",
                                                  "stacked system": "(37), derived",
                                                  "criterion": "§5.2"})
    has_closed_form = True
    compare = ("c", "alpha", "b", "e_v")
    _blk: dict[str, Any] | None  # lazily set by :meth:`_blocks`

    # --- the stacked system -------------------------------------------------------------
    def _blocks(self) -> dict[str, Any]:
        blk = getattr(self, "_blk", None)
        if blk is None or blk["folds"] is not self.fold_sets:
            O, a, r = self.omega(), self.border(), self.rhs()
            V, T = self.fold_sets, self.train_sets()
            N, L = self.n, len(V)
            sizes = [t.size for t in T]
            offs = np.concatenate([[0], np.cumsum(sizes)])
            H = sp.block_diag([O[np.ix_(t, t)] + np.eye(t.size) for t in T], format="csr")
            W = sp.lil_matrix((N, offs[-1]))
            BV = np.zeros((N, L))
            for l, (v, t) in enumerate(zip(V, T)):
                W[v, offs[l]:offs[l + 1]] = O[np.ix_(v, t)]
                BV[v, l] = a[v]
            BT = sp.block_diag([a[t][:, None] for t in T], format="csr")
            S = sp.vstack([sp.eye(N, format="csr")[t] for t in T], format="csr")
            blk = self._blk = dict(folds=self.fold_sets, H=H, W=W.tocsr(), BV=BV, BT=BT, S=S,
                                   offs=offs, rT=np.concatenate([r[t] for t in T]))
        return blk

    def stacked_system(self) -> tuple[np.ndarray, np.ndarray]:
        """The dense matrix and right-hand side of eq. (37): ``(N+1)L`` rows, unknowns
        ``z = (c, e^v, b, α^{(1..L)})``, rows per fold in the order of eq. (32) (bias,
        validation, training)."""
        blk = self._blocks()
        O, a, r = self.omega(), self.border(), self.rhs()
        V, T = self.fold_sets, self.train_sets()
        N, L, offs = self.n, len(V), blk["offs"]
        ncol = 2 * N + L + offs[-1]
        rows, rhs = [], []
        for l, (v, t) in enumerate(zip(V, T)):
            block = np.zeros((1 + v.size + t.size, ncol))
            ja = 2 * N + L + offs[l]
            block[0, ja:ja + t.size] = a[t]
            block[1 + np.arange(v.size), N + v] = 1.0
            block[1:1 + v.size, 2 * N + l] = a[v]
            block[1:1 + v.size, ja:ja + t.size] = O[np.ix_(v, t)]
            block[1 + v.size + np.arange(t.size), t] = 1.0
            block[1 + v.size:, 2 * N + l] = a[t]
            block[1 + v.size:, ja:ja + t.size] = O[np.ix_(t, t)] + np.eye(t.size)
            rows.append(block)
            rhs.append(np.concatenate([[0.0], r[v], r[t]]))
        return np.vstack(rows), np.concatenate(rhs)

    def _build(self) -> BuiltProblem:
        blk = self._blocks()
        N, L, M = self.n, len(self.fold_sets), blk["offs"][-1]
        c, e_v = cp.Variable(N, name="c"), cp.Variable(N, name="e_v")
        alpha, b = cp.Variable(M, name="alpha"), cp.Variable(L, name="b")
        objective = cp.Minimize(0.5 * cp.sum_squares(alpha + blk["S"] @ c) + 0.5 * cp.sum_squares(e_v))
        constraints = {
            "training": blk["H"] @ alpha + blk["BT"] @ b + blk["S"] @ c == blk["rT"],
            "bias": blk["BT"].T @ alpha == 0,
            "validation": blk["W"] @ alpha + blk["BV"] @ b + e_v == self.rhs(),
        }
        return BuiltProblem(objective, constraints,
                            vars={"c": c, "alpha": alpha, "b": b, "e_v": e_v})

    def residuals(self, alpha: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stacked per-fold training residuals and the validation residuals ``e^v`` of the fold
        models ``(α^{(l)}, b^{(l)})``."""
        blk = self._blocks()
        Ht = blk["H"] - sp.eye(blk["H"].shape[0])
        E = blk["rT"] - Ht @ alpha - blk["BT"] @ b
        e_v = self.rhs() - blk["W"] @ alpha - blk["BV"] @ b
        return E, e_v

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """``½ Σ_l ||y_T - Ω_Tα^{(l)} - b^{(l)}||² + ½ Σ_l ||y_V - Ω_{VT}α^{(l)} - b^{(l)}||²``."""
        E, e_v = self.residuals(np.asarray(values["alpha"]), np.asarray(values["b"]).reshape(-1))
        return float(0.5 * E @ E + 0.5 * e_v @ e_v)

    def solve_lsqr(self, iter_lim: int = LSQR_ITER) -> Solution:
        """The least-squares problem in ``c`` by ``iter_lim`` LSQR (CG) steps, the paper's
        iterative route: an implicitly regularized ``c``, not the optimum of the criterion.
        The iterate is the minimiser of ``||Gc - h||`` over the Krylov space
        ``K_k(G'G, G'h)`` (``G, h`` of :meth:`cv_lstsq`; ``test_cv_lsqr_is_krylov_solution``)."""
        self.validate()
        sol = self._solve("lsqr", iter_lim, duals=False)
        sol.backend = f"lsqr({iter_lim})"
        sol.objective = self.objective(sol.values)
        return sol

    def solve_tikhonov(self, mu: float | str = "gcv") -> Solution:
        """The well-posed variant of the CV fusion (not in the paper): Tikhonov regularization
        on ``c``, ``min ||Gc - h||² + μ||c||²`` (``G, h`` of :meth:`cv_lstsq`, so ``||Gc - h||²``
        is twice the criterion of §5.2), i.e. ``(G'G + μI)c = G'h``.

        ``mu`` is a number ``> 0``, or the name of the inner criterion that chooses it on the
        grid ``σ_max(G)² × MU_GRID`` (:data:`~lssvm_cvx.linalg.lstsq.MU_GRID`):

        * ``"gcv"`` (default) — generalized cross-validation of the *final model* (AReg (9) on
          all ``N`` points with ``c_μ``, :meth:`final_model`) as a linear smoother of the
          targets: ``c_μ = R_μ r`` is linear in ``r``, so the fitted values are
          ``S_μ r = H(I - R_μ)r`` with ``H`` the hat matrix of (9), and
          ``GCV(μ) = N ||r - S_μ r||² / (N - tr S_μ)²`` (:meth:`final_gcv`).  The degrees of
          freedom spent on ``c`` count: ``μ → 0`` (the exact optimum) pays for them.
        * ``"gcv_lstsq"`` — GCV of the least-squares problem in ``c`` itself
          (:func:`~lssvm_cvx.linalg.lstsq.tikhonov_lstsq`); its rows are not exchangeable
          observations and on wide kernels it selects the smallest ``μ`` (no regularization;
          ``benchmarks/results/areg_cv_wellposed.md``): kept for that comparison.

        ``extras["lstsq"]`` holds the chosen ``mu``, the singular values ``s`` of ``G`` and the
        curve.  The exact optimum (:meth:`closed_form`) is ill-posed: ``G`` is numerically rank
        deficient with wide kernels; the paper regularizes only by stopping CG early
        (:meth:`solve_lsqr`)."""
        self.validate()
        sol = self._solve("tikhonov", 0, duals=False, mu=mu)
        mu_v = sol.extras["lstsq"]["mu"]
        sol.backend = f"tikhonov(mu={mu_v:.3g})"
        sol.objective = self.objective(sol.values)
        return sol

    def final_gcv(self, mus: np.ndarray, svd: tuple[np.ndarray, ...] | None = None
                  ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """GCV of the final model over the Tikhonov path ``c_μ`` (``solve_tikhonov("gcv")``),
        for every ``μ`` in ``mus``, and the thin SVD ``(U, s, Vt, h)`` of ``G`` used.

        With ``G = U diag(s) V'``, ``β = U'h``, ``φ_i = s_i/(s_i² + μ)``: ``c_μ = V(φ∘β)``.
        ``h = D r`` with ``D = G - E`` (``E`` stacks the row selections of the folds: the
        training rows of fold ``l`` are ``(I - C_l)`` on ``T_l``, its validation rows ``K_l``,
        module docstring), so ``R_μ = V diag(φ) U'D``.  With ``H = I - C`` (``C`` the
        α-block of the inverse of the bordered matrix of eq. 9 on all points; fitted values
        ``Ωα + ab = H(r - c)``) and ``P = HV``::

            r - S_μ r = (I - H) r + P(φ∘β)
            tr S_μ    = tr H - Σ_i φ_i [s_i (V'P)_ii - (U'EP)_ii]

        One SVD of the ``LN × N`` matrix ``G`` and one ``N × N`` product; ``O(N²)`` per ``μ``.
        """
        if svd is None:
            G, h, _ = self._parts()
            U, s, Vt = np.linalg.svd(G, full_matrices=False)
            svd = (U, s, Vt, h)
        U, s, Vt, h = svd
        r = self.rhs()
        C, _ = self.system().inverse()
        H = np.eye(self.n) - C
        P = H @ Vt.T
        rows = np.concatenate([np.concatenate([t, v]) for v, t in zip(self.fold_sets,
                                                                        self.train_sets())])
        dEP = np.sum(U * P[rows], axis=0)
        dDP = s * np.sum(Vt * P.T, axis=1) - dEP
        beta = U.T @ h
        mus = np.asarray(mus, dtype=float)
        phi = s[None, :] / (s[None, :] ** 2 + mus[:, None])
        res = (r - H @ r)[:, None] + P @ (phi * beta[None, :]).T
        trS = np.trace(H) - phi @ dDP
        return gcv_score(np.sum(res ** 2, axis=0), self.n, self.n - trS), svd

    def closed_form(self) -> Solution:
        return self._solve("exact", 0, duals=True)

    def _parts(self) -> tuple[np.ndarray, np.ndarray, list[tuple[Any, np.ndarray, np.ndarray]]]:
        O, a, r = self.omega(), self.border(), self.rhs()
        V, T = self.fold_sets, self.train_sets()
        N = self.n
        G_rows, h_rows, parts = [], [], []
        for v, t in zip(V, T):
            sys = self.system(t)
            C, g = sys.inverse()
            K = O[np.ix_(v, t)] @ C + np.outer(a[v], g)
            Gt = np.zeros((t.size, N))
            Gt[:, t] = np.eye(t.size) - C
            Gv = np.zeros((v.size, N))
            Gv[:, t] = K
            G_rows += [Gt, Gv]
            h_rows += [C @ r[t], r[v] - K @ r[t]]
            parts.append((sys, v, t))
        return np.vstack(G_rows), -np.concatenate(h_rows), parts

    def cv_lstsq(self) -> tuple[np.ndarray, np.ndarray]:
        """``(G, h)`` with ``||Gc - h||² = Σ_l ||α^{(l)} + c[T_l]||² + ||e^v||²`` (twice the
        criterion of §5.2; module docstring, "Closed form"): the
        ``LN × N`` least-squares problem in ``c`` solved by every backend of this class.  Its
        singular values show the ill-posedness of the exact optimum."""
        self.validate()
        G, h, _ = self._parts()
        return G, h

    def _solve(self, method: str, iter_lim: int, duals: bool, mu: float | str = "gcv") -> Solution:
        O, a, r = self.omega(), self.border(), self.rhs()
        N = self.n
        G, h, parts = self._parts()
        if method == "tikhonov" and isinstance(mu, str) and mu == "gcv":
            U, sv, Vt = np.linalg.svd(G, full_matrices=False)
            mus = float(sv[0]) ** 2 * MU_GRID
            curve, _ = self.final_gcv(mus, (U, sv, Vt, h))
            k = int(np.argmin(curve))
            mu_v = float(mus[k])
            c = Vt.T @ (sv / (sv ** 2 + mu_v) * (U.T @ h))
            info = {"method": "tikhonov", "criterion": "gcv (final model)", "mu": mu_v, "s": sv,
                    "gcv": curve, "grid": mus, "at_boundary": k in (0, mus.size - 1)}
        else:
            if method == "tikhonov" and isinstance(mu, str):
                if mu != "gcv_lstsq":
                    raise HyperparameterError(
                        f"mu must be a number > 0, 'gcv' or 'gcv_lstsq', got {mu!r}")
                mu = "gcv"
            c, info = normal_lstsq(G, h, method, iter_lim, mu=mu)
        alphas, bs, e_v = [], [], np.empty(N)
        mus_l: list[np.ndarray] = []     # the duals of the training rows, per fold
        betas: list[float] = []
        for sys, v, t in parts:
            al, bl = sys.solve(r[t] - c[t])
            alphas.append(al)
            bs.append(bl)
            e_v[v] = r[v] - O[np.ix_(v, t)] @ al - a[v] * bl
        for (sys, v, t), al in zip(parts if duals else [], alphas):
            E = al + c[t]
            # stationarity in α^(l), b^(l): [[0, a_T'], [a_T, Ω_T + I]] [β; μ] = [a_V'e^v; -E + Ω_VT'e^v]
            mu_l, beta = sys.solve(-E + O[np.ix_(v, t)].T @ e_v[v], top=a[v] @ e_v[v])
            mus_l.append(mu_l)
            betas.append(float(beta))
        values = {"c": c, "alpha": np.concatenate(alphas), "b": np.array(bs), "e_v": e_v}
        if not duals:
            return Solution(values=values, extras={"lstsq": info})
        return Solution(values=values,
                        duals={"training": np.concatenate(mus_l), "bias": np.array(betas),
                               "validation": -e_v}, extras={"lstsq": info})

    def fold_models(self, solution: Solution) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """``[(T_l, α^{(l)}, b^{(l)}), ...]`` from a solution's stacked arrays."""
        offs = self._blocks()["offs"]
        al, b = solution["alpha"], np.asarray(solution["b"]).reshape(-1)
        return [(t, al[offs[l]:offs[l + 1]], float(b[l])) for l, t in enumerate(self.train_sets())]

    def final_model(self, solution: Solution) -> tuple[np.ndarray, float]:
        """AReg (9) on all ``N`` points with the cross-validated ``c``: ``(α, b)``."""
        alpha, b = self.system().solve(self.rhs() - solution["c"])
        return alpha, float(b)  # b is already a float for this one-column right-hand side

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, folds: int = 5,
                        sigma2: float | None = None, d: int = 3, **kwargs: Any) -> ARegCV:
        """``n`` points of ``lssvm_regression``, ``folds`` folds; the narrow default RBF width
        keeps the least-squares problem in ``c`` well conditioned (so solvers can be compared
        on ``c``; for wide kernels only the models are well determined): 0.1 at ``n ≤ 50``,
        :func:`~lssvm_cvx.formulations.areg.default_width` beyond (``lssvm_classification``
        and 0.5 for the classifier)."""
        from lssvm_cvx import problems

        base = {"regression": 0.1, "classification": 0.5}[cls.default_task]
        sigma2 = default_width(base, n, d) if sigma2 is None else sigma2
        ds = problems.get_problem(f"lssvm_{cls.default_task}", n=n, d=d, seed=seed, **kwargs)
        return cls(ds.X, ds.y, folds=folds, seed=seed, kernel=RBF(sigma2))


ARegClassifierCV = classifier_preset(
    ARegCV, "ARegClassifierCV", name="areg_classifier_cv",
    reference=Reference(AREG_REF, AREG_PAPER, {"classifier": "(59)-(61)", "per fold": "(32)",
                                               "shared c": "(34)", "A.6": "similar methodology"}),
    doc=""":class:`ARegCV` for the classifier (Appendix A.6 for the full implementation, which the
    paper leaves to "a similar methodology"): ``Ω_y``, border ``y``, right-hand side ``1``.""")


# ------------------------------------------------------------------------------ item 5: fast CV
