"""Accuracy of the execution-time model as Di & Xue 2011 evaluate it (Section 5): sampled
layouts measured against the model, relative errors, and the gap between the model's choice
and the best sampled layout. Pure helpers of bench/tune_accuracy.py (which runs on a GPU)."""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

from polycuda.tune.search import Ranked


@dataclass(frozen=True)
class Summary:
    """Section 5's figures for one optimization problem (kernel and sizes)."""

    sampled: int
    measured: int
    max_abs_rel_error: float
    mean_abs_rel_error: float
    best_sampled_s: float
    model_choice_s: float | None
    gap: float | None  # measured(model's choice) / best sampled - 1 (< 0: beat every sample)
    topk_choice_s: float | None
    gap_topk: float | None  # fastest of the model's measured top k / best sampled - 1
    bound: float  # (1 + e_m) / (1 + e_opt) - 1 over the sample: the paper's worst-case gap


def sample(admissible: list[Ranked], count: int, seed: int = 0) -> list[Ranked]:
    """`count` layouts drawn uniformly without replacement (all of them if fewer)."""
    if len(admissible) <= count:
        return list(admissible)
    return random.Random(seed).sample(admissible, count)


def relative_error(model_s: float, measured_s: float) -> float:
    """e = (T_model - R_measured) / R_measured."""
    return (model_s - measured_s) / measured_s


def summarize(samples: list[Ranked], choice: Ranked | None, topk: list[Ranked]) -> Summary:
    """Summary of measured samples (Ranked with measured_s; failed ones have None), the
    model's measured first choice and its measured top k.

    Raises:
        ValueError: no sample was measured.
    """
    ok = [r for r in samples if r.measured_s]
    if not ok:
        raise ValueError("no sampled layout was measured")
    errors = [relative_error(r.model_s, r.measured_s) for r in ok]  # type: ignore[arg-type]
    best = min(r.measured_s for r in ok)  # type: ignore[type-var]
    choice_s = choice.measured_s if choice else None
    timed_top = [r.measured_s for r in topk if r.measured_s]
    topk_s = min(timed_top) if timed_top else None
    e_opt = (relative_error(choice.model_s, choice_s) if choice and choice_s else
             min(errors, key=abs))
    bound = (1 + max(errors)) / (1 + e_opt) - 1
    return Summary(len(samples), len(ok), max(abs(e) for e in errors),
                   statistics.fmean(abs(e) for e in errors), best, choice_s,
                   None if choice_s is None else choice_s / best - 1,
                   topk_s, None if topk_s is None else topk_s / best - 1, bound)
