"""The primal representation of the closed-form engine (:mod:`lssvm_cvx.linalg.engine`,
issue 30, item 1), and what every representation answers (:class:`Representation`).

For a design ``Φ`` (``N × m``, ``N ≫ m``: Nyström or
random Fourier features, any explicit feature map) instead of a Gram matrix,
``decompose(Φ, s, terms, design=True)`` is the problem::

    min_{θ, b}  ½ Σ_i s_i (y_i - φ_i'θ - b)² + ½ Σ_k w_k θ'P_kθ                         (Q')

(:class:`DesignDecomposition`, its systems :class:`PrimalSystem`): one Cholesky factor of order
m per weight, the same questions.  A term's matrix None (:data:`~lssvm_cvx.linalg.engine.RKHS`)
is ``||θ||²``, the RKHS norm when ``ΦΦ' = K``; (Q') is then (Q) with the RKHS term, and the two
representations give the same fits and held-out residuals (``tests/test_engine_primal.py``).  A
design too large to hold is streamed: ``decompose(source, s, terms, design=True, features=φ,
shift=...)`` over a row source of :mod:`lssvm_cvx.linalg.streaming` (its targets bound in the
one pass over the rows; the questions then take ``Y=None``): the approximate LS-SVMs and their
device path fit and score their γ paths through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import array_api_compat as aac
import numpy as np

from ..checks import check_option
from ..exceptions import HyperparameterError, InputError, NotSupportedError
from .arrays import check_finite, check_zero_top, namespace_or_numpy
from .penalized import PenalizedLS
from .problem_checks import check_targets, check_terms, check_weight, check_weights_array
from .quadratic import QuadraticSystem
from .streaming import StreamingPenalizedLS

__all__ = ["Representation", "DesignDecomposition", "PrimalSystem"]


class Representation:
    """What every representation of :func:`~lssvm_cvx.linalg.engine.decompose` answers through
    its ``system(weights)`` (the terms' weights in ``_terms``, a mapping of name to (matrix,
    weight)): the dual :class:`~lssvm_cvx.linalg.engine.Decomposition` and the primal
    :class:`DesignDecomposition`."""

    _terms: dict[str, tuple[Any, float]]
    n: int

    def system(self, weights: Mapping[str, float] | None = None) -> QuadraticSystem:
        raise NotImplementedError

    @property
    def names(self) -> list[str]:
        """The terms' names."""
        return list(self._terms)

    def weights(self, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
        """The terms' weights, with ``overrides`` (by name) replacing some."""
        w = {k: wk for k, (_, wk) in self._terms.items()}
        for k, v in (overrides or {}).items():
            check_option(k, sorted(w), "term")
            w[k] = check_weight(k, v)
        return w

    def solve(self, Y: Any, weights: Mapping[str, float] | None = None) -> tuple[Any, Any]:
        """``(α, b)`` (the primal representation: ``(θ, b)``) for targets ``Y`` (``(N,)`` or
        ``(N, T)``)."""
        check_targets(Y, self.n)
        return self.system(weights).solve(Y)

    def loo(self, Y: Any, weights: Mapping[str, float] | None = None) -> Any:
        """Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)``."""
        check_targets(Y, self.n)
        return self.system(weights).loo(Y)

    def gcv(self, Y: Any, weights: Mapping[str, float] | None = None) -> float:
        """Generalised cross-validation ``N ||y - ŷ||² / tr(I - H)²`` of the fit as a linear
        smoother of ``Y`` (:meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.gcv`; any
        namespace, a float)."""
        check_targets(Y, self.n)
        return self.system(weights).gcv(Y)

    def kfold(self, Y: Any, folds: Sequence[Any], weights: Mapping[str, float] | None = None,
              *, cover: bool = False) -> Any:
        """Exact held-out residuals for the disjoint index sets ``folds`` (``cover``: they
        must cover every point too)."""
        check_targets(Y, self.n)
        return self.system(weights).kfold(Y, folds, cover=cover)

    def systems(self, name: str, values: Sequence[float] | np.ndarray) -> Iterator[QuadraticSystem]:
        """The factorised systems along ``values`` of the weight ``name``, one at a time."""
        self.weights({name: 0.0})      # an unknown name fails here
        return (self.system({name: float(v)}) for v in check_weights_array(name, values))

    def path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
             folds: Sequence[Any] | None = None, cover: bool = False
             ) -> tuple[list[Any], list[Any], list[Any]]:
        """``(solutions, biases, residuals)`` along ``values`` of the weight ``name`` (the
        others fixed); the residuals are leave-one-out (``folds=None``) or held out per fold
        (``cover``: the folds must cover every point).  Each system answers its last question
        (``fit(..., last=True)``) before the next is factorised."""
        out: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        check_targets(Y, self.n)
        for sysm in self._path_systems(name, values):
            for lst, v in zip(out, sysm.fit(Y, folds, cover=cover, last=True)):
                lst.append(v)
        return out

    def _path_systems(self, name: str, values: Sequence[float] | np.ndarray
                      ) -> Iterator[QuadraticSystem]:
        """The systems of :meth:`path`: :meth:`systems` (a representation may reuse memory
        between them, since the path spends each before it asks for the next)."""
        return self.systems(name, values)

    def gcv_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any) -> np.ndarray:
        """:meth:`gcv` along ``values`` of the weight ``name`` (the others fixed; any
        namespace), from :meth:`systems`."""
        check_targets(Y, self.n)
        return np.array([sysm.gcv(Y) for sysm in self.systems(name, values)])


