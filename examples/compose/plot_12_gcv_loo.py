r"""
Choosing a composed model's weights: exact leave-one-out and GCV
================================================================

A composed model with the squared loss and quadratic terms is a linear smoother of the
targets, :math:`\hat y = H y`, and the package's closed-form engine factorises its optimality
system once per weight. From that one factorisation come two selection criteria:

* the exact **leave-one-out** error (``selection="loo"``; ``loo="loss"``: the held-out point
  leaves the loss, the basis and the terms keep it), :math:`r_i = (y_i - \hat y_i)/(1 - H_{ii})`;
* **generalised cross-validation** (``selection="gcv"``; Golub, Heath & Wahba 1979), which
  replaces every :math:`H_{ii}` by their mean:

.. math::

    \mathrm{GCV} = \frac{N\,\lVert y - \hat y\rVert^2}{\operatorname{tr}(I - H)^2}.

Both are exact for whatever terms a user composes (here the RKHS norm and a k-nearest-neighbour
graph Laplacian, whose weight is searched); ``tests/test_engine_gcv.py`` checks GCV against the
hat matrix of a dense solve. The curves below are ``-mean_test_score`` of ``cv_results_``.
Both criteria estimate the error on new *noisy* targets, so they sit about the noise variance
(0.15² ≈ 0.022) above the test error against the noiseless curve (2000 fresh points), whose
minimum both choices hit here: on this problem the two criteria choose the same weight.
"""

import matplotlib.pyplot as plt
import numpy as np

from lssvm_cvx import RegularizedLSSVMRegressor
from lssvm_cvx.terms import GraphLaplacian, RKHSNorm

rng = np.random.default_rng(0)
X = np.sort(rng.uniform(-3, 3, 80))[:, None]
y = np.sinc(X[:, 0]) + 0.15 * rng.standard_normal(80)
X_test = np.linspace(-3, 3, 2000)[:, None]
y_test = np.sinc(X_test[:, 0])

terms = {"rkhs": (RKHSNorm(), 1e-3), "graph": (GraphLaplacian(n_neighbors=5), 0.1)}
grid = {"graph": np.logspace(-4, 2, 25)}
fits = {crit: RegularizedLSSVMRegressor(sigma2=0.5, terms=terms, selection=crit, loo="loss",
                                        weight_grid=grid).fit(X, y)
        for crit in ("loo", "gcv")}
for crit, est in fits.items():
    mse = np.mean((est.predict(X_test) - y_test) ** 2)
    print(f"{crit}: graph weight {est.terms_['graph'][1]:.3g}, test MSE {mse:.4f}")

# %%
# The test error of every candidate (refits on the grid), beside the two criteria
test = [np.mean((RegularizedLSSVMRegressor(
    sigma2=0.5, terms={**terms, "graph": (terms["graph"][0], w)}).fit(X, y).predict(X_test)
    - y_test) ** 2) for w in grid["graph"]]

fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
ax = axes[0]
for crit, est, style in (("exact LOO", fits["loo"], "-"), ("GCV", fits["gcv"], "--")):
    ax.loglog(grid["graph"], -est.cv_results_["mean_test_score"], style, label=crit)
    ax.axvline(est.terms_["graph"][1], ls=style, c="0.5", lw=0.8)
ax.loglog(grid["graph"], test, ":", c="k", label="test MSE (2000 fresh points)")
ax.set_xlabel("graph Laplacian weight")
ax.set_ylabel("criterion / mean squared error")
ax.set_title("one factorisation per weight: LOO and GCV")
ax.legend()
ax = axes[1]
ax.plot(X_test, y_test, c="k", lw=1, label="sinc")
ax.scatter(X, y, s=12, c="0.4", label="training data")
for crit, est, style in (("exact LOO", fits["loo"], "-"), ("GCV", fits["gcv"], "--")):
    ax.plot(X_test, est.predict(X_test), style, label=f"{crit} choice")
ax.set_xlabel("x")
ax.set_title("the fits at the chosen weights")
ax.legend()
fig.tight_layout()
plt.show()
