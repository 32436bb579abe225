"""The closed-form engine of the squared loss with quadratic terms and a free bias: decompose
once, then solve, hold out and sweep any named weight (issue 30, item 1).

The problem, for a Gram matrix ``K``, positive loss weights ``s`` and named quadratic terms
``α'P_kα`` with weights ``w_k``::

    min_{α, b}  ½ Σ_i s_i (y_i - (Kα)_i - b)² + ½ Σ_k w_k α'P_kα                       (Q)

:func:`decompose` records ``K``, ``s`` and the terms (a term's matrix may be given lazily, as a
callable, and is formed only when a weight needs it) and picks the representation by the
terms' structure:

* every term with a nonzero weight the RKHS norm (``P_k = K``; :data:`RKHS` marks one) and
  every ``s_i > 0``: the
  bordered system of order ``N + 1`` with ``K + (Σ w_k) S⁻¹``, one Cholesky
  (:class:`~lssvm_cvx.linalg.quadratic.RKHSSystem`); a path of the total weight from one
  eigendecomposition of ``S^½KS^½`` (:class:`SpectralSystem`);
* any other ``P = Σ w_k P_k``: the augmented system of order ``2N + 1`` (one LU,
  :class:`~lssvm_cvx.linalg.quadratic.AugmentedSystem`), which never squares the condition
  of ``K``; a path of one weight from one generalised eigendecomposition when a pencil is safely
  definite (:func:`~lssvm_cvx.linalg.quadratic.generalized_path`), else one factorisation per
  weight.

The arrays may be NumPy or of any array-API namespace and device (PyTorch on the CPU or CUDA,
CuPy, ``array-api-strict``): the representations then factorise there (the namespace's Cholesky
and ``eigh`` for the bordered system, its LU for the augmented one) and the results stay there;
the generalised-eigen path is NumPy's only (elsewhere a path of a non-RKHS weight factorises
once per weight).

Every representation answers the same questions: :meth:`Decomposition.system` (the factorised
system for some weights, with ``solve`` — the bordered representation with a top right-hand
side, ``a'α = top`` —, ``loo``, ``kfold``, ``gcv`` and ``diagnostics``; the bordered one
also ``inverse``), :meth:`Decomposition.solve`, :meth:`Decomposition.loo`,
:meth:`Decomposition.kfold`, :meth:`Decomposition.gcv`, and along one weight
:meth:`Decomposition.path`, :meth:`Decomposition.gcv_path` and :meth:`Decomposition.systems`
(the systems themselves, from one eigendecomposition where it serves).  The held-out residuals
are those of the observation (or set) leaving the loss while the basis and the terms keep it
(the formulas of :mod:`lssvm_cvx.linalg.scores`).  The composition core
(:class:`~lssvm_cvx.formulations.regularized.RegularizedLSSVM`), the LS-SVM formulations, their
γ sweep and one-vs-one pairs, the Auto LS-SVM formulation, every AReg form (fixed c, CV,
fusion, the Tikhonov ensemble's nodes), the componentwise LS-SVM (its smoother too) and η
models and the composed device path solve through it.  Not yet here (issue 30): the ℓ2-SVM's
active-set systems (a Cholesky factor updated by rank-one steps).

The primal representation (2026-11-30).  For a design ``Φ`` (``N × m``, ``N ≫ m``: Nyström or
random Fourier features, any explicit feature map) instead of a Gram matrix,
``decompose(Φ, s, terms, design=True)`` is the problem::

    min_{θ, b}  ½ Σ_i s_i (y_i - φ_i'θ - b)² + ½ Σ_k w_k θ'P_kθ                         (Q')

(:class:`DesignDecomposition`, its systems :class:`PrimalSystem`): one Cholesky factor of order
m per weight, the same questions.  A term's matrix None (:data:`RKHS`) is ``||θ||²``, the RKHS
norm when ``ΦΦ' = K``; (Q') is then (Q) with the RKHS term, and the two representations give
the same fits and held-out residuals (``tests/test_engine_primal.py``).  A design too large to
hold is streamed: ``decompose(source, s, terms, design=True, features=φ, shift=...)`` over a
row source of :mod:`lssvm_cvx.linalg.streaming` (its targets bound in the one pass over the
rows; the questions then take ``Y=None``): the approximate LS-SVMs and their device path fit
and score their γ paths through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any, Literal, overload

import array_api_compat as aac
import numpy as np

from ..exceptions import HyperparameterError, NotSupportedError
from .arrays import check_zero_top, namespace_or_numpy
from .penalized import PenalizedLS
from .quadratic import AugmentedSystem, QuadraticSystem, RKHSSystem, generalized_path
from .scores import block_residuals, diagonal_residuals, dual_gcv
from .spectral import SpectralBordered, use_eigh
from .streaming import StreamingPenalizedLS

__all__ = ["RKHS", "Decomposition", "SpectralSystem", "DesignDecomposition", "PrimalSystem",
           "decompose"]

#: the matrix of a term that is the RKHS norm ``α'Kα`` (``P_k = K``)
RKHS = None

#: a term: its matrix (an array, a callable that returns it, or :data:`RKHS`) and its weight
Term = tuple[Any, float]


class _Questions:
    """What every representation answers through its ``system(weights)`` (the terms' weights
    in ``_terms``, a mapping of name to (matrix, weight))."""

    _terms: dict[str, tuple[Any, float]]

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
            if k not in w:
                raise HyperparameterError(f"unknown term {k!r}; terms are {sorted(w)}")
            w[k] = float(v)
        return w

    def solve(self, Y: Any, weights: Mapping[str, float] | None = None) -> tuple[Any, Any]:
        """``(α, b)`` (the primal representation: ``(θ, b)``) for targets ``Y`` (``(N,)`` or
        ``(N, T)``)."""
        return self.system(weights).solve(Y)

    def loo(self, Y: Any, weights: Mapping[str, float] | None = None) -> Any:
        """Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)``."""
        return self.system(weights).loo(Y)

    def gcv(self, Y: Any, weights: Mapping[str, float] | None = None) -> float:
        """Generalised cross-validation ``N ||y - ŷ||² / tr(I - H)²`` of the fit as a linear
        smoother of ``Y`` (:meth:`~lssvm_cvx.linalg.quadratic.QuadraticSystem.gcv`; any
        namespace, a float)."""
        return self.system(weights).gcv(Y)

    def kfold(self, Y: Any, folds: Sequence[Any], weights: Mapping[str, float] | None = None,
              *, cover: bool = False) -> Any:
        """Exact held-out residuals for the disjoint index sets ``folds`` (``cover``: they
        must cover every point too)."""
        return self.system(weights).kfold(Y, folds, cover=cover)

    def systems(self, name: str, values: Sequence[float] | np.ndarray) -> Iterator[QuadraticSystem]:
        """The factorised systems along ``values`` of the weight ``name``, one at a time."""
        self.weights({name: 0.0})      # an unknown name fails here
        return (self.system({name: float(v)})
                for v in np.asarray(values, dtype=np.float64).reshape(-1))

    def path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
             folds: Sequence[Any] | None = None, cover: bool = False
             ) -> tuple[list[Any], list[Any], list[Any]]:
        """``(solutions, biases, residuals)`` along ``values`` of the weight ``name`` (the
        others fixed); the residuals are leave-one-out (``folds=None``) or held out per fold
        (``cover``: the folds must cover every point)."""
        out: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        for sysm in self.systems(name, values):
            for lst, v in zip(out, sysm.fit(Y, folds, cover=cover)):
                lst.append(v)
        return out

    def gcv_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any) -> np.ndarray:
        """:meth:`gcv` along ``values`` of the weight ``name`` (the others fixed; any
        namespace), from :meth:`systems`."""
        return np.array([sysm.gcv(Y) for sysm in self.systems(name, values)])


class Decomposition(_Questions):
    """Problem (Q) of the module docstring, ready to be factorised for any weights.

    Parameters
    ----------
    K : array of shape (N, N)
        Gram matrix (NumPy, or an array of another array-API namespace: module docstring).
    s : array of shape (N,) or float
        Loss weights (``≥ 0``; a point of weight 0 stays in the basis and the terms), in ``K``'s
        namespace.
    terms : mapping of str to (matrix, float)
        Per name, the term's matrix — an array (in ``K``'s namespace), a callable returning it
        (formed once, when a nonzero weight first needs it) or :data:`RKHS` — and its weight.
    border : numpy.ndarray of shape (N,) or None, default=None
        The bias's border ``a`` of the RKHS representation (``Σ a_i α_i = 0``): None for ``1``,
        the LS-SVM classifier's ``y`` (AReg paper eq. 57).  Needs every term to be the RKHS norm.
    name : str, default="K + c S^-1 (RKHS term)"
        The RKHS system's name in error messages.
    bias : bool, default=True
        False: the model ``Kα`` without the bias (needs every term to be the RKHS norm and
        positive loss weights: the bordered representation without its border).
    """

    def __init__(self, K: np.ndarray, s: np.ndarray | float, terms: Mapping[str, Term], *,
                 border: np.ndarray | None = None, name: str = "K + c S^-1 (RKHS term)",
                 bias: bool = True):
        self.K = K
        self.n = int(K.shape[0])
        self.s = s
        self.xp, self.device, self.numpy = namespace_or_numpy(K, s, border)
        self._terms = {k: (P, float(w)) for k, (P, w) in terms.items()}
        self._matrices: dict[str, np.ndarray] = {}
        self.border = border
        self.name = name
        self.bias = bool(bias)
        if (border is not None or not self.bias) and not self.rkhs_only:
            raise HyperparameterError("a border other than 1, or no bias, needs every term to be "
                                      "the RKHS norm")

    @property
    def rkhs_only(self) -> bool:
        """Whether every term is the RKHS norm."""
        return all(P is RKHS for P, _ in self._terms.values())

    def _rkhs_weighted(self, weights: Mapping[str, float]) -> bool:
        """Whether every term with a nonzero weight is the RKHS norm."""
        return all(self._terms[k][0] is RKHS for k, wk in weights.items() if wk)

    def matrix(self, name: str) -> Any:
        """The matrix ``P_k`` of the term ``name`` (formed once)."""
        P = self._terms[name][0]
        if P is RKHS:
            return self.K
        if name not in self._matrices:
            M = P() if callable(P) else P
            self._matrices[name] = (np.asarray(M, dtype=np.float64) if self.numpy else
                                    self.xp.asarray(M, dtype=self.K.dtype, device=self.device))
        return self._matrices[name]

    def weighted_sum(self, weights: Mapping[str, float], *, skip: str | None = None) -> Any:
        """``Σ w_k P_k`` over the terms with a nonzero weight (``skip``: one left out)."""
        P = self.xp.zeros((self.n, self.n), dtype=self.K.dtype, device=self.device)
        for k, wk in weights.items():
            if wk and k != skip:
                P = P + wk * self.matrix(k)
        return P

    def _weights_vector(self) -> Any:
        """The loss weights as a vector of N (in ``K``'s namespace)."""
        if self.numpy:
            return np.broadcast_to(np.asarray(self.s, dtype=np.float64), (self.n,))
        s: Any = self.s
        if aac.is_array_api_obj(s) and s.ndim == 1:
            return s
        return self.xp.full((self.n,), float(s), dtype=self.K.dtype, device=self.device)

    def representation(self, weights: Mapping[str, float] | None = None) -> str:
        """``"bordered"`` (every term with a nonzero weight the RKHS norm, a positive total
        weight and positive loss weights: order N + 1, one Cholesky) or ``"augmented"`` (order
        2N + 1, one LU): what :meth:`system` factorises at ``weights``."""
        w = self.weights(weights)
        bordered = self._bordered_weights(w) and bool(self.xp.all(self._weights_vector() > 0))
        return "bordered" if bordered else "augmented"

    def _bordered_weights(self, w: Mapping[str, float]) -> bool:
        """Whether the weights allow the bordered system (the loss weights aside)."""
        return self._rkhs_weighted(w) and sum(w.values()) > 0

    def system(self, weights: Mapping[str, float] | None = None, *,
               overwrite_gram: bool = False, representation: str | None = None
               ) -> QuadraticSystem:
        """The factorised system of (Q) at ``weights`` (default: the terms' own).

        Parameters
        ----------
        weights : mapping of str to float or None, default=None
            Weights replacing some of the terms' own, by name.
        overwrite_gram : bool, default=False
            Let the bordered representation factorise ``K`` in place (saves a copy of N²
            numbers; ``K`` is then the factor, and this decomposition must not be used again).
        representation : {"bordered", "augmented"} or None, default=None
            :meth:`representation` at these weights when the caller has asked it already (on a
            device the question costs one host synchronisation); None: asked here.

        Returns
        -------
        QuadraticSystem
            ``solve``, ``loo``, ``kfold`` and ``diagnostics`` of the factorised system.
        """
        w = self.weights(weights)
        if representation not in (None, "bordered", "augmented") or (
                representation == "bordered" and not self._bordered_weights(w)):
            raise HyperparameterError(f"representation {representation!r} at weights {w}: use "
                                      "'augmented', or 'bordered' where every weighted term is "
                                      "the RKHS norm with a positive total weight")
        if (representation or self.representation(w)) == "bordered":
            return RKHSSystem(self.K, self.s, sum(w.values()), border=self.border,
                              bias=self.bias, overwrite=overwrite_gram, name=self.name)
        if self.border is not None or not self.bias:
            raise HyperparameterError("a border other than 1, or no bias, needs positive loss "
                                      "weights and a positive total weight")
        return AugmentedSystem(self.K, self._weights_vector(), self.weighted_sum(w))

    def path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
             folds: Sequence[Any] | None = None, cover: bool = False
             ) -> tuple[list[Any], list[Any], list[Any]]:
        """``(alphas, bs, residuals)`` along ``values`` of the weight ``name`` (the others
        fixed); the residuals are leave-one-out (``folds=None``) or held out per fold
        (``cover``: the folds must cover every point).

        Every term the RKHS norm: one eigendecomposition (O(N²) per value); otherwise one
        generalised eigendecomposition when a pencil is safely definite (NumPy), else one
        factorisation of the augmented system per value (module docstring).
        """
        ws, cs, s = self._path_values(name, values)
        if cs is not None:
            fits = [sysm.fit(Y, folds, cover=cover) for sysm in self._spectral(cs, s)]
            return [f[0] for f in fits], [f[1] for f in fits], [f[2] for f in fits]
        w = self.weights()
        if self.numpy:
            gen = generalized_path(self.K, s, self.weighted_sum(w, skip=name), self.matrix(name),
                                   Y, ws, folds=folds, cover=cover)
            if gen is not None:
                return gen
        return super().path(name, ws, Y, folds=folds, cover=cover)

    def _path_values(self, name: str, values: Sequence[float] | np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray | None, Any]:
        """``(values, total weights, loss weights)`` of a path of ``name``; the total weights
        (the others' added) None where the path is not the RKHS norm's eigendecomposition (a
        weighted term other than the RKHS norm, a total weight or a loss weight not
        positive), which a path without the bias refuses."""
        if name not in self._terms:
            raise HyperparameterError(f"unknown term {name!r}; terms are {sorted(self._terms)}")
        ws = np.asarray(values, dtype=np.float64).reshape(-1)
        w = self.weights()
        others = sum(v for k, v in w.items() if k != name)
        s = self._weights_vector()
        rkhs = self._terms[name][0] is RKHS and self._rkhs_weighted(
            {k: v for k, v in w.items() if k != name})
        if rkhs and np.all(ws + others > 0) and bool(self.xp.all(s > 0)):
            return ws, ws + others, s
        if not self.bias:
            raise HyperparameterError("a path without the bias needs positive loss weights and "
                                      "positive total weights")
        return ws, None, s

    def systems(self, name: str, values: Sequence[float] | np.ndarray, *,
                spectral: bool | None = None) -> Iterator[QuadraticSystem]:
        """The factorised systems along ``values`` of the weight ``name`` (the others fixed),
        one at a time: views of one eigendecomposition of ``S^½KS^½``
        (:class:`SpectralSystem`, O(N²) per solve) where every weighted term is the RKHS norm
        and ``spectral`` (None: where it serves, from
        :data:`~lssvm_cvx.linalg.spectral.EIGH_BREAK_EVEN` values on, the eigh-vs-Cholesky
        rule; True where it does not serve is an error), else one factorisation per value
        (:meth:`system`)."""
        ws, cs, s = self._path_values(name, values)
        if spectral is None:
            spectral = cs is not None and use_eigh(ws.size)
        if not spectral:
            return super().systems(name, ws)
        if cs is None:
            raise HyperparameterError(f"one eigendecomposition serves a path of {name!r} only "
                                      "where every weighted term is the RKHS norm, with "
                                      "positive total and loss weights")
        return iter(self._spectral(cs, s))

    def _spectral(self, cs: np.ndarray, s: Any) -> list[SpectralSystem]:
        """The RKHS-only systems at the total weights ``cs``: one eigendecomposition."""
        spec = SpectralBordered.weighted(self.K, s, border=self.border, bias=self.bias)
        return [SpectralSystem(spec, float(c), s) for c in cs]


