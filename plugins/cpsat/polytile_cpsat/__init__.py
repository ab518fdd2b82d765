"""polytile backend on Google OR-Tools CP-SAT.

Good at finding one tiling and at optimisation (enclosures); enumeration works but is
slow on large counts (use the ``exactcover`` backend for that).  This module stays light:
OR-Tools is imported only when a CP-SAT solve is asked for (``polytile_cpsat.backend``),
so every ``polytile`` command starts fast.
"""

from __future__ import annotations

from typing import Any

import attrs

from polytile_core.plugin import Backend, BackendCapabilities, BackendFactory, InputError, Register, hookimpl

Parameters = dict[str, bool | int | float | str]


def _check_parameters(options: object, attribute: attrs.Attribute, parameters: Parameters) -> None:
    """Every raw parameter is checked when the plan is made, so a typo is one error line
    before anything runs (not one per part of a split run)."""
    if not parameters:
        return
    from ortools.sat import sat_parameters_pb2

    trial = sat_parameters_pb2.SatParameters()
    for name, value in parameters.items():
        try:
            setattr(trial, name, value)
        except (AttributeError, TypeError, ValueError) as exc:
            raise InputError(f"not a CP-SAT parameter of that type ({exc})", path=f"parameters.{name}") from None


@attrs.frozen
class CpsatOptions:
    """Options of the CP-SAT backend, from ``[options.cpsat]``."""

    log: bool = attrs.field(default=False, metadata={"description": "print CP-SAT's search log"})
    parameters: Parameters = attrs.field(
        factory=dict,
        validator=_check_parameters,
        metadata={"description": "raw CP-SAT parameters, e.g. { linearization_level = 2 }"},
    )


def make_backend(options: CpsatOptions | None = None) -> Backend:
    from polytile_cpsat.backend import CpsatBackend

    return CpsatBackend(options)


def __getattr__(name: str) -> Any:
    if name == "CpsatBackend":
        from polytile_cpsat.backend import CpsatBackend

        return CpsatBackend
    raise AttributeError(name)


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "cpsat",
        make_backend,
        options=CpsatOptions,
        help="Google OR-Tools CP-SAT: find one, enumerate, count, optimise",
        # Any 0-1 model; ahead of SCIP at finding one, counting and (docs/benchmarks/enclosure.md)
        # optimising, behind exact cover on pure covers (docs/benchmarks/backends.md, split.md).
        capabilities=BackendCapabilities(
            modes={"one", "all", "count", "optimize"},
            rank={"one": 20, "all": 20, "count": 20, "optimize": 20},
        ),
    )
