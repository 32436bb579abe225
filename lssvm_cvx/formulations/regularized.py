"""The composition core: one loss and any number of weighted terms on the expansion
coefficients of ``f(x) = Σ_i α_i k(x_i, x) + b``::

    min_{α, b}  L(y, Kα + b1) + Σ_k w_k T_k(α),        w_k ≥ 0, b unpenalised.

* :meth:`RegularizedLSSVM.build` — the DPP cvxpy problem: variables ``alpha``, ``b`` and the
  loss's and terms' auxiliary variables (``e`` for the squared loss), one nonnegative
  Parameter per weight named by its key, and ``sample_weight`` a Parameter too;
* :meth:`RegularizedLSSVM.closed_form` — when the loss is :class:`~lssvm_cvx.losses.Squared`
  and every term is quadratic (:mod:`lssvm_cvx.linalg.quadratic`);
* :meth:`RegularizedLSSVM.loo_residuals`, :meth:`~RegularizedLSSVM.kfold_residuals` — exact in
  closed form, by refits of the cached DPP problem otherwise (a point leaves the loss by
  setting its weight to 0: no recompilation);
* :meth:`RegularizedLSSVM.path` — one weight varied, the others fixed.

The LS-SVM (AReg paper eq. 1-2) is ``Squared() + {"rkhs": (RKHSNorm(), 1/γ)}``; the weighted
LS-SVM (eq. 74-75) is ``Squared(sample_weight=v)`` (``γ_i = γ v_i``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ..checks import as_gram, as_matrix, as_targets, check_option
from ..exceptions import HyperparameterError, InputError, NotSupportedError, TermError, user_code
from ..kernels import RBF, Kernel
from ..linalg.engine import RKHS, Decomposition, FittedTerm, decompose
from ..linalg.folds import disjoint_folds, index_set
from ..linalg.problem_checks import check_weights_array
from ..linalg.quadratic import QuadraticSystem
from ..losses import Loss, loss_pieces, make_loss, probe_weights
from ..solution import Solution
from ..terms import L1, Context, GraphLaplacian, RKHSNorm, Term
from ..terms.collection import check_terms, nonconvex_keys, refuse_nonconvex
from .base import BuiltProblem, Formulation, Reference

__all__ = ["RegularizedLSSVM", "RegularizedLSSVML1", "PathResult", "check_terms", "nonconvex_keys"]

@dataclass
class PathResult:
    """A one-weight path: ``weights`` (m,), ``alpha`` (m, N[, C]), ``b`` (m[, C]) and the
    held-out ``residuals`` (m, N[, C]: leave-one-out or k-fold)."""

    key: str
    weights: np.ndarray
    alpha: np.ndarray
    b: np.ndarray
    residuals: np.ndarray

    def mse(self) -> np.ndarray:
        """Mean squared held-out residual per weight."""
        return np.mean(self.residuals.reshape(len(self.weights), -1) ** 2, axis=1)


class _ClosedFormFlag:
    """``has_closed_form``: True on the class (it can have one), per instance the truth."""

    def __get__(self, obj: Any, owner: Any) -> bool:
        return True if obj is None else obj.is_quadratic


class RegularizedLSSVM(Formulation):
    """Loss × terms on a kernel expansion (module docstring).

    Parameters
    ----------
    X : array-like of shape (N, d) or None
        Training inputs (``None`` with a precomputed ``K``).
    y : array-like of shape (N,)
        Targets (``±1`` for classification losses).
    kernel : Kernel, optional
        Default ``RBF(1.0)``.
    loss : Loss or str, optional
        Default :class:`~lssvm_cvx.losses.Squared` ``()``.
    terms : mapping of str to (Term, float), optional
        ``{key: (term, weight)}``; default ``{"rkhs": (RKHSNorm(), 1.0)}``.
    K : array-like of shape (N, N), optional
        A precomputed Gram (then ``kernel`` is only informative).
    gram_owned : bool, default=False
        Whether the closed form may overwrite the given ``K`` (the caller does not reuse it).
    """

    name: ClassVar[str] = "regularized_lssvm"
    reference = Reference("areg-fusion-pelckmans-2006",
                          "Composition of a loss and penalties on the LS-SVM expansion; the "
                          "LS-SVM is the squared loss with the RKHS norm (Pelckmans et al. 2006)",
                          {"primal": "(1)", "dual system": "(2)", "weighted": "(74)-(75)"})
    has_closed_form = _ClosedFormFlag()
    #: fitted values and bias: identifiable even when α is not (singular Gram)
    compare = ("f", "b")
    #: CLARABEL at the profile's 1e-10 stops "optimal_inaccurate" on dense LPs/SOCPs of this
    #: form (absolute loss, group L1) with the objective right to ~1e-12; 1e-9 reaches "optimal".
    #: With a full-rank RBF factor (N = 300, σ² = 1) its KKT factorisation fails
    #: ("solver_error") at the default static regularisation; 1e-7 solves it (as for AReg).
    solver_options = {"CLARABEL": {"tol_gap_abs": 1e-9, "tol_gap_rel": 1e-9, "tol_feas": 1e-9,
                                   "static_regularization_constant": 1e-7},
                      "OSQP": {"eps_abs": 1e-7, "eps_rel": 1e-7},
                      "SCS": {"eps_abs": 1e-7, "eps_rel": 1e-7}}

    def __init__(self, X: Any, y: Any, *, kernel: Kernel | None = None, loss: Any = None,
                 terms: Mapping[str, tuple[Term, float]] | None = None, K: Any = None,
                 gram_owned: bool = False):
        self.X = X
        self.y = y
        self.kernel = kernel
        self.loss = loss
        self.terms = terms
        # a Gram handed over by an estimator (gram_owned) was computed from checked X
        self._K_given = None if K is None else as_gram(K, name="K", finite=gram_owned is not True)
        self.gram_owned = gram_owned
        self._ctx: Context | None = None
        self._built = None

    # --- data ---------------------------------------------------------------------------------
    @property
    def context(self) -> Context:
        """The :class:`~lssvm_cvx.terms.Context` (Gram computed once)."""
        if self._ctx is None:
            if self._K_given is not None:
                K, X = self._K_given, None if self.X is None else as_matrix(self.X, min_samples=2)
            else:
                X = as_matrix(self.X, min_samples=2)
                K = (self.kernel or RBF())(X)
            self._ctx = Context(K=K, X=X, kernel=self.kernel or RBF())
        return self._ctx

    @property
    def n(self) -> int:
        return self.context.n

    def targets(self) -> np.ndarray:
        """The checked targets ``y`` (``±1`` for a classification loss).

        Returns
        -------
        numpy.ndarray of shape (N,)
            The targets.
        """
        y = as_targets(self.y, self.n)
        self.loss_.check_targets(y)
        return y

    @property
    def loss_(self) -> Loss:
        """The loss object (``loss`` resolved)."""
        return make_loss(self.loss)

    @property
    def terms_(self) -> dict[str, tuple[Term, float]]:
        """The checked ``{key: (term, weight)}``."""
        return check_terms(self.terms)

    @property
    def is_quadratic(self) -> bool:
        """Squared loss and every term quadratic: closed form, exact LOO, paths."""
        return self.loss_.squared and all(t.is_quadratic for t, _ in self.terms_.values())

    def validate(self) -> None:
        self.targets()
        self.loss_.weights(self.n)
        _ = self.terms_  # validates the terms and weights

    def parameter_values(self) -> dict[str, Any]:
        vals: dict[str, Any] = {k: w for k, (_, w) in self.terms_.items()}
        vals["sample_weight"] = self.loss_.weights(self.n)
        return vals

    # --- cvxpy --------------------------------------------------------------------------------
    def _build(self) -> BuiltProblem:
        refuse_nonconvex(self.terms_, "a cvxpy problem")
        ctx, y = self.context, self.targets()
        alpha = cp.Variable(ctx.n, name="alpha")
        b = cp.Variable(name="b")
        s = cp.Parameter(ctx.n, nonneg=True, name="sample_weight")
        loss = self.loss_
        obj, cons, extra = loss_pieces(loss, y, ctx.K @ alpha + b, s)
        if type(loss).__module__ != Loss.__module__:  # a user's loss: twin and form agree?
            probe_weights(loss, y)
        params: dict[str, cp.Parameter] = {"sample_weight": s}
        variables: dict[str, cp.Variable] = {"alpha": alpha, "b": b, **extra}
        pieces: dict[str, cp.Expression] = {self._loss_key(): obj}
        term_pieces: dict[str, cp.Expression] = {}
        for key, (term, _) in self.terms_.items():
            w = cp.Parameter(nonneg=True, name=key)
            label = f"term {key!r} ({type(term).__name__})"
            if term.is_quadratic and (type(term).expr, type(term).factor) == (Term.expr,
                                                                             Term.factor):
                term.matrix(ctx, name=key)  # named by its key here; expr's factor reads the memo
            with user_code(label, "epigraph" if type(term).epigraph is not Term.epigraph
                           else "expr"):
                piece, tcons, tvars = term.epigraph(alpha, ctx)
            if not (isinstance(piece, cp.Expression) and piece.is_scalar() and piece.is_convex()):
                raise TermError(f"{label}: its cvxpy expression is not a convex scalar "
                                "(cvxpy's DCP rules)")
            if not all(c.is_dcp() for c in tcons.values()):
                raise TermError(f"{label}: its epigraph constraints are not DCP")
            if tcons and not piece.variables():
                raise TermError(
                    f"{label} contributes only constraints: a hard constraint has no weight, so "
                    "its weight would be silently ignored (and it would bind the training "
                    "points only); write the requirement as a penalty (e.g. the sum of its "
                    "violations, cp.sum(cp.pos(...))) or add the constraint to a formulation "
                    "of your own")
            obj = obj + w * piece
            pieces[label] = w * piece
            term_pieces[key] = piece
            cons.update({f"{key}:{c}": con for c, con in tcons.items()})
            variables.update({f"{key}:{v}": var for v, var in tvars.items()})
            params[key] = w
        problem = BuiltProblem(cp.Minimize(obj), cons, vars=variables, params=params,
                               pieces=pieces)
        if not problem.is_dpp():
            bad = [f"term {k!r}" for k, piece in term_pieces.items()
                   if not (cp.Parameter(nonneg=True) * piece).is_dpp()]
            if not cp.Problem(cp.Minimize(pieces[self._loss_key()]),
                              list(cons.values())).is_dpp():
                bad.append(f"the loss {type(loss).__name__}")
            raise TermError(f"the composed problem is not DPP ({', '.join(bad) or 'unknown'}): "
                            "a term or loss expression must not contain cvxpy Parameters of "
                            "its own (the weights are the composition's Parameters)")
        return problem

    def _loss_key(self) -> str:
        return f"loss ({type(self.loss_).__name__})"

    def twin_pieces(self, values: Mapping[str, np.ndarray]) -> dict[str, float]:
        """The loss's and each weighted term's NumPy twin at ``values`` (keys as in the built
        problem's ``pieces``: ``"loss (<Loss>)"`` and ``"term '<key>' (<Term>)"``).

        Parameters
        ----------
        values : mapping of str to numpy.ndarray
            A solution's values with ``"alpha"`` and ``"b"``.

        Returns
        -------
        dict of str to float
            Piece name to value (their sum is :meth:`objective`).
        """
        ctx, loss = self.context, self.loss_
        alpha, b = np.asarray(values["alpha"]), float(np.asarray(values["b"]))
        with user_code(f"loss {type(loss).__name__}", "value"):
            out = {self._loss_key(): float(loss.value(self.targets(), ctx.K @ alpha + b))}
        for key, (term, w) in self.terms_.items():
            label = f"term {key!r} ({type(term).__name__})"
            with user_code(label, "value"):
                out[label] = float(w * term.value(alpha, ctx)) if w else 0.0
        return out

    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        return float(sum(self.twin_pieces(values).values()))

    def fitted(self, values: Mapping[str, Any]) -> np.ndarray:
        """``f = Kα + b`` at the training points (identifiable even when α is not).

        Parameters
        ----------
        values : mapping of str to array-like
            A solution's values with ``"alpha"`` and ``"b"``.

        Returns
        -------
        numpy.ndarray of shape (N,)
            The fitted values.
        """
        return self.context.K @ np.asarray(values["alpha"]) + float(np.asarray(values["b"]))

    # --- closed form ---------------------------------------------------------------------------
    def _require_quadratic(self, what: str) -> None:
        if not self.is_quadratic:
            refuse_nonconvex(self.terms_, what)
            rough = [k for k, (t, _) in self.terms_.items() if not t.is_quadratic]
            why = (f"the loss {type(self.loss_).__name__} is not squared" if not self.loss_.squared
                   else f"terms {rough} are not quadratic")
            raise NotSupportedError(f"{what} exists only for the squared loss with quadratic "
                                    f"terms: {why}; use a cvxpy solver")

    def system(self, weights: Mapping[str, float] | None = None, *,
               overwrite_gram: bool = False) -> QuadraticSystem:
        """The factorised optimality system (weights default to the current ones).

        ``overwrite_gram=True`` lets the RKHS-only path factorise the Gram in place (saves a
        copy of N² numbers; the formulation recomputes its Gram if it needs it again).

        Parameters
        ----------
        weights : mapping of str to float or None, default=None
            Weights replacing the current ones, by term key.
        overwrite_gram : bool, default=False
            Allow factorising the Gram in place.

        Returns
        -------
        QuadraticSystem
            The factorised system (solves, LOO and k-fold residuals).
        """
        dec = self.decomposition()       # refuses terms that are not quadratic
        # a point of weight 0 stays in the basis and in the terms (semi-supervised: Laplacian
        # RLS); the range of K and the augmented system take it, the bordered one (S^{-1})
        # does not: the engine picks
        overwrite = (overwrite_gram and (self._K_given is None or self.gram_owned)
                     and dec.representation(weights) == "bordered")
        if overwrite:  # the Gram becomes the factor: recompute it if needed again
            self._ctx, self._K_given = None, None
        return dec.system(weights, overwrite_gram=overwrite)

    def decomposition(self) -> Decomposition:
        """The problem for the closed-form engine (:func:`lssvm_cvx.linalg.engine.decompose`):
        the Gram, the loss weights and the terms by key (the RKHS norm marked, a term on the
        fitted values a :class:`~lssvm_cvx.linalg.engine.FittedTerm`, matrices formed lazily).

        Returns
        -------
        Decomposition
            ``system``, ``solve``, ``loo``, ``kfold`` and ``path`` over the terms' weights.
        """
        self._require_quadratic("the closed form")
        ctx = self.context

        def term(key: str, t: Term) -> Any:
            P = partial(t.matrix, ctx, name=key)
            return (RKHS if isinstance(t, RKHSNorm) else FittedTerm(
                partial(t.fitted_matrix, ctx, name=key), P) if t.is_fitted_quadratic else P)

        return decompose(ctx.K, self.loss_.weights(ctx.n),
                         {k: (term(k, t), float(w)) for k, (t, w) in self.terms_.items()})

    def closed_form(self) -> Solution:
        self.validate()
        y = self.targets()
        sysm = self.system()
        alpha, b = sysm.solve(y)
        # the squared loss's constraint "fit" (e == y - f): L = ... + λ'(e - y + f), λ = -s∘e
        # (no cvxpy problem is built here: the closed form must not pay for the builder)
        duals = {"fit": -self.loss_.weights(self.n) * (y - self.fitted({"alpha": alpha, "b": b}))}
        values: dict[str, Any] = {"alpha": alpha, "b": b, "f": self.fitted({"alpha": alpha, "b": b})}
        # how accurate the linear solve is (ridge added, refinement, residual): the closed
        # form's certificate carries it (Formulation.kkt)
        return Solution(values=values, duals=duals, extras={"system": sysm.diagnostics(y)})

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        vals = super().values_from(built)
        if vals.get("alpha") is not None and vals.get("b") is not None:
            vals["f"] = self.fitted(vals)
        return vals

    def solve(self, solver: str | None = None, **kwargs: Any) -> Solution:
        """Closed form when the problem is quadratic and ``solver`` is None, else the named
        cvxpy solver (``"CLARABEL"`` when None).

        Parameters
        ----------
        solver : str or None, default=None
            ``"closed_form"``, a cvxpy solver name, or None for the automatic choice.
        **kwargs : dict
            Passed to :meth:`Formulation.solve` (``options``, ``raise_on_failure``,
            ``accept_inaccurate``).

        Returns
        -------
        Solution
            Values ``alpha``, ``b`` and the fitted values ``f``.
        """
        if solver is None:
            solver = "closed_form" if self.is_quadratic else "CLARABEL"
        return super().solve(solver, **kwargs)

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        """Auxiliary variables of the cvxpy form (``e``, slacks, epigraph ``t``) filled from
        ``(α, b)`` so that the closed form's point can be scored by the KKT check.

        Parameters
        ----------
        solution : Solution
            A solution with values ``alpha`` and ``b``.

        Returns
        -------
        dict of str to numpy.ndarray
            Values of every variable of the cvxpy form.
        """
        vals = dict(super().values_from_solution(solution))
        built, ctx = self.problem, self.context
        if "alpha" in vals and "b" in vals:
            f = self.fitted(vals)
            y = self.targets()
            alpha = vals["alpha"]
            for name, var in built.vars.items():
                if name in vals:
                    continue
                if name == "e":
                    vals[name] = y - f
                elif name == "xi":
                    vals[name] = np.maximum(0.0, 1 - y * f)
                elif name == "t_fit":
                    vals[name] = np.abs(y - f)
                elif ":" in name:
                    key = name.split(":", 1)[0]
                    term = self.terms_[key][0]
                    if hasattr(term, "incidence"):
                        vals[name] = np.abs(term.incidence(ctx) @ alpha)
                    elif var.shape == alpha.shape:
                        vals[name] = np.abs(alpha)
        return vals

    def without(self, exclude: ArrayLike) -> RegularizedLSSVM:
        """The same composition on the training points minus ``exclude``: out of the loss, the
        kernel basis and every term (each term evaluated on the remaining points, e.g. a kNN
        graph of those points) — the model a refit without them fits (``loo="refit"``).

        Parameters
        ----------
        exclude : array-like of int
            Indices of the points to leave out.

        Returns
        -------
        RegularizedLSSVM
            A new formulation on the remaining points (its Gram restricted, not recomputed).
        """
        n = self.n
        keep = np.setdiff1d(np.arange(n), index_set(exclude, n, "exclude"))
        if keep.size < 2:
            raise InputError(f"leaving out {n - keep.size} of {n} points leaves fewer than 2")
        fixed = [f"term {k!r} ({type(t).__name__})" for k, (t, _) in self.terms_.items()
                 if not t.supports_refit]
        if fixed:
            raise HyperparameterError(
                f"loo='refit' refits without held-out points, but {', '.join(fixed)} cannot "
                "be evaluated on fewer points (supports_refit = False); use loo='loss'")
        ctx = self.context
        loss = make_loss(self.loss, sample_weight=self.loss_.weights(n)[keep])
        sub = ctx.restricted(keep)
        out = RegularizedLSSVM(sub.X, self.targets()[keep], kernel=self.kernel, loss=loss,
                               terms=self.terms, K=sub.K, gram_owned=True)
        out._ctx = sub  # the restricted context, which knows its rows among the originals
        return out

    # --- held-out residuals --------------------------------------------------------------------
    def loo_residuals(self) -> np.ndarray:
        """Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)`` (observation i leaves the loss;
        basis and penalty stay): closed form when quadratic, otherwise N refits of the cached
        DPP problem with ``s_i = 0``."""
        return self.kfold_residuals([np.array([i]) for i in range(self.n)])

    def kfold_residuals(self, folds: Sequence[ArrayLike], *, solver: str = "CLARABEL") -> np.ndarray:
        """Exact held-out residuals for disjoint index sets ``folds`` (each fold leaves the
        loss in turn).

        Parameters
        ----------
        folds : sequence of array-like of int
            Disjoint, non-empty index sets.
        solver : str, default="CLARABEL"
            The cvxpy solver of the refits when the problem is not quadratic.

        Returns
        -------
        numpy.ndarray of shape (N,)
            ``y_i - f^{(-fold(i))}(x_i)`` for the points in the folds.
        """
        self.validate()
        n, y = self.n, self.targets()
        fl = disjoint_folds(folds, n)
        seen = np.concatenate(fl)
        if self.is_quadratic:
            sysm = self.system()
            if all(f.size == 1 for f in fl) and seen.size == n:
                return sysm.loo(y)
            out = np.full(n, np.nan)
            out[seen] = sysm.kfold(y, fl)[seen]
            return out
        return self._refit_residuals(fl, y, solver)

    def gcv(self) -> float:
        """Generalised cross-validation ``N ||y - ŷ||² / tr(I - H)²`` of the closed form as a
        linear smoother ``ŷ = H y`` (Golub, Heath & Wahba 1979; a criterion without held-out
        fits, from the one factorisation: :meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.gcv`).

        Returns
        -------
        float
            The GCV score (``inf`` where ``tr(I - H) ≤ 0``).
        """
        self.validate()
        return self.system().gcv(self.targets())

    def _refit_residuals(self, folds: list[np.ndarray], y: np.ndarray, solver: str) -> np.ndarray:
        s_full = self.loss_.weights(self.n)
        built = self.problem
        self._set_parameters(built)
        out = np.full(self.n, np.nan)
        try:
            for V in folds:
                s = s_full.copy()
                s[V] = 0.0
                built.params["sample_weight"].value = s
                sol = self._solve_built(built, solver)
                out[V] = y[V] - self.fitted(sol)[V]
        finally:
            built.params["sample_weight"].value = s_full
        return out

    def _solve_built(self, built: BuiltProblem, solver: str) -> dict[str, Any]:
        from ..solvers import solve_problem

        opts = self.solver_options.get(solver.upper(), {})
        solve_problem(built, solver, options=opts)
        return {"alpha": built.vars["alpha"].value, "b": built.vars["b"].value}

    def path(self, key: str, weights: ArrayLike, *,
             folds: Sequence[ArrayLike] | None = None, Y: Any = None) -> PathResult:
        """Solutions and held-out residuals along ``weights`` of term ``key`` (others fixed).

        RKHS-only problems use one eigendecomposition (O(N²) per weight,
        :class:`~lssvm_cvx.linalg.engine.SpectralSystem`); other quadratic problems one generalised
        eigendecomposition when a pencil is safely definite
        (:func:`~lssvm_cvx.linalg.quadratic.generalized_path`), else one factorisation of the exact
        system per weight; non-quadratic ones raise :class:`NotSupportedError`.  ``Y`` (``(N, C)``)
        replaces the targets by several columns sharing the factorisations (one-vs-rest).

        Parameters
        ----------
        key : str
            The term whose weight varies.
        weights : array-like of float
            Its weights (finite, ``≥ 0``).
        folds : sequence of array-like of int or None, default=None
            Held-out index sets; None for leave-one-out.
        Y : array-like of shape (N, C) or None, default=None
            Several target columns (None: the formulation's targets).

        Returns
        -------
        PathResult
            Coefficients, biases and held-out residuals per weight.
        """
        self._require_quadratic("the path")
        terms = self.terms_
        check_option(key, sorted(terms), "term key")
        ws = check_weights_array(key, weights)
        y = self.targets() if Y is None else np.asarray(Y, dtype=np.float64)
        fl = None if folds is None else list(folds)     # read by linalg.folds.index_set
        A, B, R = self.decomposition().path(key, ws, y, folds=fl)
        return PathResult(key, ws, np.array(A), np.array(B), np.array(R))

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, sigma2: float = 1.0,
                        **kwargs: Any) -> RegularizedLSSVM:
        """Noisy sinc-like regression with the RKHS norm and a kNN-graph smoothness term.

        Parameters
        ----------
        n : int, default=50
            Number of points.
        seed : int, default=0
            Seed of the data.
        sigma2 : float, default=1.0
            RBF width.
        **kwargs : dict
            Passed to :func:`lssvm_cvx.problems.get_problem`.

        Returns
        -------
        RegularizedLSSVM
            The instance.
        """
        from lssvm_cvx import problems

        ds = problems.get_problem("lssvm_regression", n=n, seed=seed, **kwargs)
        terms = {"rkhs": (RKHSNorm(), 0.1), "graph": (GraphLaplacian(n_neighbors=5), 0.01)}
        return cls(ds.X, ds.y, kernel=RBF(sigma2), terms=terms)


class RegularizedLSSVML1(RegularizedLSSVM):
    """The composition with a non-smooth term: squared loss + RKHS norm + ``||α||₁`` (a sparse
    LS-SVM); registered so the harness exercises an epigraph term."""

    name: ClassVar[str] = "regularized_lssvm_l1"

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, sigma2: float = 1.0,
                        **kwargs: Any) -> RegularizedLSSVML1:
        from lssvm_cvx import problems

        ds = problems.get_problem("lssvm_regression", n=n, seed=seed, **kwargs)
        terms = {"rkhs": (RKHSNorm(), 0.1), "l1": (L1(), 0.05)}
        return cls(ds.X, ds.y, kernel=RBF(sigma2), terms=terms)