class SpectralSystem(QuadraticSystem):
    """The RKHS-only system at the total weight ``c`` as a view of one shared
    eigendecomposition (:meth:`SpectralBordered.weighted
    <lssvm_cvx.linalg.SpectralBordered.weighted>`, ``α = S^½β``): every question in O(N²),
    with the answers of :class:`~lssvm_cvx.linalg.quadratic.RKHSSystem` to round-off
    (:meth:`Decomposition.systems` makes them).

    Parameters
    ----------
    spec : SpectralBordered
        The weighted system's eigendecomposition.
    c : float
        The total weight (``λ`` of the spectral system).
    s : array of shape (N,)
        The loss weights.
    """

    def __init__(self, spec: SpectralBordered, c: float, s: Any):
        self.spec, self.c, self.s = spec, float(c), s
        self.n = int(spec.V.shape[0])

    def _beta(self, Y: Any, top: Any = 0.0) -> tuple[Any, Any]:
        return self.spec.solve(self.spec.scale(Y), self.c, top)

    def solve(self, Y, top=0.0):
        """``(α, b)``; ``top``: the border row's right-hand side (``a'α = top``)."""
        beta, b = self._beta(Y, top)
        return self.spec.scale(beta), b

    def fit(self, Y: Any, folds: Sequence[Any] | None = None, *, cover: bool = False
            ) -> tuple[Any, Any, Any]:
        """``(α, b, residuals)`` from one solve: leave-one-out ``r_i = β_i / (sqrt(s_i)
        C_β,ii)`` (``folds=None``) or held out per fold (``cover``: the folds must cover every
        point)."""
        beta, b = self._beta(Y)
        spec = self.spec
        if folds is None:
            res = diagonal_residuals(beta, spec.alpha_inv_diag(self.c) * spec.r)
        else:
            res = block_residuals(beta, folds, partial(spec.alpha_inv_block, lam=self.c), spec.r,
                                  cover=cover)
        return spec.scale(beta), b, res

    def loo(self, Y):
        return self.fit(Y)[2]

    def kfold(self, Y, folds, *, cover=False):
        return self.fit(Y, folds, cover=cover)[2]

    def gcv(self, Y):
        """``α = S^½β``, ``y - ŷ = cS⁻¹α`` and ``I - H = cS⁻¹ C`` with ``C = S^½C_βS^½``
        (:func:`~lssvm_cvx.linalg.scores.dual_gcv`)."""
        beta, _ = self._beta(Y)
        if self.spec.unit:
            return dual_gcv(beta, self.spec.alpha_inv_diag(self.c), self.c)
        return dual_gcv(self.spec.scale(beta), self.s * self.spec.alpha_inv_diag(self.c),
                        self.c / self.s)


