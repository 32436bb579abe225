"""Issue 30's counts ("What must be shown"): where the held-out formulas are written, which
classes are closed-form engines with held-out residuals, and which formulations are classifier
twins of a regression formulation.  The target is one module, one engine and no twin; until
then each count is pinned here, a ratchet: a new site, engine or twin fails, and one removed
must leave the list (the numbers only go down).

The rules are syntactic and documented with each test; they find the sites the issue lists
(the leverage form ``(y - ŷ)/(1 - h)``, the diagonal forms ``α/C_ii`` and ``μ/(√s Z_ii)``), not
every way a held-out residual could be written.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from lssvm_cvx.formulations import FORMULATIONS
from lssvm_cvx.formulations.tasks import PRESET_KEYS

PKG = Path(__file__).resolve().parents[1] / "lssvm_cvx"

#: module -> number of held-out residual sites (rule: :func:`_heldout_sites`): one module, for
#: NumPy and every array-API namespace (the device engines call it since 2026-11-27); the
#: spectral path is the leverage form at every weight, so two divisions remain
HELDOUT_SITES = {"linalg/scores.py": 2}
#: classes with held-out residual methods (``loo*`` / ``kfold*``), by module
ENGINES = {
    # (2026-11-28: `device/penalized.py`'s DevicePenalizedLS merged into linalg's PenalizedLS,
    # which takes its namespace from its inputs)
    # the mixin (2026-11-27) through which a paper formulation with a factorised system (the
    # LS-SVMs, Auto) gets the core's held-out residuals: its methods delegate to
    # `QuadraticSystem.loo` / `kfold`, they compute nothing of their own
    "formulations/heldout.py": ["HeldOutResiduals"],
    "estimators/regularized_device.py": ["_Problem"],
    "formulations/regularized.py": ["RegularizedLSSVM"],
    # the engine's entry point (2026-11-28, `decompose`): it picks the representation (bordered
    # or augmented system, spectral or generalised-eigen path) and delegates to it; the
    # composition core, the LS-SVM and Auto formulations solve through it
    # 2026-11-29: `SpectralSystem`, the RKHS-only system at one weight as a view of a shared
    # eigendecomposition (`Decomposition.systems` / `path`): the spectral held-out code that
    # was `rkhs_path` (a function), `gamma_sweep`'s own loop and the Tikhonov ensemble's own
    # bordered solve, now in one class
    # 2026-11-30: the questions every representation answers through its `system` (`_Questions`,
    # delegating only: `Decomposition` and the primal `DesignDecomposition` inherit them) and
    # the primal representation's system (`PrimalSystem`, whose held-out residuals
    # `PenalizedLS` computes)
    # 2026-11-29 (ninth session): both moved, unchanged, to `linalg/primal.py` beside
    # `DesignDecomposition` (`_Questions` public as `Representation`, the base of the two
    # representations), so that `linalg/engine.py` has room below 600 lines
    # 2026-11-30 (thirteenth session): `RangeSystem`, (Q) on K's range, is a `PrimalSystem`
    # whose solutions are mapped back to α; it inherits the primal held-out code, adds none
    # 2026-12-06 (twenty-seventh session): `SpectralSystem` moved, unchanged, from
    # `linalg/engine.py` to `linalg/spectral.py` beside `SpectralBordered` (room in engine.py
    # for the path's reused buffer); `engine.SpectralSystem` still imports
    "linalg/spectral.py": ["SpectralSystem"],
    "linalg/primal.py": ["PrimalSystem", "Representation"],
    "linalg/penalized.py": ["PenalizedLS"],
    "linalg/quadratic.py": ["AugmentedSystem", "QuadraticSystem", "RKHSSystem"],
    "linalg/streaming.py": ["StreamingPenalizedLS"],
}
#: registered formulation classes that are the classifier twin of a regression class (issue 30,
#: step 3: none left, every classifier is a preset of its regression class)
TWINS: list[str] = []


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    return None


def _is_heldout(div: ast.BinOp) -> bool:
    """A division is a held-out residual site when its denominator holds ``1 - ·`` (the leverage
    form) or when it divides ``alpha``, ``mu`` or ``beta`` by a diagonal (an expression that
    names ``diag``, ``d`` or ``U2``, the squared eigenvectors of a spectral diagonal)."""
    den = div.right
    for n in ast.walk(den):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) \
                and isinstance(n.left, ast.Constant) and n.left.value in (1, 1.0):
            return True
    if _name(div.left) in ("alpha", "mu", "beta"):
        names = {x.id for x in ast.walk(den) if isinstance(x, ast.Name)} | \
                {x.attr for x in ast.walk(den) if isinstance(x, ast.Attribute)}
        return bool(names & {"d", "U2"}) or any("diag" in s for s in names)
    return False


def _heldout_sites(root: Path) -> Counter:
    out: Counter = Counter()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _is_heldout(node):
                out[str(path.relative_to(root))] += 1
    return out


def test_the_heldout_formula_sites_only_go_down():
    assert dict(_heldout_sites(PKG)) == HELDOUT_SITES


#: module -> k-fold block solves (rule: :func:`_block_sites`): one module since 2026-11-27
#: (before, by the same rule: 7 in 3 modules — the dual, augmented, RKHS-path and generalised-
#: path k-folds of ``linalg/quadratic.py``, the LS-SVM selection's, the two device k-folds)
#: 2026-11-30: ``linalg/refits.py`` is not a formula but the definition the primal engine's
#: LOO and k-fold formulas are tested against (one dense refit per held-out set)
BLOCK_SITES = {"linalg/refits.py": 1, "linalg/scores.py": 2}


def _block_sites(root: Path) -> Counter:
    """A k-fold block site: a call of some ``solve`` in the body of a ``for`` loop over a name
    that holds ``fold`` (or the device's ``idx``, the folds as index arrays)."""
    out: Counter = Counter()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.For) and ("fold" in ast.unparse(node.iter).lower()
                                              or ast.unparse(node.iter) == "idx"):
                out[str(path.relative_to(root))] += sum(
                    isinstance(n, ast.Call) and ast.unparse(n.func).endswith("solve")
                    for b in node.body for n in ast.walk(b))
    return +out


