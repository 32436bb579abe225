"""The engine's primal representation (issue 30, item 1): problem (Q) of
:mod:`lssvm_cvx.linalg.engine` for a design ``Φ`` (``N × m``, ``N ≫ m``: Nyström or random
Fourier features, any explicit feature map) instead of a Gram matrix::

    min_{θ, b}  ½ Σ_i s_i (y_i - φ_i'θ - b)² + ½ Σ_k w_k θ'P_kθ                         (Q')

decomposed once — ``C = Φ_c'SΦ_c/W``, the weighted feature mean and the normalisers, in one
pass over the rows, without the targets — and then answering the dual engine's questions for
any targets and weights: :meth:`DesignDecomposition.system` (``solve``, ``loo``, ``kfold``,
``gcv``, ``diagnostics``), ``solve``, ``loo``, ``kfold``, ``gcv``, and along one weight
``path``, ``gcv_path`` and ``systems``.  Each target matrix costs one O(N m) pass
(:meth:`~lssvm_cvx.linalg.penalized.PenalizedLS.bind`), each weight one Cholesky factor of
order ``m`` (kept for the next target).

It is :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` (the Auto note's (N1), whose formulas
are derived there) with its normalisers undone: (Q') times ``2/W`` (``W = Σ s_i``) is (N1)
with the weights ``v_k = w_k/(W ρ_k)``.  For ``Φ`` a feature map of the kernel
(``Φ Φ' = K``), ``P = I`` is the RKHS norm ``||f||² = θ'θ`` and (Q') is the dual (Q) with the
RKHS term (the tests check both engines give the same fits and held-out residuals).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import array_api_compat as aac
import numpy as np

from ..exceptions import HyperparameterError, NotSupportedError
from .arrays import check_zero_top, namespace_or_numpy
from .penalized import PenalizedLS
from .quadratic import QuadraticSystem

__all__ = ["DesignDecomposition", "PrimalSystem"]


class DesignDecomposition:
    """Problem (Q') of the module docstring, decomposed once for any targets and weights.

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
    """

    def __init__(self, Phi: Any, s: Any, terms: Mapping[str, tuple[Any, float]]):
        xp, device, numpy = namespace_or_numpy(Phi, s)
        self.n, self.m = int(Phi.shape[0]), int(Phi.shape[1])
        self._weights = {k: float(w) for k, (_, w) in terms.items()}
        eye = xp.eye(self.m, dtype=xp.float64 if numpy else Phi.dtype, device=device)
        matrices = {k: eye if P is None else (P() if callable(P) else P)
                    for k, (P, _) in terms.items()}
        vec = aac.is_array_api_obj(s) and getattr(s, "ndim", 0) == 1
        self.problem = PenalizedLS(Phi, None, penalties=matrices,
                                   sample_weight=s if vec else None)
        #: ``Σ s_i``: the factor between (Q') and (N1)
        self.W = self.problem.W if vec else float(s) * self.n
        if not self.W > 0 or (not vec and not float(s) > 0):
            raise HyperparameterError(f"the loss weights must be positive, got {s!r}")

    @property
    def names(self) -> list[str]:
        """The terms' names."""
        return list(self._weights)

    def representation(self, weights: Mapping[str, float] | None = None) -> str:
        """``"primal"``: a Cholesky factorisation of order m per weight."""
        return "primal"

    def weights(self, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
        """The terms' weights, with ``overrides`` (by name) replacing some."""
        w = dict(self._weights)
        for k, v in (overrides or {}).items():
            if k not in w:
                raise HyperparameterError(f"unknown term {k!r}; terms are {sorted(w)}")
            w[k] = float(v)
        return w

    def system(self, weights: Mapping[str, float] | None = None) -> PrimalSystem:
        """The factorised system at ``weights`` (default: the terms' own)."""
        w = self.weights(weights)
        if any(not v >= 0 for v in w.values()):
            raise HyperparameterError(f"the terms' weights must be >= 0, got {w}")
        rho = self.problem.rho
        return PrimalSystem(self, {k: v / (self.W * rho[k]) for k, v in w.items()})

    def solve(self, Y: Any, weights: Mapping[str, float] | None = None) -> tuple[Any, Any]:
        """``(θ, b)`` for targets ``Y`` (``(N,)`` or ``(N, T)``)."""
        return self.system(weights).solve(Y)

    def loo(self, Y: Any, weights: Mapping[str, float] | None = None) -> Any:
        """Exact leave-one-out residuals ``y_i - f^{(-i)}(x_i)``."""
        return self.system(weights).loo(Y)

    def gcv(self, Y: Any, weights: Mapping[str, float] | None = None) -> float:
        """Generalised cross-validation ``N ||y - ŷ||² / tr(I - H)²``."""
        return self.system(weights).gcv(Y)

    def kfold(self, Y: Any, folds: Sequence[Any], weights: Mapping[str, float] | None = None,
              *, cover: bool = False) -> Any:
        """Exact held-out residuals for the disjoint index sets ``folds``."""
        return self.system(weights).kfold(Y, folds, cover=cover)

    def systems(self, name: str, values: Sequence[float] | np.ndarray) -> Iterator[PrimalSystem]:
        """The factorised systems along ``values`` of the weight ``name`` (one Cholesky of order
        m each), one at a time."""
        self.weights({name: 0.0})      # the name is known
        return (self.system({name: float(v)})
                for v in np.asarray(values, dtype=np.float64).reshape(-1))

    def path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any, *,
             folds: Sequence[Any] | None = None, cover: bool = False
             ) -> tuple[list[Any], list[Any], list[Any]]:
        """``(thetas, bs, residuals)`` along ``values`` of the weight ``name``: leave-one-out
        residuals (``folds=None``) or held out per fold (as the dual engine's ``path``)."""
        bound = self.problem.bind(Y)
        out: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        for sysm in self.systems(name, values):
            theta, b = sysm.solve(Y, bound=bound)
            res = (sysm.loo(Y, bound=bound) if folds is None
                   else sysm.kfold(Y, folds, cover=cover, bound=bound))
            for lst, v in zip(out, (theta, b, res)):
                lst.append(v)
        return out

    def gcv_path(self, name: str, values: Sequence[float] | np.ndarray, Y: Any) -> np.ndarray:
        """:meth:`gcv` along ``values`` of the weight ``name``."""
        bound = self.problem.bind(Y)
        return np.array([sysm.gcv(Y, bound=bound) for sysm in self.systems(name, values)])


class PrimalSystem(QuadraticSystem):
    """(Q') at one set of weights: :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` at the
    normalised weights ``v`` (its Cholesky factor of ``C + Σ v_k ρ_k P_k`` formed at the first
    question and kept).  ``solve`` gives ``(θ, b)``; the held-out residuals are those of the
    dual engine: the observation (or set) leaves the loss, the features and terms stay."""

    def __init__(self, dec: DesignDecomposition, v: Mapping[str, float]):
        self.dec, self.v = dec, dict(v)
        self.n = dec.n

    def _bound(self, Y: Any, bound: PenalizedLS | None) -> PenalizedLS:
        return self.dec.problem.bind(Y) if bound is None else bound

    def solve(self, Y: Any, top: Any = 0.0, *, bound: PenalizedLS | None = None
              ) -> tuple[Any, Any]:
        check_zero_top(top, "the bordered (dual) representation", NotSupportedError)
        pr = self._bound(Y, bound)
        theta, b = pr.solve(**self.v)
        if not pr.single:
            return theta, b
        return theta[:, 0], (float(b[0]) if aac.is_numpy_namespace(pr.xp) else b[0])

    def loo(self, Y: Any, *, bound: PenalizedLS | None = None) -> Any:
        return self._bound(Y, bound).loo_residuals(**self.v)

    def kfold(self, Y: Any, folds: Sequence[Any], *, cover: bool = False,
              bound: PenalizedLS | None = None) -> Any:
        return self._bound(Y, bound).kfold_residuals(folds, cover=cover, **self.v)

    def gcv(self, Y: Any, *, bound: PenalizedLS | None = None) -> float:
        return self._bound(Y, bound).gcv(**self.v)

    def diagnostics(self, Y: Any) -> dict[str, float]:
        return {"jitter": 0.0, "rcond": self.dec.problem.rcond(**self.v)}
