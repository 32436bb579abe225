"""Terms: penalties on the expansion coefficients ``α`` of ``f(x) = Σ_i α_i k(x_i, x) + b``.

Compose them with a loss in :class:`lssvm_cvx.formulations.RegularizedLSSVM` or the estimators
:class:`~lssvm_cvx.RegularizedLSSVMRegressor` / :class:`~lssvm_cvx.RegularizedLSSVMClassifier`.

* :mod:`.base` — the :class:`Term` contract and the :class:`Context` a term sees;
* :mod:`.quadratic` — ``½ α'Pα`` terms: :class:`RKHSNorm` (``P = K``), :class:`Ridge`
  (``P = I``), :class:`Quadratic`, :class:`GraphLaplacian`, :class:`GradientNorm`,
  :class:`Roughness`;
* :mod:`.sparse` — non-smooth terms written with epigraphs: :class:`L1`, :class:`GroupL1`,
  :class:`TotalVariation`;
* :mod:`.nonconvex` — :class:`SmoothlyThresholding` (STP, SCAD, hard threshold on component
  sizes), minimised by graduated non-convexity (:func:`lssvm_cvx.selection.gnc_terms.gnc_fit`).
"""

from .base import PSD_RTOL, Context, Term, check_quadratic, psd_factor
from .nonconvex import SmoothlyThresholding
from .quadratic import GradientNorm, GraphLaplacian, Quadratic, Ridge, RKHSNorm, Roughness, knn_laplacian
from .sparse import L1, GroupL1, TotalVariation

__all__ = [
    "Term",
    "Context",
    "RKHSNorm",
    "Ridge",
    "Quadratic",
    "GraphLaplacian",
    "GradientNorm",
    "Roughness",
    "L1",
    "GroupL1",
    "TotalVariation",
    "SmoothlyThresholding",
    "knn_laplacian",
    "psd_factor",
    "check_quadratic",
    "PSD_RTOL",
]
