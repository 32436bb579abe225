"""Export a formulation's instance as the program a solver sees, for other tools.

The data are cvxpy's own (``Problem.get_problem_data``: the cone program it hands to CLARABEL,
parameters applied)::

    minimise  ½ x'Px + q'x + d   subject to   A x + b ∈ K,   K = {0}^z × R_+^l × SOC(s_1) × ...

``x`` stacks the formulation's variables *and* cvxpy's auxiliary (epigraph) variables, in
cvxpy's order.  Two formats:

``npz``
    Always the conic data (``cone_P``, ``cone_A`` as CSC triplets ``*_data``, ``*_indices``,
    ``*_indptr``, ``*_shape``; ``cone_q``, ``cone_b``, ``cone_d``; ``cone_zero``,
    ``cone_nonneg``, ``cone_soc``).  When the program is a QP (no second-order cone) also
    qpsolvers' ``Problem`` layout — ``P, q, G, h, A, b, lb, ub`` as dense arrays, a missing part
    stored as qpsolvers stores it (``np.array(None)``) — so ``qpsolvers.Problem.load(path)``
    reads the file, with the objective's constant ``d`` in ``offset``:
    ``A = A_z, b = -b_z`` (the zero cone) and ``G = -A_l, h = b_l`` (the nonnegative cone).
``qps``
    Free-format QPS (MPS with a ``QUADOBJ`` section: the lower triangle of ``P``, objective
    ``½ x'Px + q'x``; the constant as minus the right-hand side of the objective row), read by
    HiGHS, CPLEX, Gurobi and the Maros–Mészáros tools.  QPs only; every variable is free unless
    cvxpy gave it bounds.  ``mps`` writes the same file (HiGHS picks its reader by the suffix
    and reads QPS from a ``.mps`` file).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["program_data", "export_problem", "FORMATS"]

#: the formats :func:`export_problem` writes
FORMATS: tuple[str, ...] = ("npz", "qps", "mps")


def program_data(formulation: Any) -> dict[str, Any]:
    """The cone program cvxpy hands to CLARABEL for ``formulation`` (parameters applied).

    Parameters
    ----------
    formulation : Formulation
        Any instance.

    Returns
    -------
    dict
        ``P`` (CSC or None), ``q``, ``d``, ``A`` (CSC), ``b``, ``zero``, ``nonneg``, ``soc``
        (list of cone sizes), ``lb``/``ub`` (arrays or None), ``is_qp`` and the name.
    """
    import scipy.sparse as sp

    from ..exceptions import NotSupportedError

    formulation.validate()
    formulation.reset_problem()
    problem = formulation.problem
    data, _, _ = problem.get_problem_data("CLARABEL")
    prog = data["param_prob"]
    dims = prog.cone_dims
    if dims.exp or dims.psd or getattr(dims, "p3d", None) or getattr(dims, "pnd", None):
        raise NotSupportedError(f"{formulation.name}: the cone program has exponential, "
                                "semidefinite or power cones; only zero, nonnegative and "
                                "second-order cones are exported")
    if prog.P is not None:
        P, q, d, A, b = prog.apply_parameters(quad_obj=True)
        P = sp.csc_matrix(P)
    else:
        (q, d, A, b), P = prog.apply_parameters(), None
    n = int(np.asarray(q).size)
    lb = None if prog.lower_bounds is None else np.asarray(prog.lower_bounds, dtype=float)
    ub = None if prog.upper_bounds is None else np.asarray(prog.upper_bounds, dtype=float)
    return {"name": formulation.name, "P": P, "q": np.asarray(q, dtype=float).reshape(-1),
            "d": float(np.asarray(d).reshape(())), "A": sp.csc_matrix(A),
            "b": np.asarray(b, dtype=float).reshape(-1), "zero": int(dims.zero),
            "nonneg": int(dims.nonneg), "soc": [int(s) for s in dims.soc], "lb": lb, "ub": ub,
            "n": n, "is_qp": not dims.soc}


def _qp_parts(prog: dict[str, Any]) -> dict[str, Any]:
    z, nn, n = prog["zero"], prog["nonneg"], prog["n"]
    A = prog["A"].toarray()
    P = prog["P"].toarray() if prog["P"] is not None else np.zeros((n, n))
    return {"P": P, "q": prog["q"], "A": A[:z] if z else None, "b": -prog["b"][:z] if z else None,
            "G": -A[z:z + nn] if nn else None, "h": prog["b"][z:z + nn] if nn else None,
            "lb": prog["lb"], "ub": prog["ub"]}


def _write_npz(prog: dict[str, Any], path: Path) -> None:
    arrays: dict[str, Any] = {"cone_q": prog["q"], "cone_b": prog["b"],
                              "cone_d": np.float64(prog["d"]), "cone_zero": np.int64(prog["zero"]),
                              "cone_nonneg": np.int64(prog["nonneg"]),
                              "cone_soc": np.asarray(prog["soc"], dtype=np.int64),
                              "offset": np.float64(prog["d"])}
    for key in ("P", "A"):
        M = prog[key]
        if M is None:
            continue
        arrays.update({f"cone_{key}_data": M.data, f"cone_{key}_indices": M.indices,
                       f"cone_{key}_indptr": M.indptr,
                       f"cone_{key}_shape": np.asarray(M.shape, dtype=np.int64)})
    if prog["is_qp"]:  # qpsolvers' Problem.save layout: absent parts as np.array(None)
        for key, v in _qp_parts(prog).items():
            arrays[key] = np.array(None) if v is None else np.asarray(v, dtype=float)
    with path.open("wb") as fh:
        np.savez(fh, **arrays)


def _fmt(v: float) -> str:
    return repr(float(v))


def _write_qps(prog: dict[str, Any], path: Path) -> None:
    from ..exceptions import NotSupportedError

    if not prog["is_qp"]:
        raise NotSupportedError(f"{prog['name']}: the program has second-order cones; QPS holds "
                                "QPs only (use --format npz for the conic data)")
    parts = _qp_parts(prog)
    n = prog["n"]
    rows: list[tuple[str, str, np.ndarray, float]] = []  # (name, kind, coefficients, rhs)
    if parts["A"] is not None:
        rows += [(f"E{i}", "E", parts["A"][i], parts["b"][i]) for i in range(parts["A"].shape[0])]
    if parts["G"] is not None:
        rows += [(f"L{i}", "L", parts["G"][i], parts["h"][i]) for i in range(parts["G"].shape[0])]
    lines = [f"NAME {prog['name']}", "ROWS", " N OBJ"]
    lines += [f" {kind} {name}" for name, kind, _, _ in rows]
    lines.append("COLUMNS")
    for j in range(n):
        entries = [("OBJ", parts["q"][j])] if parts["q"][j] != 0 else []
        entries += [(name, coef[j]) for name, _, coef, _ in rows if coef[j] != 0]
        for rname, v in entries or [("OBJ", 0.0)]:
            lines.append(f" X{j} {rname} {_fmt(v)}")
    lines.append("RHS")
    if prog["d"] != 0:
        lines.append(f" RHS OBJ {_fmt(-prog['d'])}")
    lines += [f" RHS {name} {_fmt(rhs)}" for name, _, _, rhs in rows if rhs != 0]
    lines.append("BOUNDS")
    lb, ub = parts["lb"], parts["ub"]
    for j in range(n):
        lo = -np.inf if lb is None else lb[j]
        hi = np.inf if ub is None else ub[j]
        if np.isneginf(lo) and np.isposinf(hi):
            lines.append(f" FR BND X{j}")
            continue
        lines.append(f" MI BND X{j}" if np.isneginf(lo) else f" LO BND X{j} {_fmt(lo)}")
        if not np.isposinf(hi):
            lines.append(f" UP BND X{j} {_fmt(hi)}")
    P = parts["P"]
    nz = [(i, j) for j in range(n) for i in range(j, n) if P[i, j] != 0]
    if nz:
        lines.append("QUADOBJ")
        lines += [f" X{j} X{i} {_fmt(P[i, j])}" for i, j in nz]
    lines.append("ENDATA")
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def export_problem(formulation: Any, path: str | os.PathLike, format: str | None = None) -> Path:
    """Write ``formulation``'s program (module docstring) to ``path``.

    Parameters
    ----------
    formulation : Formulation
        Any instance, e.g. ``get_formulation("lssvm").random_instance(60)``.
    path : str or path-like
        The file to write (atomically).
    format : {"npz", "qps", "mps"} or None
        Default: from the suffix of ``path``, else ``"npz"``.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    from ..checks import check_option
    from ..exceptions import InputError
    from .files import atomic_write

    p = Path(path)
    fmt = format if format is not None else (p.suffix.lstrip(".") or "npz")
    fmt = check_option(fmt.lower() if isinstance(fmt, str) else fmt, FORMATS, "format", error=InputError)
    prog = program_data(formulation)
    writer = _write_npz if fmt == "npz" else _write_qps
    if fmt != "npz" and not prog["is_qp"]:
        writer(prog, p)  # raises NotSupportedError before anything is written
    atomic_write(p, lambda tmp: writer(prog, Path(tmp)))
    return p
