"""The change analysis's CPU budget (evaluator/verify/budget.py): once spent, the block fails,
also where the timer's exception was lost on its way (a garbage-collector callback or a __del__
that the signal interrupted prints it as unraisable and carries on: CI saw a report pass so)."""

import time

import pytest

from evaluator.verify.budget import AnalysisOverBudget, cpu_budget


def _spin(seconds: float, swallow: bool) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        try:
            sum(range(10_000))
        except AnalysisOverBudget:
            if not swallow:
                raise
            # what a gc callback or a __del__ does with an exception raised inside it: it is lost


def test_a_budget_spent_fails_the_block():
    with pytest.raises(AnalysisOverBudget):
        with cpu_budget(0.01):
            _spin(2.0, swallow=False)


def test_a_budget_spent_where_its_exception_was_lost_still_fails_the_block():
    with pytest.raises(AnalysisOverBudget):
        with cpu_budget(0.01):
            _spin(0.3, swallow=True)


def test_a_block_within_its_budget_passes():
    with cpu_budget(5.0):
        _spin(0.05, swallow=False)
