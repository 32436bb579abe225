"""Kernels ``k(X, Z) -> Gram`` and the Gram matrices that regularizers need.

* :mod:`.base` — RBF, linear, polynomial, componentwise (ANOVA) kernels and their algebra.

Regularizer Grams (the gradient-norm Gram of the Auto LS-SVM note, the roughness matrices of
the multiobjective paper) live in their own modules of this package.
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
from .gradient_norm import affine_dim, gradient_norm_gram, model_kernel
from .roughness import (PolynomialRoughness, RBFRoughness, l2_complexity, poly_roughness,
                        rbf_roughness, roughness)

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
    "gradient_norm_gram",
    "model_kernel",
    "affine_dim",
    "RBFRoughness",
    "PolynomialRoughness",
    "rbf_roughness",
    "poly_roughness",
    "roughness",
    "l2_complexity",
]
