"""Gradient-based selection of the RBF width σ² and of λ for the ℓ2-SVM (Chapelle, Vapnik,
Bousquet & Mukherjee 2002, "Choosing multiple parameters for support vector machines", the
paper's ref. [9]; the "Gradient" columns of Bonidal, Tindel & Guermeur 2013, Tables 3-6).

The ℓ2-SVM of Problem 2 is the hard-margin SVM of kernel ``κ_λ = κ + (λ/2) δ`` (Bonidal et
al. §2.1), so Chapelle et al.'s hard-margin results apply with ``K̃ = K + (λ/2) I``.  The
hyperparameters are ``θ = (log σ², log λ)`` (the RBF kernel ``exp(-||x - z||²/σ²)``) and the
two criteria are

* the radius-margin bound ``T = R² ||w||²`` (Bonidal et al. Theorem 1; reported as
  ``(4/m) R² ||w||²`` as in :func:`~lssvm_cvx.selection.l2svm_criteria.radius_margin`), with
  ``||w||² = α'H̃α = 1'α`` and ``R² = max_β β'diag(K̃) - β'K̃β`` (β ≥ 0, 1'β = 1).  Both are
  optimal values of QPs, so (Chapelle et al. Lemma 2 / eq. 9-10) their gradients need only the
  optimal α and β::

      ∂||w||²/∂θ = -(y∘α)' (∂K̃/∂θ) (y∘α),      ∂R²/∂θ = β' diag(∂K̃/∂θ) - β' (∂K̃/∂θ) β;

* the smoothed span estimate of the leave-one-out error (Chapelle et al. §4.2-4.3): with the
  support vectors ``E`` and ``D = diag(η/α_E)``,
  ``M̃ = [[K̃_EE + D, 1], [1', 0]]``, ``S̃_p² = 1/(M̃^{-1})_{pp} - η/α_p`` and
  ``T = (1/m) Σ_{p∈E} ψ(α_p S̃_p² - 1)``, ``ψ(x) = 1/(1 + exp(-A x + B))``.  At ``η = 0`` and
  with ψ the step function this is exactly Bonidal et al.'s span prediction (Prop. 4, eq. 16:
  ``S_p² = 1/(A_E(λ)^{-1})_{pp}``); the regularisation ``η`` makes ``T`` continuous where a
  point leaves ``E`` (``α_p → 0`` sends ``η/α_p → ∞``).  Its gradient needs ``∂α_E/∂θ`` from
  the hard-margin system on ``E``, ``[[K̃_EE, 1], [1', 0]] [y_E∘α_E; α_0] = [y_E; 0]``
  (Chapelle et al. eq. 14), differentiated at fixed ``E``.

The constants ``A = 5``, ``B = 0``, ``η = 0.1`` are our reading of Chapelle et al.'s
experiments (their text is not in this repository, so they are parameters); both criteria's
gradients are checked against central finite differences in ``tests/test_l2svm_gradient.py``.

The descent is L-BFGS-B (a quasi-Newton gradient method; Chapelle et al. used a gradient
method without prescribing one) in ``θ`` within box bounds, with the active set of the
previous evaluation as the warm start of each SVM solve.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import (
    as_gram,
    as_matrix,
    as_targets,
    binary_labels,
    check_integer,
    check_option,
    check_positive,
)
from ..exceptions import HyperparameterError, InputError
from ..formulations.l2svm_active_set import State, solve_fixed
from ..kernels.base import sq_dists
from .l2svm_criteria import dense_ball_problem

__all__ = [
    "BoundValue",
    "GradientSelection",
    "rbf_gram_and_derivative",
    "radius_margin_gradient",
    "span_gradient",
    "ball_beta",
    "select_gradient",
    "CRITERIA",
]

#: criteria known to :func:`select_gradient`
CRITERIA = ("span", "radius_margin")


@dataclass
class BoundValue:
    """A criterion value and its gradient w.r.t. ``θ = (log σ², log λ)``.

    Attributes
    ----------
    value : float
        The criterion (span: smoothed LOO error rate; radius margin: ``(4/m) R² ||w||²``).
    grad : ndarray of shape (2,)
        ``(∂/∂ log σ², ∂/∂ log λ)``.
    state : State
        The ℓ2-SVM solution at ``θ``.
    extra : dict
        ``R2``, ``w2`` and ``beta`` (radius margin) or ``spans`` (span).
    """

    value: float
    grad: np.ndarray
    state: State
    extra: dict[str, Any] = field(default_factory=dict)


def rbf_gram_and_derivative(X: np.ndarray, sigma2: float, D: np.ndarray | None = None
                            ) -> tuple[np.ndarray, np.ndarray]:
    """``K = exp(-D/σ²)`` and ``∂K/∂ log σ² = K ∘ D / σ²`` (``D`` the squared distances; its
    diagonal, hence ``∂ diag K``, is zero)."""
    sigma2 = check_positive(sigma2, "sigma2")
    if D is None:
        D = sq_dists(as_matrix(X))
    K = np.exp(-D / sigma2)
    return K, K * D / sigma2


def ball_beta(Kt: np.ndarray, *, solver: str = "CLARABEL") -> tuple[float, np.ndarray]:
    """``(R², β)``: the smallest enclosing ball of the points of Gram ``K̃`` (Bonidal et al.
    §3.1; :func:`~lssvm_cvx.formulations.l2svm.enclosing_ball_problem` at ``λ = 0`` on ``K̃``)."""
    from ..solvers import solve_problem

    prob = dense_ball_problem(Kt)
    prob.params["lam"].value = 0.0
    solve_problem(prob, solver, accept_inaccurate=True)
    beta = np.clip(np.asarray(prob.vars["beta"].value, dtype=np.float64), 0.0, None)
    beta /= beta.sum()  # a feasible β: R² is the ball objective at it (≤ the optimum by rounding)
    return float(beta @ np.diag(Kt) - beta @ Kt @ beta), beta


def _inputs(K: Any, dK: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Gram, its derivative (both square, of one size) and ±1 labels, checked."""
    K, dK = as_gram(K, name="K"), as_gram(dK, name="dK")
    y = as_targets(y, K.shape[0])
    if dK.shape != K.shape or not np.all(np.isin(y, (-1.0, 1.0))):
        raise InputError(f"dK must have K's shape {K.shape} and y labels in {{-1, +1}}")
    return K, dK, y


