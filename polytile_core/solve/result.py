"""The one place a run's ``Result`` is made: the outcome of its steps, the solutions the
collector kept, the region and the time."""

from __future__ import annotations

import time

from polytile_core.config.pipeline import Plan
from polytile_core.host.capabilities import AUTO
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Result, answer_fields
from polytile_core.solve.collect import Collector
from polytile_core.solve.outcome import Outcome


def result_of(plan: Plan, model: Model | None, outcome: Outcome, collector: Collector, started: float) -> Result:
    """The run's Result (``model`` is None when its build was cut short; ``started``: the
    run's start on ``time.perf_counter``)."""
    if plan.region is not None:
        region = tuple(sorted(plan.region.cells))
    else:
        region = tuple(sorted(model.board)) if model is not None else ()
    with collector.lock:
        kept = tuple(collector.kept)
    return Result(
        **answer_fields(outcome),
        mode=plan.settings.mode,
        backend=outcome.backend or (plan.backend.name if plan.backend else AUTO),
        solutions=kept,
        seconds=time.perf_counter() - started,
        message=outcome.message,
        region=region,
        subproblems=outcome.subproblems,
        details={**(model.details if model is not None else {}), **outcome.details},
    )