def test_the_kfold_block_sites_only_go_down():
    assert dict(_block_sites(PKG)) == BLOCK_SITES


def test_the_heldout_rule_finds_each_form_and_skips_other_divisions(tmp_path):
    (tmp_path / "m.py").write_text(
        "r = (y - f) / (1.0 - h)\n"            # leverage
        "r = alpha / cdiag\n"                  # alpha / C_ii
        "r = mu / (np.sqrt(s) * xp.linalg.diagonal(Z))\n"
        "r = alpha / (U2 @ w - h * h / s)\n"   # spectral diagonal
        "x = alpha / gamma\n"                  # not a held-out residual
        "x = mu / 10\n")
    assert _heldout_sites(tmp_path) == Counter({"m.py": 4})


def test_the_engines_only_go_down():
    found: dict[str, list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.FunctionDef) and b.name.startswith(("loo", "kfold"))
                    for b in node.body):
                found.setdefault(str(path.relative_to(PKG)), []).append(node.name)
    assert {k: sorted(v) for k, v in found.items()} == ENGINES


def _own_attributes(cls: type) -> set[str]:
    """What a class body sets beyond a preset's (name, reference, docstring, task)."""
    return {k for k in vars(cls) if not k.startswith("__") and k != "_abc_impl"} - PRESET_KEYS


def test_the_classifier_twins_only_go_down():
    """A twin: a registered classifier formulation (its name holds ``classifier``) that
    subclasses a registered formulation of another task with a body of its own (methods or
    attributes beyond those :func:`~lssvm_cvx.formulations.tasks.classifier_preset` sets: the
    registry name, reference, docstring and ``default_task``)."""
    registered = dict(FORMULATIONS.items())
    regression = {c for n, c in registered.items() if "classifier" not in n}
    twins = sorted(c.__name__ for n, c in registered.items() if "classifier" in n
                   and any(b in regression for b in c.__mro__[1:]) and _own_attributes(c))
    assert twins == TWINS


def test_the_classifiers_are_presets_of_their_regression_class():
    """Each registered classifier of a regression formulation is its preset: the regression
    class with ``task="classification"``, built with the same data as ``task=`` given."""
    presets = {n: c for n, c in FORMULATIONS.items() if getattr(c, "preset_of", None)}
    assert sorted(presets) == ["areg_classifier", "areg_classifier_cv", "areg_classifier_ensemble",
                               "areg_classifier_fast_cv", "areg_classifier_fusion",
                               "auto_lssvm_classifier", "componentwise_lssvm_classifier",
                               "lssvm_classifier"]
    for name, cls in presets.items():
        base = cls.preset_of
        assert base in FORMULATIONS.values() and "classifier" not in base.name, name
        assert cls.default_task == "classification" and base.default_task == "regression"
        assert not _own_attributes(cls), name
        inst = cls.random_instance(12, seed=0)
        assert inst.task == "classification" and isinstance(inst, base)