def _solve(K: np.ndarray, y: np.ndarray, lam: float, E0: np.ndarray | None) -> State:
    return solve_fixed(y, lam, K=K, E0=E0)


def radius_margin_gradient(K: np.ndarray, dK: np.ndarray, y: np.ndarray, lam: float, *,
                           E0: np.ndarray | None = None, solver: str = "CLARABEL") -> BoundValue:
    """Radius-margin bound ``(4/m) R² ||w||²`` of the ℓ2-SVM and its gradient in
    ``θ = (log σ², log λ)`` (Chapelle et al. 2002 eq. 9-10 applied to ``K̃ = K + (λ/2) I``).

    Parameters
    ----------
    K, dK : ndarray of shape (m, m)
        The Gram and ``∂K/∂ log σ²`` (:func:`rbf_gram_and_derivative`).
    y : ndarray
        Labels in {-1, +1}.
    lam : float
        λ of Problem 1.
    E0 : ndarray or None
        Warm-start active set.
    solver : str
        Solver of the enclosing-ball QP.
    """
    K, dK, y = _inputs(K, dK, y)
    return _radius_margin(K, dK, y, lam, E0, solver)


def _radius_margin(K: np.ndarray, dK: np.ndarray, y: np.ndarray, lam: float,
                   E0: np.ndarray | None, solver: str) -> BoundValue:
    """:func:`radius_margin_gradient` on checked inputs (:func:`select_gradient`'s loop)."""
    m = y.size
    st = _solve(K, y, lam, E0)
    E, a = st.E, y[st.E] * st.alpha_E
    w2 = float(np.sum(st.alpha_E))
    Kt = K + 0.5 * lam * np.eye(m)
    R2, beta = ball_beta(Kt, solver=solver)
    dw2 = np.array([-float(a @ dK[np.ix_(E, E)] @ a), -0.5 * lam * float(st.alpha_E @ st.alpha_E)])
    dR2 = np.array([float(beta @ np.diag(dK) - beta @ dK @ beta), 0.5 * lam * (1.0 - float(beta @ beta))])
    c = 4.0 / m
    return BoundValue(c * R2 * w2, c * (dR2 * w2 + R2 * dw2), st, {"R2": R2, "w2": w2, "beta": beta})


def _sigmoid(x: np.ndarray, A: float, B: float) -> tuple[np.ndarray, np.ndarray]:
    z = np.clip(-A * x + B, -500.0, 500.0)
    s = 1.0 / (1.0 + np.exp(z))
    return s, A * s * (1.0 - s)


