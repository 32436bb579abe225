"""The evidence of ``benchmarks/componentwise_kernel_choice.py``: its paired z and its threshold
family reproduce the decisions of :func:`~lssvm_cvx.selection.kernel_choice.simplest_within_one_se`
(c = 1 is the one-SE rule, c = 0 is ``rule="min"``), so the bound it reports is a bound on the
estimators' own rule."""

from __future__ import annotations

import numpy as np
import pytest

from lssvm_cvx.benchmarks import componentwise_kernel_choice as kc
from lssvm_cvx.selection.kernel_choice import simplest_within_one_se


def _log_entry(j, cands, losses, rule):
    """A log entry as ``choose_kernels`` writes it, from per-point losses of two candidates."""
    k, mean, se = simplest_within_one_se(losses, [8.0 if c < 10 else 1.0 for c in cands], rule)
    return {"pass": 1, "columns": [j], "candidates": list(cands), "mean": mean.tolist(),
            "paired_se": se.tolist(), "chosen": cands[k]}


@pytest.mark.parametrize("rule,c", [("one_se", 1.0), ("min", 0.0)])
def test_threshold_family_matches_the_rule(rule, c):
    rng = np.random.default_rng(0)
    agree = 0
    for trial in range(200):
        zs, right = [], []
        for j in range(4):
            cands = [j, 10 + j]                      # RBF, linear candidates of input j
            base = rng.chisquare(1, size=100)
            shift = rng.normal(0.0, 0.15)
            losses = np.stack([base + shift + 0.3 * rng.normal(size=100), base])
            entry = _log_entry(j, cands, losses, rule)
            zs.append(kc.evidence([entry])[j])
            right.append(entry["chosen"] == kc.PAPER_KERNEL[j])
        row = kc.threshold_rates(np.array([zs])).set_index("c (paired SEs)").loc[c]
        assert [row["% x1 RBF"], row["% x2 RBF"], row["% x3 linear"], row["% x4 linear"]] == \
            [100.0 * r for r in right], trial
        assert row["% all four right"] == 100.0 * all(right)
        agree += all(right)
    assert 0 < agree < 200                           # both outcomes were exercised


def test_evidence_sign_and_scale():
    # RBF (candidate 0) lower by exactly 2 paired SEs on x1: z = +2 (favours the paper's RBF)
    d = np.r_[np.ones(50), -np.ones(50)] * 0.5
    lin = np.full(100, 1.0)
    rbf = lin - (d + 2 * d.std(ddof=1) / np.sqrt(100))
    entry = _log_entry(0, [0, 10], np.stack([rbf, lin]), "one_se")
    assert kc.evidence([entry])[0] == pytest.approx(2.0)
    # on a linear input the same losses favour the other kernel: z = -2
    entry = _log_entry(2, [2, 12], np.stack([rbf, lin]), "one_se")
    assert kc.evidence([entry])[2] == pytest.approx(-2.0)
    # later passes and other columns are not evidence
    assert kc.evidence([{**entry, "pass": 2}]) == {}
