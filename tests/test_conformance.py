"""Every registered formulation passes ``check_formulation`` at its default random instance
(DPP, objective twin, KKT, agreement of CLARABEL, OSQP, ECOS and SCS with the reference), or
fails only a check listed in KNOWN_LIMITS, whose mathematical reason is pinned below."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.formulations import FORMULATIONS, get_formulation
from lssvm_cvx.harness.conformance import KNOWN_LIMITS, check_formulation
from lssvm_cvx.validate import compare

NAMES = sorted(n for n in FORMULATIONS if not n.startswith("_"))


@pytest.mark.parametrize("name", NAMES)
def test_formulation_conforms(name):
    rep = check_formulation(name)
    rep.assert_ok()
    assert {c.name for c in rep.checks} >= {"random_instance", "dcp", "dpp", "objective twin",
                                            "KKT", "agreement"}


@pytest.mark.parametrize("name", sorted(KNOWN_LIMITS))
def test_known_limit_is_the_stated_one(name):
    """The α-space KRR formulations: the cvxpy solvers find the same point (c, e) as one
    another, the whitened Hessian is as ill-conditioned as the reason says, and the NumPy twin
    (evaluated through α = Tc) is not a well-conditioned function of that point."""
    f = get_formulation(name).random_instance()
    rep = compare(f, ["CLARABEL", "ECOS", "SCS"], closed_form=False)
    for r in rep.rows:
        assert r.kkt["primal"] < 1e-6 and all(d["rel"] < 1e-4 for d in r.deviation.values()), \
            rep.to_markdown()
    T = f._whiten()
    assert np.linalg.cond(T) > 1e4
    d = f._prep()
    KT = d["K"] @ T
    H = KT.T @ KT / KT.shape[0] + T.T @ ((d["M"] + d["M"].T) / 2) @ T
    assert np.linalg.cond(H) > 1e6


def test_a_broken_twin_is_caught():
    from lssvm_cvx.formulations import LSSVM

    class Broken(LSSVM):
        def objective(self, values):
            return 1.01 * super().objective(values)

    rep = check_formulation(Broken.random_instance(30), solvers=["CLARABEL"])
    assert not rep.ok and [c.name for c in rep.failed()] == ["objective twin"]
