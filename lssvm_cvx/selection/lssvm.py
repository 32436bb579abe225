"""Closed-form model selection for the LS-SVM: exact leave-one-out and k-fold residuals, GCV,
γ sweeps from one decomposition, and the joint (γ, σ²) search.

Let ``A = [[0, 1'], [1, H]]`` be the bordered matrix of eq. (2) with ``H = Ω + diag(1/γ_i)``,
``(b, α)`` its solution and ``C`` the α-block of ``A^{-1}``.

* **Leave-one-out** (Cawley & Talbot 2003; Pelckmans et al.): the residual of the model trained
  without point ``i``, at ``x_i``, is ``r_i = y_i - f^{(-i)}(x_i) = α_i / C_ii``.
* **k-fold** (the block generalisation, An, Liu & Venkatesh 2007): for a held-out set ``V``,
  ``r_V = C_VV^{-1} α_V``.
* **GCV** (Golub, Heath & Wahba 1979): the fitted values are ``ŷ = y - diag(1/γ)α`` and
  ``α = C y``, so ``I - S = diag(1/γ) C`` and
  ``GCV = N ||diag(1/γ) α||² / tr(diag(1/γ) C)²``.

``C = H^{-1} - u u'/(1'u)`` with ``u = H^{-1}1``.  Its diagonal needs ``L^{-1}`` (one ``dtrtri``
after the Cholesky factor) or, when sweeping γ, the eigenvectors of Ω
(:class:`~lssvm_cvx.linalg.SpectralBordered`): after one ``eigh`` every γ costs O(N²) for LOO
and GCV.  :func:`gamma_sweep` chooses between the two: ``eigh`` costs about
:data:`EIGH_BREAK_EVEN` Cholesky-plus-``dtrtri`` passes (measured on the development machine,
see ``benchmarks/results/lssvm_loo.md``), so fewer γ values than that are faster by per-γ
Cholesky.

The LS-SVM classifier (eq. 57) is the regression LS-SVM on ±1 targets (see
:mod:`lssvm_cvx.formulations.lssvm`), so every formula applies to it with ``y`` the ±1 labels;
several target columns (one-vs-rest) share one decomposition.  Every formula here is tested
against brute-force refits in ``tests/test_model_selection.py``.

Inputs are refused by name with the package's exceptions (:func:`_data`, :func:`_options`;
``tests/test_selection_inputs.py``): until the eighteenth session (2026-11-30) a Gram that was
not an array reached an ``AttributeError``, targets of strings or of the wrong length NumPy's
``ValueError``, a ragged γ grid NumPy's, a 2-D one was searched row by row, folds that were
not a list a ``TypeError``, and an array for ``criterion`` NumPy's "truth value of an array".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..checks import as_gram, as_matrix, as_targets, check_gamma, check_grid, check_option
from ..exceptions import HyperparameterError
from ..kernels import RBF, Kernel
from ..linalg.engine import RKHS, decompose
from ..linalg.folds import check_folds, make_folds
from ..linalg.quadratic import QuadraticSystem
from ..linalg.scores import SEARCH_SCORES, loo_score
from ..linalg.spectral import EIGH_BREAK_EVEN, use_eigh

__all__ = [
    "EIGH_BREAK_EVEN",
    "CRITERIA",
    "loo_residuals",
    "kfold_residuals",
    "gcv",
    "gamma_sweep",
    "GammaSweep",
    "select_gamma_sigma2",
    "SearchResult",
    "check_folds",
    "score_residuals",
]

#: the selection criteria :func:`gamma_sweep` knows
CRITERIA = ("loo", "kfold", "gcv")


def _data(Omega: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """The Gram (:func:`~lssvm_cvx.checks.as_gram`) and ``y``, one row per row of the Gram
    (several columns share the factorisation)."""
    O = as_gram(Omega)
    return O, as_targets(y, O.shape[0], columns=True)


def _system(Omega: np.ndarray, gamma: Any, bias: bool = True) -> QuadraticSystem:
    """The engine's factorised LS-SVM system ``Ω + diag(1/γ)`` (loss weights ``γ``, one RKHS
    term of weight 1), with or without the bias."""
    g = check_gamma(gamma, Omega.shape[0])
    return decompose(Omega, g, {"rkhs": (RKHS, 1.0)}, bias=bias, name="Omega + I/gamma"
                     ).system(representation="bordered")


def loo_residuals(Omega: np.ndarray, y: np.ndarray, gamma: Any, *, bias: bool = True) -> np.ndarray:
    """Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)`` of the LS-SVM (eq. 2).

    ``y`` may have several columns (they share the factorization); ``gamma`` may be a vector
    (weighted LS-SVM, eq. 75).  Cost: one Cholesky, one ``dtrtri``, O(N²) per column.
    """
    Omega, y = _data(Omega, y)
    return _system(Omega, gamma, bias).loo(y)


def kfold_residuals(Omega: np.ndarray, y: np.ndarray, gamma: Any,
                    folds: Sequence[ArrayLike], *, bias: bool = True) -> np.ndarray:
    """Exact k-fold residuals: ``r[V] = y[V] - f^{(-V)}(x_V)`` for every held-out set ``V``
    (``folds``: the held-out index sets of a partition, scikit-learn's ``(train, test)``
    pairs of one, a number of shuffled folds or None for leave-one-out,
    :func:`~lssvm_cvx.linalg.folds.make_folds`)."""
    Omega, y = _data(Omega, y)
    return _system(Omega, gamma, bias).kfold(y, make_folds(y.shape[0], folds))


def gcv(Omega: np.ndarray, y: np.ndarray, gamma: Any, *, bias: bool = True) -> float:
    """Generalized cross-validation score ``N ||y - ŷ||² / tr(I - S)²`` (mean over columns;
    module docstring, :meth:`~lssvm_cvx.linalg.quadratic.RKHSSystem.gcv`)."""
    Omega, y = _data(Omega, y)
    return _system(Omega, gamma, bias).gcv(y)


def _score(residuals: np.ndarray, y: np.ndarray, score: str,
           weights: np.ndarray | None = None) -> float:
    """(Weighted) mean squared residual, or the misclassification rate of the held-out
    predictions ``y - r`` (sign for one column of ±1 targets, argmax for one-vs-rest columns):
    the package's one score vocabulary, :func:`lssvm_cvx.linalg.scores.loo_score`."""
    check_option(score, SEARCH_SCORES, "score")
    n = residuals.shape[0]
    return float(loo_score(residuals.reshape(n, -1, 1), np.asarray(y).reshape(n, -1), score,
                           weights)[0])


