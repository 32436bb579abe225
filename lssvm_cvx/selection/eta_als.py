"""η-fusion with validation (componentwise LS-SVM chapter, eq. 37-40) by alternating least
squares over the η-weighted componentwise LS-SVM :class:`~lssvm_cvx.formulations.componentwise_eta.ComponentwiseEta`
(the algorithm and the slip in eq. 40 are described in :mod:`lssvm_cvx.formulations.componentwise_eta`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import lsq_linear

from ..checks import as_matrix, as_targets
from ..exceptions import HyperparameterError, InputError
from ..formulations.componentwise_eta import ComponentwiseEta
from ..linalg.engine import RKHS, decompose
from ..solution import Solution
from ..linalg.threads import small_system_blas

__all__ = ["EtaFusionResult", "eta_fusion"]


@dataclass
class EtaFusionResult:
    """Output of :func:`eta_fusion`.

    Attributes
    ----------
    eta :
        The final ``η`` (zeros mark deselected components).
    solution :
        ``(α^η, b, e)`` of eq. (34) at the final ``η``.
    history :
        One record per iteration: ``iteration``, ``objective`` (validation SSE, eq. 38, never
        increasing), ``step`` (the accepted step length ``t``), ``eta`` (a copy).
    converged :
        True when the relative-decrease rule stopped the loop (False: ``max_iter`` or no
        descent step).
    reason :
        Why the loop stopped.
    """

    eta: np.ndarray
    solution: Solution
    history: list[dict[str, Any]]
    converged: bool
    reason: str
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def objectives(self) -> np.ndarray:
        return np.array([h["objective"] for h in self.history])


def eta_fusion(X: Any, y: Any, X_val: Any, y_val: Any, *, kernel: Any = None,
               eta0: Any = 1.0, max_iter: int = 200, tol: float = 1e-8,
               max_backtrack: int = 30, selection_tol: float = 1e-6) -> EtaFusionResult:
    """Fusion of the componentwise regularized LS-SVM with validation, eq. (38), by
    alternating least squares (see the module docstring for the algorithm and stopping rule).

    Parameters
    ----------
    X, y :
        Training data (level 1).
    X_val, y_val :
        Validation data (level 2).
    kernel :
        Componentwise kernel.
    eta0 :
        Initial ``η`` (scalar or ``P`` values ≥ 0; ``γ`` gives the componentwise LS-SVM with
        regularization constant γ as the starting model).
    max_iter, tol, max_backtrack :
        Stopping rule.
    selection_tol :
        Components with ``η_d ≤ selection_tol · max η`` are reported as deselected.
    """
    prob = ComponentwiseEta(X, y, kernel=kernel, eta=eta0)
    prob.validate()
    Xv = as_matrix(X_val, name="X_val")
    yv = as_targets(y_val, Xv.shape[0], name="y_val")
    if Xv.shape[1] != prob.inputs().shape[1]:
        raise InputError(f"X_val has {Xv.shape[1]} features, X has {prob.inputs().shape[1]}")
    if max_iter < 1 or tol < 0:
        raise HyperparameterError("max_iter must be >= 1 and tol >= 0")
    P, n = prob.n_components, prob.n
    grams = prob.component_grams()
    Kv = [prob.component_gram(d, Xv) for d in range(P)]
    y_tr = prob.targets()

    def level1(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray | float, float]:
        Oe = np.zeros((n, n))
        for d in np.flatnonzero(eta):
            Oe += eta[d] * grams[d]
        alpha, b = decompose(Oe, 1.0, {"rkhs": (RKHS, 1.0)}, name="Omega_eta + I"
                             ).system(overwrite_gram=True).solve(y_tr)
        fv = sum(eta[d] * (Kv[d] @ alpha) for d in np.flatnonzero(eta)) + b
        r = fv - yv
        return alpha, b, float(r @ r)

    # small dense systems: BLAS threads only add contention (see componentwise_gnc.gnc)
    with small_system_blas(n):
        return _als(prob, level1, P, Kv, yv, max_iter, tol, max_backtrack, selection_tol)


def _als(prob, level1, P, Kv, yv, max_iter, tol, max_backtrack, selection_tol) -> EtaFusionResult:
    eta = prob.eta_weights().copy()
    alpha, b, E = level1(eta)
    history = [{"iteration": 0, "objective": E, "step": 0.0, "eta": eta.copy()}]
    converged, reason = False, "max_iter"
    for it in range(1, max_iter + 1):
        G = np.column_stack([Kv[d] @ alpha for d in range(P)] + [np.ones(len(yv))])
        lb = np.r_[np.zeros(P), -np.inf]
        target = lsq_linear(G, yv, bounds=(lb, np.full(P + 1, np.inf)), method="bvls").x[:P]
        t, accepted = 1.0, None
        for _ in range(max_backtrack + 1):
            cand = np.maximum(eta + t * (target - eta), 0.0)
            a_c, b_c, E_c = level1(cand)
            if E_c < E:
                accepted = (cand, a_c, b_c, E_c)
                break
            t *= 0.5
        if accepted is None:
            converged, reason = True, "no descent step (stationary for the ALS direction)"
            break
        decrease = (E - accepted[3]) / max(E, 1e-300)
        eta, alpha, b, E = accepted
        history.append({"iteration": it, "objective": E, "step": t, "eta": eta.copy()})
        if decrease < tol:
            converged, reason = True, f"relative decrease {decrease:.2e} < tol"
            break
    sol = Solution(values={"alpha": alpha, "b": b, "e": alpha.copy()}, backend="eta_fusion",
                   objective=E, extras={"history": history})
    top = float(eta.max()) if eta.size else 0.0
    selected = np.flatnonzero(eta > selection_tol * top) if top > 0 else np.zeros(0, dtype=int)
    return EtaFusionResult(eta, sol, history, converged, reason, selected)
