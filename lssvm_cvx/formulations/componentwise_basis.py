"""Component bases of the componentwise LS-SVM (Pelckmans et al., eq. 20): every component
Gram factored by pivoted Cholesky and the coupling of the components through one dual vector,
in well-conditioned coordinates (:class:`ComponentBasis`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla

from ..checks import as_matrix, check_positive
from ..exceptions import HyperparameterError, InputError
from ..kernels import Kernel
from ..kernels.factors import pivoted_cholesky
from .componentwise import component_columns_gram

__all__ = ["ComponentBasis"]


@dataclass
class ComponentBasis:
    """The component spaces and the coupling of eq. (20), in well-conditioned coordinates.

    Why.  Eq. (20) couples all components through one dual vector: ``Ŷ^d = Ω^dα`` for a common
    ``α`` with ``1'α = 0``.  One-dimensional RBF Grams have numerical rank ≈ 5-15 out of N, so
    written literally (dense ``Ω^d`` in the constraints) the problem is badly conditioned: in
    our tests CLARABEL fails and ECOS/OSQP return wrong statuses on the N = 100 additive
    example.  This class rewrites the same constraints exactly (up to a stated truncation) in
    coordinates every solver handles:

    1. *Component spaces.*  ``Ω^d ≈ L_d L_d'`` by pivoted Cholesky to relative tolerance
       ``rank_tol`` (residual entries ≤ ``rank_tol * max diag Ω^d``), and
       ``L_d L_d' = V_d Λ_d V_d'`` (thin QR + SVD; ``V_d`` orthonormal, ``N × r_d``).  Then
       ``Ŷ^d = Ω̃^dα = V_d z_d`` with ``z_d = Λ_d V_d'α``.
    2. *Coupling.*  ``z = (z_1, …, z_P) = G α`` with ``G = [Λ_1V_1'; …; Λ_PV_P']`` and
       ``α ⟂ 1``, so ``z ∈ B = range(G P)`` with ``P = I - 11'/N``.  An SVD ``GP = U S W'``
       gives an orthonormal basis ``U_B`` of ``B`` (singular values ``> coupling_tol * s_max``)
       and ``Z`` of its complement: eq. (20)'s "some α with ``1'α = 0`` and ``Ω^dα = Ŷ^d``" is
       ``Z'z = 0``.  With ``R = Σ r_d > N`` the coupling is strong (``dim B ≤ N - 1``); with
       ``R < N`` it leaves the components nearly free, constraining only the directions that
       shift constants between components (constants lie almost in every RBF span).  The
       eq. (20) dual vector is recovered as the minimum-norm ``α = (GP)^+ z``
       (:meth:`alpha`).
    3. *New points.*  Because ``Ω^d[:, piv] = L_d L_d[piv]'`` exactly, the training outputs
       are the kernel expansion ``V_d z_d = K^d(X, X_piv) c_d`` with
       ``c_d = L_d[piv]^{-T} F_d z_d`` (``V_d = L_d F_d``), and the component function is
       ``f^d(x) = K^d(x, X_piv) c_d`` everywhere (:meth:`features`, :meth:`coef`): eq. (9)
       with a per-component coefficient vector supported on the pivots.

    Parameters
    ----------
    rank_tol :
        Relative truncation of every ``Ω^d`` (default 1e-10).
    coupling_tol :
        Relative threshold on the singular values of ``GP`` (default: ``rank_tol``).
    """

    X: np.ndarray
    kernels: list[tuple[Kernel, tuple[int, ...]]]
    rank_tol: float
    coupling_tol: float
    piv: list[np.ndarray] = field(default_factory=list)
    T: list[np.ndarray] = field(default_factory=list)
    F: list[np.ndarray] = field(default_factory=list)
    V: list[np.ndarray] = field(default_factory=list)
    lam: list[np.ndarray] = field(default_factory=list)
    offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=int))
    # set by :meth:`build` (empty, like the lists above, on an instance not made by ``build``)
    UB: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    Z: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    _alpha_map: tuple[np.ndarray, np.ndarray] = field(
        default_factory=lambda: (np.zeros((0, 0)), np.zeros(0)))

    @classmethod
    def build(cls, X: np.ndarray, kernels: Sequence[tuple[Kernel, tuple[int, ...]]], *,
              rank_tol: float = 1e-10, coupling_tol: float | None = None,
              grams: Sequence[np.ndarray] | None = None) -> "ComponentBasis":
        """Factor every component (one Gram in memory at a time unless ``grams`` is given)."""
        rank_tol = check_positive(rank_tol, "rank_tol")
        coupling_tol = rank_tol if coupling_tol is None else check_positive(coupling_tol, "coupling_tol")
        if rank_tol >= 1 or coupling_tol >= 1:
            raise HyperparameterError("rank_tol and coupling_tol must be < 1")
        self = cls(np.asarray(X, dtype=np.float64), list(kernels), rank_tol, coupling_tol)
        N = self.X.shape[0]
        for d, (kd, cols) in enumerate(self.kernels):
            G = component_columns_gram(kd, cols, self.X) if grams is None else np.asarray(grams[d], dtype=np.float64)
            L, piv = pivoted_cholesky(G, rank_tol)
            if L.shape[1] == 0:
                raise InputError(f"component {d} (columns {cols}) has a zero Gram matrix")
            Q, Rq = np.linalg.qr(L)
            A, s, Bt = np.linalg.svd(Rq)
            keep = s * s > rank_tol * s[0] ** 2
            A, s, Bt = A[:, keep], s[keep], Bt[keep]
            self.piv.append(piv)
            self.T.append(L[piv])                      # lower triangular in pivot order
            self.F.append(Bt.T / s)                    # V_d = L_d F_d
            self.V.append(Q @ A)
            self.lam.append(s * s)
        self.offsets = np.concatenate([[0], np.cumsum([len(lv) for lv in self.lam])])
        R = int(self.offsets[-1])
        Gm = np.vstack([(V * lv).T for V, lv in zip(self.V, self.lam)])    # R × N
        GP = Gm - Gm.mean(axis=1, keepdims=True)
        U, sv, Wt = np.linalg.svd(GP, full_matrices=R > N)
        q = int(np.sum(sv > coupling_tol * sv[0])) if sv.size else 0
        self.UB, self.Z = U[:, :q], U[:, q:]
        self._alpha_map = (Wt[:q].T, sv[:q])
        return self

    # --- sizes ------------------------------------------------------------------------
    @property
    def N(self) -> int:
        return self.X.shape[0]

    @property
    def P(self) -> int:
        return len(self.V)

    @property
    def R(self) -> int:
        return int(self.offsets[-1])

    @property
    def ranks(self) -> list[int]:
        return [len(lv) for lv in self.lam]

    def blocks(self, z: np.ndarray) -> list[np.ndarray]:
        """Split the stacked coordinates ``z`` into ``z_1, …, z_P``."""
        o = self.offsets
        return [z[o[d]:o[d + 1]] for d in range(self.P)]

    # --- maps -------------------------------------------------------------------------
    def V_block(self):
        """``blockdiag(V_1, …, V_P)`` (sparse, ``NP × R``): ``vec(Ŷ) = V_block z``."""
        import scipy.sparse as sp

        return sp.block_diag(self.V, format="csr")

    def V_stack(self) -> np.ndarray:
        """``[V_1, …, V_P]`` (``N × R``): ``Σ_d Ŷ^d = V_stack z``."""
        return np.hstack(self.V)

    def outputs(self, z: np.ndarray) -> np.ndarray:
        """Training outputs ``Ŷ`` (``N × P``), column ``d`` = ``V_d z_d``."""
        return np.column_stack([V @ zd for V, zd in zip(self.V, self.blocks(np.asarray(z)))])

    def factors(self, X_new: Any = None) -> list[np.ndarray]:
        """``Φ_d = V_d Λ_d^{1/2}`` of every component, so that ``Ω^d ≈ Φ_dΦ_d'`` (to
        ``rank_tol``): the componentwise LS-SVM on a set ``S`` of components is ridge regression
        on ``[Φ_d]_{d∈S}``.  With ``X_new``: the same map on new inputs, ``E_d Λ_d^{1/2}``
        (:meth:`features`), so ``K^d(X_new, X) ≈ (E_dΛ_d^{1/2})Φ_d'``."""
        E = self.V if X_new is None else self.features(X_new)
        return [Ed * np.sqrt(lv) for Ed, lv in zip(E, self.lam)]

    def features(self, X_new: Any) -> list[np.ndarray]:
        """``E_d = K^d(X_new, X_piv) L_d[piv]^{-T} F_d`` so that ``f^d(X_new) = E_d z_d``
        (``E_d = V_d`` on the training inputs)."""
        Xn = as_matrix(X_new, name="X_new")
        out = []
        for (kd, cols), piv, T, F in zip(self.kernels, self.piv, self.T, self.F):
            K = component_columns_gram(kd, cols, Xn, self.X[piv])
            out.append(sla.solve_triangular(T, K.T, lower=True, trans=0).T @ F)
        return out

    def coef(self, z: np.ndarray) -> np.ndarray:
        """Per-component dual coefficients ``A`` (``N × P``): ``f^d(x) = K^d(x, X) A[:, d]``,
        supported on the pivots of component ``d``."""
        A = np.zeros((self.N, self.P))
        for d, zd in enumerate(self.blocks(np.asarray(z))):
            c = sla.solve_triangular(self.T[d], self.F[d] @ zd, lower=True, trans=1)
            A[self.piv[d], d] = c
        return A

    def alpha(self, z: np.ndarray) -> np.ndarray:
        """The eq. (20) dual vector: the minimum-norm ``α`` with ``1'α = 0`` and
        ``Ω̃^d α = V_d z_d`` for every ``d`` (exact when ``Z'z = 0``)."""
        W, s = self._alpha_map
        return W @ ((self.UB.T @ np.asarray(z)) / s)

    def project(self, z: np.ndarray) -> np.ndarray:
        """Orthogonal projection of ``z`` onto the coupling subspace ``B``."""
        return self.UB @ (self.UB.T @ z)
