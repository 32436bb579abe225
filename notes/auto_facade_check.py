"""Issue 30, the Auto LS-SVM's search through the facade: what ``decompose(Φ, 1, terms,
design=True).score_path`` gives against ``PenalizedLS.mu_path`` / ``nu_path`` (the
search's own calls) on the exact basis of a 2-D problem (N = 200, both margins).  The weights
of (Q') are ``w = v W ρ`` (``v`` the note's normalised μ, ν).  Run:
``OMP_NUM_THREADS=1 python notes/auto_facade_check.py``.
"""

import warnings

import numpy as np

from lssvm_cvx.exceptions import ConditioningWarning
from lssvm_cvx.linalg.engine import decompose
from lssvm_cvx.linalg.penalized import PenalizedLS
from lssvm_cvx.selection.auto import DEFAULT_MU_GRID, DEFAULT_NU_GRID, NU0
from lssvm_cvx.terms.gradient_basis import exact_basis

# the undeclared ν path's fallback factorises C + μG + νR at each ν; at the small ν it warns
warnings.simplefilter("ignore", ConditioningWarning)
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, (200, 2))
y = np.sinc(X[:, 0]) * X[:, 1] + 0.1 * rng.standard_normal(200)
Xs = (X - X.mean(0)) / X.std(0)
MU = 1e-2
for margin in ("rkhs", "alpha"):
    B = exact_basis(Xs, 1.0, p=2, c=2, margin=margin)
    pr = PenalizedLS(B.Phi, y, B.G, B.R)
    W, rho = pr.W, pr.rho
    a = pr.mu_path(DEFAULT_MU_GRID, NU0, "mse").scores
    b = decompose(B.Phi, 1.0, {"mu": (B.G, 0.0), "nu": (B.R, NU0 * W * rho["nu"])},
                  design=True).score_path("mu", DEFAULT_MU_GRID * W * rho["mu"], y)
    trip = (DEFAULT_MU_GRID * W * rho["mu"]) / (W * rho["mu"]) == DEFAULT_MU_GRID
    c = pr.nu_path(DEFAULT_NU_GRID, MU, "mse").scores
    d = decompose(B.Phi, 1.0, {"mu": (B.G, MU * W * rho["mu"]), "nu": (B.R, 0.0)},
                  design=True).score_path("nu", DEFAULT_NU_GRID * W * rho["nu"], y)
    e = decompose(B.Phi, 1.0, {"mu": (B.G, MU * W * rho["mu"]), "nu": (B.R, 1.0)},
                  design=True, definite=["nu"]).score_path("nu", DEFAULT_NU_GRID * W * rho["nu"], y)
    print(f"margin={margin}: mu path equal bit for bit: {np.array_equal(a, b)} (max rel "
          f"{np.max(np.abs(a - b) / np.abs(a)):.1e}; {int(trip.sum())} of {trip.size} grid values "
          f"survive v -> w -> v); nu path: {int(np.isfinite(d).sum())} of {d.size} finite through "
          f"the facade, {int(np.isfinite(c).sum())} of {c.size} in PenalizedLS.nu_path; declared "
          f"definite: max rel {np.max(np.abs(c - e) / np.abs(c)):.1e} from nu_path, equal bit for "
          f"bit: {np.array_equal(c, e)}")