class DesignDecomposition(Representation):
    """Problem (Q') for a design (module docstring), decomposed once for any targets and
    weights: ``C = Φ_c'SΦ_c/W``, the weighted feature mean and the normalisers in one pass over
    the rows, without the targets; each target matrix then costs one O(N m) pass
    (:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.bind`), each weight one Cholesky factor of
    order m (kept for the next target).  It is
    :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` (the Auto note's (N1), whose formulas are
    derived there) with its normalisers undone: (Q') times ``2/W`` (``W = Σ s_i``) is (N1) with
    the weights ``v_k = w_k/(W ρ_k)``.

    Parameters
    ----------
    Phi : array of shape (N, m)
        The design (NumPy, or an array of another array-API namespace and device).
    s : array of shape (N,) or float
        Loss weights, positive (in ``Phi``'s namespace).
    terms : mapping of str to (matrix, float)
        Per name, the term's ``m × m`` symmetric PSD matrix — an array, a callable returning it,
        or None for the identity (``||θ||²``: the RKHS norm when ``Φ`` is a feature map of the
        kernel) — and its weight ``w_k ≥ 0``.
    features : callable or None, default=None
        With a row source as ``Phi`` (:func:`~lssvm_cvx.linalg.streaming.row_source`): the
        feature map ``features(X_block) -> Φ_block``, the design streamed
        (:class:`~lssvm_cvx.linalg.streaming.StreamingPenalizedLS`; one scalar loss weight; the
        questions answer for the source's targets, ``Y=None``).  Its identity terms are
        positive-definite penalties (a weight ``> 0``; their paths in ν's form of
        :meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.path`, well posed for a singular ``C``:
        more features than informative rows).
    shift : array of shape (m,) or None, default=None
        With ``features``: a provisional feature mean (keeps the streamed sums accurate).
    loo_rows : array of int or None, default=None
        With ``features``: the sorted rows on which the LOO residuals and scores are evaluated
        (None: every row).
    definite : iterable of str, default=()
        Names of terms whose matrix is positive definite (an in-memory design's identity terms
        too, when named).  A declared term needs a weight ``> 0`` and takes its
        :meth:`score_path` from one eigendecomposition in ν's form, well posed when ``C`` is
        singular (m > N); an undeclared one takes μ's form, which is singular there, and then
        one factorisation per value.
    """

    def __init__(self, Phi: Any, s: Any, terms: Mapping[str, tuple[Any, float]], *,
                 features: Any = None, shift: Any = None, loo_rows: Any = None,
                 definite: Iterable[str] = ()):
        self._terms = check_terms(terms)
        matrices = {k: P() if callable(P) else P for k, (P, _) in terms.items()}
        self.streamed = features is not None
        vec = getattr(s, "ndim", 0) == 1
        if self.streamed:
            if vec or shift is None:
                raise NotSupportedError("a streamed design takes one scalar loss weight and a "
                                        "provisional feature mean `shift`")
            self.problem: PenalizedLS = StreamingPenalizedLS(
                Phi, features, None, None, loo_rows, shift, penalties=matrices, definite=definite)
        else:
            xp, device, numpy = namespace_or_numpy(Phi, s)
            if len(getattr(Phi, "shape", ())) != 2:
                raise InputError(f"the design must be an (N, m) matrix, got shape "
                                 f"{getattr(Phi, 'shape', None)}")
            check_finite(xp, "the design", Phi)
            eye = xp.eye(int(Phi.shape[1]), dtype=xp.float64 if numpy else Phi.dtype,
                         device=device)
            s = np.asarray(s, dtype=np.float64) if numpy else s
            self.problem = PenalizedLS(Phi, None, sample_weight=s if vec else None, penalties={
                k: eye if P is None else P for k, P in matrices.items()}, definite=definite)
        self.n, self.m = self.problem.N, self.problem.m
        #: ``Σ s_i``: the factor between (Q') and (N1)
        self.W = self.problem.W if vec else float(s) * self.n
        if not self.W > 0 or (not vec and not float(s) > 0):
            raise HyperparameterError(f"the loss weights must be positive, got {s!r}")

    def representation(self, weights: Mapping[str, float] | None = None) -> str:
        """``"primal"``: a Cholesky factorisation of order m per weight."""
        return "primal"

    def bound(self, Y: Any) -> PenalizedLS:
        """The problem with the targets ``Y`` (one O(N m) pass); a streamed design's own
        targets for ``Y=None``."""
        if self.streamed or Y is None:
            if not (self.streamed and Y is None):
                raise NotSupportedError("a streamed design answers for its source's targets "
                                        "(Y=None); an in-memory design needs the targets Y")
            return self.problem
        return self.problem.bind(Y)

    def system(self, weights: Mapping[str, float] | None = None) -> PrimalSystem:
        """The factorised system at ``weights`` (default: the terms' own), checked here
        (:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.check_weights`, the message in the
        user's weights): ``> 0`` for a term declared ``definite``, ``>= 0`` for the others."""
        w = self.weights(weights)
        self.problem.check_weights(w)
        return PrimalSystem(self, self._normalised(w))

    def _normalised(self, w: Mapping[str, float]) -> dict[str, float]:
        """(N1)'s weights ``v_k = w_k/(W ρ_k)`` of the weights ``w`` of (Q')."""
        return {k: v / (self.W * self.problem.rho[k]) for k, v in w.items()}

    def gcv_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any) -> np.ndarray:
        """:meth:`gcv` along ``values`` of the weight ``name`` (:meth:`score_path`)."""
        return self.score_path(name, values, Y, criterion="gcv")

    def score_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any = None, *,
                   criterion: str = "mse") -> np.ndarray:
        """The LOO ``criterion`` (:data:`~lssvm_cvx.linalg.scores.SCORES`; on a streamed
        design's LOO rows) or ``"gcv"`` along ``values`` of the weight ``name`` (the others
        fixed) from one generalised eigendecomposition
        (:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.path`: ν's form for a term declared
        ``definite``, else μ's form).  Where that pencil's definite side is numerically
        singular (μ's form when ``C`` and the other terms are singular: m > N), the scores are
        those of one factorisation per value, the targets bound once.

        Until the ninth session (2026-11-29) the LOO criteria returned ``inf`` there (GCV
        already fell back); ``tests/test_engine_primal.py`` pins the fallback against each
        value's own system."""
        ws = np.asarray(values, dtype=np.float64).reshape(-1)
        self.problem.check_weights({name: ws})
        check_targets(Y, self.n)
        v = self._normalised(self.weights({name: 0.0}))
        rest = {k: x for k, x in v.items() if k != name}
        pr = self.bound(Y)
        scores = pr.path(name, ws / (self.W * self.problem.rho[name]), rest,
                         criterion=criterion).scores
        if np.all(np.isfinite(scores)):
            return scores
        per_value = (self._normalised(self.weights({name: float(w)})) for w in ws)
        if criterion == "gcv":
            return np.array([pr.gcv(**u) for u in per_value])
        return np.array([pr.fit_score(pr.fit(**u), criterion) for u in per_value])


