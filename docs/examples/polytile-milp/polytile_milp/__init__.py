"""An example third-party polytile backend: ``scipy.optimize.milp`` (HiGHS inside SciPy).

Everything a backend plugin needs: an options class and one hook here (kept light),
the backend object with ``solve`` in ``backend.py``.  It enumerates by re-solving with a
"no-good" cut after each solution, so it suits small instances; it is an example to copy,
not a contender.
"""

from __future__ import annotations

import attrs

from polytile_core.plugin import Backend, BackendCapabilities, BackendFactory, Register, hookimpl


@attrs.frozen
class MilpOptions:
    """Options of the milp backend, from ``[options.milp]``."""

    first_slice: float = attrs.field(
        default=1.0,
        metadata={"description": "seconds of the first solve attempt; doubled until done (how often stop is checked)"},
    )


def make_backend(options: MilpOptions | None = None) -> Backend:
    """Import SciPy only when a solve needs it, so loading the plugin stays cheap."""
    from polytile_milp.backend import MilpBackend

    return MilpBackend(options)


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "milp",
        make_backend,
        options=MilpOptions,
        help="SciPy's milp (HiGHS): an example third-party backend",
        # Declared capabilities let `backend = "auto"` choose it; the low rank puts it after
        # every faster backend installed, and first where none is.
        capabilities=BackendCapabilities(
            modes={"one", "all", "count", "optimize"},
            rank={"one": 1, "all": 1, "count": 1, "optimize": 1},
        ),
    )
