"""What a way of solving (the whole model, its parts, a race) hands back to the run.

An ``Answer`` with what a run adds to a backend's: the message, the parts' reports, the
backend that answered when the run chose it.  The run turns it into the one ``Result``
it returns (``polytile_core.solve.result``), adding the solutions it kept, the time and
the region.
"""

from __future__ import annotations

import attrs

from polytile_core.host.contracts import BackendResult, Work
from polytile_core.output.results import Answer, SubproblemReport, answer_fields


@attrs.frozen
class Outcome(Answer):
    message: str = ""
    subproblems: tuple[SubproblemReport, ...] = ()
    details: dict = attrs.Factory(dict)
    # The backend that answered, when the run chose it (``backend = "auto"``, a race).
    backend: str | None = None
    # What the backend was doing when it returned (``BackendResult.work``).
    work: Work | None = None

    @classmethod
    def of_backend(cls, result: BackendResult, **more: object) -> Outcome:
        """A backend's answer as the outcome of a step; ``more`` overrides its fields."""
        fields: dict[str, object] = {**answer_fields(result), "details": result.details, "work": result.work}
        return cls(**{**fields, **more})  # type: ignore[arg-type]