def test_the_task_is_an_instance_attribute():
    """``LSSVM(X, y, task="classification")`` is ``LSSVMClassification(X, y)`` (one closed form),
    a method of the other task raises, and ``task`` is checked."""
    import numpy as np
    import pytest

    from lssvm_cvx.exceptions import HyperparameterError, NotSupportedError
    from lssvm_cvx.formulations.lssvm import LSSVM, LSSVMClassification

    f = LSSVMClassification.random_instance(20, seed=3)
    g = LSSVM(f.X, f.y, kernel=f.kernel, gamma=f.gamma, task="classification")
    a, b = f.solve(), g.solve()
    assert np.array_equal(a["alpha"], b["alpha"]) and np.array_equal(g.classes, f.classes)
    assert np.array_equal(f.decision_function(a, f.X[:4]), g.decision_function(b, g.X[:4]))
    reg = LSSVM(f.X, f.y.astype(float), kernel=f.kernel)
    with pytest.raises(NotSupportedError, match="classification task's"):
        reg.decision_function(reg.solve(), f.X[:4])
    with pytest.raises(HyperparameterError, match="task must be one of"):
        LSSVM(f.X, f.y, task="ranking")


def test_one_label_coder():
    """Formulations code labels in one place: no formulation class under ``formulations/``
    calls :func:`lssvm_cvx.checks.binary_labels`; they call
    :func:`lssvm_cvx.formulations.tasks.task_targets`, its one caller there (a solver function
    on raw arrays, ``l2svm_active_set.solve_fixed``, codes its own ``y``)."""
    in_classes, coders = [], []
    for p in sorted((PKG / "formulations").rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)
                     and _name(n.func) == "binary_labels"]
            if isinstance(node, ast.ClassDef) and calls:
                in_classes.append(f"{p.name}::{node.name}")
            if isinstance(node, ast.FunctionDef) and node.name == "task_targets" and calls:
                coders.append(p.name)
    assert in_classes == [] and coders == ["tasks.py"]


def test_one_atomic_write():
    """Issue 30, item 4: every file the package writes in one step goes through
    :func:`lssvm_cvx.harness.files.atomic_write` (flushed to disk, ordinary permissions): no
    other module renames a temporary file into place (``save_figure`` had its own, unsynced)."""
    sites = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                   if any(isinstance(n, ast.Attribute) and n.attr in ("replace", "rename")
                          and isinstance(n.value, ast.Name) and n.value.id == "os"
                          for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert sites == ["harness/files.py"]


def test_one_cholesky():
    """Issue 30, item 4 (factorise-else-regularise, one of each): every SPD factorisation on
    NumPy goes through :class:`lssvm_cvx.linalg.cholesky.Cholesky` (LAPACK's condition
    estimate, ``NotPSDError`` naming the matrix, the one ridge policy ``factor_ridged``): no
    other module calls SciPy's ``cho_factor``/``cho_solve``/``cholesky`` or LAPACK's
    ``dpotrf``/``dpotrs`` (the twenty-ninth session's review found three: the KRR evaluation
    of the multiobjective formulation, the GNC least-squares step with its own ridge loop,
    the range refits; the thirtieth, the terms' PSD check).  Other namespaces factorise in
    ``linalg/arrays.py`` (``xp.linalg.cholesky``)."""
    names = {"cho_factor", "cho_solve", "dpotrf", "dpotrs", "cholesky"}
    sites = []
    for p in sorted(PKG.rglob("*.py")):
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            called = (n.attr if isinstance(n, ast.Attribute) else
                      n.id if isinstance(n, ast.Name) else None)
            if called in names and not (isinstance(n, ast.Attribute)
                                        and isinstance(n.value, ast.Attribute)
                                        and n.value.attr == "linalg"
                                        and isinstance(n.value.value, ast.Name)
                                        and n.value.value.id == "xp"):
                sites.append(str(p.relative_to(PKG)))
    assert sorted(set(sites)) == ["linalg/cholesky.py"]


def test_one_machine_description():
    """Issue 30, item 4: where a result was measured is described by
    :func:`lssvm_cvx.harness.files.machine_info` / ``machine_summary`` alone: no other module asks
    the ``platform`` module or ``/proc/cpuinfo`` (``bench.py``'s headline formatted its own)."""
    sites = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                   if "cpuinfo" in p.read_text(encoding="utf-8")
                   or any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                          and n.value.id == "platform"
                          for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert sites == ["harness/files.py"]


def _defined(name: str) -> list[str]:
    return sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                  if any(isinstance(n, ast.FunctionDef) and n.name == name
                         for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))


