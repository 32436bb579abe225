"""The core's user-facing public functions not yet in ``tests/test_helper_inputs.py``
(``linalg``: the bordered LS-SVM system, the decompose-once engine, the generalised path,
the constrained and normal least squares, the normalisers, the scores; ``kernels``: the
distances, the PSD check, the eigen factor and truncation; ``terms``: the gradient-norm
bases) called with the bad inputs of the test's ``_mutants``.  Exploratory (twenty-fourth
session), for the next gated batch: prints each bad call that was not refused with the
package's exception, and the counts.  ``python notes/fuzz_core.py``."""
import sys

sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[1] / 'tests'))
import numpy as np
from fuzz_run import run
from test_helper_inputs import K, N, X, a, folds, y

from lssvm_cvx.kernels import base, factors
from lssvm_cvx.linalg import bordered, engine, lstsq, penalties, quadratic, scores
from lssvm_cvx.terms import gradient_basis as gb
from lssvm_cvx.terms import gradient_norm as gn

M = np.random.default_rng(2).normal(size=(2 * N, N))
P = np.eye(N)
R = y - y.mean()
h = np.full(N, 0.3)
CALLS = {
    "lssvm_system": (bordered.lssvm_system, (K, 2.0, np.ones(N))),
    "decompose": (lambda K_, s_, Y_: engine.decompose(K_, s_, {"rkhs": (engine.RKHS, 0.1)}).solve(Y_),
                  (K, np.ones(N), y)),
    "generalized_path": (lambda K_, Y_, ws: quadratic.generalized_path(K_, np.ones(N), P * 0.1, P,
                                                                       Y_, ws), (K, y, [0.1, 1.0])),
    "constrained_lstsq": (lstsq.constrained_lstsq, (M, np.ones(2 * N), M @ a, np.ones(N))),
    "normal_lstsq": (lstsq.normal_lstsq, (M, M @ a)),
    "gcv_curve": (lstsq.gcv_curve, (np.linspace(3, 1, 4), np.ones(4), 0.5, N, np.array([0.1, 1.0]))),
    "normalizers": (penalties.normalizers, (X, np.eye(2))),
    "loo_score": (lambda R_, Y_: scores.loo_score(R_, Y_, "mse"), (R[:, None], y[:, None])),
    "leverage_residuals": (scores.leverage_residuals, (R, h)),
    "diagonal_residuals": (scores.diagonal_residuals, (a, h)),
    "dual_gcv": (scores.dual_gcv, (a, h, 0.5)),
    "sq_dists": (base.sq_dists, (X, X[:3])),
    "make_kernel": (lambda s2: base.make_kernel("rbf", sigma2=s2), (1.0,)),
    "check_psd": (base.check_psd, (K,)),
    "eigen_factor": (factors.eigen_factor, (K,)),
    "truncate": (factors.truncate, (K[:, :5],)),
    "make_factor": (lambda X_: factors.make_factor("icf", X_, base.make_kernel("rbf")), (X,)),
    "exact_basis": (lambda X_, g: gb.exact_basis(X_, g, p=2, c=1), (X, 1.0)),
    "affine_dim": (gn.affine_dim, (X,)),
    "folds_check": (lambda f, n: __import__("lssvm_cvx.linalg.folds", fromlist=["x"]).check_folds(f, n),
                    (folds, N)),
}
run(CALLS)
