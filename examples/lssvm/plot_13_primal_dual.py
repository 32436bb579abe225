r"""
One engine, two representations: the dual Gram and the primal design
=====================================================================

With an explicit feature map :math:`\phi` (here ``m`` random Fourier features of the RBF
kernel), the LS-SVM on the Gram :math:`K = \Phi\Phi^\top` can be solved in two ways:

* **dual** — the bordered system of order :math:`N + 1` in :math:`(\alpha, b)`
  (``decompose(K, s, terms)``: one Cholesky of :math:`K + c\,S^{-1}`);
* **primal** — the normal equations of order :math:`m` in :math:`(\theta, b)`
  (``decompose(Phi, s, terms, design=True)``), the problem

.. math::

    \min_{\theta, b}\ \tfrac12 \sum_i s_i\,(y_i - \phi_i^\top\theta - b)^2
    + \tfrac12 \sum_k w_k\, \theta^\top P_k\, \theta ,

whose term ``RKHS`` is :math:`\lVert\theta\rVert^2 = \alpha^\top K \alpha` for
:math:`\theta = \Phi^\top\alpha`. Both answer the same questions — the fit, exact leave-one-out
and k-fold residuals (the held-out points leave the loss), generalised cross-validation and a
path of one weight — from their own factorisation, and the answers agree to rounding
(``tests/test_engine_primal.py`` holds them to each other, to refits from the definition and to
the dense hat matrix). For :math:`N \gg m` the primal one is the cheap one: the
``approximation="nystroem" | "rff"`` LS-SVM estimators stream it (``selection="loo"`` or
``"gcv"``).
"""

import matplotlib.pyplot as plt
import numpy as np

from lssvm_cvx.kernels.features import RandomFourierMap
from lssvm_cvx.linalg.engine import RKHS, decompose

rng = np.random.default_rng(1)
X = np.sort(rng.uniform(-3, 3, 300))[:, None]
y = np.sinc(X[:, 0]) + 0.1 * rng.standard_normal(300)
fmap = RandomFourierMap(0.5, 1, 60, 0)         # σ² = 0.5, one input, m = 60 features, seed 0
Phi = fmap(X)

weights = np.logspace(-4, 1, 21)               # the RKHS term's weight c = 1/γ
dual = decompose(Phi @ Phi.T, 1.0, {"rkhs": (RKHS, 1.0)})
primal = decompose(Phi, 1.0, {"rkhs": (RKHS, 1.0)}, design=True)
folds = [np.arange(k, 300, 5) for k in range(5)]
curves = {}
for name, dec in (("dual, order N + 1", dual), ("primal, order m", primal)):
    _, _, loo = dec.path("rkhs", weights, y)
    _, _, kf = dec.path("rkhs", weights, y, folds=folds)
    curves[name] = {"exact LOO": [np.mean(r ** 2) for r in loo],
                    "5-fold": [np.mean(r ** 2) for r in kf],
                    "GCV": dec.gcv_path("rkhs", weights, y)}
for crit in ("exact LOO", "5-fold", "GCV"):
    a, b = (np.asarray(c[crit]) for c in curves.values())
    print(f"{crit}: largest relative difference primal vs dual {np.max(np.abs(a - b) / b):.1e}")

# %%
# The three criteria along the weight, from both factorisations (lines: dual; markers: primal),
# and the fit at the weight of the smallest exact LOO error
best = weights[int(np.argmin(curves["primal, order m"]["exact LOO"]))]
theta, b = primal.solve(y, {"rkhs": best})
alpha, b_dual = dual.solve(y, {"rkhs": best})
X_plot = np.linspace(-3, 3, 400)[:, None]

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
ax = axes[0]
for crit, color in (("exact LOO", "C0"), ("5-fold", "C1"), ("GCV", "C2")):
    ax.loglog(weights, curves["dual, order N + 1"][crit], "-", c=color, label=f"{crit} (dual)")
    ax.loglog(weights, curves["primal, order m"][crit], "o", c=color, ms=4, mfc="none",
              label=f"{crit} (primal)")
ax.axvline(best, c="0.5", lw=0.8)
ax.set_xlabel("weight of the RKHS term, c = 1/γ")
ax.set_ylabel("criterion (mean squared held-out residual, GCV)")
ax.set_title("one problem, two factorisations")
ax.legend(fontsize=8, ncol=2)
ax = axes[1]
ax.scatter(X, y, s=8, c="0.5", label="training data")
ax.plot(X_plot, np.sinc(X_plot[:, 0]), c="k", lw=1, label="sinc")
ax.plot(X_plot, fmap(X_plot) @ theta + b, c="C3", label="primal: φ(x)'θ + b")
ax.plot(X_plot, fmap(X_plot) @ (Phi.T @ alpha) + b_dual, "--", c="C0",
        label="dual: k(x, X)α + b")
ax.set_xlabel("x")
ax.set_title(f"the fits at c = {best:.2g}")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