def span_gradient(K: np.ndarray, dK: np.ndarray, y: np.ndarray, lam: float, *, eta: float = 0.1,
                  A: float = 5.0, B: float = 0.0, E0: np.ndarray | None = None) -> BoundValue:
    """Smoothed span estimate ``(1/m) Σ_{p∈E} ψ(α_p S̃_p² - 1)`` of the ℓ2-SVM and its gradient
    in ``θ = (log σ², log λ)`` (Chapelle et al. 2002 §4.2-4.3 on ``K̃ = K + (λ/2) I``).

    Parameters
    ----------
    K, dK : ndarray of shape (m, m)
        The Gram and ``∂K/∂ log σ²``.
    y : ndarray
        Labels in {-1, +1}.
    lam : float
        λ of Problem 1.
    eta : float
        Span regularisation η ≥ 0 (``D = diag(η/α)``; 0 gives the exact span of Prop. 4).
    A, B : float
        Sigmoid ``ψ(x) = 1/(1 + exp(-A x + B))``.
    E0 : ndarray or None
        Warm-start active set.
    """
    eta = check_positive(eta, "eta", allow_zero=True)
    K, dK, y = _inputs(K, dK, y)
    return _span(K, dK, y, lam, eta, A, B, E0)


def _span(K: np.ndarray, dK: np.ndarray, y: np.ndarray, lam: float, eta: float, A: float,
          B: float, E0: np.ndarray | None) -> BoundValue:
    """:func:`span_gradient` on checked inputs (:func:`select_gradient`'s loop)."""
    m = y.size
    st = _solve(K, y, lam, E0)
    E, al = st.E, st.alpha_E
    n = E.size
    yE = y[E]
    KtE = K[np.ix_(E, E)] + 0.5 * lam * np.eye(n)
    # hard-margin system on E in kernel coordinates: [[K̃_EE, 1], [1', 0]] [a; α0] = [y_E; 0]
    Mhm = np.zeros((n + 1, n + 1))
    Mhm[:n, :n] = KtE
    Mhm[:n, n] = Mhm[n, :n] = 1.0
    a = yE * al
    dKE = dK[np.ix_(E, E)]
    rhs = np.zeros((n + 1, 2))
    rhs[:n, 0] = -dKE @ a
    rhs[:n, 1] = -0.5 * lam * a
    da = np.linalg.solve(Mhm, rhs)[:n]          # ∂(y∘α)/∂θ at fixed E
    dal = yE[:, None] * da                        # ∂α_E/∂θ
    Mt = Mhm.copy()
    Mt[np.arange(n), np.arange(n)] += eta / al
    Minv = np.linalg.inv(Mt)
    u = np.diag(Minv)[:n]
    S2 = 1.0 / u - eta / al
    x = al * S2 - 1.0
    psi, dpsi = _sigmoid(x, A, B)
    G = Minv[:n, :n]
    G2 = G * G
    grad = np.zeros(2)
    for k in range(2):
        # q_p = diag(M̃^{-1} dM̃ M̃^{-1})_p over p ∈ E (dM̃ is zero on the border row/column);
        # dM̃_EE = ∂K̃_EE/∂θ_k - diag(η ∂α_E/∂θ_k / α_E²)
        ddiag = -eta * dal[:, k] / al ** 2
        if k == 0:
            q = np.sum((G @ dKE) * G, axis=1) + G2 @ ddiag
        else:
            q = G2 @ (0.5 * lam + ddiag)
        dS2 = q / u ** 2 + eta * dal[:, k] / al ** 2
        grad[k] = float(np.sum(dpsi * (dal[:, k] * S2 + al * dS2))) / m
    return BoundValue(float(np.sum(psi)) / m, grad, st, {"spans": S2})


@dataclass
class GradientSelection:
    """Result of :func:`select_gradient`.

    Attributes
    ----------
    sigma2, lam : float
        The selected RBF width and λ.
    value : float
        The criterion at the selected point.
    history : list of dict
        ``sigma2``, ``lam``, ``value``, ``grad_norm`` at every evaluation.
    n_evals, n_iter : int
        Criterion/gradient evaluations and optimiser iterations.
    converged : bool
        Whether L-BFGS-B stopped on its gradient / function tolerance.
    message : str
        The optimiser's message.
    time : float
        Seconds (Gram, evaluations, optimiser).
    state : State
        The ℓ2-SVM solution at the selected point.
    """

    sigma2: float
    lam: float
    value: float
    history: list[dict[str, float]]
    n_evals: int
    n_iter: int
    converged: bool
    message: str
    time: float
    state: State = field(repr=False)


