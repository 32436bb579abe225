"""Kernels ``k(X, Z) -> Gram`` and their factors.

* :mod:`.base` — RBF, linear, polynomial, componentwise (ANOVA) kernels and their algebra;
* :mod:`.factors` — factors ``K ≈ R R^T``: the PSD eigen-factor, Nyström, pivoted
  (incomplete) Cholesky.

Regularizer Grams (the gradient-norm Gram of the Auto LS-SVM note, the roughness matrices of
the multiobjective paper) are penalties, not kernels: :mod:`lssvm_cvx.terms`.
"""

from .base import (
    RBF,
    CallableKernel,
    Componentwise,
    Kernel,
    Linear,
    Polynomial,
    Precomputed,
    Product,
    Scaled,
    Sum,
    check_psd,
    kernel_from_dict,
    make_kernel,
    register_kernel,
    sq_dists,
)
from .factors import LowRankFactor, eigen_factor, icf_factor, make_factor, nystroem_factor, nystrom_factor

__all__ = [
    "Kernel",
    "RBF",
    "Linear",
    "Polynomial",
    "Sum",
    "Product",
    "Scaled",
    "Precomputed",
    "CallableKernel",
    "Componentwise",
    "sq_dists",
    "make_kernel",
    "kernel_from_dict",
    "register_kernel",
    "check_psd",
    "LowRankFactor",
    "eigen_factor",
    "nystroem_factor",
    "nystrom_factor",
    "icf_factor",
    "make_factor",
]
