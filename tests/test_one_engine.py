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

PKG = Path(__file__).resolve().parents[1] / "lssvm_cvx"

#: module -> number of held-out residual sites (rule: :func:`_heldout_sites`)
HELDOUT_SITES = {
    "device/lssvm.py": 2, "device/penalized.py": 2, "device/quadratic.py": 1,
    "device/streamed.py": 1, "linalg/scores.py": 3,
}
#: classes with held-out residual methods (``loo*`` / ``kfold*``), by module
ENGINES = {
    "device/penalized.py": ["DevicePenalizedLS"],
    "estimators/regularized_device.py": ["_Problem"],
    "formulations/regularized.py": ["RegularizedLSSVM"],
    "linalg/penalized.py": ["PenalizedLS"],
    "linalg/quadratic.py": ["AugmentedSystem", "QuadraticSystem", "RKHSSystem"],
    "linalg/streaming.py": ["StreamingPenalizedLS"],
}
#: registered formulation classes that are the classifier twin of a regression class
TWINS = ["ARegClassification", "ARegClassifierCV", "ARegClassifierEnsemble",
         "ARegClassifierFastCV", "ARegClassifierFusion", "AutoLSSVMClassification",
         "ComponentwiseLSSVMClassification", "LSSVMClassification"]


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


def test_the_classifier_twins_only_go_down():
    """A twin: a registered classifier formulation (its name holds ``classifier``) that
    subclasses a registered formulation of another task (it re-codes the targets through the
    task hooks of :class:`~lssvm_cvx.formulations.lssvm.KernelFormulation`, or its own)."""
    registered = dict(FORMULATIONS.items())
    regression = {c for n, c in registered.items() if "classifier" not in n}
    twins = sorted(c.__name__ for n, c in registered.items() if "classifier" in n
                   and any(b in regression for b in c.__mro__[1:]))
    assert twins == TWINS


def test_one_atomic_write():
    """Issue 30, item 4: every file the package writes in one step goes through
    :func:`lssvm_cvx.harness.files.atomic_write` (flushed to disk, ordinary permissions): no
    other module renames a temporary file into place (``save_figure`` had its own, unsynced)."""
    sites = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                   if any(isinstance(n, ast.Attribute) and n.attr in ("replace", "rename")
                          and isinstance(n.value, ast.Name) and n.value.id == "os"
                          for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert sites == ["harness/files.py"]
