"""Multiobjective scalarisations and Pareto fronts (You, Benitez-Quiroz & Martinez 2014, §III):
the public names of :mod:`lssvm_cvx.formulations.scalarize` (weighted sum, ε-constraint,
modified ε-constraint), :mod:`lssvm_cvx.selection.pareto` (fronts, ideal point) and
:mod:`lssvm_cvx.selection.pareto_nlp` (the non-convex versions), kept under this module name."""

from .formulations.scalarize import (ParetoProblem, epsilon_constraint, ideal_point,
                                     modified_epsilon_constraint, weighted_sum)
from .selection.pareto import (ParetoFront, dominated, ideal_point_weights, non_dominated_mask,
                               select_ideal_point, trace_front)
from .selection.pareto_nlp import (NLPFront, NLPResult, epsilon_constraint_nlp,
                                   modified_epsilon_constraint_nlp, trace_front_nlp)

__all__ = [
    "ParetoProblem",
    "weighted_sum",
    "epsilon_constraint",
    "modified_epsilon_constraint",
    "ideal_point",
    "trace_front",
    "ParetoFront",
    "ideal_point_weights",
    "select_ideal_point",
    "dominated",
    "non_dominated_mask",
    "NLPResult",
    "epsilon_constraint_nlp",
    "modified_epsilon_constraint_nlp",
    "NLPFront",
    "trace_front_nlp",
]
