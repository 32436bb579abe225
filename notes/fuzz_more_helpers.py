"""Twenty-seven more public helpers (linalg, kernels, terms, selection) called with the bad
inputs of ``tests/test_helper_inputs.py`` (its ``_mutants``: a NaN in each float array, a
string for each array or number, a fraction for each count).  Exploratory (twenty-third
session): prints each bad call that was not refused with the package's exception, and the
counts.  ``python notes/fuzz_more_helpers.py``.  The Pareto helpers' NaN answers are by
design (a NaN row is an ε whose solve failed), and so are ``one_se_index``'s (a grid value
whose folds failed)."""
import sys
sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[1] / 'tests'))
import numpy as np
from fuzz_run import run
from test_helper_inputs import X, y, K, a, folds, F
from lssvm_cvx.selection import pareto, lssvm as sl
from lssvm_cvx.linalg import scores, lstsq, folds as fo, refits
from lssvm_cvx.terms import quadratic as tq, roughness as ro, gradient_norm as gn
from lssvm_cvx.kernels import factors, psd, RBF
from lssvm_cvx.selection import componentwise_cv as ccv, kernel_choice as kc, heldout, gnc, eta_als
Fp = np.abs(F)
G = np.eye(3)
L = np.abs(np.random.default_rng(1).normal(size=(4, 3)))
splits = [(np.r_[folds[1], folds[2]], folds[0]), (np.r_[folds[0], folds[2]], folds[1])]
CALLS = {
 "dominated": (pareto.dominated, (Fp[:, :2],)),
 "non_dominated_mask": (pareto.non_dominated_mask, (Fp[:, :2],)),
 "select_ideal_point": (pareto.select_ideal_point, (Fp[:, :2],)),
 "ideal_point_weights": (pareto.ideal_point_weights, (Fp[:, :2], np.zeros(2), 0)),
 "kfold_residuals": (sl.kfold_residuals, (K, y, 2.0, folds)),
 "gamma_sweep": (sl.gamma_sweep, (K, y, [1.0, 10.0])),
 "select_gamma_sigma2": (sl.select_gamma_sigma2, (X, y, [1.0, 10.0], [0.5, 2.0])),
 "score_residuals": (sl.score_residuals, (a, y)),
 "gcv_score": (scores.gcv_score, (1.0, 12, 3.0)),
 "tikhonov_lstsq": (lstsq.tikhonov_lstsq, (F, y)),
 "min_norm_lstsq": (lstsq.min_norm_lstsq, (F, y)),
 "lsqr_lstsq": (lstsq.lsqr_lstsq, (F, y)),
 "make_folds": (fo.make_folds, (12, 3)),
 "brute_force_loo": (refits.brute_force_loo, (F, y, G, 0.1, 1.0)),
 "knn_laplacian": (tq.knn_laplacian, (X, 3)),
 "poly_roughness": (ro.poly_roughness, (X, 2)),
 "gradient_norm_gram": (gn.gradient_norm_gram, (X,)),
 "nystroem_factor": (factors.nystroem_factor, (X, RBF(1.0), 5)),
 "icf_factor": (factors.icf_factor, (X, RBF(1.0))),
 "pivoted_cholesky": (factors.pivoted_cholesky, (K,)),
 "psd_factor": (psd.psd_factor, (K,)),
 "default_xi_grid": (ccv.default_xi_grid, (y, 7)),
 "one_se_index": (ccv.one_se_index, (np.array([3., 1., 2.]), np.array([.1, .5, .1]))),
 "simplest_within_one_se": (kc.simplest_within_one_se, (L, [1.0, 2.0, 3.0, 4.0])),
 "check_splits": (heldout.check_splits, (splits, 12)),
 "check_schedule": (gnc.check_schedule, ([1.0, 0.5, 0.0],)),
 "eta_fusion": (lambda *a: eta_als.eta_fusion(*a, kernel=RBF(1.0), max_iter=3),
                (X[:8], y[:8], X[8:], y[8:])),
}
run(CALLS)
