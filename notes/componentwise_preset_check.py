"""Issue 30, step 4: the componentwise estimators' outputs before and after their (γ, σ²)
search and their LS-SVM fit became a preset of the composed estimator.

Usage (from a checkout of each commit, the same Python)::

    python notes/componentwise_preset_check.py record OUT.pkl   # at the old commit, then the new
    python notes/preset_check.py compare OLD.pkl NEW.pkl         # the same comparison

``compare`` (of ``notes/preset_check.py``) prints, per configuration, ``OK`` when every output
(component coefficients, intercept, predictions, chosen σ² and γ, every ``cv_results_`` key)
agrees to 1e-10 relative, else the keys that differ.
"""

import pickle
import sys
import warnings

import numpy as np
from sklearn.model_selection import KFold

from lssvm_cvx import ComponentwiseLSSVMClassifier, ComponentwiseLSSVMRegressor
from lssvm_cvx.kernels import RBF, Componentwise

warnings.simplefilter("ignore")
rng = np.random.default_rng(3)
N = 70
X = rng.uniform(-1.5, 1.5, size=(N, 4))
y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.2 * rng.normal(size=N)
yc = (np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=N) > 0).astype(int)
R, C = ComponentwiseLSSVMRegressor, ComponentwiseLSSVMClassifier
cfg = {
    "r_default": (R, {}, y),
    "r_sigma2": (R, dict(sigma2=2.0), y),
    "r_gamma": (R, dict(gamma=5.0), y),
    "r_fixed": (R, dict(sigma2=2.0, gamma=5.0), y),
    "r_cv5_seed": (R, dict(cv=5, random_state=3), y),
    "r_cv_obj": (R, dict(cv=KFold(4, shuffle=True, random_state=1)), y),
    "r_cv4_unequal": (R, dict(cv=4), y),
    "r_list": (R, dict(kernel=["rbf", "linear"]), y),
    "r_object": (R, dict(kernel=RBF(2.0)), y),
    "r_cw_object": (R, dict(kernel=Componentwise(RBF(2.0))), y),
    "r_mixed": (R, dict(kernel=["rbf", RBF(2.0)]), y),
    "r_linear": (R, dict(kernel="linear"), y),
    "r_l1": (R, dict(penalty="l1", xi=0.5), y),
    "r_stp": (R, dict(penalty="stp", lam=0.05), y),
    "r_eta": (R, dict(penalty="fusion_eta", random_state=0), y),
    "c_default": (C, {}, yc),
    "c_fixed": (C, dict(sigma2=2.0, gamma=5.0), yc),
    "c_l1": (C, dict(penalty="l1", xi=0.5), yc),
}
out = {}
for name, (cls, kw, yy) in cfg.items():
    try:
        m = cls(**kw).fit(X, yy)
        r = {a: getattr(m, a) for a in ("component_coef_", "intercept_", "gamma_", "sigma2_",
                                         "reg_", "selected_components_")
             if hasattr(m, a)}
        r["cv"] = m.cv_results_
        r["pred"] = m.predict(X[:20])
        if cls is C:
            r["dec"] = m.decision_function(X[:20])
    except Exception as e:  # noqa: BLE001 (recorded, compared)
        r = {"error": repr(e)}
    out[name] = r
    print(name, r.get("error", (r.get("sigma2_"), r.get("gamma_"))))
with open(sys.argv[2], "wb") as fh:
    pickle.dump(out, fh)
