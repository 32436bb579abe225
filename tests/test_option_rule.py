"""One rule for an option given by name (:func:`lssvm_cvx.checks.check_option`), and the input
checks mended beside it (nineteenth session, 2026-11-30).

Before, an option was checked by ``value not in NAMES`` at some thirty sites: a NumPy array
there crashed with NumPy's "truth value of an array is ambiguous", a list where the names were a
dict with ``TypeError: unhashable type``.  A fold that is an array of strings reached
array_api_compat (``AttributeError``), a ragged list of labels crashed in ``np.asarray``, and a
``(train, test)`` pair given as ``folds`` was reported as ``cv``.
"""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.checks import as_targets, binary_labels, check_option
from lssvm_cvx.exceptions import HyperparameterError, InputError, LssvmCvxError, TermError
from lssvm_cvx.formulations import FORMULATIONS, get_formulation
from lssvm_cvx.harness import compare
from lssvm_cvx.harness.export import export_problem
from lssvm_cvx.harness.sweep import sweep
from lssvm_cvx.harness.warm import warm_path
from lssvm_cvx.linalg.folds import make_folds
from lssvm_cvx.solvers import profile
from lssvm_cvx.terms.nonconvex import SmoothlyThresholding

#: what a user may pass where a name belongs (besides a wrong name)
NOT_NAMES = {"an array of names": np.array(["a", "b"]), "a 2 x 2 array": np.ones((2, 2)),
             "a list": ["a"], "a number": 1.0, "a dict": {"a": 1}, "bytes": b"high"}


def test_check_option_returns_a_name_and_refuses_the_rest_by_name():
    assert check_option("b", ("a", "b"), "form") == "b"
    assert check_option(np.str_("b"), ("a", "b"), "form") == "b"
    assert check_option(None, ("a", None), "rerun") is None
    with pytest.raises(HyperparameterError, match=r"^form must be one of \('a', 'b'\), got 'c'$"):
        check_option("c", ("a", "b"), "form")
    with pytest.raises(HyperparameterError, match="got None"):
        check_option(None, ("a", "b"), "form")
    for bad in NOT_NAMES.values():
        with pytest.raises(HyperparameterError, match="^form must be one of"):
            check_option(bad, ("a", "b"), "form")
    with pytest.raises(InputError, match="^setting must"):
        check_option([1], {"high": 1}, "setting", error=InputError)


def test_check_option_does_not_match_a_number_to_a_flag():
    """``1 in (True,)`` is True in Python; an option is a name, so it is refused."""
    with pytest.raises(HyperparameterError):
        check_option(1, (True, "a"), "flag")


@pytest.mark.parametrize("label", list(NOT_NAMES))
def test_the_harness_refuses_a_setting_that_is_not_a_name(label):
    bad = NOT_NAMES[label]
    f = FORMULATIONS["lssvm"].random_instance(12)
    with pytest.raises(InputError, match="^setting must be one of"):
        compare(f, ["CLARABEL"], setting=bad)
    with pytest.raises(LssvmCvxError, match="tolerance profile must be one of"):
        profile("CLARABEL", bad)
    with pytest.raises(InputError, match="^rerun must be one of"):
        sweep(["lssvm"], ["CLARABEL"], sizes=[12], rerun=bad)
    with pytest.raises(InputError, match="DPP parameter must be one of"):
        warm_path(f, "CLARABEL", bad, [1.0, 2.0])
    with pytest.raises(HyperparameterError, match="^unknown formulation"):
        get_formulation(bad)


@pytest.mark.parametrize("label", ["an array of names", "a list", "a number"])
def test_export_refuses_a_format_that_is_not_a_name(label, tmp_path):
    f = FORMULATIONS["lssvm"].random_instance(12)
    with pytest.raises(InputError, match="^format must be one of"):
        export_problem(f, tmp_path / "p.npz", format=NOT_NAMES[label])
    assert export_problem(f, tmp_path / "p.npz", format="NPZ").exists()  # any case, as before


@pytest.mark.parametrize("label", ["an array of names", "a list", "a number"])
def test_a_path_over_a_weight_that_is_not_a_name_is_refused(label):
    """The engine's, the composition's and the primal engine's paths (a list crashed with
    ``TypeError: unhashable type`` in ``name not in dict``)."""
    bad = NOT_NAMES[label]
    f = FORMULATIONS["regularized_lssvm"].random_instance(12)
    key = sorted(f.terms_)[0]
    with pytest.raises(HyperparameterError, match="^term key must be one of"):
        f.path(bad, [0.1, 1.0])
    assert f.path(key, [0.1, 1.0]) is not None
    with pytest.raises(HyperparameterError, match="^term must be one of"):
        f.decomposition().path(bad, [0.1, 1.0], f.targets())


