"""Dense linear algebra shared by every closed form: Cholesky with diagnostics, the bordered
(bias) system of the LS-SVM, and the spectral form used to sweep a regularization constant.

The LS-SVM-type dual systems of the papers all have the bordered form

.. math::

    A = \\begin{bmatrix} 0 & a^T \\\\ a & H \\end{bmatrix},\\qquad
    A \\begin{bmatrix} b \\\\ \\alpha \\end{bmatrix} = \\begin{bmatrix} 0 \\\\ r \\end{bmatrix},

with ``H`` symmetric positive definite: ``H = Ω + I/γ`` and ``a = 1`` for regression (AReg
paper eq. 2), ``H = Ω + diag(1/γ_i)`` for the weighted LS-SVM (eq. 75), ``H = Ω + I`` and
``r = y - c`` for additive regularization (eq. 9), ``H = Ω_y + I/γ`` and ``a = y`` for the
classifier (eq. 57).  With ``H = L L^T`` (Cholesky) the Schur complement of ``H`` eliminates the
bias:

.. math::

    b = \\frac{a^T H^{-1} r}{a^T H^{-1} a}, \\qquad \\alpha = H^{-1} (r - a b),

two triangular solve pairs sharing one factorization.  The α-block of ``A^{-1}`` is
``C = H^{-1} - u u^T / (a^T u)`` with ``u = H^{-1} a``; its diagonal and principal sub-blocks
give exact leave-one-out and k-fold residuals (:mod:`lssvm_cvx.model_selection`).
"""

from .bordered import BorderedSystem, lssvm_system
from .cholesky import COND_WARN, Cholesky
from .spectral import SpectralBordered

__all__ = [
    "COND_WARN",
    "lssvm_system",
    "Cholesky",
    "BorderedSystem",
    "SpectralBordered",
]
