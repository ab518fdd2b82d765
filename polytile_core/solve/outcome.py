"""What a way of solving (the whole model, or its parts) hands back to the run.

The run turns it into the one ``Result`` it returns (``run._result``): the strategies
say why they stopped and what they found, the run adds the solutions it kept, the time
and the region.  Keeping the two apart means a ``Result`` is built in one place.
"""

from __future__ import annotations

import attrs

from polytile_core.host.contracts import Work
from polytile_core.output.results import Found, SubproblemReport, Termination


@attrs.frozen
class Outcome:
    termination: Termination
    found: Found
    raw_status: str = ""
    count: int | None = None
    objective: int | None = None
    bound: float | None = None
    distinct_count: int | None = None
    message: str = ""
    subproblems: tuple[SubproblemReport, ...] = ()
    details: dict = attrs.Factory(dict)
    # The backend that answered, when the run chose it (``backend = "auto"``, a race).
    backend: str | None = None
    # What the backend was doing when it returned (``BackendResult.work``).
    work: Work | None = None
