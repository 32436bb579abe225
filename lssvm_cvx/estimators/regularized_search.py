"""The model selection of the composed estimators (``RegularizedLSSVMRegressor`` /
``RegularizedLSSVMClassifier`` with ``selection=``): every candidate (σ², term weights)
scored on every split with ``scoring``, laid out as ``GridSearchCV.cv_results_`` — or, with
``selection="gcv"``, by generalised cross-validation of its closed form (no splits).

Held-out predictions come from :func:`lssvm_cvx.selection.heldout.heldout_predictions` under
the estimand ``loo`` (``"refit"``: what ``GridSearchCV`` computes; ``"loss"``: the point leaves
the loss only), with two shortcuts that give the same numbers faster:

* when the held-out sets partition the labelled points, the loss is squared, every term is
  quadratic and the estimand is ``"loss"`` (or the terms are the RKHS norm alone, where the two
  estimands coincide), one weight's whole path comes from one (generalised) eigendecomposition
  (:meth:`RegularizedLSSVM.path`);
* for leave-one-out on more than :data:`SCREEN_MIN_ROWS` rows (``search="auto"``) or with
  ``search="screen"``, a low-rank screen of the whole grid, then the exact path around the
  screened optimum (:mod:`lssvm_cvx.selection.screen`; only candidates scored exactly have a
  ``mean_test_score``).  The screen ranks by the scoring's own criterion (the squared error,
  or the error rate for accuracy); when every term is the RKHS norm it needs the kernel at the
  landmarks only, not the N × N Gram of every width.

The LS-SVM estimators (``LSSVMRegressor`` / ``LSSVMClassifier``) are presets of this search:
their γ grid is the RKHS term's weight grid ``1/γ`` (:mod:`lssvm_cvx.estimators.lssvm`).

A candidate whose solve stops inaccurate is scored and marked (``cv_results_["status"]``,
with a :class:`~lssvm_cvx.exceptions.LssvmCvxWarning`); one whose solve fails gets NaN and
ranks last, with the reason.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError, LssvmCvxWarning, NumericalError
from ..formulations.regularized import nonconvex_keys
from ..linalg.folds import cv_splits
from ..losses import make_loss
from ..selection.heldout import heldout_predictions
from ..selection.screen import nystroem_features, screen_landmarks, screen_loo, screen_path, widen
from ..terms import RKHSNorm
from .base import input_magnitudes
from .grids import sigma2_candidates
from .params import WEIGHT_GRID
from .scoring import Scoring, best_of, cv_results, resolve_scoring
from .search_results import search_results

__all__ = ["search", "weight_grid", "best_candidate", "candidate_params",
           "DEFAULT_WEIGHT_GRID"]

#: the search strategies of ``selection="loo"``
SEARCHES = ("auto", "grid", "screen")
#: ``search="auto"`` screens the grid (low rank, exact LOO on a short list) above this many rows
SCREEN_MIN_ROWS = 1500

#: weights tried for the first term when ``selection`` is set and ``weight_grid`` is None
DEFAULT_WEIGHT_GRID = np.logspace(-5, 3, 17)
#: after the screen, the exact path scores the ``SCREEN_SHORTLIST`` best screened candidates
#: (σ², other weights) around their screened optima ...
SCREEN_SHORTLIST = 2
#: ... but the ``SCREEN_SHORTLIST_WIDTHS`` best when the candidates are widths only and every
#: term an RKHS norm (the LS-SVM's (γ, σ²) search): there one is the grid's choice in 59 of
#: 60 regressions (``notes/screen_shortlist.md``) and 38 of 40 classifications, at the same
#: test error; the composed searches keep two, with one they miss the grid's choice more
#: often (``notes/screen_shortlist_composed.md``)
SCREEN_SHORTLIST_WIDTHS = 1


def weight_grid(est: Any, terms: dict) -> dict[str, np.ndarray]:
    """The weights ``est`` searches per term key: ``est.weight_grid`` checked, or the first
    term over :data:`DEFAULT_WEIGHT_GRID` (the first key is the one swept as a path)."""
    grid = est.weight_grid
    if grid is None:
        grid = {next(iter(terms)): DEFAULT_WEIGHT_GRID}
    out = WEIGHT_GRID.per_key_values(grid, "weight_grid")
    for key in out:
        if key not in terms:
            raise HyperparameterError(f"weight_grid names {key!r}, which is not a term "
                                      f"({sorted(terms)})")
    return out


def candidate_params(other_keys: list[str], combo: tuple, path_key: str, weight: float,
                     sigma2: Any = None) -> dict[str, float]:
    """One candidate's ``params`` in ``cv_results_``: ``terms__<key>`` of the other terms'
    weights ``combo`` and of the path's ``weight``, and ``sigma2`` when the width is searched
    (None: it is not)."""
    p = {f"terms__{k}": float(v) for k, v in zip(other_keys, combo)}
    p[f"terms__{path_key}"] = float(weight)
    if sigma2 is not None:
        p["sigma2"] = float(sigma2)
    return p


def _chosen_terms(terms: dict, best: dict[str, Any]) -> dict:
    """``terms`` with the weights of the chosen candidate's ``params`` (the others as given)."""
    return {k: (t, float(best.get(f"terms__{k}", wt))) for k, (t, wt) in terms.items()}


