"""Kernel type per selected input by paired cross-validation (exact leave-one-out by
default), after a sparse componentwise fit with several candidate kernels per input
(componentwise LS-SVM chapter, §5.2 "STP with RBF and lin").

Why.  With RBF *and* linear candidates for every input the STP (eq. 25) selects the inputs
well but picks the kernel of a mildly curved input poorly: on the §5.2 example the sinc input
``x1`` often gets its linear candidate (row "no kernel choice" of
``benchmarks/results/componentwise_defaults.md``).  The penalty cannot separate the two
candidates of one input — the RBF span contains the linear function and eq. (25) charges only
the size of a component's output — so the choice is left to the data, by cross-validation and
the one-standard-error rule that prefers the simpler model (the protocol the estimators use
for λ):

1. For every input (column group) with a selected component, each candidate kernel of that
   input replaces the current one while the other inputs keep theirs; the componentwise
   LS-SVM (eq. 16) on that set is scored at its best γ of ``gammas`` by exact leave-one-out
   (``folds=None``, closed form: :func:`~lssvm_cvx.selection.lssvm.loo_residuals`) or exact
   k-fold CV (:func:`~lssvm_cvx.selection.lssvm.kfold_residuals`), and its held-out squared
   residuals are kept *per point*.
2. ``rule="one_se"``: the *simplest* candidate (fewest free output directions,
   :func:`~lssvm_cvx.formulations.componentwise_gnc.component_dimensions`: 1 for a linear
   component, ≈ 5-15 for a 1-D RBF one) whose mean held-out loss exceeds the best candidate's
   by at most one standard error of the *paired* per-point differences, ``std(l_c - l_best) /
   √N``.  ``rule="min"``: the smallest mean loss.
3. Inputs are visited in column order, and passes repeat until no choice changes (at most
   ``max_passes``).

Two choices, both made on the design seeds 5000-5019, 1000-1005 and 2000-2004 of the §5.2
example with the right inputs given.  The standard error is the paired one, not the fold-level ``std/√k`` of
:func:`~lssvm_cvx.selection.componentwise_cv.cv_path`: both candidates are scored on the same
points, so most of the noise cancels in the difference, and a linear ``x1`` that is within one
fold-level SE of the RBF one is usually not within one paired SE.  Leave-one-out rather than
10-fold: the per-point losses of 10-fold CV depend on the random fold assignment, and
borderline choices flipped with the fold seed; exact LOO has no such noise and costs one
factorization per γ.  The rates on seeds no design decision has seen are measured in
``benchmarks/componentwise_defaults.py`` (20 seeds) and ``benchmarks/componentwise_kernel_choice.py``
(100 seeds, with confidence intervals and the rate of every threshold ``c`` in "RBF iff the
linear candidate's loss exceeds the RBF one's by more than ``c`` paired SEs" — the one-SE rule
is ``c = 1``, ``rule="min"`` is ``c = 0``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.utils import check_array

from ..checks import as_matrix, as_targets, check_grid, check_integer, check_option
from ..exceptions import InputError
from ..formulations.componentwise import column_groups, component_columns_gram
from ..formulations.componentwise_basis import ComponentBasis
from ..formulations.componentwise_gnc import component_dimensions
from ..kernels import Kernel
from ..linalg.scores import leverage_residuals
from .lssvm import gamma_sweep, kfold_residuals, loo_residuals

__all__ = ["KernelChoice", "choose_kernels", "loo_factors", "simplest_within_one_se",
           "KERNEL_CHOICE_RULES"]

#: the rules :func:`choose_kernels` knows
KERNEL_CHOICE_RULES = ("one_se", "min")


def simplest_within_one_se(losses: np.ndarray, complexity: Sequence[float],
                           rule: str = "one_se") -> tuple[int, np.ndarray, np.ndarray]:
    """Pick one candidate from per-point held-out losses (one row per candidate).

    Parameters
    ----------
    losses : ndarray of shape (n_candidates, N)
        Held-out loss of every point under every candidate (same points, same folds).
    complexity : sequence of float
        A size per candidate; smaller is simpler (ties: the first).
    rule : {"one_se", "min"}
        ``"min"``: the smallest mean.  ``"one_se"``: the simplest candidate whose mean is at
        most the best mean plus the standard error of the paired differences to the best.

    Returns
    -------
    index : int
        The chosen candidate.
    mean : ndarray
        Mean loss of every candidate.
    se : ndarray
        Standard error of the paired difference to the best candidate (0 for the best).
    """
    check_option(rule, KERNEL_CHOICE_RULES, "rule")
    try:
        L = check_array(losses, dtype=np.float64, ensure_min_features=2, input_name="losses")
        c = check_array(complexity, dtype=np.float64, ensure_2d=False, input_name="complexity")
    except (TypeError, ValueError) as exc:
        raise InputError(f"losses must be (n_candidates, N >= 2) and complexity one finite "
                         f"number per candidate: {exc}") from None
    if c.shape != (L.shape[0],):
        raise InputError(f"{L.shape[0]} candidates but {c.size} complexities")
    mean = L.mean(axis=1)
    best = int(np.argmin(mean))
    se = (L - L[best]).std(axis=1, ddof=1) / np.sqrt(L.shape[1])
    if rule == "min":
        return best, mean, se
    ok = np.flatnonzero(mean <= mean[best] + se)
    return int(ok[np.lexsort((mean[ok], c[ok]))[0]]), mean, se


def loo_factors(F: np.ndarray, y: np.ndarray, gammas: Any) -> tuple[float, np.ndarray]:
    """Exact leave-one-out of the LS-SVM (eq. 16) with the kernel ``FF'``, for every γ.

    With ``Ω = FF'`` the LS-SVM is ridge regression on the columns of ``F`` with an
    unpenalized intercept, whose hat matrix is ``H = 11'/N + F_c(F_c'F_c + I/γ)^{-1}F_c'``
    (``F_c`` centred).  One thin SVD ``F_c = U S W'`` gives, for every γ, the fit
    ``ŷ = ȳ + U diag(w) U'(y - ȳ)`` and ``diag(H) = 1/N + (U∘U) w`` with
    ``w = s²/(s² + 1/γ)``, and the leave-one-out residuals ``(y - ŷ)/(1 - diag(H))``
    (the LS-SVM's LOO identity ``α_i / (H^{-1})_{ii}``, eq. 2, in primal form).

    Returns
    -------
    gamma : float
        The γ of ``gammas`` with the smallest mean squared LOO residual (the first on ties).
    sq : ndarray of shape (N,)
        The squared LOO residuals at that γ.
    """
    F = as_matrix(F, name="F", min_samples=2)
    y = as_targets(y, F.shape[0])
    grid = check_grid(gammas, "gammas", flat=np.isscalar(gammas))
    n = y.shape[0]
    Fc = F - F.mean(axis=0)
    U, s, _ = np.linalg.svd(Fc, full_matrices=False)
    ym = float(y.mean())
    Uy = U.T @ (y - ym)
    s2, U2 = s * s, U * U
    best: tuple[float, float, np.ndarray] | None = None
    for g in grid:
        w = s2 / (s2 + 1.0 / g)
        r = leverage_residuals(y - ym - U @ (w * Uy), 1.0 / n + U2 @ w)
        m = float(np.mean(r * r))
        if best is None or m < best[0]:
            best = (m, float(g), r * r)
    assert best is not None                 # a non-empty grid (check_grid)
    return best[1], best[2]


@dataclass
class KernelChoice:
    """Result of :func:`choose_kernels`.

    Attributes
    ----------
    selected : ndarray of int
        The chosen components (indices into the candidate list), sorted.
    gamma : float
        γ of the componentwise LS-SVM on ``selected`` at the minimum held-out error (exact
        leave-one-out, or k-fold CV when ``folds`` are given).
    cv_mse : float
        That held-out mean squared error.
    changed : bool
        Whether ``selected`` differs from the components the call started from.
    initial : ndarray of int
        The components the call started from (the sparse fit's selection), sorted.
    n_passes : int
        Passes over the inputs.
    log : list of dict
        One entry per input visit: the candidates, their mean CV loss, the paired SE to the
        best, their complexity and the choice.
    """

    selected: np.ndarray
    gamma: float
    cv_mse: float
    changed: bool
    n_passes: int
    log: list[dict[str, Any]] = field(default_factory=list)
    initial: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    def to_dict(self) -> dict[str, Any]:
        return {"selected": self.selected.tolist(), "initial": self.initial.tolist(),
                "gamma": self.gamma, "cv_mse": self.cv_mse, "changed": self.changed,
                "n_passes": self.n_passes, "log": self.log}


def choose_kernels(X: np.ndarray, y: np.ndarray,
                   components: Sequence[tuple[Kernel, tuple[int, ...]]], selected: Sequence[int],
                   *, gammas: Any, folds: Sequence[np.ndarray] | None = None, rule: str = "one_se",
                   max_passes: int = 3, rank_tol: float = 1e-10, method: str = "auto"
                   ) -> KernelChoice:
    """Choose the kernel of every selected input by paired cross-validation, exact
    leave-one-out by default (module docstring).

    Parameters
    ----------
    X : ndarray of shape (N, n_features)
        Training inputs.
    y : ndarray of shape (N,)
        Targets (±1 for a classifier: the regression system on coded labels, eq. 16).
    components : list of (Kernel, tuple of int)
        All candidate components, ``(base kernel, columns)``
        (:func:`~lssvm_cvx.formulations.componentwise.component_kernels`).
    selected : sequence of int
        Components kept by the sparse fit; at most one per column group is kept in the
        result (candidates of one group are alternatives).
    gammas : array_like
        γ grid of the componentwise LS-SVM.
    folds : list of ndarray or None, default=None
        Held-out index sets (``make_folds``); ``None``: exact leave-one-out.
    rule : {"one_se", "min"}
        See :func:`simplest_within_one_se`.
    max_passes : int
        Upper bound on the passes over the inputs.
    rank_tol : float
        Relative truncation of the component factors (:class:`ComponentBasis`), which give
        the complexities and the low-rank leave-one-out.
    method : {"auto", "factors", "dense"}
        Leave-one-out through the component factors ``Ω^d ≈ Φ_dΦ_d'`` (ridge regression on
        ``[Φ_d]``, O(N R²) for ``R`` factor columns: :func:`loo_factors`) or the dense
        ``N × N`` system (O(N³)); ``"auto"``: factors when ``2R ≤ N``.  k-fold CV is always
        dense.

    Returns
    -------
    KernelChoice
    """
    check_option(rule, KERNEL_CHOICE_RULES, "rule")
    check_option(method, ("auto", "factors", "dense"), "method")
    check_integer(max_passes, "max_passes")
    X = as_matrix(X, min_samples=3)
    y = as_targets(y, X.shape[0])
    check_grid(gammas, "gammas", flat=True)             # checked once, before any fit
    comps = list(components)
    sel0 = sorted({check_integer(d, "a selected component", low=0, error=InputError) for d in selected})
    if any(d >= len(comps) for d in sel0):
        raise InputError(f"selected components {sel0} out of range [0, {len(comps) - 1}]")
    groups = column_groups(comps)
    group_of = {d: tuple(comps[d][1]) for d in range(len(comps))}
    # current choice: one component per selected group (the sparse fit's first if several)
    current: dict[tuple, int] = {}
    for d in sel0:
        current.setdefault(group_of[d], d)
    if not current:
        return KernelChoice(np.zeros(0, dtype=int), float("nan"), float("nan"), False, 0)
    initial = np.asarray(sel0, dtype=int)
    contested = [g for g in sorted(current) if len(groups[g]) > 1]
    needed = sorted({d for g in current for d in groups[g]})
    basis = ComponentBasis.build(X, [comps[d] for d in needed], rank_tol=rank_tol)
    phi = dict(zip(needed, basis.factors()))
    dims = dict(zip(needed, component_dimensions(basis, rank_tol).tolist()))
    grams: dict[int, np.ndarray] = {}

    def gram(d: int) -> np.ndarray:
        if d not in grams:
            kd, cols = comps[d]
            grams[d] = component_columns_gram(kd, cols, X)
        return grams[d]

    cache: dict[tuple[int, ...], tuple[float, np.ndarray]] = {}

    def score(S: tuple[int, ...]) -> tuple[float, np.ndarray]:
        """(best γ, per-point held-out squared residuals) of the LS-SVM on components S."""
        if S not in cache:
            rank = sum(phi[d].shape[1] for d in S)
            if folds is None and method != "dense" and (method == "factors" or 2 * rank <= len(y)):
                cache[S] = loo_factors(np.hstack([phi[d] for d in S]), y, gammas)
            else:
                Omega = np.add.reduce([gram(d) for d in S])
                if folds is None:                  # exact leave-one-out (closed form)
                    sweep = gamma_sweep(Omega, y, gammas, criterion="loo")
                    r = loo_residuals(Omega, y, sweep.best_gamma)
                else:
                    sweep = gamma_sweep(Omega, y, gammas, criterion="kfold", folds=folds)
                    r = kfold_residuals(Omega, y, sweep.best_gamma, folds)
                cache[S] = (sweep.best_gamma, r * r)
        return cache[S]

    log: list[dict[str, Any]] = []
    passes = 0
    for passes in range(1, max_passes + 1):
        moved = False
        for g in contested:
            cands = groups[g]
            losses = []
            for c in cands:
                S = tuple(sorted({**current, g: c}.values()))
                losses.append(score(S)[1])
            k, mean, se = simplest_within_one_se(np.stack(losses), [dims[c] for c in cands], rule)
            log.append({"pass": passes, "columns": list(g), "candidates": list(cands),
                        "mean": mean.tolist(), "paired_se": se.tolist(),
                        "complexity": [dims[c] for c in cands], "chosen": cands[k]})
            if cands[k] != current[g]:
                current[g] = cands[k]
                moved = True
        if not moved:
            break
    S = tuple(sorted(current.values()))
    g_best, loss = score(S)
    return KernelChoice(np.asarray(S, dtype=int), float(g_best), float(loss.mean()),
                        list(S) != sel0, passes, log, initial)