def test_a_nonconvex_term_names_its_penalty_by_the_one_rule():
    with pytest.raises(TermError, match="penalty must be one of"):
        SmoothlyThresholding(penalty=np.array(["l1"])).penalty_()


def test_a_fold_of_strings_is_refused_as_input():
    for folds in (np.array(["a", "b"]), [np.array(["a", "b"]), [1, 2]], [[0, 1], [2, "x"]]):
        with pytest.raises(InputError, match="must hold integer indices"):
            make_folds(4, folds)


def test_a_pair_given_as_folds_is_reported_as_folds():
    """A bad ``(train, test)`` pair given as ``folds`` was reported as ``cv``."""
    pairs = [(np.array([1, 2, 3]), np.array([0])), (np.array([0, 1]), np.array([2, 3]))]
    with pytest.raises(InputError, match=r"^folds: split 0 trains on 3 of the 4 points"):
        make_folds(5, pairs)
    with pytest.raises(InputError, match=r"^cv: split"):
        make_folds(5, pairs, name="cv")


def test_ragged_labels_are_refused_as_input():
    with pytest.raises(InputError, match="^y must be a 1-D array of labels"):
        binary_labels([[1, 2], [3]])


def test_as_targets_with_columns():
    Y = np.arange(6.0).reshape(3, 2)
    assert as_targets(Y, 3, columns=True).shape == (3, 2)
    assert as_targets(Y[:, 0], None, columns=True).shape == (3,)
    assert as_targets(Y[:, :1], 3).shape == (3,)
    with pytest.raises(InputError, match=r"^y must have shape \(4,\) or \(4, T\), got \(3, 2\)"):
        as_targets(Y, 4, columns=True)
    with pytest.raises(InputError, match=r"^y: Found array with dim 3"):
        as_targets(np.zeros((3, 2, 1)), 3, columns=True)
    with pytest.raises(InputError, match="NaN"):
        as_targets([1.0, np.nan], None, name="residuals", columns=True)


def _selection_calls():
    """Each selection function's option, set to ``bad`` (the other arguments valid)."""
    from lssvm_cvx.formulations.regularized import RegularizedLSSVM
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.auto import auto_search
    from lssvm_cvx.selection.componentwise_cv import cv_path
    from lssvm_cvx.selection.heldout import heldout_predictions
    from lssvm_cvx.selection.kernel_choice import choose_kernels
    from lssvm_cvx.selection.l2svm_gradient import select_gradient
    from lssvm_cvx.selection.multiobjective import select_model, select_pareto
    from lssvm_cvx.selection.pareto_nlp import trace_front_nlp, trace_fronts_nlp

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (16, 2))
    y = np.sign(X[:, 0] + 0.1)
    form = RegularizedLSSVM(X, y, kernel=RBF(1.0))
    split = [(np.arange(8, 16), np.arange(8))]
    fp = lambda Xt, yt, v, Xv: np.zeros(len(Xv))  # noqa: E731
    comps = [(RBF(1.0), (0,)), (RBF(1.0), (1,))]
    return {
        "cv_path(rule)": lambda b: cv_path(X, y, [1.0], fp, folds=2, rule=b),
        "cv_path(score)": lambda b: cv_path(X, y, [1.0], fp, folds=2, score=b),
        "heldout_predictions(estimand)": lambda b: heldout_predictions(form, split, estimand=b),
        "choose_kernels(rule)": lambda b: choose_kernels(X, y, comps, [0], gammas=[1.0], rule=b),
        "choose_kernels(method)": lambda b: choose_kernels(X, y, comps, [0], gammas=[1.0], method=b),
        "select_model(model)": lambda b: select_model(X, y, model=b),
        "select_model(method)": lambda b: select_model(X, y, method=b),
        "select_pareto(kpcr_search)": lambda b: select_pareto(X, y, kpcr_search=b),
        "select_pareto(variants)": lambda b: select_pareto(X, y, variants=[(b, "paper")]),
        "trace_front_nlp(method)": lambda b: trace_front_nlp(
            lambda x: float(x @ x), lambda x: float(x.sum()), [1.0], np.zeros(2), method=b),
        "trace_fronts_nlp(methods)": lambda b: trace_fronts_nlp(
            lambda x: float(x @ x), lambda x: float(x.sum()), [1.0], np.zeros(2), methods=(b,)),
        "auto_search(criterion)": lambda b: auto_search(lambda g, rows: None, 16, criterion=b),
        "select_gradient(criterion)": lambda b: select_gradient(X, y, sigma2=1.0, lam=1.0, criterion=b),
    }


