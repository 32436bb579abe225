r"""Sherman–Morrison–Woodbury solves of ``R_E R_E^T + c I`` for a low-rank factor ``R`` (Bonidal,
Tindel & Guermeur 2013, Proposition 3, §2.7.2).

The path works with the label-signed factor ``R_H = diag(y) R`` (``H = diag(y) K diag(y)``) and
only ever needs ``R_E`` (the rows of the active set ``E``).  :class:`SMWSystem` keeps
``G_E = R_E^T R_E`` up to date by rank-one updates when ``E`` changes (``2 r² |ΔE|`` flops,
§2.7.2) and :meth:`SMWSystem.factor` returns, for a shift ``c = λ/2``, the solver of

.. math::

    (R_E R_E^T + c I)^{-1} = \frac1c I - \frac1{c^2} R_E T^{-1} R_E^T,\qquad
    T = I_r + \frac1c R_E^T R_E

(Proposition 3 with ``c = (λ - ε)/2``), in ``O(m_E r + r³)`` per shift after ``G_E`` is known,
and the diagonal of the inverse (eq. 24) in ``O(m_E r²)``.

Paper slip (eq. 24): the paper writes ``T = L_E^T L_E`` and then
``R_E T^{-1} R_E^T = (L_E^{-1} R_E^T)^T (L_E^{-1} R_E^T)``.  The second identity needs
``T = L_E L_E^T`` (``L_E`` lower triangular, the usual Cholesky factor); with ``T = L^T L`` it
would give ``R (L L^T)^{-1} R^T ≠ R T^{-1} R^T``.  We use ``T = L L^T`` and
``U = L^{-1} R_E^T`` (``tests/test_lowrank.py::test_eq24_printed_factor_order_is_wrong``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..exceptions import HyperparameterError
from .cholesky import Cholesky

__all__ = ["SMWSystem", "SMWFactor"]


class SMWFactor:
    """Solver of ``(R_E R_E^T + c I) v = z`` for one shift ``c`` (Proposition 3).

    Duck-types :class:`lssvm_cvx.linalg.Cholesky` (``solve``, ``inv_diag``, ``n``) so that
    :class:`lssvm_cvx.linalg.BorderedSystem` adds the bias row (eq. 7-11, 22-23) unchanged.
    """

    def __init__(self, RE: np.ndarray, G: np.ndarray, c: float):
        if not c > 0:
            raise HyperparameterError(f"the shift c = λ/2 must be > 0, got {c!r}")
        self.RE = RE
        self.c = float(c)
        r = G.shape[0]
        T = G / self.c
        T[np.diag_indices(r)] += 1.0
        self.chol = Cholesky.factor(T, name="T = I + R_E'R_E / c", overwrite=True, check_cond=False)

    @property
    def n(self) -> int:
        return self.RE.shape[0]

    def solve(self, Z: np.ndarray) -> np.ndarray:
        """``(R_E R_E^T + c I)^{-1} Z = (Z - R_E T^{-1} R_E^T Z / c) / c`` in ``O(m_E r)``."""
        W = self.chol.solve(self.RE.T @ Z)
        return (Z - (self.RE @ W) / self.c) / self.c

    def inv_diag(self, *, overwrite: bool = False) -> np.ndarray:
        """Eq. (24), corrected: ``1/c - (1/c²) Σ_j U_ji²`` with ``U = L^{-1} R_E^T``, ``T = L L^T``
        (``O(m_E r²)``; ``overwrite``, :class:`Cholesky`'s, is ignored: no n × n array)."""
        U = sla.solve_triangular(self.chol.L, self.RE.T, lower=True, check_finite=False)
        return 1.0 / self.c - np.einsum("ij,ij->j", U, U) / self.c**2


class SMWSystem:
    """``R_E R_E^T + c I`` for a changing active set ``E`` (rows of ``R``), with
    ``G_E = R_E^T R_E`` updated incrementally (§2.7.2: ``2 r² |ΔE|`` flops per change).

    ``G_E`` is recomputed from scratch when more than ``refresh_fraction`` of ``E`` changes at
    once or after ``refresh_every`` incremental updates (bounding the drift of repeated
    up/down-dates).
    """

    def __init__(self, R: np.ndarray, E: np.ndarray | None = None, *, refresh_every: int = 200,
                 refresh_fraction: float = 0.25):
        self.R = np.asarray(R, dtype=np.float64)
        self.m, self.r = self.R.shape
        self.refresh_every = refresh_every
        self.refresh_fraction = refresh_fraction
        self.n_updates = 0
        self.n_refresh = 0
        self.E = np.arange(self.m) if E is None else np.asarray(E, dtype=np.intp)
        self._recompute()

    def _recompute(self) -> None:
        RE = self.R[self.E]
        self.G = RE.T @ RE
        self.n_since = 0
        self.n_refresh += 1

    def set_active(self, E: np.ndarray) -> None:
        """Move to the active set ``E`` (sorted indices)."""
        E = np.asarray(E, dtype=np.intp)
        if E.size == self.E.size and np.array_equal(E, self.E):
            return
        old = np.zeros(self.m, bool)
        old[self.E] = True
        new = np.zeros(self.m, bool)
        new[E] = True
        add = np.flatnonzero(new & ~old)
        rem = np.flatnonzero(old & ~new)
        self.E = E
        nchg = add.size + rem.size
        if nchg > self.refresh_fraction * max(E.size, 1) or self.n_since + nchg > self.refresh_every:
            self._recompute()
            return
        if add.size:
            Ra = self.R[add]
            self.G += Ra.T @ Ra
        if rem.size:
            Rr = self.R[rem]
            self.G -= Rr.T @ Rr
        self.n_since += nchg
        self.n_updates += nchg

    def factor(self, c: float) -> SMWFactor:
        """The solver at shift ``c`` (``T = I + G_E / c``, one ``r × r`` Cholesky)."""
        return SMWFactor(self.R[self.E], self.G.copy(), c)
