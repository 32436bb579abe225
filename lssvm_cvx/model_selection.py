"""Closed-form model selection for the LS-SVM (exact LOO / k-fold / GCV, γ sweeps, the (γ, σ²)
search): the public names of :mod:`lssvm_cvx.selection.lssvm`, kept under this module name."""

from .selection.lssvm import *  # noqa: F403
from .selection.lssvm import __all__  # noqa: F401