@pytest.mark.parametrize("label", ["an array of names", "a list", "a dict"])
def test_the_selection_functions_refuse_an_option_that_is_not_a_name(label):
    """Before: NumPy's "truth value of an array is ambiguous", or ``TypeError: unhashable``."""
    bad = NOT_NAMES[label]
    for what, call in _selection_calls().items():
        with pytest.raises(HyperparameterError, match="must be one of") as info:
            call(bad)
        assert "got" in str(info.value), what


@pytest.mark.parametrize("bad", [1.5, "10", True, -1, 0])
def test_the_selection_functions_refuse_a_count_that_is_not_one(bad):
    """Before (a4c47df): ``n_eps=1.5`` or ``"10"`` crashed in NumPy, ``n_eps=0`` in
    ``np.concatenate``, ``True`` ran as 1; the baselines' grid sizes and fold counts, the
    kernel choice's passes alike."""
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.kernel_choice import choose_kernels
    from lssvm_cvx.selection.multiobjective import select_model, select_pareto

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (16, 2))
    y = np.sin(X[:, 0])
    calls = {"n_eps": lambda b: select_model(X, y, n_eps=b),
             "n_eps ": lambda b: select_pareto(X, y, n_eps=b),
             "n_sigma": lambda b: select_model(X, y, method="cv", n_sigma=b),
             "n_lam": lambda b: select_model(X, y, method="cv", n_lam=b),
             "n_r": lambda b: select_model(X, y, model="kpcr", method="cv", n_r=b),
             "cv": lambda b: select_model(X, y, method="cv", cv=b),
             "criterion_cv": lambda b: select_model(X, y, method="sum", criterion_cv=b),
             "nlp_maxiter": lambda b: select_model(X, y, nlp_maxiter=b),
             "max_passes": lambda b: choose_kernels(X, y, [(RBF(1.0), (0,)), (RBF(1.0), (1,))], [0],
                                                    gammas=[1.0], max_passes=b)}
    for name, call in calls.items():
        value = 1 if name in ("cv", "criterion_cv") and bad == 0 else bad   # folds: at least 2
        with pytest.raises(HyperparameterError, match=f"^{name.strip()} must be an integer >= "):
            call(value)


def test_gnc_refuses_a_start_that_is_not_a_name():
    from lssvm_cvx.selection.gnc import gnc

    problem = FORMULATIONS["componentwise_stp"].random_instance(12)
    for bad in (np.array(["l2", "l1"]), ["l2"], 2.0):
        with pytest.raises(HyperparameterError, match="^start must be one of"):
            gnc(problem, start=bad)


#: sites that still check an option by ``value not in NAMES`` (then raise) or a count by
#: ``isinstance(v, int) ... v < k`` themselves: a ratchet, it may only shrink (nineteenth
#: session: five option sites and four count sites found after the gated batch; the rest of
#: the matches are dtype kinds, not options)
OWN_OPTION_RULE = {
    ("cli.py", 'if out.suffix.lower() not in (".svg", ".png"):'),
    ("estimators/auto_device.py", 'if kind not in ("exact", "nystroem"):'),
    ("estimators/pareto.py", 'if self.kernel.lower() not in ("rbf", "poly", "polynomial"):'),
    ("figures.py", 'if fmt not in ("svg", "png"):'),
    ("harness/sweep.py", "if item not in FORMULATIONS:"),
    ("io/files.py", 'if payload["mode"] not in ("quick", "full"):'),
    ("losses.py", "if loss not in LOSSES:"),
}
OWN_COUNT_RULE = {
    ("io/__init__.py", "raw_version"), ("io/__init__.py", "nf"),
    ("io/__init__.py", "v"),
}


def _own_rules():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "lssvm_cvx"
    option = re.compile(r"^\s*if (?!.*isinstance).* not in (\(?[\"']|[A-Z_][A-Z0-9_]*\b).*:\s*$")
    count = re.compile(r"not isinstance\((\w+), \(?(int|Integral)\b.*\1 < \d")
    options, counts = set(), set()
    for path in sorted(root.rglob("*.py")):
        if path.name == "checks.py":
            continue
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            m = count.search(line)
            if m:
                counts.add((rel, m.group(1)))
            if option.match(line) and "raise" in " ".join(lines[i + 1:i + 3]) \
                    and ".kind not in" not in line and ".dtype" not in line:
                options.add((rel, line.strip()))
    return options, counts


