"""``Scoring.split_scores``: every split's score in one call, equal bit for bit to
``Scoring.split_score`` split by split (its definition), whether the held-out decisions come
as one array or one per split; the leave-one-out splits of a per-point score take one
vectorised pass."""

import numpy as np
import pytest

from lssvm_cvx.estimators.scoring import resolve_scoring
from lssvm_cvx.losses import make_loss

RNG = np.random.default_rng(7)
N = 40


def _case(kind: str, T: int):
    classifier = kind in ("accuracy", "balanced_accuracy")
    if classifier:
        classes = np.array(["a", "b"]) if T == 1 else np.array([0, 1, 2])
        labels = classes[RNG.integers(0, classes.size, N)]
        targets = (np.where(labels == classes[1], 1.0, -1.0) if T == 1
                   else np.where(labels[:, None] == classes[None, :], 1.0, -1.0))
        decision = targets + RNG.normal(scale=1.2, size=targets.shape)
        return classifier, classes, labels, targets, decision
    targets = RNG.normal(size=(N,) if T == 1 else (N, T))
    return classifier, None, targets, targets, targets + RNG.normal(scale=0.3, size=targets.shape)


SCORINGS = {"mse": None, "mae": "neg_mean_absolute_error", "accuracy": None,
            "balanced_accuracy": "balanced_accuracy", "loss": "loss", "r2": "r2"}


@pytest.mark.parametrize("T", [1, 3])
@pytest.mark.parametrize("splits", ["loo", "kfold"])
@pytest.mark.parametrize("kind", list(SCORINGS))
def test_split_scores_are_split_score_split_by_split(kind, splits, T):
    classifier, classes, labels, targets, decision = _case(kind, T)
    scoring = resolve_scoring(SCORINGS[kind], classifier=classifier, loss=make_loss("huber"))
    tests = ([np.array([i]) for i in range(N)] if splits == "loo"
             else [np.arange(k, N, 5) for k in range(5)])
    decision = decision.copy()
    decision[tests[2][0]] = np.nan                          # a failed fit: that split is NaN
    ref = np.array([scoring.split_score(labels[te], decision[te], classes=classes,
                                        targets=targets[te]) for te in tests])
    whole = scoring.split_scores(labels, decision, tests, classes=classes, targets=targets)
    per = scoring.split_scores(labels, [decision[te] for te in tests], tests, classes=classes,
                               targets=targets)
    np.testing.assert_array_equal(whole, ref)
    np.testing.assert_array_equal(per, ref)
    assert np.isnan(ref[2])