def _with_weights(terms: dict, keys: list[str], combo: tuple) -> dict:
    """``terms`` with the weights ``combo`` of the terms ``keys`` (the others as given)."""
    return {**terms, **{k: (terms[k][0], float(v)) for k, v in zip(keys, combo)}}


def _partition(splits: Sequence[tuple[np.ndarray, np.ndarray]], n: int) -> bool:
    """Whether the test sets are disjoint and each split trains on everything but its test set
    (KFold, LeaveOneOut...): what the path's held-out residuals, one per point, need.  Test
    sets that overlap (``ShuffleSplit``) are scored by refits: the path would keep one
    residual per point, that of the last fold holding it."""
    if not all(train.size + test.size == n for train, test in splits):
        return False
    tests = np.concatenate([test for _, test in splits])
    return np.unique(tests).size == tests.size


def search(est: Any, X: np.ndarray, Y: np.ndarray, labels: np.ndarray, w: np.ndarray | None,
           labeled: np.ndarray, terms: dict, groups: Any = None, *, classification: bool,
           formulation: Callable[..., Any], classes: np.ndarray | None,
           landmark_gram: Callable[[float, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None,
           keep: dict[str, Any] | None = None) -> tuple[float, dict, dict[str, Any]]:
    """Search ``est``'s grid (module docstring).

    Parameters
    ----------
    est : _RegularizedBase
        The estimator (its parameters define the search).
    X : numpy.ndarray
        Training inputs (or the precomputed Gram).
    Y : numpy.ndarray of shape (N,) or (N, C)
        Targets (``±1`` columns for a classifier).
    labels : numpy.ndarray of shape (N,)
        What the scorer compares with: the targets, or a classifier's original labels.
    w : numpy.ndarray of shape (N,) or None
        Loss weights (0: the point stays in the basis and the terms, out of the loss).
    labeled : numpy.ndarray of bool of shape (N,)
        The points with a positive weight: only they are held out and scored.
    terms : dict
        The checked terms.
    groups : array-like or None, default=None
        Group labels for a group splitter.
    classification : bool
        Whether ``est`` is a classifier.
    formulation : callable
        ``formulation(X, y, sigma2, w, terms)``: the estimator's problem for one candidate.
    classes : numpy.ndarray or None
        A classifier's classes (what its scorer needs), else None.
    landmark_gram : callable or None, default=None
        ``landmark_gram(sigma2, L)``: the kernel between every point and the landmarks ``L``
        and the landmarks' own Gram, for a screen of RKHS-only terms without the full Gram
        (None: the screen builds each candidate's formulation).
    keep : dict or None, default=None
        Filled, when the chosen candidate's system was factorised by the search (the screen's
        exact step), with ``"system"`` (the factorisation: the final fit only solves with it),
        ``"kernel"`` and ``"X"`` (the formulation's inputs, None for a precomputed Gram).

    Returns
    -------
    tuple
        ``(sigma2, terms with the chosen weights, cv_results_)``.
    """
    grid = weight_grid(est, terms)
    s2s, searched = sigma2_candidates(est, X, objects=True)
    if est.selection == "gcv":
        return _gcv_search(est, X, Y, w, terms, grid, s2s, searched, formulation)
    n = X.shape[0]
    y_split = Y if Y.ndim == 1 else np.argmax(Y, axis=1)
    splits = cv_splits("loo" if est.selection == "loo" else est.cv, n, y=y_split, groups=groups,
                       stratified=classification, random_state=est.random_state, labeled=labeled)
    if any(test.size == 0 for _, test in splits):
        raise HyperparameterError("cv yields a split with no labelled test point")
    loss = make_loss(est.loss)
    scoring = resolve_scoring(est.scoring, classifier=classification, loss=loss)
    solver = est.solver
    path_key, *other_keys = list(grid)
    quadratic = loss.squared and all(t.is_quadratic for t, _ in terms.values())
    rkhs_only = all(isinstance(t, RKHSNorm) for t, _ in terms.values())
    if (searched and est.selection == "loo" and s2s.size > 1 and est.search != "grid"
            and (est.search == "screen" or n > SCREEN_MIN_ROWS) and quadratic
            and solver is None and w is None and (est.loo == "loss" or rkhs_only)
            and scoring.kind in ("mse", "accuracy")):
        shortlist = SCREEN_SHORTLIST_WIDTHS if rkhs_only and not other_keys else SCREEN_SHORTLIST
        return _screened(est, X, Y, labels, terms, grid, s2s, path_key, other_keys, splits,
                         scoring, shortlist, formulation=formulation, classes=classes,
                         landmark_gram=landmark_gram if rkhs_only else None,
                         keep={} if keep is None else keep)
    params, rows, status, reasons, times = [], [], [], [], []
    y0 = Y if Y.ndim == 1 else Y[:, 0]
    for s2 in s2s:
        dec = None      # one decomposition per σ²: the Gram, the terms' matrices formed once
        for combo in itertools.product(*(grid[k] for k in other_keys)):
            cand = _with_weights(terms, other_keys, combo)
            form = formulation(X, y0, float(s2), w, cand)
            t0 = time.perf_counter()
            use_path = (form.is_quadratic and solver is None and not nonconvex_keys(cand)
                        and (est.loo == "loss" or rkhs_only) and _partition(splits, n))
            if use_path:
                loo = all(te.size == 1 for _, te in splits)
                dec = (form.decomposition() if dec is None
                       else dec.reweighted(dict(zip(other_keys, combo))))
                with np.errstate(divide="ignore", invalid="ignore"):  # weight-0 rows unused
                    R = dec.path(path_key, grid[path_key], Y,
                                 folds=None if loo else [te for _, te in splits])[2]
                outs = [(Y - R[k], ["closed_form"] * len(splits), [""])
                        for k in range(len(grid[path_key]))]
                per = (time.perf_counter() - t0) / len(grid[path_key])
                steps = [per] * len(outs)
            else:
                outs, steps = [], []
                for wk in grid[path_key]:
                    cand[path_key] = (terms[path_key][0], float(wk))
                    tk = time.perf_counter()
                    held = heldout_predictions(
                        formulation(X, y0, float(s2), w, dict(cand)), splits, Y,
                        estimand=est.loo, solver=est.solver, solver_options=est.solver_options,
                        accept_inaccurate=est.accept_inaccurate, n_jobs=est.n_jobs)
                    outs.append((held.predictions, held.status, held.notes))
                    steps.append(time.perf_counter() - tk)
            for wk, (preds, st, notes), dt in zip(grid[path_key], outs, steps):
                params.append(candidate_params(other_keys, combo, path_key, wk,
                                               s2 if searched else None))
                rows.append(scoring.split_scores(labels, preds, [te for _, te in splits],
                                                 classes=classes, targets=Y))
                bad = "failed" in st
                status.append("failed" if bad else ("inaccurate" if "optimal_inaccurate" in st
                                                    else "ok"))
                reasons.append("; ".join(dict.fromkeys(x for x in notes if x)))
                times.append(dt)
    results = cv_results(params, np.array(rows), status=status, reasons=reasons, fit_times=times,
                         estimand=est.loo, scoring=scoring.name, n_splits=len(splits),
                         search="grid")
    _warn(status, reasons)
    _, best, _ = best_candidate(results, X, Y, scoring)
    return best.get("sigma2", est.sigma2), _chosen_terms(terms, best), results


def _gcv_search(est: Any, X: np.ndarray, Y: np.ndarray, w: np.ndarray | None, terms: dict,
                grid: dict[str, np.ndarray], s2s: np.ndarray, searched: bool,
                formulation: Callable[..., Any]) -> tuple[float, dict, dict[str, Any]]:
    """``selection="gcv"``: every candidate scored by generalised cross-validation of its
    closed form as a linear smoother of the targets (Golub, Heath & Wahba 1979; a criterion,
    not held-out splits: ``mean_test_score`` is minus it), one weight's path per σ² and
    combination of the others (:meth:`lssvm_cvx.linalg.engine.Decomposition.gcv_path`); a
    point of weight 0 (unlabelled) counts in neither the residuals nor the trace."""
    if not (make_loss(est.loss).squared and all(t.is_quadratic for t, _ in terms.values())
            and est.solver is None):
        raise HyperparameterError("selection='gcv' needs the closed form: the squared loss, "
                                  "quadratic terms and solver=None")
    path_key, *other_keys = list(grid)
    y0 = Y if Y.ndim == 1 else Y[:, 0]
    params, values = [], []
    for s2 in s2s:
        dec = None      # one decomposition per σ²: the Gram, the terms' matrices formed once
        for combo in itertools.product(*(grid[k] for k in other_keys)):
            cand = _with_weights(terms, other_keys, combo)
            dec = (formulation(X, y0, float(s2), w, cand).decomposition() if dec is None
                   else dec.reweighted(dict(zip(other_keys, combo))))
            for wk, v in zip(grid[path_key], dec.gcv_path(path_key, grid[path_key], Y)):
                params.append(candidate_params(other_keys, combo, path_key, wk,
                                               s2 if searched else None))
                values.append(v)
    results = search_results(params, values, criterion="gcv")
    _, best, _ = best_of(results)
    return best.get("sigma2", est.sigma2), _chosen_terms(terms, best), results


def best_candidate(results: dict[str, Any], X: np.ndarray, Y: np.ndarray,
                   scoring: Scoring) -> tuple[int, dict, float]:
    """:func:`~lssvm_cvx.estimators.scoring.best_of` of a search's ``cv_results_``, but when
    no candidate has a finite score although no solve failed, a
    :class:`~lssvm_cvx.exceptions.NumericalError` naming the cause (held-out errors that
    overflow, or a scoring that gave no finite value), not a solver error.

    Parameters
    ----------
    results : dict
        The search's ``cv_results_``.
    X, Y : numpy.ndarray
        The inputs and targets searched on (their magnitudes name an overflow).
    scoring : Scoring
        The search's scoring.

    Returns
    -------
    tuple
        ``(index, params, score)`` of the best candidate.
    """
    scores = np.asarray(results["mean_test_score"], dtype=np.float64)
    if not np.isfinite(scores).any() and "failed" not in list(results.get("status", [])):
        parts, cause = input_magnitudes(X, Y)
        used = scoring.name if scoring.scorer is None else scoring.scorer
        raise NumericalError(
            f"model selection: no candidate has a finite held-out score though every fit ran "
            f"({', '.join(parts)}): " + (cause or f"scoring={used!r} gave no finite value on "
                                         "any split; check the scorer"))
    return best_of(results)


def _warn(status: list[str], reasons: list[str]) -> None:
    n_inacc = status.count("inaccurate")
    n_fail = status.count("failed")
    if n_inacc or n_fail:
        first = next((r for s, r in zip(status, reasons) if s != "ok" and r), "")
        warnings.warn(f"model selection: {n_inacc} candidate(s) scored from inaccurate solves and "
                      f"{n_fail} not scored (a solve failed; score NaN, ranked last); see "
                      f"cv_results_['status'] and ['reason'] (first: {first})", LssvmCvxWarning,
                      stacklevel=4)


def _screened(est: Any, X: np.ndarray, Y: np.ndarray, labels: np.ndarray, terms: dict,
              grid: dict, s2s: np.ndarray, path_key: str, other_keys: list[str],
              splits: Sequence, scoring: Scoring, shortlist: int, *,
              formulation: Callable[..., Any],
              classes: np.ndarray | None,
              landmark_gram: Callable[[float, np.ndarray], tuple[np.ndarray, np.ndarray]] | None,
              keep: dict[str, Any]) -> tuple[float, dict, dict[str, Any]]:
    """Screen every (σ², other weights) candidate's path by the low-rank LOO of
    :mod:`lssvm_cvx.selection.screen`, then score the ``shortlist`` best
    (:data:`SCREEN_SHORTLIST`, :data:`SCREEN_SHORTLIST_WIDTHS`) by the exact path: the whole
    path where one eigendecomposition serves it (the RKHS norms' bordered system is skipped
    here: its per-weight factorisations are cheap), else a window around the screened
    optimum, widened while the exact optimum sits on its edge. The choice and its score are
    exact (``n_exact`` in ``cv_results_``: how many were scored).
    The screen's criterion is the scoring's (error rate for accuracy, else squared error);
    its landmarks are seeded by ``random_state`` (None: seed 0, a reproducible search).  The
    solution ``(α, b)`` of the best candidate scored exactly is kept (one at a time) and handed
    to the final fit in ``keep`` when it is the chosen one: the fit then solves nothing (until
    2026-12-06 its factorisation was kept, an N × N array, and solved twice; each exact
    factorisation now spends its memory on its own LOO question,
    :meth:`~lssvm_cvx.linalg.engine.Decomposition.path`)."""
    y0 = Y if Y.ndim == 1 else Y[:, 0]
    ws = grid[path_key]
    crit = "error" if scoring.kind == "accuracy" else "mse"
    seed = 0 if est.random_state is None else est.random_state
    landmarks = screen_landmarks(X.shape[0], random_state=seed)
    cands = [(float(s2), combo) for s2 in s2s
             for combo in itertools.product(*(grid[k] for k in other_keys))]
    tests = [te for _, te in splits]

    def screen(s2: float, combo: tuple) -> np.ndarray:
        if landmark_gram is None:
            return screen_path(formulation(X, y0, s2, None,
                                           _with_weights(terms, other_keys, combo)),
                               path_key, ws, Y, landmarks, crit)
        # RKHS norms only: the features need the kernel at the landmarks, and every other
        # term adds its weight times the identity in the features' coordinates
        F, _ = nystroem_features(*landmark_gram(s2, landmarks))
        other = sum(float(v) for v in combo) + sum(
            float(wt) for k, (_, wt) in terms.items() if k != path_key and k not in other_keys)
        return screen_loo(F, Y, ws, crit, fixed=other * np.eye(F.shape[1]) if other else None)

    screened = np.array([screen(s2, combo) for s2, combo in cands])
    best_screen = np.nanmin(screened, axis=1)
    order = [int(c) for c in np.argsort(best_screen, kind="stable")[:shortlist]]
    best_exact: dict[str, Any] = {"value": np.inf, "index": -1, "solution": None}
    rows = np.full((len(cands) * ws.size, len(splits)), np.nan)

    def record(c: int, j: int, R: Any, form: Any, solution: Any = None) -> float:
        """Score the exact residuals ``R`` of candidate ``c`` at weight ``j`` (lower is
        better); the best scored solution ``(α, b)`` is kept for the final fit."""
        rows[c * ws.size + j] = scoring.split_scores(labels, Y - R, tests, classes=classes,
                                                     targets=Y)
        value = -float(np.mean(rows[c * ws.size + j]))
        if np.isfinite(value) and value < best_exact["value"]:
            best_exact.update(value=value, index=c * ws.size + j, solution=solution,
                              kernel=form.kernel, X=form.X)
        return value

    for c in order:
        s2, combo = cands[c]
        form = formulation(X, y0, s2, None, _with_weights(terms, other_keys, combo))
        dec, j0 = form.decomposition(), int(np.nanargmin(screened[c]))
        # where the exact system is not the bordered one (a term other than the RKHS norm),
        # one generalised eigendecomposition, when it serves, scores the whole path for less
        # than the few augmented systems the widening would factorise
        # (notes/composed_exact_step.md)
        one = (None if dec.representation({path_key: float(ws[j0])}) == "bordered"
               else dec.one_decomposition_path(path_key, ws, Y))
        if one is not None:
            for j, R in enumerate(one[2]):
                record(c, j, R, form)
            continue

        def exact(todo: list[int], c: int = c, form: Any = form, dec: Any = dec) -> list[float]:
            # exact LOO around the screened optimum, widened while the exact optimum sits on
            # the window's edge (a 1-D search along the path term's weight): one factorisation
            # per weight, the bordered ones in one reused copy of the Gram
            alphas, bs, res = dec.path(path_key, ws[todo], Y, one_decomposition=False)
            return [record(c, j, R, form, (a, b)) for j, a, b, R in zip(todo, alphas, bs, res)]

        widen(exact, np.full(ws.size, np.nan), j0)
    params = [candidate_params(other_keys, combo, path_key, wk, s2) for s2, combo in cands
              for wk in ws]
    screen_scores = (1.0 - screened if crit == "error" else -screened).ravel()
    results = cv_results(params, rows, estimand=est.loo, scoring=scoring.name,
                         n_splits=len(splits), search="screen", screen_scores=screen_scores,
                         landmarks=int(landmarks.size))
    results["n_exact"] = int(np.isfinite(results["mean_test_score"]).sum())
    index, best, _ = best_candidate(results, X, Y, scoring)
    if best_exact["index"] == index and best_exact["solution"] is not None:   # (a tie ranks
        # the first candidate, and a path scored from one eigendecomposition keeps no
        # solution: then refit)
        keep.update(solution=best_exact["solution"], kernel=best_exact["kernel"],
                    X=best_exact["X"])
    return best["sigma2"], _chosen_terms(terms, best), results
