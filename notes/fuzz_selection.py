"""The selection layer's remaining public entry points (ℓ2-SVM path and bounds, the Auto
search, held-out predictions, the Pareto and NLP tracers, the screened path) called with the
bad inputs of ``tests/test_helper_inputs.py`` (its ``_mutants``).  Exploratory (twenty-fourth
session): prints each bad call that was not refused with the package's exception, and the
counts.  ``python notes/fuzz_selection.py``.  ``kkt_residuals``' NaN answers are by design (a
NaN point or constraint value is a failed solve, whose residuals are NaN); a NaN gradient or
constraint Jacobian is refused.""" 
import sys
sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[1] / 'tests'))
import numpy as np
from fuzz_run import run
from test_helper_inputs import X, y, yc, K, N
from lssvm_cvx.kernels import RBF
from lssvm_cvx.formulations.regularized import RegularizedLSSVM
from lssvm_cvx.terms import RKHSNorm
from lssvm_cvx.selection import l2svm_gradient as lg, l2svm_path as lp, l2svm_criteria as lc
from lssvm_cvx.selection import heldout, screen, pareto_nlp as pn, multiobjective as mso
dK = K * 0.3
form = RegularizedLSSVM(X, y, kernel=RBF(1.0), terms={"rkhs": (RKHSNorm(), 0.1)})
splits = [(np.arange(4, N), np.arange(4)), (np.arange(0, 8), np.arange(8, N))]


def quad(z):
    z = np.asarray(z, dtype=float)
    return float(z @ z), 2 * z


def lin(z):
    z = np.asarray(z, dtype=float)
    return float(z.sum()), np.ones_like(z)


CALLS = {
    "regularization_path": (lambda y_, K_: lp.regularization_path(y_, K=K_, lam_min=1e-2), (yc, K)),
    "ball_beta": (lg.ball_beta, (K,)),
    "radius_margin_gradient": (lg.radius_margin_gradient, (K, dK, yc, 1.0)),
    "dense_ball_problem": (lc.dense_ball_problem, (K,)),
    "heldout_predictions": (lambda s: heldout.heldout_predictions(form, s), (splits,)),
    "heldout_predictions_Y": (lambda Y: heldout.heldout_predictions(form, splits, Y), (y,)),
    "screen_path": (lambda w, Y, lm: screen.screen_path(form, "rkhs", w, Y, lm, "mse"),
                    ([0.1, 1.0], y, np.arange(6))),
    "kkt_residuals": (pn.kkt_residuals, (np.ones(2), np.ones(2), np.zeros(1), np.ones((1, 2)))),
    "epsilon_constraint_nlp": (lambda e, x0: pn.epsilon_constraint_nlp(quad, [lin], e, x0),
                               (np.array([1.0]), np.array([0.5, 0.5]))),
    "alpha_front": (lambda X_, y_: mso.alpha_front(X_, y_, RBF(1.0), n_eps=3), (X, y)),
}
run(CALLS)
