"""Penalties of the componentwise chapter (eq. 24, §3.3) and the reweighting of eq. (41)-(43)."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.exceptions import HyperparameterError
from lssvm_cvx.terms.penalties import L1, SCAD, STP, HardThreshold, Penalty, make_penalty

PENALTIES = [L1(0.7), STP(0.7, 3.7), STP(2.0, 0.5), HardThreshold(0.7), SCAD(0.7, 3.7)]
IDS = ["l1", "stp", "stp-a0.5", "hard", "scad"]


@pytest.mark.parametrize("pen", PENALTIES, ids=IDS)
def test_derivative_matches_finite_differences(pen: Penalty):
    s = np.linspace(0.01, 5.0, 300)
    s = s[np.abs(s - pen.lam) > 1e-3]                         # kinks of SCAD / hard at λ, aλ
    if isinstance(pen, SCAD):
        s = s[np.abs(s - pen.a * pen.lam) > 1e-3]
    h = 1e-6
    fd = (pen.value(s + h) - pen.value(s - h)) / (2 * h)
    np.testing.assert_allclose(pen.derivative(s), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("pen", PENALTIES, ids=IDS)
def test_penalty_is_nondecreasing_concave_and_zero_at_zero(pen: Penalty):
    s = np.linspace(0.0, 6.0, 601)
    v, d = pen.value(s), pen.derivative(s)
    assert pen.value(0.0) == 0.0
    assert np.all(np.diff(v) >= -1e-12)
    assert np.all(d >= 0) and np.all(np.diff(d) <= 1e-12)         # ℓ' non-increasing: concave


@pytest.mark.parametrize("pen", PENALTIES, ids=IDS)
def test_eq43_quadratic_matches_value_and_slope_and_majorizes(pen: Penalty):
    """(ν², μ) of eq. (43) reproduce ℓ and ℓ' at u0, and ν²u² + μ ≥ ℓ(|u|) everywhere (the
    property the GNC driver's monotone descent rests on)."""
    u = np.linspace(-6, 6, 1201)
    for u0 in (-2.3, -0.4, 0.05, 0.9, 3.1):
        nu2, mu = pen.quadratic(u0)
        assert nu2 * u0**2 + mu == pytest.approx(float(pen.value(abs(u0))), rel=1e-12, abs=1e-12)
        assert 2 * nu2 * u0 == pytest.approx(float(pen.derivative(abs(u0)) * np.sign(u0)), rel=1e-12, abs=1e-12)
        assert np.all(nu2 * u**2 + mu >= pen.value(np.abs(u)) - 1e-10)
        # eq. (42) matches the value only and is in general not a majorizer
        assert pen.weight_value_matching(u0) * u0**2 == pytest.approx(float(pen.value(abs(u0))))


def test_value_matching_weight_is_not_a_majorizer():
    pen = STP(1.0, 3.7)
    u0, u = 0.5, np.linspace(-3, 3, 601)
    nu2 = pen.weight_value_matching(u0)
    assert np.any(nu2 * u**2 < pen.value(np.abs(u)) - 1e-6)


def test_weight_smoothing_is_finite_at_zero():
    pen = STP(1.0, 3.7)
    w = pen.weight(np.array([0.0, 1e-9, 1.0]), eps=1e-6)
    assert np.all(np.isfinite(w))
    assert w[2] == pytest.approx(pen.derivative(np.sqrt(1 + 1e-12) - 1e-6) / (2 * np.sqrt(1 + 1e-12)))


def test_known_values():
    assert STP(2.0, 3.7).value(1.0) == pytest.approx(2.0 * 3.7 / 4.7)
    assert HardThreshold(1.5).value(10.0) == pytest.approx(2.25)
    assert SCAD(1.0, 3.7).value(10.0) == pytest.approx(4.7 / 2)
    assert L1(0.3).value(2.0) == pytest.approx(0.6)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, "x"])
def test_bad_hyperparameters(bad):
    with pytest.raises(HyperparameterError, match="lam"):
        STP(bad)
    with pytest.raises(HyperparameterError, match="a must"):
        STP(1.0, bad)


def test_scad_needs_a_above_two_and_unknown_name():
    with pytest.raises(HyperparameterError, match="a > 2"):
        SCAD(1.0, 1.5)
    with pytest.raises(HyperparameterError, match="unknown penalty"):
        make_penalty("lasso")
    assert isinstance(make_penalty("stp", lam=2.0, a=1.0), STP)
    p = SCAD(1.0)
    assert make_penalty(p) is p
