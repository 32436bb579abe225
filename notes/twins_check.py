"""Issue 30, step 3: the registered classifier formulations and their regression siblings before
and after the 8 classifier twin subclasses became presets of their regression class.

Usage (from a checkout of each commit, the same Python)::

    python notes/twins_check.py record OUT.pkl          # at the old commit, then the new one
    python notes/twins_check.py compare OLD.pkl NEW.pkl

``record`` builds ``random_instance(n=30, seed=s)`` (s = 0, 1) of every registered classifier
and of its regression sibling and keeps: the class's ``name``, ``reference``, ``compare``,
``has_closed_form``, class name, module and qualname, public methods; the instance's ``classes`` / ``task``;
the builder's CLARABEL problem data (``c, A, b, P``); the closed form's values where there is
one, the ``objective`` there and ``decision_function`` on the first 3 training inputs; a
CLARABEL solve's values and objective.  ``compare`` prints per entry ``OK`` when every output
agrees (1e-10 relative for everything but the CLARABEL solve, 1e-6 for that), else the keys
that differ.
"""

import pickle
import sys

PAIRS = {
    "lssvm_classifier": "lssvm",
    "areg_classifier": "areg",
    "areg_classifier_cv": "areg_cv",
    "areg_classifier_ensemble": "areg_ensemble",
    "areg_classifier_fast_cv": "areg_fast_cv",
    "areg_classifier_fusion": "areg_fusion",
    "auto_lssvm_classifier": "auto_lssvm",
    "componentwise_lssvm_classifier": "componentwise_lssvm",
}

if sys.argv[1] == "compare":
    import numpy as np

    with open(sys.argv[2], "rb") as fa, open(sys.argv[3], "rb") as fb:
        a, b = pickle.load(fa), pickle.load(fb)

    def d(x, y, path="", tol=1e-10):
        """The differences between two outputs (nested dicts, lists, arrays) above ``tol``."""
        out = []
        if isinstance(x, dict):
            for k in x:
                if k not in y:
                    out.append(f"{path}.{k} missing")
                    continue
                out += d(x[k], y[k], f"{path}.{k}", 1e-6 if k == "clarabel" else tol)
            out += [f"{path}.{k} new" for k in y if k not in x]
            return out
        if isinstance(x, list) and x and all(isinstance(e, str) for e in x + list(y)):
            gone, new = sorted(set(x) - set(y)), sorted(set(y) - set(x))
            return [] if x == y else [f"{path} -{gone} +{new}"]
        if path.endswith(".doc") and x != y:
            return [f"{path} changed"]
        if isinstance(x, str) or x is None or isinstance(x, bool):
            return [] if x == y else [f"{path} {x!r:.60} vs {y!r:.60}"]
        try:
            X = np.asarray(x, dtype=float)
            Y = np.asarray(y, dtype=float)
        except (TypeError, ValueError):
            return [] if x == y else [f"{path} {x!r:.60} vs {y!r:.60}"]
        if X.shape != Y.shape:
            return [f"{path} shape {X.shape} vs {Y.shape}"]
        both = np.isnan(X) & np.isnan(Y)
        diff = np.where(both, 0, np.abs(X - Y) / np.maximum(1, np.abs(X)))
        m = np.nanmax(diff) if diff.size else 0
        return [] if m <= tol else [f"{path} reldiff {m:.3g}"]

    bad = 0
    for name in a:
        diffs = d(a[name], b.get(name, {}))
        bad += bool(diffs)
        print(name, "OK" if not diffs else diffs[:8])
    print(f"{len(a) - bad}/{len(a)} equal")
else:
    import warnings

    import cvxpy as cp
    import numpy as np
    import scipy.sparse as sp

    from lssvm_cvx.formulations import FORMULATIONS

    warnings.simplefilter("ignore")

    def arr(v):
        """A dense float array (None stays None)."""
        if sp.issparse(v):
            return v.toarray()
        return np.asarray(v, dtype=float) if v is not None else None

    def methods(cls):
        """The public methods beyond the Formulation contract (the catalogue's rule)."""
        from types import FunctionType

        from lssvm_cvx.formulations.base import Formulation

        contract = set(vars(Formulation))
        found = {a for k in cls.__mro__ if k not in (Formulation, object)
                 for a, v in vars(k).items() if not a.startswith("_") and a not in contract
                 and isinstance(v, (FunctionType, classmethod, staticmethod))}
        task = getattr(cls, "default_task", None)   # (new code: a method of the other task)
        return sorted(a for a in found
                      if getattr(getattr(cls, a, None), "only_task", task) in (None, task))

    def record(name, seed):
        """The outputs of ``FORMULATIONS[name].random_instance(30, seed=seed)``."""
        cls = FORMULATIONS[name]
        out = {"class": (cls.__name__, cls.__module__, cls.__qualname__), "name": cls.name,
               "reference": str(cls.reference), "paper": cls.reference.paper,
               "compare": tuple(cls.compare), "has_closed_form": bool(cls.has_closed_form),
               "doc": cls.__doc__,
               "methods": methods(cls)}
        f = cls.random_instance(30, seed=seed)
        out["instance"] = type(f).__name__
        built = f.build()
        data = built.get_problem_data(cp.CLARABEL)[0]
        out["problem"] = {k: arr(data[k]) for k in ("c", "A", "b", "P") if k in data}
        out["vars"] = sorted(built.vars)
        out["params"] = sorted(built.params)
        out["cons"] = sorted(built.cons)
        if cls.has_closed_form:
            sol = f.solve("closed_form")
            out["closed_form"] = {k: arr(v) for k, v in sol.values.items()}
            out["objective"] = f.objective(sol.values)
            X = getattr(f, "X", None)
            if callable(getattr(f, "decision_function", None)) and X is not None:
                try:
                    out["decision"] = arr(f.decision_function(sol, np.asarray(X)[:3]))
                except Exception as exc:  # noqa: BLE001 - recorded
                    out["decision"] = f"{type(exc).__name__}"
        out["classes"] = arr(getattr(f, "classes", None)) if hasattr(f, "classes") else None
        out["task"] = getattr(f, "task", None)
        try:
            sol = f.solve("CLARABEL", accept_inaccurate=True)
            out["clarabel"] = {"values": {k: arr(v) for k, v in sol.values.items()},
                               "objective": sol.objective}
        except Exception as exc:  # noqa: BLE001 - recorded
            out["clarabel"] = f"{type(exc).__name__}: {exc}"
        if name == "areg_classifier_ensemble":
            s = f.search("misclassification")
            out["search"] = {k: arr(v) for k, v in s.values.items()}
            out["node_decision_values"] = arr(f.node_decision_values())
        if name.startswith("componentwise_lssvm"):
            s = f.solve("closed_form")
            out["component_outputs"] = arr(f.component_outputs(s["alpha"], np.asarray(f.X)[:3]))
        return out

    res = {}
    for clf, reg in PAIRS.items():
        for name in (clf, reg):
            for seed in (0, 1):
                res[f"{name}@{seed}"] = record(name, seed)
    with open(sys.argv[2], "wb") as fh:
        pickle.dump(res, fh)
    print(len(res), "entries")