def score_residuals(residuals: np.ndarray, y: np.ndarray, score: str = "mse",
                    weights: np.ndarray | None = None) -> float:
    """The selection score of held-out residuals: ``"mse"`` or ``"misclassification"``
    (``weights``: one weight ``> 0`` per point, or None)."""
    r = as_targets(residuals, None, name="residuals", columns=True)
    y = as_targets(y, r.shape[0], columns=True)
    if weights is not None:
        weights = np.broadcast_to(check_gamma(weights, r.shape[0], name="weights"), r.shape[:1])
    return _score(r, y, score, weights)


@dataclass
class GammaSweep:
    """Scores of a γ sweep (one entry per γ, in the order given)."""

    gammas: np.ndarray
    scores: np.ndarray
    criterion: str
    method: str
    #: the held-out residuals per γ (``return_residuals=True``, LOO and k-fold only)
    residuals: list[np.ndarray] | None = None
    best_index: int = field(init=False)

    def __post_init__(self):
        self.best_index = int(np.nanargmin(self.scores))

    @property
    def best_gamma(self) -> float:
        return float(self.gammas[self.best_index])

    @property
    def best_score(self) -> float:
        return float(self.scores[self.best_index])


def gamma_sweep(Omega: np.ndarray, y: np.ndarray, gammas: ArrayLike, *,
                criterion: str = "loo", folds: Sequence[ArrayLike] | None = None,
                score: str = "mse", method: str = "auto", bias: bool = True,
                weights: np.ndarray | None = None, return_residuals: bool = False) -> GammaSweep:
    """Score every γ in ``gammas`` by exact LOO, exact k-fold or GCV without refitting.

    Parameters
    ----------
    Omega, y :
        Gram and targets (several columns allowed).
    gammas :
        Regularization constants to score.
    criterion :
        ``"loo"``, ``"kfold"`` (needs ``folds``) or ``"gcv"``.
    score :
        ``"mse"`` or ``"misclassification"`` (±1 targets) for LOO and k-fold.
    method :
        ``"eigh"`` (one eigendecomposition, O(N²) per γ for LOO/GCV), ``"cholesky"`` (one
        factorization per γ) or ``"auto"``: ``eigh`` from :data:`EIGH_BREAK_EVEN` values on.
    weights :
        Optional per-point weights ``w_i > 0``: the weighted LS-SVM with ``γ_i = γ w_i``
        (eq. 74-75), scored by the ``w``-weighted mean; forces ``method="cholesky"``.
    return_residuals :
        Keep the held-out residuals of every γ (``GammaSweep.residuals``), for scoring them
        per split with another metric.
    """
    check_option(criterion, CRITERIA, "criterion")
    check_option(score, SEARCH_SCORES, "score")
    check_option(method, ("auto", "eigh", "cholesky"), "method")
    gamma_grid = check_grid(gammas, "gammas", flat=np.isscalar(gammas))
    Omega, y = _data(Omega, y)
    fold_list: list[np.ndarray] = []  # used only when criterion == "kfold"
    if criterion == "kfold":
        if folds is None:
            raise HyperparameterError("criterion='kfold' needs folds")
        fold_list = make_folds(y.shape[0], folds)
    if weights is not None:
        weights = np.asarray(check_gamma(weights, y.shape[0], name="weights"))
        method = "cholesky"
    if method == "auto":
        method = "eigh" if use_eigh(gamma_grid.size) else "cholesky"
    scores = np.empty(gamma_grid.size)
    kept: list[np.ndarray] | None = [] if return_residuals and criterion != "gcv" else None
    dec = decompose(Omega, 1.0 if weights is None else weights, {"rkhs": (RKHS, 1.0)},
                    bias=bias, name="Omega + I/gamma")
    for k, sysm in enumerate(dec.systems("rkhs", 1.0 / gamma_grid, spectral=method == "eigh")):
        if criterion == "gcv":
            scores[k] = sysm.gcv(y)
            continue
        r = sysm.kfold(y, fold_list) if criterion == "kfold" else sysm.loo(y)
        scores[k] = _score(r, y, score, weights)
        if kept is not None:
            kept.append(r)
    return GammaSweep(gamma_grid, scores, criterion, method, kept)


