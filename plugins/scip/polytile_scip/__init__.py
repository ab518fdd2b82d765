"""polytile backend on SCIP, through PySCIPOpt.

Find one and optimise are plain SCIP solves.  Enumeration needs more: PySCIPOpt cannot
read back the solutions SCIP's counting mode collects, so listing every solution uses a
constraint handler of our own (``_Enumerator``) that turns each leaf of a complete
branching tree into one reported solution.  Counting without listing can use either
that handler or SCIP's own counting mode (``SCIPcount``); ``counting = "auto"`` picks
SCIP's counting mode whenever its count means the same thing (every variable is a
decision variable), because it is the faster of the two (docs/benchmarks/backends.md).

SCIP solves on one thread here, so ``[solve] workers`` is ignored; ``seed`` shifts SCIP's
random seeds.  The raw status is SCIP's own word, prefixed with ``count:`` or
``enumerate:`` for the two enumerating paths (which end "infeasible" by design: every
solution is rejected once it has been recorded).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from polytile_core.plugin import Backend, BackendCapabilities, BackendFactory, InputError, Register, hookimpl

Counting = Literal["auto", "nogood", "scip"]
Emphasis = Literal["default", "feasibility", "cpsolver", "easycip", "hardlp", "optimality"]


Parameters = dict[str, bool | int | float | str]


def _check_parameters(options: object, attribute: attrs.Attribute, parameters: Parameters) -> None:
    """Every raw parameter is set on a blank SCIP model when the plan is made, so a typo is
    one error line before anything runs (not one per part of a split run).  PySCIPOpt is
    imported only when there are parameters: loading the plugin stays cheap."""
    if not parameters:
        return
    import pyscipopt

    trial = pyscipopt.Model()
    trial.hideOutput()
    for name, value in parameters.items():
        try:
            trial.setParam(name, value)
        except LookupError:
            raise InputError("no SCIP parameter has that name", path=f"parameters.{name}") from None
        except (TypeError, ValueError) as exc:
            raise InputError(f"not a SCIP parameter of that type ({exc})", path=f"parameters.{name}") from None


@attrs.frozen
class ScipOptions:
    """Options of the SCIP backend, from ``[options.scip]``."""

    counting: Counting = attrs.field(
        default="auto",
        metadata={
            "description": "mode count: 'scip' uses SCIP's counting mode, 'nogood' lists every solution "
            "through polytile's own enumerator, 'auto' picks SCIP's counting mode when it counts the "
            "same thing (every variable is a decision variable)"
        },
    )
    emphasis: Emphasis = attrs.field(
        default="default",
        metadata={
            "description": "SCIP's emphasis setting for find one and optimise; 'cpsolver' or 'feasibility' "
            "can find a first tiling of a hard exact cover sooner (docs/benchmarks/backends.md)"
        },
    )
    log: bool = attrs.field(default=False, metadata={"description": "print SCIP's log"})
    parameters: Parameters = attrs.field(
        factory=dict,
        validator=_check_parameters,
        metadata={"description": 'raw SCIP parameters, e.g. { "presolving/maxrounds" = 0 }'},
    )


def make_backend(options: ScipOptions | None = None) -> Backend:
    """Import PySCIPOpt only when a solve needs it, so loading the plugin stays cheap."""
    from polytile_scip.backend import ScipBackend

    return ScipBackend(options)


def __getattr__(name: str) -> Any:
    if name in ("ScipBackend", "build_scip"):
        from polytile_scip import backend

        return getattr(backend, name)
    raise AttributeError(name)


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "scip",
        make_backend,
        options=ScipOptions,
        help="SCIP via PySCIPOpt: find one, enumerate, count (SCIP's counting mode), optimise",
        # Any 0-1 model; behind CP-SAT on every benchmark so far (docs/benchmarks/backends.md).
        capabilities=BackendCapabilities(
            modes={"one", "all", "count", "optimize"},
            counts_without_listing=True,
            rank={"one": 10, "all": 10, "count": 10, "optimize": 10},
        ),
    )
