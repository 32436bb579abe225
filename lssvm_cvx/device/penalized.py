r"""The Auto LS-SVM's penalised least-squares problem (N1) streamed on any array namespace and
device: :class:`DeviceStreamedPenalizedLS`, the design ``features(X_block)`` formed block by
block on the device (issue 31, item 2).  The in-memory problem on device arrays is
:class:`lssvm_cvx.linalg.penalized.PenalizedLS` itself, which takes its namespace from its
inputs (its device twin ``DevicePenalizedLS`` was merged into it: issue 30, step 5).

.. math::

   J(θ, b) = \|y - Φθ - b 1\|² + μ s_G θ^\top Gθ + ν s_R θ^\top Rθ .                    (N1)

The derivation, the normalisers and the exact LOO residual ``(y_i - ŷ_i)/(1 - S_ii)`` are in
:mod:`lssvm_cvx.linalg.penalized`; the tests compare every method with the NumPy engine to
1e-10 under NumPy, ``array-api-strict`` and PyTorch on the CPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..linalg.arrays import take_rows
from ..linalg.penalized import PenalizedLS, penalty_set

__all__ = ["DeviceStreamedPenalizedLS"]


class DeviceStreamedPenalizedLS(PenalizedLS):
    """Problem (N1) with the design ``features(X_block)`` formed block by block on the device
    (never ``N × m`` at once): the twin of
    :class:`lssvm_cvx.linalg.streaming.StreamingPenalizedLS` on an in-memory source.  One pass
    accumulates ``S = Σ(φ-s)(φ-s)'``, ``a = Σ(φ-s)``, ``c = Σ(φ-s)y'``, ``e = Σy`` (``s`` the
    provisional mean ``shift``), whence ``C = (S - aa'/N)/N`` and ``Φ_c'y_c/N = (c - ae'/N)/N``;
    the LOO residuals of the paths and of the fit are evaluated on ``loo_rows`` only.

    Parameters
    ----------
    X : array of shape (N, d)
        The inputs the features are computed from.
    Y : array of shape (N, T)
        Targets.
    features : callable
        ``features(X_block) -> Φ_block`` (rows × m) on the device.
    G, R :
        As in :class:`~lssvm_cvx.linalg.penalized.PenalizedLS` (None with ``penalties``).
    loo_rows : numpy.ndarray or None
        Sorted row indices of the LOO residuals (None: every row).
    shift : array of shape (m,)
        Provisional feature mean (a good one keeps the sums accurate).
    block_rows : int, default=8192
    penalties, definite :
        Named penalties instead of ``G`` and ``R``, as in
        :class:`~lssvm_cvx.linalg.penalized.PenalizedLS`.
    """

    def __init__(self, X: Any, Y: Any, features: Callable[[Any], Any], G: Any, R: Any,
                 loo_rows: np.ndarray | None, shift: Any, *, block_rows: int = 8192,
                 penalties: Mapping[str, Any] | None = None, definite: Iterable[str] = ()):
        self._setup(Y.shape[0], shift.shape[0], penalty_set(G, R, penalties, definite), X, Y)
        self._targets(Y)
        xp = self.xp
        self.block_rows = int(block_rows)
        self.X, self.features = X, features
        self.loo_rows = None if loo_rows is None else np.asarray(loo_rows, dtype=np.int64)
        S = xp.zeros((self.m, self.m), dtype=self.dtype, device=self.device)
        a = xp.zeros((self.m,), dtype=self.dtype, device=self.device)
        c = xp.zeros((self.m, int(self.Y.shape[1])), dtype=self.dtype, device=self.device)
        for s in range(0, self.N, self.block_rows):
            B = features(X[s:min(s + self.block_rows, self.N), ...]) - shift
            Yb = self.Y[s:min(s + self.block_rows, self.N), ...]
            S = S + xp.matrix_transpose(B) @ B
            a = a + xp.sum(B, axis=0)
            c = c + xp.matrix_transpose(B) @ Yb
        self._from_shifted_sums(S, a, c, xp.sum(self.Y, axis=0), shift)

    def _loo_blocks(self) -> Iterator[tuple[Any, Any, Any, Any]]:
        for s in range(0, self.n_loo, self.block_rows):
            if self.loo_rows is None:
                e = min(s + self.block_rows, self.N)
                Xb, Yb = self.X[s:e, ...], self.Y[s:e, ...]
            else:
                rows = self.loo_rows[s:s + self.block_rows]
                Xb, Yb = (take_rows(self.xp, A, rows) for A in (self.X, self.Y))
            yield None, self.features(Xb) - self.phi_mean, Yb, Yb - self.y_mean