def test_options_and_counts_are_checked_by_the_one_rule():
    """A new ``value not in NAMES`` or ``isinstance(v, int) and v >= k`` check fails this: call
    :func:`lssvm_cvx.checks.check_option` or :func:`~lssvm_cvx.checks.check_integer`.  Mending
    a listed site fails it too, until its line is removed from the list."""
    options, counts = _own_rules()
    assert options == OWN_OPTION_RULE, (sorted(options - OWN_OPTION_RULE), sorted(OWN_OPTION_RULE - options))
    assert counts == OWN_COUNT_RULE, (sorted(counts - OWN_COUNT_RULE), sorted(OWN_COUNT_RULE - counts))


# --- the twentieth session (2026-12-01): the sites left by the ratchet, and the options a
# --- scan of every public function's string parameters found compared with ``==`` unchecked


def _refused(call, error=LssvmCvxError, match=None):
    """``call(bad)`` raises ``error`` (the package's) for a wrong name and for an array."""
    for bad in ("bogus", np.array(["a", "b"])):
        with pytest.raises(error, match=match):
            call(bad)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    return X, np.sign(X[:, 0] + 0.1)


def test_check_option_returns_the_options_own_string():
    """A ``numpy.str_`` comes back as the ``str`` of the options (five callers wrapped the
    result in ``str()`` for this)."""
    got = check_option(np.str_("b"), ("a", "b"), "form")
    assert type(got) is str and got == "b"


def test_the_sites_left_by_the_ratchet_use_the_one_rule():
    from lssvm_cvx.catalogue import show_text
    from lssvm_cvx.device import loo_path_residuals
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.kernels.factors import nystroem_factor, pivoted_cholesky
    from lssvm_cvx.linalg.lstsq import constrained_lstsq, lsqr_lstsq, normal_lstsq

    K = RBF(1.0)(np.random.default_rng(1).normal(size=(8, 2)))
    A, g = np.eye(3), np.ones(3)
    _refused(lambda b: show_text({}, view=b), HyperparameterError, "^view must be one of")
    _refused(lambda b: loo_path_residuals(K, np.ones(8), [1.0], method=b), HyperparameterError,
             "^method must be one of")
    _refused(lambda b: pivoted_cholesky(G=K, rule=b), HyperparameterError, "^rule must be one of")
    _refused(lambda b: nystroem_factor(np.ones((8, 2)), RBF(1.0), 4, weighting=b),
             HyperparameterError, "^weighting must be one of")
    _refused(lambda b: constrained_lstsq(A, np.ones(3), g, np.ones(3), method=b),
             HyperparameterError, "^method must be one of")
    _refused(lambda b: normal_lstsq(A, g, method=b), HyperparameterError, "^method must be one of")
    for bad in (1.5, 0, True, "3"):    # ``int(1.5)`` ran one step of LSQR, silently
        with pytest.raises(HyperparameterError, match="^iter_lim must be an integer >= 1"):
            lsqr_lstsq(A, g, iter_lim=bad)
    for bad in (1.5, 0, True):
        with pytest.raises(InputError, match="^repeats must be an integer >= 1"):
            sweep(["lssvm"], ["CLARABEL"], sizes=[12], repeats=bad)


def test_a_wrong_name_is_no_longer_taken_for_another(data):
    """``alpha_front(method="bogus")`` traced the plain ε-constraint front and
    ``select_pareto(model="bogus")`` fitted KPCR, silently; an array crashed in NumPy."""
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.multiobjective import alpha_front, select_pareto

    X, y = data
    _refused(lambda b: alpha_front(X, y, RBF(1.0), method=b, n_eps=3, solver="closed_form"),
             HyperparameterError, "^method must be one of")
    _refused(lambda b: select_pareto(X, y, model=b, n_eps=3), HyperparameterError,
             "^model must be one of")
    _refused(lambda b: select_pareto(X, y, methods=(b,), n_eps=3), HyperparameterError,
             "^a method must be one of")
    with pytest.raises(HyperparameterError, match="^a variant's method must be one of"):
        select_pareto(X, y, methods=("eps",), n_eps=3)   # the default variants need both fronts


