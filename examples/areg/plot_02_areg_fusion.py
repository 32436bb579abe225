r"""
Additive regularization: fusion and the Tikhonov-node ensemble
==============================================================

The AReg paper replaces the LS-SVM's single constant :math:`\gamma` by one additive constant
:math:`c_i` per point (eq. 8-9) and tunes them *together with the model* against a validation
set. Fusion with free :math:`c` (Lemma 3.2, eq. 15) has :math:`N` degrees of freedom and
interpolates the training data (Remark 3.3); restricting :math:`c` to the convex hull of a few
Tikhonov nodes :math:`\gamma_1, \dots, \gamma_m` (§4, Algorithm 4.1) gives a well-posed problem
whose solution is a convex combination :math:`\lambda` of LS-SVMs.
"""

import matplotlib.pyplot as plt
import numpy as np

from lssvm_cvx import problems
from lssvm_cvx import AdditiveRegularizationRegressor
from lssvm_cvx.formulations import LSSVM
from lssvm_cvx.kernels import RBF

ds = problems.get_problem("sinc", seed=0)
X, y = ds.X, ds.y
grid = np.linspace(-3, 3, 300)[:, None]

fusion = AdditiveRegularizationRegressor(method="fusion", sigma2=1.0, random_state=0).fit(X, y)
ens = AdditiveRegularizationRegressor(method="ensemble", gammas=(1.0, 400.0), sigma2=1.0,
                                      refit=False, random_state=0).fit(X, y)
print("ensemble weights λ =", ens.lambda_.round(3), " recovered Tikhonov γ ≈", round(ens.gamma_, 2))

# %%
# The validation error along the segment between the two nodes
# -------------------------------------------------------------
# With two nodes the second layer (eq. 28) is a one-dimensional least-squares problem in
# :math:`\lambda = (1 - t, t)`: evaluate it on a grid of :math:`t` from the nodes' closed forms
# on the estimator's own training/validation split and mark the estimator's solution.
tr, va = ens.train_idx_, ens.val_idx_
nodes = [LSSVM(X[tr], y[tr], kernel=RBF(1.0), gamma=g).solve() for g in (1.0, 400.0)]
Kv = RBF(1.0)(X[va], X[tr])
F = np.column_stack([Kv @ s["alpha"] + s.scalar("b") for s in nodes])
ts = np.linspace(0, 1, 201)
val = [np.mean((F @ np.array([1 - t, t]) - y[va]) ** 2) for t in ts]

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
ax1.plot(X[tr, 0], y[tr], "o", ms=4, color="0.55", label="training")
ax1.plot(X[va, 0], y[va], "s", ms=4, color="tab:orange", label="validation")
ax1.plot(grid[:, 0], problems.synthetic.sinc_fn(grid[:, 0]), "k--", lw=1, label="sinc")
ax1.plot(grid[:, 0], fusion.predict(grid), lw=1.5, label="fusion, free c (interpolates)")
ax1.plot(grid[:, 0], ens.predict(grid), lw=2.5, label="Tikhonov-node ensemble")
ax1.set_ylim(-1.2, 1.8)
ax1.set_title("AReg fusion with a validation set")
ax1.legend(loc="upper left")
ax2.plot(ts, val, lw=2)
ax2.axvline(ens.lambda_[1], color="tab:red", ls=":", label=f"estimator: λ₂ = {ens.lambda_[1]:.3f}")
ax2.set_xlabel("t   (λ = (1 - t, t) over the nodes γ = 1 and γ = 400)")
ax2.set_ylabel("validation MSE")
ax2.set_title("Second layer (eq. 28) on the simplex")
ax2.legend()
fig.tight_layout()
plt.show()
