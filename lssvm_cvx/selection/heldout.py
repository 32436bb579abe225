"""Held-out predictions of a composed model for any cross-validation splits, under the two
estimands of leave-one-out and k-fold.

``estimand="refit"`` — what :class:`sklearn.model_selection.GridSearchCV` computes: for a
split ``(train, test)`` the model is fitted on ``train`` alone (the other points leave the
loss, the kernel basis and every term: a kNN graph is rebuilt on the remaining points) and
predicts ``test``.  ``estimand="loss"`` — the points outside ``train`` leave only the loss; the
basis and the terms keep every training point (the classical closed-form leave-one-out of the
LS-SVM literature, Cawley & Talbot).  The two coincide for the RKHS norm alone (the representer
theorem: the optimal function lies in the span of the points in the loss); they differ for a
term that sees the data.

How each is computed (never more than it needs):

* squared loss, quadratic terms, ``"loss"``: the closed-form residuals of one factorisation
  (:meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.loo` / ``kfold``);
* squared loss, quadratic terms whose change on the remaining points is known
  (:meth:`~lssvm_cvx.terms.Term.refit_change`: none for a term that does not see the data, a
  low-rank one for a kNN graph), ``"refit"``: from the same factorisation by deleting the
  left-out points (:meth:`~lssvm_cvx.linalg.quadratic.AugmentedSystem.refit_predictions`; in
  the range of K, :mod:`~lssvm_cvx.linalg.range_refits`, one point at a time: since the
  fifteenth session its sets of several points are refitted per split, the update losing
  accuracy with the set's size where K is numerically singular);
* otherwise: one refit per split — the closed form on the remaining points, a cvxpy solve
  (``"loss"``: the cached DPP problem with the left-out weights set to 0; ``"refit"``: the
  composition on the remaining points, :meth:`RegularizedLSSVM.without`), or graduated
  non-convexity for a non-convex term — in parallel with ``n_jobs``.

A solve that stops inaccurate is kept (its split is marked ``"optimal_inaccurate"``); one that
fails gives NaN predictions with the solver's status, never an exception: a search scores
what it can and says what it could not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import as_targets, check_integer, check_option
from ..exceptions import InputError, SolverError
from ..formulations.regularized import RegularizedLSSVM, nonconvex_keys
from ..linalg.folds import check_split
from ..solvers import check_backend, profile
from ..terms import RKHSNorm
from .gnc_terms import gnc_fit

__all__ = ["ESTIMANDS", "HeldOut", "heldout_predictions", "check_splits"]

#: the two estimands of held-out error (module docstring); the first is the default
ESTIMANDS: tuple[str, ...] = ("refit", "loss")


@dataclass
class HeldOut:
    """Held-out decision values of one model over the splits.

    Attributes
    ----------
    predictions : list of numpy.ndarray
        Per split, the decision values at its test points (NaN where the fit failed).
    status : list of str
        Per split: ``"closed_form"``, ``"optimal"``, ``"optimal_inaccurate"`` or ``"failed"``.
    notes : list of str
        Per split, what went wrong (the solver's status and message), else ``""``.
    method : str
        How the predictions were computed (for ``cv_results_``).
    """

    predictions: list[np.ndarray]
    status: list[str]
    notes: list[str] = field(default_factory=list)
    method: str = ""

    @property
    def failed(self) -> bool:
        """Whether any split has no prediction."""
        return "failed" in self.status

    @property
    def inaccurate(self) -> bool:
        """Whether any split's solve stopped inaccurate."""
        return "optimal_inaccurate" in self.status


def check_splits(splits: Any, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``splits`` as checked ``(train, test)`` index pairs into ``range(n)``.

    Parameters
    ----------
    splits : iterable of (array-like, array-like)
        Train and test indices per split.
    n : int
        Number of points.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The pairs as integer arrays.

    Raises
    ------
    InputError
        Naming ``cv``: no split, an empty test or train set, indices out of range, a test
        point also in train.
    """
    n = check_integer(n, "n", error=InputError)    # a string crashed in NumPy, 12.5 passed
    out = [check_split(k, pair, n) for k, pair in enumerate(splits)]
    if not out:
        raise InputError("cv yielded no split")
    return out


def _cols(Y: np.ndarray) -> list[np.ndarray]:
    return [Y] if Y.ndim == 1 else [Y[:, j] for j in range(Y.shape[1])]


def _stack(preds: list[np.ndarray], Y: np.ndarray) -> np.ndarray:
    return preds[0] if Y.ndim == 1 else np.column_stack(preds)


def _solve(form: RegularizedLSSVM, solver: str | None, options: dict | None,
           accept_inaccurate: bool) -> tuple[Any, str, str]:
    """One fit: ``(solution or None, status, note)``; never raises for a solver failure."""
    try:
        if nonconvex_keys(form.terms_):
            fit = gnc_fit(form, solver=solver)
            note = "" if fit.converged else "graduated non-convexity did not converge"
            return fit.solution, "optimal", note
        if form.is_quadratic and solver in (None, "closed_form"):
            return form.solve("closed_form"), "closed_form", ""
        sol = form.solve(solver or "CLARABEL", options=options, raise_on_failure=False)
        if not sol.ok:
            return None, "failed", f"{sol.backend}: status {sol.status}" + (
                f" ({sol.extras.get('error')})" if sol.extras.get("error") else "")
        if sol.status != "optimal":
            if accept_inaccurate:
                return sol, "optimal_inaccurate", f"{sol.backend}: inaccurate (accepted)"
            cert = form.certificate(sol)
            ok = cert.passes(profile(sol.backend).tol)
            return sol, "optimal_inaccurate", (f"{sol.backend}: inaccurate, "
                                               + ("certified" if ok else "not certified: "
                                                  + "; ".join(cert.failures(
                                                      profile(sol.backend).tol))))
        return sol, sol.status, ""
    except SolverError as exc:
        return None, "failed", str(exc)


def _refit_one(form: RegularizedLSSVM, Y: np.ndarray, train: np.ndarray, test: np.ndarray,
               solver: str | None, options: dict | None,
               accept_inaccurate: bool) -> tuple[np.ndarray, str, str]:
    """The predictions at ``test`` of the composition refitted on ``train`` alone."""
    exclude = np.setdiff1d(np.arange(form.n), train)
    K = form.context.K
    preds, status, notes = [], "closed_form", []
    for col in _cols(Y):
        f = form.without(exclude)
        f.y = col[train]
        sol, st, note = _solve(f, solver, options, accept_inaccurate)
        preds.append(np.full(test.size, np.nan) if sol is None
                     else K[np.ix_(test, train)] @ sol["alpha"] + sol.scalar("b"))
        status = _worst(status, st)
        if note:
            notes.append(note)
    return _stack(preds, Y), status, "; ".join(notes)


def _loss_refits(form: RegularizedLSSVM, splits: list[tuple[np.ndarray, np.ndarray]],
                 Y: np.ndarray, solver: str | None, options: dict | None,
                 accept_inaccurate: bool, closed: bool) -> HeldOut:
    """``estimand="loss"`` by refits: the left-out points' weights set to 0 in one
    formulation per target column, so cvxpy re-solves its cached DPP problem (no
    recompilation) for every split."""
    n = form.n
    s_full = form.loss_.weights(n)
    per_split: list[list[np.ndarray]] = [[] for _ in splits]
    status = ["closed_form"] * len(splits)
    notes: list[list[str]] = [[] for _ in splits]
    for col in _cols(Y):
        f = RegularizedLSSVM(form.X, col, kernel=form.kernel, loss=form.loss_, terms=form.terms,
                             K=form.context.K, gram_owned=True)
        for k, (train, test) in enumerate(splits):
            s = s_full.copy()
            s[np.setdiff1d(np.arange(n), train)] = 0.0
            f.loss = _with_weights(form.loss_, s)
            sol, st, note = _solve(f, solver, options, accept_inaccurate)
            per_split[k].append(np.full(test.size, np.nan) if sol is None
                                else f.fitted(sol.values)[test])
            status[k] = _worst(status[k], st)
            if note:
                notes[k].append(note)
    return HeldOut([_stack(p, Y) for p in per_split], status, ["; ".join(x) for x in notes],
                   "refits with the left-out weights at 0" + (" (closed form)" if closed
                                                               else " (one DPP problem)"))


def _term_changes(form: RegularizedLSSVM, splits: list[tuple[np.ndarray, np.ndarray]]
                  ) -> list[tuple[np.ndarray, np.ndarray, tuple[float, ...]]] | None:
    """Per split, ``(U, C, scales)`` with the weighted terms of the refit on ``train`` equal to
    ``Σ_k scale_k w_k P_k[train, train] + U C U'`` (:meth:`~lssvm_cvx.terms.Term.refit_change`;
    ``scales`` per term with a weight, 1 unless the term rescales), or None when a term cannot
    say (then the model is refitted per split)."""
    ctx = form.context
    active = [(t, w) for t, w in form.terms_.values() if w]
    out = []
    for train, _ in splits:
        keep = np.sort(train)
        Us, Cs, scales = [], [], []
        for term, w in active:
            ch = term.refit_change(ctx, keep)
            if ch is None:
                return None
            scales.append(float(ch[2]) if len(ch) > 2 else 1.0)
            if ch[0].shape[1]:
                Us.append(ch[0])
                Cs.append(w * ch[1])
        if Us:
            from scipy.linalg import block_diag

            U = np.hstack(Us)
            if U.shape[1] > max(16, keep.size // 4):
                return None  # a large change (a large held-out set): refitting is as cheap
            out.append((U, block_diag(*Cs), tuple(scales)))
        else:
            out.append((np.zeros((keep.size, 0)), np.zeros((0, 0)), tuple(scales)))
    return out


def _refit_by_update(form: RegularizedLSSVM, splits: list[tuple[np.ndarray, np.ndarray]],
                     Y: np.ndarray, changes: list[tuple[np.ndarray, np.ndarray,
                                                        tuple[float, ...]]]) -> list[np.ndarray]:
    """The refits' held-out values from one factorisation per distinct set of term scales
    (one for leave-one-out): the rescaling folded into the terms' weights, each split's rows
    deleted and its low-rank change applied."""
    n = form.n
    preds: list[np.ndarray] = [np.empty(0)] * len(splits)
    groups: dict[tuple[float, ...], list[int]] = {}
    for k, (_, _, sc) in enumerate(changes):
        groups.setdefault(sc, []).append(k)
    for sc, idx in groups.items():
        f = form
        if any(x != 1.0 for x in sc):
            scaled = iter(sc)
            terms = {name: (t, w * next(scaled) if w else w)
                     for name, (t, w) in form.terms_.items()}
            f = RegularizedLSSVM(form.X, form.y, kernel=form.kernel, loss=form.loss_, terms=terms,
                                 K=form.context.K, gram_owned=True)
        sysm = f.system()
        sets = [(np.setdiff1d(np.arange(n), splits[k][0]), splits[k][1]) for k in idx]
        got = sysm.refit_predictions(Y, sets, [changes[k][:2] for k in idx])  # type: ignore[attr-defined]
        for k, p in zip(idx, got):
            preds[k] = p
    return preds


def _with_weights(loss: Any, s: np.ndarray) -> Any:
    from ..losses import make_loss

    return make_loss(loss, sample_weight=s)


_ORDER = ("closed_form", "optimal", "optimal_inaccurate", "failed")


def _worst(a: str, b: str) -> str:
    return a if _ORDER.index(a) >= _ORDER.index(b) else b


def heldout_predictions(form: RegularizedLSSVM, splits: Sequence[tuple[np.ndarray, np.ndarray]],
                        Y: np.ndarray | None = None, *, estimand: str = "refit",
                        solver: str | None = None, solver_options: dict | None = None,
                        accept_inaccurate: bool = False, n_jobs: int | None = None) -> HeldOut:
    """Held-out decision values of ``form`` for every ``(train, test)`` split.

    Parameters
    ----------
    form : RegularizedLSSVM
        The composition on all training points (its Gram, terms, loss and weights).
    splits : sequence of (numpy.ndarray, numpy.ndarray)
        ``(train, test)`` index pairs (:func:`check_splits`); points in neither stay in the
        basis and the terms under ``"loss"`` and leave them under ``"refit"``, as test points do.
    Y : numpy.ndarray of shape (N,) or (N, C) or None, default=None
        Targets (several columns share the factorisations); None: the formulation's.
    estimand : {"refit", "loss"}, default="refit"
        Module docstring.
    solver : str or None, default=None
        None: the closed form where it exists, else CLARABEL; or a cvxpy solver name.
    solver_options : dict or None, default=None
        Options passed to the solver.
    accept_inaccurate : bool, default=False
        Accept an ``optimal_inaccurate`` point without its certificate (it is kept either way;
        the status records which).
    n_jobs : int or None, default=None
        Parallel refits (joblib; None: one at a time).

    Returns
    -------
    HeldOut
        Per split, the predictions at its test points and how they were obtained.
    """
    check_option(estimand, ESTIMANDS, "loo")
    Y = form.targets() if Y is None else as_targets(Y, form.n, name="Y", columns=True)
    splits = check_splits(splits, form.n)
    n = form.n
    if solver is not None:
        check_backend(solver)
    closed = (form.is_quadratic and solver in (None, "closed_form")
              and not nonconvex_keys(form.terms_))
    terms = [t for t, _ in form.terms_.values()]
    rkhs_only = all(isinstance(t, RKHSNorm) for t in terms)
    if closed and (estimand == "loss" or rkhs_only):
        sysm = form.system()
        loo = all(test.size == 1 and train.size == n - 1 for train, test in splits)
        with np.errstate(divide="ignore", invalid="ignore"):  # weight-0 rows are never asked
            if loo:
                R = sysm.loo(Y)
                preds = [Y[test] - R[test] for _, test in splits]
            else:
                preds = []
                for train, test in splits:
                    E = np.setdiff1d(np.arange(n), train)
                    preds.append(Y[test] - sysm.kfold(Y, [E])[test])
        why = ("closed form, one factorisation" + (" (the RKHS norm alone: refit = loss, by the "
                                                   "representer theorem)"
                                                   if estimand == "refit" else ""))
        return HeldOut(preds, ["closed_form"] * len(splits), [""] * len(splits), why)
    update = closed and (all(te.size == 1 and tr.size == n - 1 for tr, te in splits)
                         or form.decomposition().representation() != "range")
    changes = _term_changes(form, splits) if update else None
    if changes is not None:
        preds = _refit_by_update(form, splits, Y, changes)
        low_rank = any(U.shape[1] for U, _, _ in changes)
        return HeldOut(preds, ["closed_form"] * len(splits), [""] * len(splits),
                       "closed form: the left-out rows deleted from one factorisation"
                       + (", the terms' change on the remaining points as a low-rank update"
                          if low_rank else ""))
    args = (solver, solver_options, accept_inaccurate)
    if estimand == "loss":  # one cached DPP problem per column, the weights re-set per split
        return _loss_refits(form, splits, Y, solver, solver_options, accept_inaccurate, closed)
    if n_jobs not in (None, 1):
        from joblib import Parallel, delayed

        got = Parallel(n_jobs=n_jobs)(delayed(_refit_one)(form, Y, tr, te, *args)
                                      for tr, te in splits)
    else:
        got = [_refit_one(form, Y, tr, te, *args) for tr, te in splits]
    return HeldOut([g[0] for g in got], [g[1] for g in got], [g[2] for g in got],
                   "refits on the remaining points" + (" (closed form)" if closed else ""))