def test_a_solver_that_is_not_a_name_is_refused_by_name(data):
    from lssvm_cvx.exceptions import SolverNotAvailableError
    from lssvm_cvx.formulations import RegularizedLSSVM
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.heldout import heldout_predictions
    from lssvm_cvx.selection.multiobjective import alpha_front
    from lssvm_cvx.terms import RKHSNorm

    X, y = data
    bad = np.array(["CLARABEL", "SCS"])
    f = FORMULATIONS["lssvm"].random_instance(12)
    with pytest.raises(SolverNotAvailableError, match="^solver must be a solver name"):
        f.solve(bad)
    with pytest.raises(SolverNotAvailableError, match="^solver must be a solver name"):
        profile(bad)
    with pytest.raises(SolverNotAvailableError, match="^solver must be a solver name"):
        alpha_front(X, y, RBF(1.0), n_eps=3, solver=bad)
    form = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={"rkhs": (RKHSNorm(), 1.0)})
    idx = np.arange(20)
    splits = [(np.setdiff1d(idx, t), t) for t in np.array_split(idx, 4)]
    with pytest.raises(SolverNotAvailableError, match="^solver must be a solver name"):
        heldout_predictions(form, splits, solver=bad)


def test_the_componentwise_gnc_refuses_a_start_and_a_step_by_name():
    """``weights(start="bogus")`` ran the ℓ2 start; a ``step`` array crashed at the first stage."""
    from lssvm_cvx.exceptions import SolverNotAvailableError
    from lssvm_cvx.formulations.componentwise_gnc import ComponentwiseSTP
    from lssvm_cvx.kernels import RBF, Componentwise
    from lssvm_cvx.selection.gnc import gnc

    rng = np.random.default_rng(2)
    X = rng.normal(size=(15, 3))
    p = ComponentwiseSTP(X, X[:, 0], kernel=Componentwise(RBF(1.0)), lam=1.0)
    for method in ("weights", "gradient", "relaxed_objective"):
        args = (p.basis.project(np.ones(sum(V.shape[1] for V in p.basis.V))),) \
            + ((0.0,) if method == "relaxed_objective" else ())
        _refused(lambda b, m=method, a=args: getattr(p, m)(*a, start=b), HyperparameterError,
                 "^start must be one of")
    with pytest.raises(SolverNotAvailableError, match="^solver must be a solver name"):
        gnc(p, step=np.array(["a", "b"]))


def test_the_l2svm_path_refuses_a_criterion_and_an_expansion_by_name(data):
    """``expand(expansion="bogus")`` was accepted where the Hessian is exact."""
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.selection.l2svm_path import expand, regularization_path

    X, y = data
    k = RBF(1.0)
    path = regularization_path(y, K=k(X), X=X, kernel=k)
    _refused(lambda b: path.select(b), HyperparameterError, "^criterion must be one of")
    _refused(lambda b: expand(path, path.state_at(path.lambdas[-1]), expansion=b), HyperparameterError,
             "^expansion must be one of")


def test_the_engine_and_the_factors_refuse_a_representation_and_a_method_by_name():
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.kernels.factors import make_factor
    from lssvm_cvx.linalg.engine import RKHS, decompose

    X = np.random.default_rng(3).normal(size=(10, 2))
    K = RBF(1.0)(X)
    dec = decompose(K, np.ones(10), {"rkhs": (RKHS, 1.0)})
    _refused(lambda b: dec.system(representation=b), HyperparameterError,
             "^representation must be one of")
    _refused(lambda b: make_factor(b, X, RBF(1.0)), HyperparameterError, "^low_rank must be one of")
    with pytest.warns(FutureWarning):                    # the old spelling still works
        assert make_factor("nystrom", X, RBF(1.0), rank=3, random_state=0).method == "nystroem"


def test_a_term_parameter_given_as_a_flag_or_a_nan_matrix_is_refused():
    """``SmoothlyThresholding(eps=True)`` ran with ε = 1 (``True`` is an int); a NaN in a
    ``Quadratic`` term's ``P`` is refused once, by the term check, naming the term."""
    from lssvm_cvx.formulations import RegularizedLSSVM
    from lssvm_cvx.kernels import RBF
    from lssvm_cvx.terms import Quadratic

    with pytest.raises(TermError, match="^SmoothlyThresholding: eps must be a number > 0"):
        SmoothlyThresholding(eps=True).penalty_()
    X = np.random.default_rng(4).normal(size=(6, 2))
    P = np.eye(6)
    P[0, 1] = P[1, 0] = np.nan
    with pytest.raises(TermError, match="'q'.*NaN or inf"):
        RegularizedLSSVM(X, X[:, 0], kernel=RBF(1.0), terms={"q": (Quadratic(P), 1.0)}).solve()
