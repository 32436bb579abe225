"""The named quadratic penalties of the penalised least-squares engine (problem (N1) of
:mod:`lssvm_cvx.linalg.penalized`) and their one normaliser rule ``ρ_k = tr(C)/(W tr P_k)``:
which names a problem carries, which of them are positive definite, and the normalisers of
the Auto note's ``μ G`` and ``ν R``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..checks import as_gram, as_matrix, check_sample_weight
from ..exceptions import HyperparameterError, InputError, NotPSDError

__all__ = ["MU_UNIT", "NU_UNIT", "normalizer", "normalizers", "penalty_set"]

#: unit of the normalised μ (:mod:`lssvm_cvx.linalg.penalized`)
MU_UNIT = 1.0
#: unit of the normalised ν (:mod:`lssvm_cvx.linalg.penalized`)
NU_UNIT = 1.0


def normalizer(trC: float, trP: float, W: float, label: str) -> float:
    """``ρ = tr(C)/(W tr P)`` (unit :data:`MU_UNIT` = :data:`NU_UNIT` = 1): the rule of
    :mod:`lssvm_cvx.linalg.penalized`, of every engine and of :func:`normalizers`, with its
    checks."""
    if not trC > 0:
        raise InputError("the design has no variation (all inputs identical?)")
    if not trP > 0:
        raise NotPSDError(f"the penalty {label} has non-positive trace {trP:.3g}")
    return MU_UNIT * trC / trP / W


def penalty_set(G: Any, R: Any, penalties: Mapping[str, Any] | None, definite: Iterable[str]
                 ) -> tuple[dict[str, Any], frozenset[str], dict[str, str]]:
    """The named penalties ``{name: matrix or None}`` (None: the identity), the names of the
    positive-definite ones and the matrices' labels in messages: the Auto note's ``μ G`` and
    ``ν R`` when ``penalties`` is None."""
    if penalties is None:
        if G is None:
            raise InputError("give the gradient-norm Gram G (the Auto note's penalties) or "
                             "`penalties`")
        return {"mu": G, "nu": R}, frozenset({"nu"}), {"mu": "G", "nu": "R"}
    if G is not None or R is not None:
        raise InputError("give either G and R (the Auto note's penalties) or `penalties`, not both")
    named = dict(penalties)
    if not named or not all(isinstance(k, str) and k.isidentifier() for k in named):
        raise InputError(f"penalties must map identifiers to matrices, got {sorted(map(str, named))}")
    pd = frozenset(definite)
    if not pd <= set(named):
        raise HyperparameterError(f"definite names {sorted(pd - set(named))} are not penalties "
                                  f"{sorted(named)}")
    return (named, pd | {k for k, P in named.items() if P is None},
            {k: "I" if P is None else f"P_{k}" for k, P in named.items()})


def normalizers(Phi: np.ndarray, G: np.ndarray, R: np.ndarray | None = None,
                sample_weight: np.ndarray | None = None) -> tuple[float, float]:
    """``(ρ_G, ρ_R) = (s_G/N, s_R/N)`` with ``s_G = MU_UNIT tr(C)/tr(G)``, ``s_R = NU_UNIT
    tr(C)/tr(R)`` (``R = I`` when None) and ``C = Φ_c'SΦ_c/N`` (:mod:`lssvm_cvx.linalg.penalized`; ``S`` the
    sample weights scaled to mean 1, the identity when None)."""
    Phi = as_matrix(Phi, name="Phi")        # strings crashed in NumPy (until 2026-12-06)
    n, m = Phi.shape
    G = as_gram(G, name="G", min_samples=1)
    R = None if R is None else as_gram(R, name="R", min_samples=1)
    if sample_weight is None:
        trC = float(np.sum((Phi - Phi.mean(axis=0)) ** 2) / n)
    else:  # weighted: the sum of weights plays the part of N (integer weights = repeated rows)
        w = check_sample_weight(sample_weight, n)
        n = float(w.sum())
        trC = float(w @ np.sum((Phi - (w @ Phi) / n) ** 2, axis=1) / n)
    return (normalizer(trC, float(np.trace(G)), n, "G (mu)"),
            normalizer(trC, float(m if R is None else np.trace(R)), n, "R (nu)"))
