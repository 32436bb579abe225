"""The closed-form engine of the squared loss with quadratic terms and a free bias: decompose
once, then solve, hold out and sweep any named weight (issue 30, item 1).

The problem, for a Gram matrix ``K``, positive loss weights ``s`` and named quadratic terms
``α'P_kα`` with weights ``w_k``::

    min_{α, b}  ½ Σ_i s_i (y_i - (Kα)_i - b)² + ½ Σ_k w_k α'P_kα                       (Q)

:func:`decompose` records ``K``, ``s`` and the terms (a term's matrix may be given lazily, as a
callable, and is formed only when a weight needs it) and picks the representation by the
terms' structure:

* every term with a nonzero weight the RKHS norm (``P_k = K``; :data:`RKHS` marks one) and
  every ``s_i > 0``: the bordered system of order ``N + 1`` with ``K + (Σ w_k) S⁻¹``, one Cholesky
  (:class:`~lssvm_cvx.linalg.quadratic.RKHSSystem`); a path of the total weight from one
  eigendecomposition of ``S^½KS^½`` (:class:`SpectralSystem`);
* every weighted term the RKHS norm or a term on the fitted values ``½ f'Mf``, ``f = Kα``
  (``P_k = K M K``, a :class:`FittedTerm`: a graph Laplacian's smoothness), the RKHS norms'
  weight positive, every ``s_i ≥ 0`` and two or more positive (NumPy; unlabelled points of
  weight 0 too): the primal problem on ``K``'s range: with ``K = UΛU'`` from one
  eigendecomposition, ``Φ = UΛ^½`` and ``θ = Λ^½U'α``, one Cholesky of order ``rank K`` per
  weight (:class:`RangeSystem`, :meth:`Decomposition.range_path`, which derives it), without
  the normal equations of ``K`` or a ridge on ``α``: on an ill-conditioned Gram at small
  weights the accurate one (``notes/range_accuracy.md``, N = 60, RKHS weight 1e-5: the
  augmented fit 8e-9 ``||y||`` off a 40-digit solve, 4e-3 before its ridge moved, this 2e-12);
* any other ``P = Σ w_k P_k``: the augmented system of order ``2N + 1`` (one LU,
  :class:`~lssvm_cvx.linalg.quadratic.AugmentedSystem`), which never squares the condition
  of ``K``; a path of one weight from one generalised eigendecomposition when a pencil is safely
  definite (:func:`~lssvm_cvx.linalg.quadratic.generalized_path`), else one factorisation per
  weight.

The inputs are checked (:mod:`~lssvm_cvx.linalg.problem_checks`).  They may be NumPy or of any
array-API namespace and device (PyTorch on the CPU or CUDA, CuPy, ``array-api-strict``): the
representations then factorise there (the namespace's Cholesky and ``eigh`` for the bordered
system, its LU for the augmented one) and the results stay there; the range of ``K`` and the
generalised-eigen path are NumPy's only (elsewhere a term on the fitted values is the augmented
system's ``K M K``, and a path of a non-RKHS weight factorises once per weight).

Every representation answers the same questions: :meth:`Decomposition.system` (the factorised
system for some weights, with ``solve`` — the bordered representation with a top right-hand
side, ``a'α = top`` —, ``loo``, ``kfold``, ``gcv`` and ``diagnostics``; the bordered one also
``inverse``), :meth:`Decomposition.solve`, ``loo``, ``kfold``, ``gcv``, and along one weight
:meth:`Decomposition.path`, :meth:`Decomposition.gcv_path` and :meth:`Decomposition.systems`
(the systems themselves, from one eigendecomposition where it serves).  The held-out residuals
are those of the observation (or set) leaving the loss while the basis and the terms keep it
(the formulas of :mod:`lssvm_cvx.linalg.scores`).  The composition core
(:class:`~lssvm_cvx.formulations.regularized.RegularizedLSSVM`), the LS-SVM formulations, their
γ sweep and one-vs-one pairs, the Auto LS-SVM formulation, every AReg form (fixed c, CV,
fusion, the Tikhonov ensemble's nodes), the componentwise LS-SVM (its smoother too) and η
models and the composed device path solve through it.  Not yet here (issue 30): the ℓ2-SVM's
active-set systems (a Cholesky factor updated by rank-one steps).

The primal representation (2026-11-30): for a design ``Φ`` (``N × m``) instead of a Gram
matrix, ``decompose(Φ, s, terms, design=True)`` (:mod:`lssvm_cvx.linalg.primal`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, overload

import array_api_compat as aac
import numpy as np

from ..checks import check_option
from ..exceptions import HyperparameterError
from ..kernels.psd import psd_eigh
from . import problem_checks as checks
from .arrays import namespace_or_numpy
from .folds import disjoint_folds
from .primal import DesignDecomposition, PrimalSystem, Representation
from .quadratic import AugmentedSystem, QuadraticSystem, RKHSSystem, generalized_path
from .range_refits import range_refit_predictions
from .spectral import SpectralBordered, SpectralSystem, use_eigh

__all__ = ["RKHS", "Decomposition", "FittedTerm", "RangeSystem", "SpectralSystem",
           "DesignDecomposition", "PrimalSystem", "Representation", "decompose"]

#: the matrix of a term that is the RKHS norm ``α'Kα`` (``P_k = K``)
RKHS = None

#: a term: its matrix (an array, a callable that returns it, :data:`RKHS` or a
#: :class:`FittedTerm`) and its weight
Term = tuple[Any, float]


class FittedTerm:
    """The matrix of a term of (Q) that sees ``α`` only through the fitted values ``f = Kα``
    at the training points: ``½ α'Pα = ½ f'Mf``, ``P = K M K`` (a graph Laplacian's
    smoothness).  Such terms and the RKHS norm are, in ``θ = Λ^½U'α`` (``K = UΛU'``), the
    primal problem on the design ``Φ = UΛ^½``: :meth:`Decomposition.range_path`.

    Parameters
    ----------
    M : array of shape (N, N) or callable
        The symmetric PSD ``M`` (NumPy), or a callable returning it (formed when a path in the
        range of ``K`` first needs it).
    P : array of shape (N, N), callable or None, default=None
        ``P = K M K`` when the caller has it (an array or a callable returning it); None: formed
        from ``M`` when a weight first needs it.
    """

    def __init__(self, M: Any, P: Any = None):
        self.M, self.P = M, P

    def fitted(self) -> np.ndarray:
        """``M`` as a float64 array."""
        return np.asarray(self.M() if callable(self.M) else self.M, dtype=np.float64)


class Decomposition(Representation):
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
        self.K, self.s = K, s
        self.xp, self.device, self.numpy = namespace_or_numpy(K, s, border)
        self.n = checks.check_gram(self.xp, K)     # the inputs checked (problem_checks)
        checks.check_loss_weights(s, self.n)
        self._terms = checks.check_terms(terms, (FittedTerm,))
        self._matrices: dict[str, np.ndarray] = {}
        self.border = border
        self.name = name
        self.bias = bool(bias)
        # (design, back, Φ) of range_design, shared with reweighted copies
        self._range: list[tuple[DesignDecomposition, np.ndarray, np.ndarray]] = []
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
            arr = dict(dtype=np.float64 if self.numpy else self.K.dtype, device=self.device)
            if isinstance(P, FittedTerm):
                P = P.P if P.P is not None else (lambda F=P: self.K @ checks.checked_matrix(
                    self.xp, name, F.fitted(), self.n, **arr) @ self.K)
            self._matrices[name] = checks.checked_matrix(
                self.xp, name, P() if callable(P) else P, self.n, **arr)
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
        weight and positive loss weights: order N + 1, one Cholesky), ``"range"`` (every
        weighted term the RKHS norm or a :class:`FittedTerm`, the RKHS norms' weight positive,
        loss weights ≥ 0, two or more positive, NumPy: the primal system on ``K``'s range,
        :meth:`range_path`) or ``"augmented"`` (order 2N + 1, one LU): what :meth:`system`
        factorises at ``weights``."""
        w = self.weights(weights)
        if self._bordered_weights(w) and bool(self.xp.all(self._weights_vector() > 0)):
            return "bordered"
        return "range" if self._range_allowed(w) else "augmented"

    def _range_allowed(self, w: Mapping[str, float]) -> bool:
        """Whether the range representation serves the weights ``w`` (every term's): the
        loss weights (:meth:`_range_loss`) and the terms (:meth:`_range_weights`) allow it."""
        return self._range_loss(self._weights_vector()) and self._range_weights(w)

    def _range_loss(self, s: Any) -> bool:
        """Whether the loss weights allow the range: none negative, two or more positive (the
        design's rows; one has no spread for :func:`~lssvm_cvx.linalg.penalties.normalizer`)."""
        return self.numpy and bool(np.all(s >= 0)) and int(np.count_nonzero(s)) >= 2

    def _range_weights(self, w: Mapping[str, float]) -> bool:
        """Whether the weights allow the range representation (the loss weights aside)."""
        kinds = [self._terms[k][0] for k, v in w.items() if v]
        return (self.numpy and self.bias and self.border is None
                and all(P is RKHS or isinstance(P, FittedTerm) for P in kinds)
                and sum(v for k, v in w.items() if self._terms[k][0] is RKHS) > 0)

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
        representation : {"bordered", "range", "augmented"} or None, default=None
            :meth:`representation` at these weights when the caller has asked it already (on a
            device the question costs one host synchronisation), or "augmented" in place of
            "range" (a reference; the refit predictions); None: asked here.

        Returns
        -------
        QuadraticSystem
            ``solve``, ``loo``, ``kfold`` and ``diagnostics`` of the factorised system.
        """
        w = self.weights(weights)
        check_option(representation, (None, "bordered", "range", "augmented"), "representation")
        if (representation == "bordered" and not self._bordered_weights(w)) or (
                representation == "range" and not self._range_allowed(w)):
            raise HyperparameterError(f"representation {representation!r} at weights {w}: use "
                                      "'augmented', 'bordered' where every weighted term is "
                                      "the RKHS norm with a positive total weight, or 'range' "
                                      "where :meth:`representation` says it")
        representation = representation or self.representation(w)
        if representation == "bordered":
            return self._bordered(w, self.K, overwrite_gram)
        if representation == "range":
            return RangeSystem(self, w)
        if self.border is not None or not self.bias:
            raise HyperparameterError("a border other than 1, or no bias, needs positive loss "
                                      "weights and a positive total weight")
        return AugmentedSystem(self.K, self._weights_vector(), self.weighted_sum(w))

    def _bordered(self, w: Mapping[str, float], K: Any, overwrite: bool) -> RKHSSystem:
        """The bordered system at the weights ``w`` on the Gram ``K`` (or a copy of it)."""
        return RKHSSystem(K, self.s, sum(w.values()), border=self.border, bias=self.bias,
                          overwrite=overwrite, name=self.name)

    def _path_systems(self, name: str, values: Sequence[float] | np.ndarray
                      ) -> Iterator[QuadraticSystem]:
        """One factorisation per value (:meth:`path`): the bordered ones (NumPy) in one N × N
        copy of ``K``, reused from value to value, since the path spends each system (its
        ``L⁻¹`` overwrites its factor) before it asks for the next: one new N × N array per
        path instead of two per value."""
        self.weights({name: 0.0})      # an unknown name fails here
        buf = None
        for v in checks.check_weights_array(name, values):
            w = self.weights({name: float(v)})
            if not (self.numpy and self.representation(w) == "bordered"):
                yield self.system(w)
                continue
            buf = np.empty_like(self.K) if buf is None else buf
            np.copyto(buf, self.K)
            yield self._bordered(w, buf, True)

    def path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
             folds: Sequence[Any] | None = None, cover: bool = False,
             one_decomposition: bool = True) -> tuple[list[Any], list[Any], list[Any]]:
        """``(alphas, bs, residuals)`` along ``values`` of the weight ``name`` (the others
        fixed); the residuals are leave-one-out (``folds=None``) or held out per fold
        (``cover``: the folds must cover every point).

        Every term the RKHS norm: one eigendecomposition (O(N²) per value); every weighted
        term the RKHS norm or a :class:`FittedTerm`: the range of ``K`` (:meth:`range_path`,
        one eigendecomposition of ``K``); otherwise one generalised eigendecomposition when a
        pencil is safely definite (NumPy), else one factorisation of the augmented system per
        value (module docstring).  ``one_decomposition=False``: one factorisation per value
        even where one decomposition serves (a caller scoring two or three values: the
        screened search's window); the bordered systems then share one copy of ``K``.
        """
        one = (self.one_decomposition_path(name, values, Y, folds=folds, cover=cover)  # checks
               if one_decomposition else None)
        if one is not None:
            return one
        return super().path(name, values, Y, folds=folds, cover=cover)

    def one_decomposition_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
                               folds: Sequence[Any] | None = None, cover: bool = False
                               ) -> tuple[list[Any], list[Any], list[Any]] | None:
        """:meth:`path` where one eigendecomposition serves every value (the RKHS norm's, a
        generalised one whose pencil is safely definite, or ``K``'s for :meth:`range_path`),
        else None: a caller scoring a few values can then factorise per value itself rather
        than per value of ``values``."""
        ws, cs, s = self._path_values(name, values)
        checks.check_targets(Y, self.n)
        if cs is not None:
            fits = [sysm.fit(Y, folds, cover=cover) for sysm in self._spectral(cs, s)]
            return [f[0] for f in fits], [f[1] for f in fits], [f[2] for f in fits]
        if not self.numpy:
            return None
        one = self.range_path(name, ws, Y, folds=folds, cover=cover)
        if one is None:
            w = self.weights()
            one = generalized_path(self.K, s, self.weighted_sum(w, skip=name), self.matrix(name),
                                   Y, ws, folds=folds, cover=cover)
        return one

    def range_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
                   folds: Sequence[Any] | None = None, cover: bool = False
                   ) -> tuple[list[Any], list[Any], list[Any]] | None:
        """:meth:`path` in the range of ``K`` where every weighted term sees ``α`` only
        through ``f = Kα`` (the RKHS norm, a :class:`FittedTerm`), the RKHS norms' total
        weight is positive along ``values``, no loss weight is negative and two or more are
        positive (NumPy, the bias free; a point of weight 0 only in the terms); else None.

        With ``K = UΛU'`` over the eigenvalues above
        :data:`~lssvm_cvx.kernels.psd.PSD_FACTOR_RTOL` of the largest
        (:func:`~lssvm_cvx.kernels.psd.psd_eigh`) and ``θ = Λ^½U'α``, the fit ``f = Φθ``
        (``Φ = UΛ^½``), the RKHS norm ``α'Kα = θ'θ`` and a fitted-values term
        ``α'KMKα = θ'(Φ'MΦ)θ``: (Q) is the primal problem (Q') on the design ``Φ``
        (``decompose(Φ, s, terms, design=True)``, one Cholesky factor of order ``r`` per
        value), whose held-out residuals (the point leaves the loss, the terms stay) are
        (Q)'s; ``α = UΛ^{-½}θ`` (the ``α`` of least norm: the dropped directions change no
        fit).  This never forms the normal equations of ``K`` (the generalised pencils do):
        on an ill-conditioned Gram it is the accurate route at small weights, where the
        augmented system's LOO residuals lose digits (``notes/graph_range_path.md``: N = 120,
        RKHS weight 1e-5, 1.6e-3 ``||y||`` off 100-digit refits against 1.5e-9 here;
        ``tests/test_engine.py`` checks both against refits).
        """
        ws = checks.check_weights_array(name, values)
        checks.check_targets(Y, self.n)
        if not (ws.size and all(self._range_allowed(self.weights({name: float(v)}))
                                for v in ws)):
            return None
        return Representation.path(self, name, ws, Y, folds=folds, cover=cover)  # RangeSystem s

    def range_design(self) -> tuple[DesignDecomposition, np.ndarray, np.ndarray]:
        """``(design, back, Φ)``: the primal problem on ``Φ = UΛ^½`` of :meth:`range_path` (its
        terms the RKHS norms and the :class:`FittedTerm` s, ``Φ'MΦ`` over every point; its
        loss the rows of positive weight), ``back = UΛ^{-½}`` (``α = back @ θ``) and ``Φ``
        (every point's row), from one eigendecomposition of ``K`` (formed once)."""
        if not self._range:
            lam, U = psd_eigh(self.K)
            Phi = U * np.sqrt(lam)
            s = self._weights_vector()
            terms = {}
            for k, (P, w) in self._terms.items():
                if P is RKHS:
                    terms[k] = (None, w)
                elif isinstance(P, FittedTerm):
                    M = checks.checked_matrix(np, k, P.fitted(), self.n)
                    G = Phi.T @ (M @ Phi)
                    # tr G <= ||M||₂ tr K: a term zero on K's range to rounding (a graph of
                    # duplicated points) cannot change the fit; its weight is then ignored
                    if np.trace(G) > 1e-14 * np.linalg.norm(M) * lam.sum():
                        terms[k] = ((G + G.T) / 2, w)
            self._range.append((DesignDecomposition(Phi[s > 0], s[s > 0], terms),
                                U / np.sqrt(lam), Phi))
        return self._range[0]

    def reweighted(self, weights: Mapping[str, float]) -> Decomposition:
        """The same problem with some terms' own weights replaced (by name), sharing everything
        formed so far or later — the Gram, the terms' matrices, the range of K's
        eigendecomposition (:meth:`range_design`): a grid over several weights forms them once
        (each ``system`` and ``path`` takes the weights it is given; only the defaults change).

        Parameters
        ----------
        weights : mapping of str to float
            New weights, by term name.

        Returns
        -------
        Decomposition
            The same problem at the new default weights.
        """
        w = self.weights(weights)
        new = copy.copy(self)          # shallow: the caches are the same objects
        new._terms = {k: (P, w[k]) for k, (P, _) in self._terms.items()}
        return new

    def _path_values(self, name: str, values: Sequence[float] | np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray | None, Any]:
        """``(values, total weights, loss weights)`` of a path of ``name``; the total weights
        (the others' added) None where the path is not the RKHS norm's eigendecomposition (a
        weighted term other than the RKHS norm, a total weight or a loss weight not
        positive), which a path without the bias refuses."""
        check_option(name, sorted(self._terms), "term")
        ws, w = checks.check_weights_array(name, values), self.weights()
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


class RangeSystem(PrimalSystem):
    """(Q) at weights where every weighted term sees ``α`` only through ``f = Kα``: the
    primal system on ``K``'s range (:meth:`Decomposition.range_path`, whose docstring derives
    it; the design shared by every weight, :meth:`Decomposition.range_design`).  ``solve``
    and ``fit`` give ``α = UΛ^{-½}θ``; the held-out residuals and GCV are the primal
    system's (the same hat matrix); ``refit_predictions`` (``loo="refit"``: the point leaves
    the basis and the terms too) are refits in the range (:mod:`~lssvm_cvx.linalg.range_refits`).

    A point of loss weight 0 (unlabelled) is a row of ``Φ`` in the terms, none in the design's
    loss, and has no held-out residual (NaN, as in the augmented system); GCV is over the points
    in the loss (the augmented system's too since the fifteenth session).

    Parameters
    ----------
    dec : Decomposition
        The problem.
    weights : mapping of str to float
        Every term's weight.
    """

    def __init__(self, dec: Decomposition, weights: Mapping[str, float]):
        design, self.back, self.Phi = dec.range_design()
        super().__init__(design, design.system(
            {k: v for k, v in weights.items() if k in design.names}).v)
        self.engine, self.w, self.n, s = dec, dict(weights), dec.n, dec._weights_vector()
        self.rows = None if bool(np.all(s > 0)) else np.flatnonzero(s > 0)  # those in the loss
        self.where = np.full(self.n, -1)  # every point's row in the design (-1: not in the loss)
        self.where[s > 0] = np.arange(int(np.count_nonzero(s > 0)))

    def _loss_rows(self, Y: Any) -> Any:
        """``Y`` on the rows in the loss (the design's rows)."""
        return Y if self.rows is None else np.asarray(Y)[self.rows]

    def solve(self, Y, top=0.0):
        theta, b = super().solve(self._loss_rows(Y), top)
        return self.back @ theta, b

    def fit(self, Y: Any, folds: Sequence[Any] | None = None, *, cover: bool = False,
            last: bool = False) -> tuple[Any, Any, Any]:
        if self.rows is None:
            theta, b, res = super().fit(Y, folds, cover=cover)
            return self.back @ theta, b, res
        sets = None if folds is None else [f[f >= 0] for f in (
            self.where[V] for V in disjoint_folds(folds, self.n, cover=cover)) if np.any(f >= 0)]
        res = np.full(np.shape(Y), np.nan)
        if sets == []:                  # no set holds a point of the loss: nothing held out
            theta, b = super().solve(self._loss_rows(Y))
        else:
            theta, b, res[self.rows] = super().fit(self._loss_rows(Y), sets)
        return self.back @ theta, b, res

    def gcv(self, Y):
        return super().gcv(self._loss_rows(Y))

    def diagnostics(self, Y):
        return {**super().diagnostics(Y), "rank": float(self.back.shape[1])}

    def refit_predictions(self, Y: np.ndarray, sets: Sequence[tuple[np.ndarray, np.ndarray]],
                          changes: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
                          ) -> list[np.ndarray]:
        """Decision values at ``test`` of the model refitted without ``E`` (out of the loss,
        the basis and the terms), for each ``(E, test)`` in ``sets``: in the range of ``K``
        (:func:`~lssvm_cvx.linalg.range_refits.range_refit_predictions`; until the fifteenth
        session the augmented system's deletion formulas, whose ridge moved these values by up
        to 3e-2 ``max|y|``: ``notes/range_refits.md``)."""
        eye = np.eye(self.back.shape[1])
        H = np.zeros_like(eye)
        for k in self.dec.names:
            P = self.dec.problem.P[k]
            H += self.w[k] * (eye if P is None else P)
        return range_refit_predictions(self.Phi, self.back, self.engine._weights_vector(),
                                       H, Y, sets, changes)


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
        if set(kwargs) - {"features", "shift", "loo_rows", "definite"}:
            raise HyperparameterError(f"the design representation takes no {sorted(kwargs)}")
        return DesignDecomposition(K, s, terms, **kwargs)
    return Decomposition(K, s, terms, **kwargs)