def test_one_pairwise_distance_routine(to_namespace, to_numpy):
    """Issue 30, item 4: squared distances come from one routine per namespace.  NumPy's is
    :func:`lssvm_cvx.kernels.sq_dists`; :func:`lssvm_cvx.linalg.arrays.sq_dists` takes the
    inputs' namespace and calls it for NumPy arrays, else the blocked
    :func:`~lssvm_cvx.linalg.arrays.pairwise_blocks` (2026-11-29, eighth session: the blocked
    form lived in ``device/lssvm.py``, and the gradient-norm term chose between the two itself,
    so the terms imported ``device``).  ``lssvm_cvx.device.lssvm`` re-exports the same functions."""
    import numpy as np

    from lssvm_cvx.device import lssvm as device_lssvm
    from lssvm_cvx.kernels import sq_dists as numpy_sq_dists
    from lssvm_cvx.linalg import arrays

    assert _defined("sq_dists") == ["kernels/base.py", "linalg/arrays.py"]
    assert _defined("pairwise_blocks") == ["linalg/arrays.py"]
    assert device_lssvm.sq_dists is arrays.sq_dists
    assert device_lssvm.pairwise_blocks is arrays.pairwise_blocks
    rng = np.random.default_rng(0)
    X, Z = rng.standard_normal((40, 3)), rng.standard_normal((25, 3))
    for args in ((X,), (X, Z)):
        assert np.array_equal(arrays.sq_dists(*args), numpy_sq_dists(*args))
    conv = to_namespace("array_api_strict")
    D = to_numpy(arrays.sq_dists(conv(X), conv(Z), block_rows=7))
    np.testing.assert_allclose(D, numpy_sq_dists(X, Z), rtol=1e-12, atol=1e-12)
    assert np.all(to_numpy(arrays.sq_dists(conv(X))) >= 0.0)


#: modules outside ``linalg`` that import a representation of the closed-form engine directly
#: instead of asking :func:`lssvm_cvx.linalg.engine.decompose` (ratchet, 2026-11-29: the
#: componentwise smoother and η model, the LS-SVM selection's systems, the estimators'
#: one-vs-one pairs and kernel choice, the η ALS and the device LS-SVM moved onto it; then
#: the engine's systems took a top right-hand side, an explicit inverse and a path of systems,
#: and AReg CV and fusion, the Tikhonov ensemble's nodes, the componentwise smoother and the
#: γ sweep moved onto it; then the ℓ2-SVM's Propositions 1-2).  Left: the ℓ2-SVM's active-set
#: path
REPRESENTATION_USERS = {
    # the ℓ2-SVM's active-set path updates its Cholesky factor by rank-one steps (a system
    # over a factor the engine does not make); its Propositions 1-2 at a given active set
    # (`formulations/l2svm.py::active_set_solution`) ask the engine since 2026-11-29 (seventh
    # session)
    "formulations/l2svm_active_set.py": ["BorderedSystem"],
}


def test_representations_are_reached_through_the_engine():
    """Issue 30, item 1: the engine's representations (the bordered system, its spectral form,
    the RKHS and augmented systems) are built by :func:`~lssvm_cvx.linalg.engine.decompose`;
    the modules that still import one are pinned (a ratchet: the list only shrinks)."""
    reps = {"BorderedSystem", "SpectralBordered", "lssvm_system", "RKHSSystem", "AugmentedSystem",
            "SpectralSystem"}
    found = {}
    for p in sorted(PKG.rglob("*.py")):
        rel = str(p.relative_to(PKG))
        if rel.startswith("linalg/"):
            continue
        names = sorted({a.name for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                        if isinstance(n, ast.ImportFrom) and n.module and "linalg" in n.module
                        for a in n.names if a.name in reps})
        if names:
            found[rel] = names
    assert found == REPRESENTATION_USERS
