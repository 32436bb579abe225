"""Issue 30, step 4: the LS-SVM estimators' outputs before and after they became presets of the
composed estimator, over a matrix of 23 configurations.

Usage (from a checkout of each commit, the same Python)::

    python notes/preset_check.py record OUT.pkl          # at the old commit, then the new one
    python notes/preset_check.py compare OLD.pkl NEW.pkl

``compare`` prints, per configuration, ``OK`` when every output (coefficients, predictions,
chosen parameters, every ``cv_results_`` key but the wall-clock ``*_time`` ones) agrees to
1e-10 relative, else the keys that
differ.  Run for notes/engine.md at 1233f9f (old) against the preset commit.
"""

import pickle
import sys

if sys.argv[1] == "compare":
    import numpy as np

    with open(sys.argv[2], "rb") as fa, open(sys.argv[3], "rb") as fb:
        a, b = pickle.load(fa), pickle.load(fb)

    def d(x, y, path=""):
        """The differences between two outputs (nested dicts, lists, arrays) above 1e-10."""
        out = []
        if isinstance(x, dict):
            for k in x:
                if isinstance(k, str) and k.endswith("_time"):
                    continue              # wall-clock times are measurements, not outputs
                if k not in y:
                    out.append(f"{path}.{k} missing")
                    continue
                out += d(x[k], y[k], f"{path}.{k}")
            return out
        try:
            X = np.asarray(x, dtype=float)
            Y = np.asarray(y, dtype=float)
            if X.shape != Y.shape:
                return [f"{path} shape {X.shape} vs {Y.shape}"]
            both = np.isnan(X) & np.isnan(Y)
            diff = np.where(both, 0, np.abs(X - Y) / np.maximum(1, np.abs(X)))
            m = np.nanmax(diff) if diff.size else 0
            if not m <= 1e-10:
                return [f"{path} reldiff {m:.3g}"]
            return []
        except (TypeError, ValueError):
            if (
                isinstance(x, (list, tuple, np.ndarray))
                and isinstance(y, (list, tuple, np.ndarray))
                and len(x) == len(y)
                and not isinstance(x, str)
            ):  # records, or arrays of unequal lengths: element by element
                return sum((d(e, f, f"{path}[{i}]") for i, (e, f) in enumerate(zip(x, y))), [])
            return [] if x == y else [f"{path} {x!r:.60} vs {y!r:.60}"]

    for name in a:
        diffs = d(a[name], b[name])
        print(name, "OK" if not diffs else diffs[:6])
