r"""
The Auto LS-SVM and jackknife+ intervals
========================================

Sorber's Auto LS-SVM has no hyperparameter to set: the data are standardised, the kernel width
:math:`\gamma` and the weights :math:`\mu` (gradient norm :math:`\int\|\nabla f\|^2`, eq. 41)
and :math:`\nu` (an L2 term) of eq. (9) are tuned by exact leave-one-out, and the same LOO
residuals give jackknife+ prediction intervals at no extra cost.
"""

import matplotlib.pyplot as plt
import numpy as np

from lssvm_cvx import problems
from lssvm_cvx import AutoLSSVMRegressor

ds = problems.get_problem("sinc_auto", seed=0)
m = AutoLSSVMRegressor().fit(ds.X, ds.y)
grid = np.linspace(ds.X.min(), ds.X.max(), 400)[:, None]
lo, hi = m.predict_interval(grid, coverage=0.9).T
# the catalogue's test targets are noise-free; an interval is for a new *noisy* observation,
# so draw the note's noise, N(0, 0.3²), on top of them
y_new = ds.y_test + np.random.default_rng(1).normal(0.0, 0.3, ds.y_test.shape)
lo_t, hi_t = m.predict_interval(ds.X_test, coverage=0.9).T
cover = np.mean((y_new >= lo_t) & (y_new <= hi_t))
print(f"γ = {m.kernel_gamma_:.3g}, μ = {m.mu_:.3g}, ν = {m.nu_:.3g}; test R² "
      f"{m.score(ds.X_test, ds.y_test):.3f}; 90 % jackknife+ intervals cover {cover:.1%} "
      "of new noisy observations")

res = m.cv_results_
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [2, 1]})
ax1.fill_between(grid[:, 0], lo, hi, alpha=0.25, label="90 % jackknife+ interval")
ax1.plot(ds.X[:, 0], ds.y, "o", ms=3, color="0.45", label="training data")
ax1.plot(grid[:, 0], m.predict(grid), lw=2, label="Auto LS-SVM")
ax1.set_title(f"sinc, N = {ds.X.shape[0]}: test coverage {cover:.0%}")
ax1.legend()
stages = res["stage"]
for st, mk in (("width", "o"), ("mu", "s"), ("nu", "^")):
    sel = stages == st
    ax2.semilogx(res["param_kernel_gamma"][sel], -res["mean_test_score"][sel], mk, label=f"{st} stage")
ax2.set_xlabel("kernel width γ (normalised)")
ax2.set_ylabel("LOO MSE (standardised)")
ax2.set_title("The search, from cv_results_")
ax2.legend()
fig.tight_layout()
plt.show()
