"""The bordered (bias) system ``[[0, a'], [a, H]] [b; α] = [0; r]`` from one Cholesky factor, on
NumPy or on any array-API namespace and device (the factor of
:func:`~lssvm_cvx.linalg.arrays.factor_spd`: LAPACK on NumPy, the namespace's own elsewhere)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import array_api_compat as aac
import numpy as np

from ..checks import as_float64, as_targets, check_gamma
from ..exceptions import InputError, InputTypeError
from .arrays import ArrayCholesky, borderless_bias, check_zero_top, factor_spd, namespace_or_numpy
from .cholesky import Cholesky

__all__ = ["BorderedSystem", "lssvm_system"]


@dataclass
class BorderedSystem:
    """Solve ``[[0, a'], [a, H]] [b; α] = [0; r]`` from one Cholesky factor of ``H``.

    Parameters
    ----------
    chol :
        Factorisation of ``H`` with ``solve``, ``inv_diag`` and ``inv_block``:
        :class:`~lssvm_cvx.linalg.cholesky.Cholesky` (or a NumPy low-rank factor,
        :class:`~lssvm_cvx.linalg.smw.SMWFactor`) on NumPy,
        :class:`~lssvm_cvx.linalg.arrays.ArrayCholesky` on another namespace.
    a :
        Border vector (``1`` for regression, ``y`` for the classifier), in the factor's
        namespace.  ``None`` means no bias: the system reduces to ``H α = r`` and ``b = 0``.

    Notes
    -----
    On NumPy ``b`` of one right-hand side is a float; elsewhere a 0-d array on the device.
    """

    chol: Any
    a: Any
    u: Any = field(init=False, repr=False)
    s: float = field(init=False)

    def __post_init__(self):
        self.numpy = not isinstance(self.chol, ArrayCholesky)   # LAPACK or a NumPy low-rank factor
        self.xp = aac.array_namespace(np.empty(0)) if self.numpy else self.chol.xp
        if self.a is None:
            self.u, self.s = None, np.inf
        else:
            self.u = self.chol.solve(self.a)
            self.s = float(self.a @ self.u)

    @classmethod
    def from_matrix(cls, H: Any, a: Any, *, name: str = "H",
                    overwrite: bool = False) -> BorderedSystem:
        xp, _, numpy = namespace_or_numpy(H, a)
        if numpy:
            return cls(Cholesky.factor(H, name=name, overwrite=overwrite), a)
        return cls(factor_spd(xp, H, name=name), a)

    def solve(self, r: Any, top: Any = 0.0) -> tuple[Any, Any]:
        """``(alpha, b)`` of ``[[0, a'], [a, H]] [b; α] = [top; r]``; ``r`` may have several
        columns (one solve pair for all; ``top`` then a scalar or one per column).

        With ``v = H⁻¹r`` and ``u = H⁻¹a``: ``b = (a'v - top)/(a'u)``, ``α = v - u b``.  The
        LS-SVM has ``top = 0``; the dual variables of the fused AReg problems need a nonzero
        one (a nonzero ``top`` needs the border).
        """
        v = self.chol.solve(r)
        if self.u is None:  # no border (u is None exactly when a is)
            check_zero_top(top)
            return v, borderless_bias(self.xp, r, v, self.numpy)
        b = (self.a @ v - top) / self.s
        alpha = v - self.u[:, None] * b[None, :] if r.ndim > 1 else v - self.u * b
        return alpha, (float(b) if r.ndim == 1 and self.numpy else b)

    def alpha_inv_diag(self, *, overwrite: bool = False) -> Any:
        """Diagonal of the α-block ``C`` of the bordered inverse (leave-one-out denominators);
        ``overwrite``: the factor's last question (:meth:`Cholesky.inv_diag`)."""
        d = self.chol.inv_diag(overwrite=overwrite)
        if self.u is None:  # no border (u is None exactly when a is)
            return d
        return d - self.u**2 / self.s

    def alpha_inv_block(self, idx: Any) -> Any:
        """Principal block ``C[idx, idx]`` of the α-block of the bordered inverse."""
        B = self.chol.inv_block(idx)
        if self.u is None:  # no border (u is None exactly when a is)
            return B
        ui = self.xp.take(self.u, self.xp.asarray(idx, device=aac.device(self.u)), axis=0)
        return B - ui[:, None] * ui[None, :] / self.s


def lssvm_system(Omega: Any, gamma: Any, border: Any, *, name: str = "Omega + I/gamma",
                 copy: bool = True) -> BorderedSystem:
    """Factorised bordered system of eq. (2)/(57)/(75): ``H = Ω + diag(1/γ)``, border ``a``.

    ``gamma`` is a scalar or one positive weight per row (weighted LS-SVM, eq. 75).  On NumPy
    ``Ω`` is copied once (``copy=False`` adds the diagonal in place: for a Gram the caller
    owns); on another namespace ``Ω + diag(1/γ)`` is a new array.
    """
    xp, _, numpy = namespace_or_numpy(Omega, gamma, border)
    if numpy:       # strings crashed in NumPy and a NaN border answered (until 2026-12-06)
        H = as_float64(Omega, "Omega", copy=copy or None, error=InputTypeError)
        if H.ndim != 2 or H.shape[0] != H.shape[1]:
            raise InputError(f"Omega must be a square matrix, got shape {H.shape}")
        H[np.diag_indices_from(H)] += 1.0 / check_gamma(gamma, H.shape[0])
        if border is not None:
            border = as_targets(border, H.shape[0], name="the border")
        return BorderedSystem.from_matrix(H, border, name=name, overwrite=True)
    n = int(Omega.shape[0])
    I = xp.eye(n, dtype=Omega.dtype, device=aac.device(Omega))
    H = Omega + (I / gamma if not hasattr(gamma, "shape") or gamma.ndim == 0
                 else I * (1.0 / gamma)[None, :])
    return BorderedSystem.from_matrix(H, border, name=name)

