"""Penalty functions of the componentwise LS-SVM chapter (Pelckmans et al., sec. 3.3 and 5.1)
behind one interface, with the quadratic majorizer of eq. (43) used by the weighted graduated
non-convexity (GNC) driver.

Every penalty is a function ``ℓ(s)`` of a non-negative scalar ``s`` (in the chapter ``s`` is the
L1 norm ``||Ŷ^d||_1`` of the training outputs of component ``d``, eq. 24-25):

========================  ==========================================  =====================================
class                     ``ℓ(s)``                                    reference
========================  ==========================================  =====================================
:class:`L1`               ``λ s``                                     eq. (20); LASSO
:class:`STP`              ``λ a s / (1 + a s)``                       eq. (24), Nikolova
:class:`HardThreshold`    ``λ² - (s - λ)² 1{s < λ}``                  §3.3, Antoniadis (1997)
:class:`SCAD`             Fan & Li (2001), ``a = 3.7``                §3.3 ("SCAD-like")
========================  ==========================================  =====================================

All four are non-decreasing and concave on ``[0, ∞)``, so ``s ↦ ℓ(√v)`` is concave in
``v = s²``.  That is what makes the reweighting of eq. (41)-(43) a *majorizer*: the quadratic
``ν² u² + μ`` with ``(ν², μ)`` solving eq. (43) at ``u₀`` touches ``ℓ(|u|)`` at ``±u₀`` with the
same slope and lies above it everywhere (:meth:`Penalty.quadratic`).  Minimising the weighted
least-squares surrogate therefore never increases the penalised objective (majorize-minimize),
which the GNC driver relies on for its monotone history.

Eq. (42) matches the value only (``ν² = ℓ(u)/u²``); it is provided as
:meth:`Penalty.weight_value_matching` for comparison, but that quadratic is *not* a majorizer
(it crosses ``ℓ``), so the driver uses eq. (43).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..exceptions import HyperparameterError
from ..checks import check_positive

__all__ = ["Penalty", "L1", "STP", "HardThreshold", "SCAD", "make_penalty", "PENALTIES"]


class Penalty(ABC):
    """A non-decreasing concave penalty ``ℓ(s)`` on ``s ≥ 0``.

    Subclasses implement :meth:`value` and :meth:`derivative` (the right derivative at 0);
    :meth:`weight` and :meth:`quadratic` follow from them by eq. (43).

    Parameters
    ----------
    lam :
        The regularization parameter λ > 0 (``ℓ_λ = λ ℓ`` in the chapter's notation, eq. 23).
    """

    #: short name used by :func:`make_penalty`
    name: str = ""

    def __init__(self, lam: float = 1.0):
        self.lam = check_positive(lam, "lam")

    @abstractmethod
    def value(self, s: Any) -> np.ndarray:
        """``ℓ(s)`` for ``s ≥ 0`` (elementwise)."""

    @abstractmethod
    def derivative(self, s: Any) -> np.ndarray:
        """``ℓ'(s)`` for ``s ≥ 0`` (elementwise; the right derivative at 0)."""

    def weight(self, u: Any, *, eps: float = 0.0) -> np.ndarray:
        """``ν²`` of eq. (43) at ``u``: ``2 ν² u = ℓ'(|u|) sign(u)``, i.e.
        ``ν² = ℓ'(|u|) / (2 |u|)``.

        With ``eps > 0`` the absolute value is smoothed, ``|u| → sqrt(u² + eps²)``, so the
        weight stays finite at ``u = 0`` (``ν² = ℓ'(|u|_ε) / (2 sqrt(u² + eps²))``).
        """
        u = np.abs(np.asarray(u, dtype=np.float64))
        root = np.sqrt(u * u + eps * eps) if eps > 0 else u
        with np.errstate(divide="ignore"):
            return self.derivative(root - eps if eps > 0 else u) / (2.0 * root)

    def quadratic(self, u0: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(ν², μ)`` solving eq. (43) at ``u0 ≠ 0``::

            [u0²  1] [ν²]   [ℓ(|u0|) ]
            [2u0  0] [μ ] = [ℓ'(|u0|) sign(u0)]

        so ``ν² u² + μ`` has the value and slope of ``ℓ(|u|)`` at ``u0`` (and, by concavity of
        ``ℓ`` in ``u²``, lies above ``ℓ(|u|)`` everywhere).
        """
        u0 = np.abs(np.asarray(u0, dtype=np.float64))
        nu2 = self.derivative(u0) / (2.0 * u0)
        mu = self.value(u0) - nu2 * u0 * u0
        return nu2, mu

    def weight_value_matching(self, u: Any) -> np.ndarray:
        """``ν² = ℓ(|u|)/u²`` of eq. (42) (value matching only; not a majorizer)."""
        u = np.abs(np.asarray(u, dtype=np.float64))
        return self.value(u) / (u * u)

    def get_params(self) -> dict[str, float]:
        return {"lam": self.lam}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class L1(Penalty):
    """``ℓ(s) = λ s`` — the L1 component regularization of eq. (20)-(21) (convex).

    With ``s = ||Ŷ^d||_1``, ``½ Σ_d ℓ(s_d) + ½ Σ e²`` is eq. (20) divided by ξ with ``λ = 1/ξ``.
    """

    name = "l1"

    def value(self, s):
        return self.lam * np.asarray(s, dtype=np.float64)

    def derivative(self, s):
        return np.full(np.shape(s), self.lam)


class STP(Penalty):
    """Smoothly thresholding penalty, eq. (24): ``ℓ(s) = λ a s / (1 + a s)`` (Nikolova 1999).

    Parameters
    ----------
    lam :
        λ > 0: the penalty saturates at λ for ``s ≫ 1/a`` (a selected component costs ≈ λ).
    a :
        a > 0 (default 3.7, the value the chapter quotes from Antoniadis & Fan 2001): the slope
        at 0 is ``λ a``.
    """

    name = "stp"

    def __init__(self, lam: float = 1.0, a: float = 3.7):
        super().__init__(lam)
        self.a = check_positive(a, "a")

    def value(self, s):
        s = np.asarray(s, dtype=np.float64)
        return self.lam * self.a * s / (1.0 + self.a * s)

    def derivative(self, s):
        s = np.asarray(s, dtype=np.float64)
        return self.lam * self.a / (1.0 + self.a * s) ** 2

    def get_params(self):
        return {"lam": self.lam, "a": self.a}


class HardThreshold(Penalty):
    """Hard-thresholding penalty of §3.3: ``ℓ(s) = λ² - (s - λ)² 1{s < λ}`` (Antoniadis 1997).

    Equal to ``2λs - s²`` below λ and the constant λ² above; C¹ and concave.
    """

    name = "hard"

    def value(self, s):
        s = np.asarray(s, dtype=np.float64)
        lam = self.lam
        return lam * lam - np.where(s < lam, (s - lam) ** 2, 0.0)

    def derivative(self, s):
        s = np.asarray(s, dtype=np.float64)
        return np.where(s < self.lam, 2.0 * (self.lam - s), 0.0)


class SCAD(Penalty):
    """Smoothly clipped absolute deviation (Fan 1997; Fan & Li 2001).

    The "SCAD-like" penalty the chapter compares eq. (24) with:

    .. code-block:: text

        ℓ(s) = λ s                              s ≤ λ
               (2aλs - s² - λ²) / (2(a - 1))    λ < s ≤ aλ
               λ² (a + 1) / 2                   s > aλ

    Parameters
    ----------
    lam :
        λ > 0.
    a :
        a > 2 (default 3.7, Fan & Li's choice).
    """

    name = "scad"

    def __init__(self, lam: float = 1.0, a: float = 3.7):
        super().__init__(lam)
        self.a = check_positive(a, "a")
        if self.a <= 2:
            raise HyperparameterError(f"SCAD needs a > 2, got a = {a!r}")

    def value(self, s):
        s = np.asarray(s, dtype=np.float64)
        lam, a = self.lam, self.a
        mid = (2 * a * lam * s - s * s - lam * lam) / (2 * (a - 1))
        return np.where(s <= lam, lam * s, np.where(s <= a * lam, mid, lam * lam * (a + 1) / 2))

    def derivative(self, s):
        s = np.asarray(s, dtype=np.float64)
        lam, a = self.lam, self.a
        return np.where(s <= lam, lam, np.where(s <= a * lam, (a * lam - s) / (a - 1), 0.0))

    def get_params(self):
        return {"lam": self.lam, "a": self.a}


PENALTIES: dict[str, type[Penalty]] = {"l1": L1, "stp": STP, "hard": HardThreshold, "scad": SCAD}


def make_penalty(penalty: Any, *, lam: float = 1.0, a: float = 3.7) -> Penalty:
    """A :class:`Penalty` from a name (``"l1"``, ``"stp"``, ``"hard"``, ``"scad"``) or an
    instance (returned as is)."""
    if isinstance(penalty, Penalty):
        return penalty
    if not isinstance(penalty, str) or penalty.lower() not in PENALTIES:
        raise HyperparameterError(
            f"unknown penalty {penalty!r}; use one of {sorted(PENALTIES)} or a Penalty instance")
    cls = PENALTIES[penalty.lower()]
    return cls(lam, a) if cls in (STP, SCAD) else cls(lam)
