"""Graduated non-convexity on the composition core: a
:class:`~lssvm_cvx.formulations.RegularizedLSSVM` whose terms include non-convex ones
(:class:`~lssvm_cvx.terms.SmoothlyThresholding`) is minimised by a sequence of convex
compositions (componentwise LS-SVM chapter, Algorithm 1).

Every non-convex term ``w Σ_p ℓ(s_p)`` is deformed into
``J_ζ = w Σ_p [(1 - ζ) ℓ(s_p) + ζ ρ s_p²]`` (ζ from 1 to 0: at ζ = 1 a convex quadratic, at
ζ = 0 the penalty itself, Algorithm 1's "l2" start).  At every step the concave part is
replaced by its tangent majorizer (:meth:`SmoothlyThresholding.majorizer`), a quadratic term,
so the step is the composition's own problem with one more quadratic term.  For the squared
loss with quadratic terms it is solved in the whitened coordinates of the Gram
(``α = U Λ^{-½} w`` over the eigenpairs of ``K`` above :data:`KERNEL_RTOL` · λ_max: the
fit is ``U Λ^{½} w`` and each component Gram becomes ``M_p`` with ``Σ_p M_p = I``) by an SVD
least squares.  No direction that the fit or a component sees is lost (``α'Kα = 0`` forces
``K_pα = 0``); a convex term that penalises α outside the span of ``K`` (``Ridge``) is
restricted to that span.  In α itself the system is as ill-conditioned as the Gram of smooth
1-D kernels: the core's augmented closed form (a ridge on α when ill-conditioned) and an SVD
least squares in α were tried as steps and gave non-monotone stages, so they are not used.
Any other loss or term takes the cvxpy builder at every step.  ``J_ζ`` never increases within a
stage (majorize-minimize; the driver records it and the tests check it).  The last stage
(ζ = 0) runs until the relative change of the fitted values and of the objective fall below
``tol``, and the result says whether it converged.

The stages, their step budgets and the records are the package's one GNC loop,
:func:`lssvm_cvx.selection.gnc.run_stages`, with the same default schedule
(:data:`DEFAULT_SCHEDULE`, ten stages) as the chapter's own eq. (25), whose L1 size of the
component outputs and elementwise reweighting give it its own step
(:func:`lssvm_cvx.selection.gnc.gnc`).  The first stage (ζ = 1) is one step here: its
objective is a convex quadratic whose minimiser does not depend on the start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla
from sklearn.base import clone

from ..checks import check_integer, check_positive
from ..exceptions import TermError
from ..formulations.regularized import RegularizedLSSVM, nonconvex_keys
from ..kernels.psd import psd_eigh
from ..solution import Solution
from ..terms import Quadratic
from .gnc import DEFAULT_SCHEDULE, check_schedule, run_stages, stage_histories

__all__ = ["TermGNCResult", "gnc_fit", "gnc_kfold_residuals", "DEFAULT_SCHEDULE"]

#: eigenvalues of K below this fraction of the largest are dropped from the closed-form step
#: (α in their span changes neither the fit nor any component by more than √KERNEL_RTOL)
KERNEL_RTOL = 1e-12


@dataclass
class TermGNCResult:
    """Output of :func:`gnc_fit`.

    Attributes
    ----------
    solution : Solution
        Values ``alpha``, ``b``, ``f`` (fitted values); ``objective`` is the composition's
        objective with the non-convex terms (``J_0``).
    history : list of dict
        One record per step: ``stage``, ``zeta``, ``step`` (1-based within the stage),
        ``relaxed`` (``J_ζ`` after the step), ``objective`` (``J_0``), ``change`` (relative
        change of the fitted values).
    converged : bool
        Whether the last stage met ``tol`` within ``max_final`` steps.
    sizes : dict of str to numpy.ndarray
        The component sizes ``s_p`` of every non-convex term at the solution.
    selected : dict of str to numpy.ndarray
        The components with ``s_p > selection_tol · max_p s_p``, per non-convex term.
    """

    solution: Solution
    history: list[dict[str, float]]
    converged: bool
    sizes: dict[str, np.ndarray] = field(default_factory=dict)
    selected: dict[str, np.ndarray] = field(default_factory=dict)

    def stage_histories(self) -> dict[int, list[float]]:
        """``J_ζ`` after every step, grouped by stage (each list is non-increasing).

        Returns
        -------
        dict of int to list of float
            Stage index to its ``J_ζ`` values.
        """
        return stage_histories(self.history)


def gnc_fit(formulation: RegularizedLSSVM, *, schedule: Sequence[float] | None = None,
            rho: float = 1.0, max_inner: int = 50, max_final: int = 500, tol: float = 1e-8,
            solver: str | None = None, selection_tol: float = 1e-3,
            alpha0: np.ndarray | None = None) -> TermGNCResult:
    """Minimise a composition with non-convex terms by weighted graduated non-convexity.

    Parameters
    ----------
    formulation : RegularizedLSSVM
        The composition; its non-convex terms (``term.convex`` False) follow
        :class:`~lssvm_cvx.terms.SmoothlyThresholding`: ``value``, ``grams(ctx)`` (the
        component Grams), ``slopes(alpha, ctx)`` (closed-form steps), ``majorizer(alpha, ctx)``
        (cvxpy steps) and ``sizes(alpha, ctx)``.
    schedule : sequence of float or None, default=None
        ζ values decreasing strictly from 1 to 0 (default :data:`DEFAULT_SCHEDULE`).
    rho : float, default=1.0
        Weight of the convex quadratic ``ρ Σ_p s_p²`` the deformation starts from.
    max_inner : int, default=50
        Majorize-minimize steps per stage before the last (a stage also ends when the
        relative decrease of ``J_ζ`` is below ``tol``).
    max_final : int, default=500
        Steps of the last stage (ζ = 0).
    tol : float, default=1e-8
        Relative change of the fitted values and of ``J_0`` that ends the last stage.
    solver : str or None, default=None
        None: the closed form when the loss is squared and the convex terms are quadratic, else
        CLARABEL; or a cvxpy solver name for every step.
    selection_tol : float, default=1e-3
        A component is selected when ``s_p > selection_tol · max_p s_p``.
    alpha0 : numpy.ndarray of shape (N,) or None, default=None
        Start of the first stage's iteration (default: zero).

    Returns
    -------
    TermGNCResult
        The final point, the history and whether the last stage converged.
    """
    terms = formulation.terms_
    keys = nonconvex_keys(terms)
    if not keys:
        raise TermError("gnc_fit needs at least one non-convex term (e.g. SmoothlyThresholding)")
    zetas = check_schedule(schedule, DEFAULT_SCHEDULE)
    rho = check_positive(rho, "rho")
    check_integer(max_inner, "max_inner")
    check_integer(max_final, "max_final")
    tol = check_positive(tol, "tol")
    formulation.validate()
    ctx, y = formulation.context, formulation.targets()
    loss = formulation.loss_
    convex = {k: (t, w) for k, (t, w) in terms.items() if k not in keys}
    closed = solver is None and loss.squared and all(t.is_quadratic for t, _ in convex.values())
    s = loss.weights(ctx.n)
    grams = {k: sum(terms[k][0].grams(ctx)) for k in keys}
    if closed:
        # whitened coordinates α = T w, T = U Λ^{-½} over the eigenpairs of K above
        # KERNEL_RTOL·λ_max: f = F w with F = U Λ^{½}, α'K_pα = w'M_pw with Σ_p M_p = I
        lam, U = psd_eigh(ctx.K, rtol=KERNEL_RTOL)
        T, F = U / np.sqrt(lam), U * np.sqrt(lam)
        Qc = np.zeros((lam.size, lam.size))
        for k, (t, w) in convex.items():
            if w:
                Qc += w * (T.T @ t.matrix(ctx, name=k) @ T)
        M = {k: [T.T @ G @ T for G in terms[k][0].grams(ctx)] for k in keys}
        r = np.sqrt(s)
        A = np.zeros((ctx.n + lam.size, lam.size + 1))
        A[:ctx.n, :lam.size] = r[:, None] * F
        A[:ctx.n, lam.size] = r
        rhs = np.concatenate([r * y, np.zeros(lam.size)])

    def step(alpha: np.ndarray, zeta: float) -> tuple[np.ndarray, float]:
        if closed:
            Q = Qc.copy()
            for k in keys:
                term, wk = terms[k]
                if wk:
                    slope, _ = term.slopes(alpha, ctx)
                    Q += wk * sum(((1.0 - zeta) * c + zeta * rho * 2.0) * Mp
                                  for c, Mp in zip(slope, M[k]))
            ev, V = np.linalg.eigh((Q + Q.T) / 2.0)
            A[ctx.n:, :lam.size] = (V * np.sqrt(np.maximum(ev, 0.0))).T
            z = sla.lstsq(A, rhs, lapack_driver="gelsd")[0]
            return T @ z[:-1], float(z[-1])
        P = np.zeros((ctx.n, ctx.n))
        for k in keys:
            term, wk = terms[k]
            if wk:
                Pk, _ = term.majorizer(alpha, ctx)
                P += wk * ((1.0 - zeta) * Pk + zeta * rho * 2.0 * grams[k])
        sub = dict(convex)
        sub["gnc"] = (Quadratic((P + P.T) / 2.0), 1.0)
        f = RegularizedLSSVM(ctx.X, y, kernel=ctx.kernel, loss=loss, terms=sub, K=ctx.K)
        sol = f.solve(solver or "CLARABEL")
        return np.asarray(sol["alpha"]), sol.scalar("b")

    def relaxed(alpha: np.ndarray, b: float, zeta: float) -> tuple[float, float]:
        base = loss.value(y, ctx.K @ alpha + b)
        base += sum(w * t.value(alpha, ctx) for t, w in convex.values() if w)
        j0 = jz = base
        for k in keys:
            term, w = terms[k]
            pen = w * term.value(alpha, ctx)
            quad = w * rho * float(alpha @ grams[k] @ alpha)
            j0 += pen
            jz += (1.0 - zeta) * pen + zeta * quad
        return float(jz), float(j0)

    alpha = np.zeros(ctx.n) if alpha0 is None else np.asarray(alpha0, dtype=np.float64).copy()
    b = 0.0

    def one_step(zeta: float) -> dict[str, float]:
        nonlocal alpha, b
        f_old = ctx.K @ alpha + b
        alpha, b = step(alpha, zeta)
        f_new = ctx.K @ alpha + b
        jz, j0 = relaxed(alpha, b, zeta)
        change = float(np.linalg.norm(f_new - f_old) / max(np.linalg.norm(f_new), 1e-300))
        return {"relaxed": jz, "objective": j0, "change": change}

    def small(J: float, J_new: float) -> bool:
        return abs(J - J_new) <= tol * max(abs(J_new), 1e-300)

    # the convex first stage (ζ = 1) is one step: its minimiser does not depend on the point
    history, converged = run_stages(
        zetas, one_step, stage_start=lambda zeta: np.inf,
        max_steps=lambda zeta, last: max_final if last else (1 if zeta == 1.0 else max_inner),
        stage_done=small,
        final_done=lambda J, rec: rec["change"] <= tol and small(J, rec["relaxed"]))
    sizes = {k: terms[k][0].sizes(alpha, ctx) for k in keys}
    selected = {k: np.flatnonzero(v > selection_tol * max(float(v.max(initial=0.0)), 1e-300))
                for k, v in sizes.items()}
    f = ctx.K @ alpha + b
    sol = Solution(values={"alpha": alpha, "b": np.asarray(b), "f": f},
                   objective=history[-1]["objective"],
                   extras={"converged": converged, "n_steps": len(history)})
    return TermGNCResult(solution=sol, history=history, converged=converged, sizes=sizes,
                         selected=selected)


def gnc_kfold_residuals(formulation: RegularizedLSSVM, folds: Sequence[Any], **options: Any
                        ) -> np.ndarray:
    """Held-out residuals ``y_V - f^{(-V)}(x_V)`` by refitting :func:`gnc_fit` without each fold.

    The basis of the refit is the training part of the fold (a non-convex fit has no
    closed-form leave-out), so these are ordinary cross-validation residuals.

    Parameters
    ----------
    formulation : RegularizedLSSVM
        The composition with at least one non-convex term; it needs its inputs ``X``.
    folds : sequence of array-like of int
        The held-out index sets (one entry each for leave-one-out).
    **options : dict
        Passed to :func:`gnc_fit`.

    Returns
    -------
    numpy.ndarray of shape (N,)
        The held-out residuals.
    """
    ctx, y = formulation.context, formulation.targets()
    X = ctx.require_inputs("gnc_kfold_residuals")
    w = formulation.loss_.weights(ctx.n)
    out = np.full(ctx.n, np.nan)
    for V in folds:
        V = np.asarray(V, dtype=int).reshape(-1)
        T = np.setdiff1d(np.arange(ctx.n), V)
        loss = clone(formulation.loss_).set_params(sample_weight=w[T])
        sub = RegularizedLSSVM(X[T], y[T], kernel=ctx.kernel, loss=loss,
                               terms=formulation.terms_, K=ctx.K[np.ix_(T, T)])
        sol = gnc_fit(sub, **options).solution
        out[V] = y[V] - (ctx.K[np.ix_(V, T)] @ sol["alpha"] + sol.scalar("b"))
    return out

