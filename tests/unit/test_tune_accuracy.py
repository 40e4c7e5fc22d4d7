"""Section 5's accuracy figures (relative error, gap to the best sampled layout)."""

from __future__ import annotations

import pytest

from polycuda.tune import accuracy
from polycuda.tune.search import Ranked


def test_summary_worked():
    samples = [Ranked((1,), (32,), 1.0, 1.25),  # e = -0.2
               Ranked((2,), (32,), 2.0, 1.6),  # e = 0.25
               Ranked((4,), (32,), 3.0, 3.0),  # e = 0
               Ranked((8,), (32,), 4.0, None)]  # failed to run
    choice = Ranked((16,), (32,), 0.9, 1.5)  # the model's first choice: e = -0.4
    topk = [choice, Ranked((1,), (32,), 1.0, 1.25)]
    s = accuracy.summarize(samples, choice, topk)
    assert (s.sampled, s.measured) == (4, 3)
    assert s.max_abs_rel_error == pytest.approx(0.25)
    assert s.mean_abs_rel_error == pytest.approx(0.15)
    assert s.best_sampled_s == 1.25
    assert s.gap == pytest.approx(1.5 / 1.25 - 1)  # 20% slower than the best sample
    assert s.gap_topk == pytest.approx(0.0)  # the measured top k found it
    assert s.bound == pytest.approx(1.25 / 0.6 - 1)  # (1 + e_max) / (1 + e_opt) - 1
    with pytest.raises(ValueError, match="no sampled layout"):
        accuracy.summarize(samples[3:], None, [])


def test_sample_is_deterministic_and_without_replacement():
    pool = [Ranked((k,), (32,), float(k)) for k in range(500)]
    first = accuracy.sample(pool, 100, seed=1)
    assert first == accuracy.sample(pool, 100, seed=1) and len(set(first)) == 100
    assert accuracy.sample(pool[:10], 100) == pool[:10]