class DesignDecomposition(_Questions):
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
    """

    def __init__(self, Phi: Any, s: Any, terms: Mapping[str, tuple[Any, float]], *,
                 features: Any = None, shift: Any = None, loo_rows: Any = None):
        self._terms = {k: (P, float(w)) for k, (P, w) in terms.items()}
        matrices = {k: P() if callable(P) else P for k, (P, _) in terms.items()}
        self.streamed = features is not None
        vec = getattr(s, "ndim", 0) == 1
        if self.streamed:
            if vec or shift is None:
                raise NotSupportedError("a streamed design takes one scalar loss weight and a "
                                        "provisional feature mean `shift`")
            self.problem: PenalizedLS = StreamingPenalizedLS(
                Phi, features, None, None, loo_rows, shift, penalties=matrices)
        else:
            xp, device, numpy = namespace_or_numpy(Phi, s)
            eye = xp.eye(int(Phi.shape[1]), dtype=xp.float64 if numpy else Phi.dtype,
                         device=device)
            s = np.asarray(s, dtype=np.float64) if numpy else s
            self.problem = PenalizedLS(Phi, None, sample_weight=s if vec else None, penalties={
                k: eye if P is None else P for k, P in matrices.items()})
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
        """The factorised system at ``weights`` (default: the terms' own)."""
        w = self.weights(weights)
        if any(not v >= 0 for v in w.values()):
            raise HyperparameterError(f"the terms' weights must be >= 0, got {w}")
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
        (:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.path`; ``inf`` where the pencil's
        definite side is singular, where GCV is recomputed by one factorisation per value)."""
        ws = np.asarray(values, dtype=np.float64).reshape(-1)
        if not np.all(ws >= 0):
            raise HyperparameterError(f"the terms' weights must be >= 0, got {name}={values!r}")
        v = self._normalised(self.weights({name: 0.0}))
        rest = {k: x for k, x in v.items() if k != name}
        pr = self.bound(Y)
        scores = pr.path(name, ws / (self.W * self.problem.rho[name]), rest,
                         criterion=criterion).scores
        if criterion != "gcv" or np.all(np.isfinite(scores)):
            return scores
        # one factorisation per value, the targets bound once
        return np.array([pr.gcv(**self._normalised(self.weights({name: float(w)}))) for w in ws])


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

    def fit(self, Y: Any, folds: Sequence[Any] | None = None, *, cover: bool = False
            ) -> tuple[Any, Any, Any]:
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
        return self.dec.bound(Y).kfold_residuals(folds, cover=cover, **self.v)

    def gcv(self, Y: Any) -> float:
        return self.dec.bound(Y).gcv(**self.v)

    def diagnostics(self, Y: Any) -> dict[str, float]:
        return {"jitter": 0.0, "rcond": self.dec.problem.rcond(**self.v)}


@overload
def decompose(K: Any, s: Any, terms: Mapping[str, Term], *, design: Literal[False] = ...,
              **kwargs: Any) -> Decomposition: ...


@overload
def decompose(K: Any, s: Any, terms: Mapping[str, Term], *, design: Literal[True],
              **kwargs: Any) -> DesignDecomposition: ...


def decompose(K: np.ndarray, s: np.ndarray | float, terms: Mapping[str, Term], *,
              design: bool = False, **kwargs: Any) -> Decomposition | DesignDecomposition:
    """Problem (Q) for the Gram ``K``, loss weights ``s`` and the named ``terms``
    (:class:`Decomposition`; keyword arguments go to it), or with ``design=True`` for the
    design ``K = Φ`` (``N × m``) and terms on ``θ`` (the primal representation,
    :class:`DesignDecomposition`: :data:`RKHS` is then ``||θ||²``).

    Examples
    --------
    >>> import numpy as np
    >>> from lssvm_cvx.linalg.engine import RKHS, decompose
    >>> X = np.linspace(0, 1, 8)[:, None]
    >>> K = np.exp(-(X - X.T) ** 2)
    >>> y = np.sin(3 * X[:, 0])
    >>> dec = decompose(K, np.ones(8), {"rkhs": (RKHS, 0.1), "ridge": (np.eye(8), 0.0)})
    >>> alpha, b = dec.solve(y)
    >>> r = dec.loo(y, {"ridge": 1e-3})          # another weight, the same code
    >>> alphas, bs, loo = dec.path("rkhs", [0.01, 0.1, 1.0], y)
    >>> Phi = np.hstack([X, X**2])                 # a design: the primal representation
    >>> theta, b = decompose(Phi, 1.0, {"ridge": (RKHS, 0.1)}, design=True).solve(y)
    """
    if design:
        if set(kwargs) - {"features", "shift", "loo_rows"}:
            raise HyperparameterError(f"the design representation takes no {sorted(kwargs)}")
        return DesignDecomposition(K, s, terms, **kwargs)
    return Decomposition(K, s, terms, **kwargs)

