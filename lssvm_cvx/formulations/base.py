"""The formulation contract shared by every paper module.

A :class:`Formulation` holds its data and hyperparameters (stored, not validated, in
``__init__``) and offers

* :meth:`Formulation.build` — the declarative cvxpy problem, variables and parameters named as
  in the paper, hyperparameters as :class:`cvxpy.Parameter` so re-solves skip recompilation;
* :meth:`Formulation.objective` — the NumPy twin of the objective, used to score every backend;
* :meth:`Formulation.closed_form` — the NumPy/SciPy backend where the problem is a linear system;
* :meth:`Formulation.solve` — one entry point for ``"closed_form"`` and any cvxpy solver,
  returning a :class:`~lssvm_cvx.solution.Solution`;
* :meth:`Formulation.kkt_residuals` — primal feasibility, stationarity of the Lagrangian,
  complementarity and dual feasibility of any candidate point, evaluated on the cvxpy problem
  (so the same check scores the closed form and every solver).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ..certificates import Certificate
from ..exceptions import InputError, NotSupportedError, SolverError
from ..solution import OPTIMAL, OPTIMAL_INACCURATE, Solution
from ..solvers import check_backend, check_solve_arguments, solve_problem
from .kkt import KKT, NONSMOOTH_ATOMS, kkt_report, kkt_residuals, lagrangian_kkt

__all__ = ["Reference", "BuiltProblem", "Formulation", "kkt_residuals", "kkt_report",
           "NONSMOOTH_ATOMS"]


@dataclass(frozen=True)
class Reference:
    """Where a formulation comes from: paper key (file in ``shared/papers``), citation, the
    equations it implements (``{"primal": "(1)", "dual": "(2)"}``) and, optionally, those
    equations in LaTeX (same keys; shown on the formulation's documentation page, which
    falls back to :data:`lssvm_cvx.formulations.equations.LATEX`, the table of the papers'
    equations)."""

    paper: str
    citation: str
    equations: Mapping[str, str] = field(default_factory=dict)
    latex: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        eqs = ", ".join(f"{k} {v}" for k, v in self.equations.items())
        return f"{self.citation}" + (f"; {eqs}" if eqs else "")


class BuiltProblem(cp.Problem):
    """A :class:`cvxpy.Problem` with named handles.

    ``vars``, ``params`` and ``cons`` map the paper's names to the cvxpy variables, parameters
    and constraints, so duals are read by name, never by position; ``pieces`` (optional) names
    the summands of the objective (the loss, each weighted term), so that the harness checks
    each piece's NumPy twin separately (:meth:`Formulation.objective_pieces`).  Everything else is a plain
    ``cvxpy.Problem`` (``solve``, ``is_dpp``, ``value``, ...).
    """

    def __init__(self, objective: cp.Minimize, constraints: Mapping[str, cp.Constraint], *,
                 vars: Mapping[str, cp.Variable], params: Mapping[str, cp.Parameter] | None = None,
                 pieces: Mapping[str, cp.Expression] | None = None):
        self.cons = dict(constraints)
        super().__init__(objective, list(self.cons.values()))
        self.vars = dict(vars)
        self.params = dict(params or {})
        self.pieces = dict(pieces or {})


class Formulation(ABC):
    """Base class of every paper formulation (see the module docstring for the contract).

    Subclasses set the class attributes, implement :meth:`_build` and :meth:`objective`, and
    :meth:`closed_form` where the problem is a linear system.
    """

    #: registry key (``lssvm-cvx compare NAME``)
    name: ClassVar[str]
    #: where the formulation comes from
    reference: ClassVar[Reference]
    #: whether :meth:`closed_form` exists
    has_closed_form: ClassVar[bool] = False
    #: names of the solution arrays the harness compares between backends
    compare: ClassVar[tuple[str, ...]] = ("alpha", "b")
    #: where the builder's variables differ from the paper's: paper symbol -> (the builder's
    #: variable, the map between them and why), shown beside the builder on the documentation
    #: page, e.g. ``{"α": ("c", "α = T c, T = V Λ^{-1/2}: whitened, α'Kα = ||c||²")}``
    reparametrization: ClassVar[dict[str, tuple[str, str]]] = {}
    #: per-solver options this formulation needs (merged under the caller's options), e.g.
    #: ``{"CLARABEL": {"static_regularization_constant": 1e-6}}``
    solver_options: ClassVar[dict[str, dict[str, Any]]] = {}
    _built: BuiltProblem | None = None

    # --- to implement ----------------------------------------------------------------------
    @abstractmethod
    def _build(self) -> BuiltProblem:
        """Create the cvxpy problem (parameters initialised from the current attributes)."""

    @abstractmethod
    def objective(self, values: Mapping[str, np.ndarray]) -> float:
        """NumPy twin of the objective at a candidate point (the paper's equation)."""

    def parameter_values(self) -> dict[str, Any]:
        """Current values of the problem's cvxpy parameters, by name."""
        return {}

    def closed_form(self) -> Solution:
        """NumPy/SciPy solution of the linear system (raises when there is none)."""
        raise NotSupportedError(f"{self.name} has no closed form; solve it with a cvxpy solver")

    def values_from(self, built: BuiltProblem) -> dict[str, np.ndarray]:
        """Named solution arrays read from a solved problem (variables by name by default)."""
        return {k: v.value for k, v in built.vars.items()}  # type: ignore[misc]

    def validate(self) -> None:
        """Check data and hyperparameters; raise the package's errors.  Called before solves."""

    @classmethod
    def random_instance(cls, n: int = 50, *, seed: int = 0, **kwargs: Any) -> Formulation:
        """A seeded random instance of size ``n`` (used by the harness, CLI and benchmarks)."""
        raise NotSupportedError(f"{cls.__name__} has no random instance generator")

    # --- provided --------------------------------------------------------------------------
    def build(self) -> BuiltProblem:
        """The declarative cvxpy problem, a fresh one each call."""
        self.validate()
        built = self._build()
        self._set_parameters(built)
        return built

    @property
    def problem(self) -> BuiltProblem:
        """The cached problem that :meth:`solve` re-solves (DPP: parameters updated in place)."""
        built: BuiltProblem | None = getattr(self, "_built", None)
        if built is None:
            built = self._built = self.build()
        return built

    def reset_problem(self) -> None:
        """Drop the cached :attr:`problem`: the next solve compiles a fresh one (the harness
        times first compiles this way, and a changed data shape needs it)."""
        self._built = None

    def _set_parameters(self, built: BuiltProblem) -> None:
        for key, value in self.parameter_values().items():
            built.params[key].value = value

    def solve(self, solver: str = "closed_form", *, options: dict[str, Any] | None = None,
              raise_on_failure: bool = True, accept_inaccurate: bool = False,
              setting: str = "high", time_limit: float | None = None) -> Solution:
        """Solve with ``"closed_form"`` or a cvxpy solver name; returns a :class:`Solution`.

        cvxpy solves reuse one cached problem (:attr:`problem`) whose parameters are updated
        from the current hyperparameters, so a second solve after changing e.g. ``gamma``
        skips recompilation (and warm-starts solvers that support it).  ``setting`` picks the
        solver's tolerance profile (``"high"``, ``"default"``, ``"low"``; see
        :mod:`lssvm_cvx.solvers`), ``time_limit`` is passed to solvers that have a time
        option.  Solver output is captured into ``solution.extras["log"]``.

        A failed solve raises :class:`~lssvm_cvx.exceptions.SolverError` with the solver's
        status and message.  An inaccurate one (``optimal_inaccurate``) is accepted when its
        measured KKT residuals meet the solver's tolerance profile (``extras["certified"]``;
        the status stays ``optimal_inaccurate``) or when ``accept_inaccurate``; otherwise it
        raises too.  With ``raise_on_failure=False`` the status is returned instead.
        """
        check_backend(solver)
        options, time_limit = check_solve_arguments(options, time_limit)
        if solver == "closed_form":
            self.validate()
            t0 = time.perf_counter()
            sol = self.closed_form()
            sol.solve_time = time.perf_counter() - t0
            sol.backend = "closed_form"
        else:
            sol = self._solve_cvxpy(solver, options, setting, time_limit)
            if raise_on_failure:
                self._raise_unless_usable(sol, setting, accept_inaccurate)
        if sol.ok and sol.values:
            sol.objective = float(self.objective(sol.values))
        return sol

    def _solve_cvxpy(self, solver: str, options: dict[str, Any] | None, setting: str,
                     time_limit: float | None) -> Solution:
        self.validate()
        built = self.problem
        self._set_parameters(built)
        name = solver.upper()
        merged = {**self.solver_options.get(name, {}), **(options or {})}
        info = solve_problem(built, solver, options=merged, raise_on_failure=False,
                             setting=setting, time_limit=time_limit,
                             capture=not merged.get("verbose", False))
        ok = info["status"] in (OPTIMAL, OPTIMAL_INACCURATE)
        values = self.values_from(built) if ok else {}
        duals = {k: c.dual_value for k, c in built.cons.items()} if ok else {}
        return Solution(
            values={k: v for k, v in values.items() if v is not None},
            duals={k: v for k, v in duals.items() if v is not None},
            status=info["status"],
            backend=name,
            solver_objective=info["value"],
            compile_time=info["compile_time"],
            solve_time=info["solve_time"],
            extras={"solver_time": info["solver_time"], "iterations": info["iterations"],
                    "solver_setup_time": info.get("solver_setup_time"),
                    "solve_call_time": info.get("solve_call_time"),
                    "stage": info.get("stage"), "solver_status": info.get("solver_status"),
                    "size": info.get("size"),
                    "options": info["options"], "log": info["log"], "error": info["error"],
                    "setting": setting},
            certificate=info.get("certificate"),
        )

    def _raise_unless_usable(self, sol: Solution, setting: str, accept_inaccurate: bool) -> None:
        from ..solvers import profile

        if sol.status == OPTIMAL:
            return
        err = sol.extras.get("error")
        if not sol.ok:
            raise SolverError(f"{sol.backend} did not find an optimal point"
                              + (f" ({err})" if err else ""), solver=sol.backend,
                              status=sol.status)
        if accept_inaccurate:
            return
        # optimal_inaccurate: the status word depends on the last bits of the data (where the
        # solver stops relative to its own reduced tolerances); accept the point if it is
        # measurably what the profile promises: its certificate (conic form, valid for
        # non-smooth problems too), else, for a feasible point, its objective against an
        # optimal reference solve
        tol = profile(sol.backend, setting).tol
        cert: Certificate | None
        why = ""
        try:
            cert = self.certificate(sol)
            primal = self.kkt(sol).residuals["primal"]
        except Exception as exc:  # pragma: no cover - reported in the error below
            cert, primal = None, float("nan")
            why = str(exc)
        certified = cert is not None and cert.passes(tol)
        if cert is not None and certified:
            sol.extras["certified_by"] = f"certificate within the profile: {cert.describe()}"
        elif primal <= tol.feas:
            certified = self._certify_by_looser_solve(sol, setting)
        sol.extras["certified"] = certified
        if not certified:
            if cert is not None:
                why = "; ".join(cert.failures(tol)) + (f" ({cert.note})" if cert.note else "")
            raise SolverError(f"{sol.backend} stopped at an inaccurate point that its "
                              f"certificate does not certify: {why} (raise its iteration limit "
                              "or pass accept_inaccurate=True)", solver=sol.backend,
                              status=sol.status)

    def _certify_by_looser_solve(self, sol: Solution, setting: str) -> bool:
        """Certify a feasible inaccurate point by its objective (works for non-smooth atoms).

        Stationarity cannot certify a point of a non-smooth objective (no gradient), and an
        interior-point method asked for 1e-10 may stall just above it (CLARABEL reports
        ``AlmostSolved`` with a duality gap of 0 and a conic primal residual of 1e-9).  The
        point (primal feasible, checked by the caller) is accepted when its objective (the
        NumPy twin) is no worse than that of an *optimal* reference solve, up to the
        reference's relative tolerance: the closed form where the formulation has one, else
        the same solver with its ``"default"`` profile when
        ``setting`` is ``"high"``, else another interior-point solver with ``setting``.  Then it
        is at least as close to the optimum as the reference promises; ``extras["certified_by"]``
        names the reference.
        """
        from ..solvers import available_solvers, profile

        if not sol.values:
            return False
        f_point = float(self.objective(sol.values))
        if type(self).has_closed_form:
            try:
                f_cf = float(self.objective(self.closed_form().values))
            except Exception:  # noqa: BLE001 - e.g. NotSupportedError for this instance
                f_cf = float("nan")
            slack = profile(sol.backend, setting).tol.rel * max(1.0, abs(f_cf))
            if np.isfinite(f_point) and f_point <= f_cf + slack:
                sol.extras["certified_by"] = (f"objective {f_point:.10g} <= {f_cf:.10g} "
                                             f"(+{slack:.1g}) of the closed form")
                return True
        refs = [(sol.backend, "default")] if setting == "high" else []
        refs += [(other, setting) for other in ("CLARABEL", "ECOS")
                 if other != sol.backend and other in available_solvers()]
        for solver, prof in refs:
            try:
                ref = self._solve_cvxpy(solver, None, prof, None)
            except Exception:  # noqa: BLE001 - a failed reference certifies nothing
                continue
            if ref.status != OPTIMAL or not ref.values:
                continue
            f_ref = float(self.objective(ref.values))
            slack = profile(solver, prof).tol.rel * max(1.0, abs(f_ref))
            if np.isfinite(f_point) and f_point <= f_ref + slack:
                sol.extras["certified_by"] = (f"objective {f_point:.10g} <= {f_ref:.10g} "
                                             f"(+{slack:.1g}) of an optimal {solver} solve "
                                             f"with its {prof!r} profile")
                return True
        return False

    def kkt_residuals(self, solution: Solution) -> dict[str, float]:
        """KKT residuals of ``solution`` evaluated on the cvxpy problem (see
        :func:`kkt_residuals`; never raises for a non-smooth atom: NaN stationarity)."""
        return self.kkt(solution).residuals

    def kkt_report(self, solution: Solution) -> tuple[dict[str, float], str | None]:
        """:meth:`kkt_residuals` and the reason when stationarity is NaN."""
        kkt = self.kkt(solution)
        return kkt.residuals, kkt.note

    def kkt(self, solution: Solution) -> KKT:
        """KKT residuals, the reason stationarity is NaN and the Lagrangian certificate of
        ``solution`` on the cvxpy problem (:func:`lssvm_cvx.formulations.kkt.lagrangian_kkt`;
        the closed form's diagnostics ``extras["system"]`` go into the certificate).

        Parameters
        ----------
        solution : Solution
            A candidate point with its multipliers.

        Returns
        -------
        KKT
            ``residuals``, ``note`` and ``certificate``.
        """
        built = self.problem
        self._set_parameters(built)
        try:
            values = {**self.values_from_solution(solution)}
        except KeyError as exc:
            raise InputError(f"solution has no value for variable {exc}") from None
        return lagrangian_kkt(built, values, solution.duals or None,
                              extras=solution.extras.get("system"))

    def certificate(self, solution: Solution) -> Certificate:
        """The optimality certificate of ``solution``: the conic one a cvxpy solve recorded
        (:func:`lssvm_cvx.solvers.solver_certificate`), else the Lagrangian one of
        :meth:`kkt` (the closed form's, whose problems are smooth).

        Parameters
        ----------
        solution : Solution
            A candidate point.

        Returns
        -------
        Certificate
            Scaled primal, dual and gap residuals (:mod:`lssvm_cvx.certificates`).
        """
        if solution.certificate is not None:
            return solution.certificate
        return self.kkt(solution).certificate

    def twin_pieces(self, values: Mapping[str, np.ndarray]) -> dict[str, float]:
        """The NumPy twin of each piece of the objective at ``values`` (their sum is
        :meth:`objective`); the keys match ``BuiltProblem.pieces``.  One piece,
        ``"objective"``, unless a formulation splits it (the composition: the loss and each
        term).

        Parameters
        ----------
        values : mapping of str to numpy.ndarray
            A solution's named arrays.

        Returns
        -------
        dict of str to float
            Piece name to value.
        """
        return {"objective": float(self.objective(values))}

    def objective_pieces(self, solution: Solution) -> dict[str, tuple[float, float | None]]:
        """Each piece of the objective at ``solution`` by its NumPy twin and by cvxpy.

        The cvxpy value is the piece's expression in the built problem
        (``BuiltProblem.pieces``) evaluated with every variable set from the point
        (:meth:`values_from_solution`); ``None`` when a variable has no value there.  The
        harness reports the gaps: a twin that differs from its expression is a bug of the
        formulation (or of a user's term or loss), not of a solver.

        Parameters
        ----------
        solution : Solution
            A candidate point.

        Returns
        -------
        dict of str to (float, float or None)
            Piece name to ``(numpy value, cvxpy value)``.
        """
        built = self.problem
        self._set_parameters(built)
        vals = self.values_from_solution(solution)
        for name, var in built.vars.items():
            var.value = (np.asarray(vals[name], dtype=np.float64).reshape(var.shape)
                         if name in vals and vals[name] is not None else None)
        twin = self.twin_pieces(solution.values)
        exprs = built.pieces or {"objective": built.objective.expr}
        out: dict[str, tuple[float, float | None]] = {}
        for key, value in twin.items():
            expr = exprs.get(key)
            cv = None if expr is None else expr.value
            out[key] = (float(value), None if cv is None else float(np.asarray(cv).reshape(())))
        return out

    def values_from_solution(self, solution: Solution) -> dict[str, np.ndarray]:
        """Map a solution's named arrays to the problem's variables (identity by default)."""
        return {k: solution.values[k] for k in self.problem.vars if k in solution.values}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

