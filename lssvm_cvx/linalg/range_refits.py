"""Refits in the range of ``K``: the model refitted without a set of points — out of the loss,
out of the basis and out of the terms (``loo="refit"``, what ``GridSearchCV`` computes) — from
one factorisation, for the problems the engine solves in ``K``'s range
(:class:`~lssvm_cvx.linalg.engine.RangeSystem`: the RKHS norm and terms on the fitted values,
such as a kNN graph's smoothness).

With ``K = UΛU'`` (the eigenvalues the PSD factor keeps), ``Φ = UΛ^½``, ``B = UΛ^{-½}`` and
``α = Bθ`` (so ``Kα = Φθ`` and ``α'Kα = θ'θ``), problem (Q) is the primal problem::

    min_{θ, b}  ½ Σ_i s_i (y_i - φ_i'θ - b)² + ½ θ'Hθ,       H = Σ_k w_k G_k,

``G_k`` the identity for the RKHS norm and ``Φ'M_kΦ`` for a term ``½ f'M_kf``.  The refit
without the set ``E`` is the same problem with (1) the rows ``E`` out of the loss, (2) the
points ``E`` out of the basis — ``α_E = 0``, the linear constraint ``B_E θ = 0`` — and (3) the
terms' change on the remaining points (:meth:`~lssvm_cvx.terms.Term.refit_change`: ``U C U'`` on
``α_{-E}``, which is ``W C W'`` on ``θ`` with ``W = B_{-E}'U``).  Its prediction at a point
``t ∈ E`` is ``Σ_{j∉E} K_tj α_j + b = φ_t'θ + b``.  With ``v_i = [φ_i; 1]`` and the bordered
``A₀ = Σ_i s_i v_i v_i' + [[H, 0], [0, 0]]`` factorised once (Cholesky, order ``r + 1``; positive
definite when ``H`` is and some ``s_i > 0``), each refit is ``A₀`` changed by
``Z D Z'`` (``Z = [v_E, [W; 0]]``, ``D = diag(-s_E, C)``: Woodbury) under the constraint
(a Schur complement of order ``|E|``): O((N + r)·r) per point of ``E`` and O(r²·rank C) for the
change, after the O(r²N) of the shared solves.

Why not the augmented system's deletion formulas (which this replaced in the fifteenth
session): they need a ridge on ``α`` where ``K`` is numerically singular, and a prediction at
a point out of the basis depends on it.  ``notes/range_refits.md`` measures both against fresh
refits and 50-digit solves: leave-one-out over 81 problems (RBF Grams of numerical rank down
to 19 of 30), 1.6e-6 ``max|y|`` at worst against 2.8e-2.  The refit's ``α`` is sought in
``K``'s range (``α_E = 0`` within it), which the refit's own range only approximates: the error
grows with the set (sets of two points: up to 2.6e-4), so the held-out predictions
(:func:`~lssvm_cvx.selection.heldout.heldout_predictions`) use it for leave-one-out and refit
sets of several points per split.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..exceptions import NotPSDError, NumericalError
from .cholesky import Cholesky

__all__ = ["range_refit_predictions"]


def range_refit_predictions(Phi: np.ndarray, back: np.ndarray, s: np.ndarray, H: np.ndarray,
                            Y: np.ndarray, sets: Sequence[tuple[np.ndarray, np.ndarray]],
                            changes: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
                            ) -> list[np.ndarray]:
    """Decision values at ``test`` of the model refitted without the points ``E`` (module
    docstring), for each ``(E, test)`` in ``sets`` (``test ⊆ E``).

    Parameters
    ----------
    Phi : numpy.ndarray of shape (N, r)
        ``UΛ^½``: the fitted values are ``Φθ``.
    back : numpy.ndarray of shape (N, r)
        ``UΛ^{-½}``: ``α = back @ θ``.
    s : numpy.ndarray of shape (N,)
        Loss weights (``≥ 0``, some positive).
    H : numpy.ndarray of shape (r, r)
        The terms' matrix on ``θ`` at their weights, positive definite (the RKHS norm's weight
        times the identity, plus the fitted-values terms' ``w_k Φ'M_kΦ``).
    Y : numpy.ndarray of shape (N,) or (N, T)
        Targets.
    sets : sequence of (numpy.ndarray, numpy.ndarray)
        Pairs ``(E, test)`` of index arrays, ``test ⊆ E``.
    changes : sequence of (numpy.ndarray, numpy.ndarray) or None, default=None
        Per set, ``(U, C)``: the weighted terms' change ``U C U'`` on ``α`` of the remaining
        points (rows of ``U`` in increasing order); None: no change.

    Returns
    -------
    list of numpy.ndarray
        Per set, the decision values at ``test`` (shape ``(len(test),)`` or ``(len(test), T)``).

    Raises
    ------
    NumericalError
        When ``A₀`` is not numerically positive definite.
    """
    n, r = Phi.shape
    Yc = np.asarray(Y, dtype=np.float64).reshape(n, -1)
    V = np.hstack([Phi, np.ones((n, 1))])                     # v_i' as rows
    A0 = V.T @ (s[:, None] * V)
    A0[:r, :r] += (H + H.T) / 2
    try:
        cf = Cholesky.factor(A0, name="the bordered normal matrix", overwrite=True,
                             check_cond=False)
    except NotPSDError as exc:
        raise NumericalError("the bordered normal matrix of the range of K is not positive "
                             "definite (the RKHS norm's weight must be > 0)") from exc
    F = cf.solve(V.T)                                   # A₀⁻¹ v_i, every i
    x0 = cf.solve(V.T @ (s[:, None] * Yc))
    out = []
    for k, (E, test) in enumerate(sets):
        E, test = np.asarray(E, dtype=np.intp), np.asarray(test, dtype=np.intp)
        keep = np.setdiff1d(np.arange(n), E)
        U, C = changes[k] if changes is not None else (np.zeros((keep.size, 0)), np.zeros((0, 0)))
        # the constraint B_E θ = 0 by an orthonormal basis Q of B_E' (B_E's rows scale as
        # Λ^{-½}); W = B_{-E}'U = Φ_T' - B_E'K_{E,T} on the constraint's null space is its
        # projection there, of the size of Φ (W itself is of B's)
        Q = np.linalg.qr(back[E].T)[0]
        W = back[keep].T @ U
        W = np.vstack([W - Q @ (Q.T @ W), np.zeros((1, W.shape[1]))])
        Zm = np.hstack([V[E].T, W])                          # Z
        ZA = np.hstack([F[:, E], cf.solve(W)])           # A₀⁻¹ Z
        D = np.zeros((Zm.shape[1],) * 2)
        D[:E.size, :E.size] = -np.diag(s[E])
        D[E.size:, E.size:] = C
        mid = np.linalg.solve(np.eye(D.shape[0]) + D @ (Zm.T @ ZA), D)
        # A_E⁻¹ = A₀⁻¹ - A₀⁻¹Z (I + D Z'A₀⁻¹Z)⁻¹ D Z'A₀⁻¹ (Woodbury), applied to A₀⁻¹ M
        a = x0 - F[:, E] @ (s[E, None] * Yc[E])               # rows E out of the loss
        a -= ZA @ (mid @ (Zm.T @ a))
        g = cf.solve(np.vstack([Q, np.zeros((1, Q.shape[1]))]))
        g -= ZA @ (mid @ (Zm.T @ g))
        lam = np.linalg.solve(Q.T @ g[:r], Q.T @ a[:r])      # Q'θ = 0: α_E = 0
        x = a - g @ lam
        pred = Phi[test] @ x[:r] + x[r]
        out.append(pred[:, 0] if np.ndim(Y) == 1 else pred)
    return out