def select_gradient(X: Any, y: Any, *, sigma2: float, lam: float, criterion: str = "span",
                    max_iter: int = 50, log_sigma2_range: float = 7.0,
                    lam_bounds: tuple[float, float] = (1e-6, 1e7), eta: float = 0.1, A: float = 5.0,
                    B: float = 0.0, gtol: float = 1e-6, solver: str = "CLARABEL") -> GradientSelection:
    """Chapelle et al.'s (2002) gradient descent on ``θ = (log σ², log λ)`` of the span estimate
    or the radius-margin bound of the ℓ2-SVM (the "Gradient" method of Bonidal et al. 2013 §4.4).

    Parameters
    ----------
    X : array-like of shape (m, d)
        Training inputs (RBF kernel ``exp(-||x - z||²/σ²)``).
    y : array-like of shape (m,)
        Two-class labels.
    sigma2, lam : float
        Starting point.
    criterion : {"span", "radius_margin"}
        Smoothed span estimate or radius-margin bound.
    max_iter : int
        L-BFGS-B iterations.
    log_sigma2_range : float
        ``log σ²`` is kept within ``± log_sigma2_range`` of its start.
    lam_bounds : tuple of float
        Box for λ (the paper's path range by default).
    eta, A, B : float
        Smoothing of the span criterion (:func:`span_gradient`).
    gtol : float
        L-BFGS-B projected-gradient tolerance.
    solver : str
        Enclosing-ball QP solver (radius margin).

    Raises
    ------
    HyperparameterError
        Unknown criterion, non-positive start, bad bounds.
    """
    from scipy.optimize import minimize

    check_option(criterion, CRITERIA, "criterion")
    sigma2 = check_positive(sigma2, "sigma2")
    lam = check_positive(lam, "lam")
    eta = check_positive(eta, "eta", allow_zero=True)   # the loop's criteria take it checked
    lo, hi = (check_positive(v, "lam_bounds") for v in lam_bounds)
    if not lo < hi:
        raise HyperparameterError(f"need lam_bounds[0] < lam_bounds[1], got {lam_bounds!r}")
    check_integer(max_iter, "max_iter")
    Xa = as_matrix(X, min_samples=2)
    ypm = binary_labels(y)[0]
    if ypm.shape[0] != Xa.shape[0]:
        raise InputError(f"y has {ypm.shape[0]} labels but X has {Xa.shape[0]} samples")
    t0 = time.perf_counter()
    D = sq_dists(Xa)
    cache: dict[str, Any] = {"E": None, "theta": None, "bv": None}
    history: list[dict[str, float]] = []

    def fg(theta: np.ndarray) -> tuple[float, np.ndarray]:
        s2, lm = float(np.exp(theta[0])), float(np.exp(theta[1]))
        K, dK = rbf_gram_and_derivative(Xa, s2, D)
        if criterion == "span":
            bv = _span(K, dK, ypm, lm, eta, A, B, cache["E"])
        else:
            bv = _radius_margin(K, dK, ypm, lm, cache["E"], solver)
        cache.update(E=bv.state.E, theta=theta.copy(), bv=bv)
        history.append({"sigma2": s2, "lam": lm, "value": bv.value,
                        "grad_norm": float(np.linalg.norm(bv.grad))})
        return bv.value, bv.grad

    th0 = np.log([sigma2, lam])
    lam_lo, lam_hi = np.log(lo), np.log(hi)
    bounds = [(th0[0] - log_sigma2_range, th0[0] + log_sigma2_range), (lam_lo, lam_hi)]
    th0[1] = min(max(th0[1], lam_lo), lam_hi)
    res = minimize(fg, th0, jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": int(max_iter), "gtol": gtol})
    best = min(range(len(history)), key=lambda i: history[i]["value"])
    th = np.log([history[best]["sigma2"], history[best]["lam"]])
    if cache["theta"] is None or not np.allclose(cache["theta"], th):
        fg(th)
    h = history[best]
    return GradientSelection(sigma2=h["sigma2"], lam=h["lam"], value=h["value"], history=history,
                             n_evals=len(history), n_iter=int(res.nit), converged=bool(res.success),
                             message=str(res.message), time=time.perf_counter() - t0, state=cache["bv"].state)