@dataclass
class SearchResult:
    """Joint (γ, σ²) search: ``scores[i, j]`` for ``sigma2s[i]`` and ``gammas[j]``."""

    gammas: np.ndarray
    sigma2s: np.ndarray
    scores: np.ndarray
    criterion: str
    #: held-out residuals per candidate (σ² outer, γ inner) when asked for
    residuals: list[np.ndarray] | None = field(default=None, init=False)
    best_gamma: float = field(init=False)
    best_sigma2: float = field(init=False)
    best_score: float = field(init=False)

    def __post_init__(self):
        i, j = np.unravel_index(int(np.nanargmin(self.scores)), self.scores.shape)
        self.best_sigma2 = float(self.sigma2s[i])
        self.best_gamma = float(self.gammas[j])
        self.best_score = float(self.scores[i, j])

    def to_dict(self) -> dict[str, Any]:
        return {"gammas": self.gammas.tolist(), "sigma2s": self.sigma2s.tolist(),
                "scores": self.scores.tolist(), "criterion": self.criterion,
                "best_gamma": self.best_gamma, "best_sigma2": self.best_sigma2,
                "best_score": self.best_score}


def select_gamma_sigma2(X: np.ndarray, y: np.ndarray, gammas: ArrayLike,
                        sigma2s: ArrayLike, *, kernel: Callable[[float], Kernel] = RBF,
                        criterion: str = "loo", folds: Sequence[ArrayLike] | None = None,
                        score: str = "mse", method: str = "auto",
                        weights: np.ndarray | None = None,
                        return_residuals: bool = False) -> SearchResult:
    """Grid search over (γ, σ²): one Gram (and one decomposition) per σ², all γ from it.

    ``kernel(sigma2)`` builds the kernel for a width (RBF by default); with
    ``return_residuals`` the held-out residuals of every (σ², γ) are kept
    (``SearchResult.residuals``, σ² outer, γ inner).
    """
    sigma2_grid = check_grid(sigma2s, "sigma2s", flat=np.isscalar(sigma2s))
    gamma_grid = check_grid(gammas, "gammas", flat=np.isscalar(gammas))
    X = as_matrix(X, min_samples=2)
    rows = []
    kept: list[np.ndarray] = []
    for s2 in sigma2_grid:
        sweep = gamma_sweep(kernel(float(s2))(X), y, gamma_grid, criterion=criterion, folds=folds,
                            score=score, method=method, weights=weights,
                            return_residuals=return_residuals)
        rows.append(sweep.scores)
        kept += sweep.residuals or []
    res = SearchResult(gamma_grid, sigma2_grid, np.vstack(rows), criterion)
    res.residuals = kept or None
    return res
