"""Multiobjective scalarisations and Pareto fronts (You, Benitez-Quiroz & Martinez 2014, §III):
the public names of :mod:`lssvm_cvx.formulations.scalarize` (weighted sum, ε-constraint,
modified ε-constraint), :mod:`lssvm_cvx.selection.pareto` (fronts, ideal point) and
:mod:`lssvm_cvx.selection.pareto_nlp` (the non-convex versions), kept under this module name."""

from .formulations import scalarize
from .formulations.scalarize import *  # noqa: F403
from .selection import pareto, pareto_nlp
from .selection.pareto import *  # noqa: F403
from .selection.pareto_nlp import *  # noqa: F403

__all__ = ([n for n in scalarize.__all__ if not n.startswith("check_")] + pareto.__all__
           + pareto_nlp.__all__)
