"""Issue 30, step 4: the LS-SVM estimators' outputs on device arrays before and after their
exact device path became the preset Squared + ``RKHSNorm(1/γ)`` on the composed estimator's
device path (``estimators/regularized_device.py``), and the composed estimator's own device
outputs (its RKHS-only leave-one-out now goes along the γ path of one ``eigh``).

Usage (from a checkout of each commit, the same Python; PyTorch on the CPU and
``array-api-strict`` under ``lssvm_cvx.array_api_dispatch()``)::

    python notes/device_preset_check.py record OUT.pkl   # at the old commit, then the new
    python notes/preset_check.py compare OLD.pkl NEW.pkl  # the same comparison

``compare`` (of ``notes/preset_check.py``) prints, per configuration, ``OK`` when every output
(coefficients, intercept, predictions, chosen parameters, every ``cv_results_`` key) agrees to
1e-10 relative, else the keys that differ.
"""

import pickle
import sys
import warnings

import array_api_strict
import numpy as np
import torch

import lssvm_cvx
from lssvm_cvx import LSSVMClassifier, LSSVMRegressor, RegularizedLSSVMRegressor
from lssvm_cvx.linalg.arrays import to_numpy

warnings.simplefilter("ignore")
rng = np.random.default_rng(1)
N = 90
X = rng.uniform(-3, 3, (N, 2))
y = np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(N)
yc = (y > 0).astype(np.int64) * 3 + 2
G = dict(sigma2_grid=[0.5, 2.0], gamma_grid=np.logspace(-1, 4, 6), search="grid")
R, C, Q = LSSVMRegressor, LSSVMClassifier, RegularizedLSSVMRegressor
cfg = {
    "r_fixed": (R, dict(gamma=10.0, sigma2=2.0), y),
    "r_loo": (R, dict(selection="loo", **G), y),
    "r_loo_auto": (R, dict(selection="loo"), y),
    "r_kfold": (R, dict(selection="kfold", cv=5, random_state=2, **G), y),
    "r_nystroem": (R, dict(selection="loo", approximation="nystroem", n_components=25,
                           random_state=0, **G), y),
    "r_rff": (R, dict(selection="loo", approximation="rff", n_components=25, random_state=0,
                      **G), y),
    "c_fixed": (C, dict(gamma=10.0, sigma2=2.0), yc),
    "c_loo": (C, dict(selection="loo", **G), yc),
    "c_kfold": (C, dict(selection="kfold", cv=5, random_state=2, **G), yc),
    "c_misclassification": (C, dict(selection="loo", selection_score="misclassification", **G),
                            yc),
    "r_scoring": (R, dict(selection="kfold", cv=5, random_state=2, scoring="neg_mean_absolute_error",
                          **G), y),
    "q_loo": (Q, dict(selection="loo", weight_grid={"rkhs": [0.01, 0.1, 1.0]},
                      sigma2_grid=[0.5, 2.0]), y),
    "q_kfold": (Q, dict(selection="kfold", cv=4, weight_grid={"rkhs": [0.01, 0.1, 1.0]},
                        sigma2_grid=[0.5, 2.0], random_state=0), y),
}
KEYS = ("dual_coef_", "coef_", "intercept_", "gamma_", "sigma2_", "best_params_", "best_score_",
        "classes_", "terms_")


def host(v):
    """A device array as NumPy; anything else as it is."""
    return to_numpy(v) if hasattr(v, "__array_namespace__") else v


out = {}
for ns, conv in (("torch", torch.asarray), ("strict", array_api_strict.asarray)):
    for name, (cls, kw, yy) in cfg.items():
        try:
            with lssvm_cvx.array_api_dispatch():
                m = cls(**kw).fit(conv(X), conv(yy))
                r = {a: host(getattr(m, a)) for a in KEYS if getattr(m, a, None) is not None}
                r["terms_"] = {k: w for k, (_, w) in r.get("terms_", {}).items()}
                r["cv"] = m.cv_results_
                r["pred"] = host(m.predict(conv(X[:20])))
                if cls is C:
                    r["dec"] = host(m.decision_function(conv(X[:20])))
        except Exception as e:  # noqa: BLE001 (recorded, compared)
            r = {"error": repr(e)}
        out[f"{ns}_{name}"] = r
        print(ns, name, r.get("error", (r.get("sigma2_"), r.get("gamma_"))))
with open(sys.argv[2], "wb") as fh:
    pickle.dump(out, fh)
