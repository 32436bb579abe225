# Usage: PYTHONPATH=<tree> python notes/engine_device_check.py OUT.pkl in the old and the new tree, then
# python notes/engine_device_check.py --compare OLD.pkl NEW.pkl (issue 30 step 5, 2026-11-28: 65 outputs,
# 4faccb8 -> 460a5db: worst relative difference 5.6e-14).
"""Device functions and composed device estimators before/after (pickled outputs)."""
import sys, pickle, numpy as np
if sys.argv[1] == "--compare":
    a, b = (pickle.load(open(p, "rb")) for p in sys.argv[2:4])
    worst = max(float(np.max(np.abs(np.asarray(a[k], float) - np.asarray(b[k], float)))
                      / max(float(np.max(np.abs(np.asarray(a[k], float)))), 1e-300)) for k in a)
    print(f"{len(a)} outputs, keys equal: {set(a) == set(b)}, worst relative difference {worst:.1e}")
    sys.exit(0)
import torch, array_api_strict as xs
import lssvm_cvx
from lssvm_cvx.device import lssvm_fit, lssvm_loo_residuals, loo_path_residuals, loo_grid, rbf_gram
try:  # lssvm_cvx.device.quadratic's wrappers were removed (issue 30): the engine's systems directly
    from lssvm_cvx.device.quadratic import lssvm_kfold_residuals, augmented_kfold_residuals, augmented_loo_residuals, augmented_fit
except ImportError:
    from lssvm_cvx.linalg.quadratic import AugmentedSystem, RKHSSystem
    def lssvm_kfold_residuals(K, y, g, folds): return RKHSSystem(K, 1.0, 1.0 / g).kfold(y, folds, cover=True)
    def augmented_fit(K, s, P, y): return AugmentedSystem(K, s, P).solve(y)
    def augmented_loo_residuals(K, s, P, y): return AugmentedSystem(K, s, P).loo(y)
    def augmented_kfold_residuals(K, s, P, y, folds): return AugmentedSystem(K, s, P).kfold(y, folds, cover=True)
from lssvm_cvx import RegularizedLSSVMRegressor, RegularizedLSSVMClassifier, LSSVMRegressor
from lssvm_cvx.terms import RKHSNorm, GraphLaplacian
rng = np.random.default_rng(1)
X = rng.uniform(-2, 2, (60, 2)); y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(60)
lab = np.where(y > 0, 1.0, -1.0)
folds = [np.arange(i, 60, 4) for i in range(4)]
out = {}
def f(v): return np.asarray(lssvm_cvx.linalg.arrays.to_numpy(v) if not isinstance(v, (float, np.ndarray)) else v, dtype=float)
for ns, conv in [("numpy", np.asarray), ("torch", torch.asarray), ("strict", xs.asarray)]:
    K = rbf_gram(conv(X), sigma2=0.8); Y = conv(y)
    a, b = lssvm_fit(K, Y, 7.0); out[ns+"fit"] = np.r_[f(a), float(b)]
    out[ns+"loo"] = f(lssvm_loo_residuals(K, Y, 7.0))
    for m in ("eigh", "cholesky"):
        out[ns+"path"+m] = f(loo_path_residuals(K, Y, [0.1, 3.0, 1e3], method=m))
    out[ns+"grid"] = f(loo_grid(conv(X), Y, [0.1, 3.0], [0.5, 2.0]))
    out[ns+"kf"] = f(lssvm_kfold_residuals(K, Y, 7.0, folds))
    Kn = np.asarray(f(K)); P = conv(0.1 * Kn + 0.01 * np.eye(60)); s = conv(np.ones(60))
    a, b = augmented_fit(K, s, P, Y); out[ns+"afit"] = np.r_[f(a), float(b)]
    out[ns+"aloo"] = f(augmented_loo_residuals(K, s, P, Y))
    out[ns+"akf"] = f(augmented_kfold_residuals(K, s, P, Y, folds))
    if ns == "numpy": continue
    for sel in (None, "loo", "kfold"):
        for terms in ({"rkhs": (RKHSNorm(), 0.1)}, {"rkhs": (RKHSNorm(), 0.1), "graph": (GraphLaplacian(n_neighbors=5), 0.01)}):
            key = f"{ns}-{sel}-{len(terms)}"
            with lssvm_cvx.array_api_dispatch():
                est = RegularizedLSSVMRegressor(terms=terms, selection=sel, cv=4, loo="loss", random_state=0).fit(conv(X), conv(y))
                out[key+"pred"] = f(est.predict(conv(X[:20])))
                if sel: out[key+"cv"] = np.asarray(est.cv_results_["mean_test_score"], float)
                est = RegularizedLSSVMClassifier(terms=terms, selection=sel, cv=4, loo="loss", random_state=0).fit(conv(X), conv(lab))
                out[key+"cdec"] = f(est.decision_function(conv(X[:20])))
        with lssvm_cvx.array_api_dispatch():
            est = LSSVMRegressor(selection=sel or "loo", cv=4, random_state=0).fit(conv(X), conv(y))
            out[f"{ns}-lssvm-{sel}"] = f(est.predict(conv(X[:20])))
pickle.dump(out, open(sys.argv[1], "wb"))