class PrimalSystem(QuadraticSystem):
    """(Q') at one set of weights: :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` at the
    normalised weights ``v`` (its Cholesky factor of ``C + Σ v_k ρ_k P_k`` formed at the first
    question and kept).  ``solve`` gives ``(θ, b)``; the held-out residuals are those of the
    dual engine: the observation (or set) leaves the loss, the features and terms stay."""

    def __init__(self, dec: DesignDecomposition, v: Mapping[str, float]):
        self.dec, self.v = dec, dict(v)
        self.n = dec.n

    def solve(self, Y: Any, top: Any = 0.0) -> tuple[Any, Any]:
        check_zero_top(top, "the bordered (dual) representation", NotSupportedError)
        pr = self.dec.bound(Y)
        return self._squeeze(pr, *pr.solve(**self.v))

    @staticmethod
    def _squeeze(pr: PenalizedLS, theta: Any, b: Any) -> tuple[Any, Any]:
        """``(θ, b)`` of the problem bound to the targets (one target: a vector and a scalar)."""
        if not pr.single:
            return theta, b
        return theta[:, 0], (float(b[0]) if aac.is_numpy_namespace(pr.xp) else b[0])

    def fit(self, Y: Any, folds: Sequence[Any] | None = None, *, cover: bool = False,
            last: bool = False) -> tuple[Any, Any, Any]:
        """``(θ, b, residuals)`` with the targets bound once (a streamed design's LOO
        residuals on its LOO rows, lazy on a Dask source)."""
        pr = self.dec.bound(Y)
        if folds is not None:
            return (*self._squeeze(pr, *pr.solve(**self.v)),
                    pr.kfold_residuals(folds, cover=cover, **self.v))
        f = pr.fit(**self.v)
        return (*self._squeeze(pr, f.theta, f.b), f.loo[:, 0] if pr.single else f.loo)

    def loo(self, Y: Any) -> Any:
        return self.fit(Y)[2]

    def kfold(self, Y: Any, folds: Sequence[Any], *, cover: bool = False) -> Any:
        return self.fit(Y, folds, cover=cover)[2]

    def gcv(self, Y: Any) -> float:
        return self.dec.bound(Y).gcv(**self.v)

    def diagnostics(self, Y: Any) -> dict[str, float]:
        return {"jitter": 0.0, "rcond": self.dec.problem.rcond(**self.v)}


