"""Exact held-out residuals of a paper formulation through its factorised linear system (issue
30, step 2: the paper models get the composition core's ``loo`` and ``kfold``).

A formulation whose closed form is one of the core's systems
(:class:`~lssvm_cvx.linalg.quadratic.QuadraticSystem`: the LS-SVMs'
:class:`~lssvm_cvx.linalg.quadratic.RKHSSystem`, the Auto LS-SVM's
:class:`~lssvm_cvx.linalg.quadratic.AugmentedSystem`) mixes in :class:`HeldOutResiduals` and
says which system, right-hand side and sign (``_heldout_system``); it then has
``loo_residuals()``, ``kfold_residuals(folds)`` and ``gcv()``, the held-out ones with the
semantics of
:meth:`lssvm_cvx.formulations.RegularizedLSSVM.loo_residuals`: observation ``i`` leaves the
loss, the kernel basis and the terms keep it (for the RKHS norm alone that is the refit
without the point, by the representer theorem).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..linalg.folds import disjoint_folds

__all__ = ["HeldOutResiduals"]


class HeldOutResiduals:
    """Mixin: ``loo_residuals()`` and ``kfold_residuals(folds)`` from ``_heldout_system()``, which
    returns ``(system, t, sign)`` — the factorised system, its right-hand side and the factor
    that turns its held-out residuals into those of the targets (1, or the LS-SVM
    classifier's labels: module docstring of :mod:`lssvm_cvx.formulations.lssvm`)."""

    def _heldout_system(self) -> tuple[Any, np.ndarray, Any]:
        raise NotImplementedError

    def loo_residuals(self) -> np.ndarray:
        """Exact leave-one-out residuals ``t_i - f^{(-i)}(x_i)`` of the closed form (``t`` the
        targets, ±1 for a classifier), from the one factorisation of the formulation's system.

        Returns
        -------
        numpy.ndarray of shape (N,)
            The held-out residuals.
        """
        sysm, t, sign = self._heldout_system()
        return sign * sysm.loo(t)

    def kfold_residuals(self, folds: Any) -> np.ndarray:
        """Exact held-out residuals for disjoint index sets ``folds`` (each set leaves the loss
        in turn; :meth:`loo_residuals` for sets of one point); NaN for a point in no set.

        Parameters
        ----------
        folds : sequence of array-like of int
            Disjoint, non-empty index sets.

        Returns
        -------
        numpy.ndarray of shape (N,)
            ``t_i - f^{(-fold(i))}(x_i)``.
        """
        sysm, t, sign = self._heldout_system()
        return sign * sysm.kfold(t, disjoint_folds(folds, t.shape[0]))

    def gcv(self) -> float:
        """Generalised cross-validation ``N ||t - t̂||² / tr(I - H)²`` of the closed form as a
        linear smoother of the targets (``t``, ±1 for a classifier), from the one
        factorisation of the formulation's system.

        Returns
        -------
        float
            The GCV score (``inf`` where ``tr(I - H) ≤ 0``).
        """
        sysm, t, _ = self._heldout_system()
        return sysm.gcv(t)