else:
    import warnings

    import numpy as np
    from sklearn.model_selection import KFold

    from lssvm_cvx import LSSVMClassifier, LSSVMRegressor

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(1)
    N = 80
    X = rng.normal(size=(N, 3))
    y = np.sin(X[:, 0]) + 0.2 * rng.normal(size=N)
    Y2 = np.column_stack([y, np.cos(X[:, 1])])
    yc = (X[:, 0] + 0.3 * rng.normal(size=N) > 0).astype(int)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    w = rng.uniform(0.5, 2.0, size=N)
    w0 = w.copy()
    w0[:5] = 0.0
    Xb = rng.normal(size=(1700, 3))
    yb = np.sin(Xb[:, 0]) + 0.1 * rng.normal(size=1700)
    ybc = (Xb[:, 0] > 0).astype(int)
    G = np.logspace(-2, 3, 8)
    cfg = {
        "r_fit": (LSSVMRegressor, dict(gamma=3.0, sigma2=2.0), X, y, None),
        "r_fit_w": (LSSVMRegressor, dict(gamma=3.0, sigma2=2.0), X, y, w0),
        "r_fit_gvec": (LSSVMRegressor, dict(gamma=np.linspace(1, 5, N), sigma2=2.0), X, y, None),
        "r_fit_2d": (LSSVMRegressor, dict(gamma=3.0), X, Y2, None),
        "r_loo": (LSSVMRegressor, dict(selection="loo", gamma_grid=G), X, y, None),
        "r_loo_s2": (
            LSSVMRegressor,
            dict(selection="loo", gamma_grid=G, sigma2_grid="auto"),
            X,
            y,
            None,
        ),
        "r_loo_w": (LSSVMRegressor, dict(selection="loo", gamma_grid=G), X, y, w0),
        "r_loo_2d": (
            LSSVMRegressor,
            dict(selection="loo", gamma_grid=G, sigma2_grid=[0.5, 2.0]),
            X,
            Y2,
            None,
        ),
        "r_loo_r2": (
            LSSVMRegressor,
            dict(selection="loo", gamma_grid=G, scoring="neg_mean_absolute_error"),
            X,
            y,
            None,
        ),
        "r_kfold": (
            LSSVMRegressor,
            dict(selection="kfold", cv=5, gamma_grid=G, sigma2_grid=[0.5, 2.0], random_state=0),
            X,
            y,
            None,
        ),
        "r_kfold_obj": (
            LSSVMRegressor,
            dict(selection="kfold", cv=KFold(4, shuffle=True, random_state=0), gamma_grid=G),
            X,
            y,
            w,
        ),
        "r_gcv": (
            LSSVMRegressor,
            dict(selection="gcv", gamma_grid=G, sigma2_grid=[0.5, 2.0]),
            X,
            y,
            None,
        ),
        "r_lin": (LSSVMRegressor, dict(kernel="linear", selection="loo", gamma_grid=G), X, y, None),
        "r_poly_loo_loss": (
            LSSVMRegressor,
            dict(kernel="poly", degree=2, selection="loo", loo="loss", gamma_grid=G),
            X,
            y,
            None,
        ),
        "r_screen": (
            LSSVMRegressor,
            dict(selection="loo", search="screen", sigma2_grid="auto", random_state=0),
            Xb,
            yb,
            None,
        ),
        "r_auto_big": (LSSVMRegressor, dict(selection="loo", sigma2_grid="auto"), Xb, yb, None),
        "c_fit": (LSSVMClassifier, dict(gamma=3.0), X, yc, None),
        "c_loo": (
            LSSVMClassifier,
            dict(selection="loo", gamma_grid=G, sigma2_grid=[0.5, 2.0]),
            X,
            yc,
            None,
        ),
        "c_loo_err": (
            LSSVMClassifier,
            dict(selection="loo", selection_score="misclassification", gamma_grid=G),
            X,
            yc,
            None,
        ),
        "c_loo_acc": (
            LSSVMClassifier,
            dict(selection="loo", scoring="accuracy", gamma_grid=G),
            X,
            y3,
            None,
        ),
        "c_kfold3": (
            LSSVMClassifier,
            dict(selection="kfold", cv=4, gamma_grid=G, random_state=0),
            X,
            y3,
            w,
        ),
        "c_ovo": (
            LSSVMClassifier,
            dict(selection="loo", multi_class="ovo", gamma_grid=G),
            X,
            y3,
            None,
        ),
        "c_screen": (
            LSSVMClassifier,
            dict(selection="loo", search="screen", sigma2_grid="auto", random_state=0),
            Xb,
            ybc,
            None,
        ),
    }
    out = {}
    for name, (cls, kw, XX, yy, sw) in cfg.items():
        try:
            m = cls(**kw).fit(XX, yy, sample_weight=sw)
            r = {
                a: getattr(m, a)
                for a in (
                    "dual_coef_",
                    "intercept_",
                    "gamma_",
                    "sigma2_",
                    "best_params_",
                    "best_score_",
                    "best_index_",
                )
                if hasattr(m, a)
            }
            r["cv"] = m.cv_results_
            r["pred"] = m.predict(XX[:20])
            if cls is LSSVMClassifier:
                r["dec"] = m.decision_function(XX[:20])
        except Exception as e:
            r = {"error": repr(e)}
        out[name] = r
        print(name, r.get("error", r.get("best_params_")))
    with open(sys.argv[2], "wb") as fh:
        pickle.dump(out, fh)
