"""The neutral model every backend consumes: a 0-1 linear program.

Builders (the ``tiling`` builder, the enclosure plugin, ...) produce a ``Model``;
backends solve it and report solutions as the set of *decision* variables that are 1.
A backend never needs to know what the variables mean; renderers and the pipeline
read ``Model.placements`` to turn decision variables back into pieces on cells.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal

import attrs

from polytile_core.model.geometry import Cells

Sense = Literal["==", "<=", ">="]
# How often ``Model.add_variable`` looks at the clock: rarely enough to cost nothing.
CHECK_EVERY = 1024


class BuildStopped(Exception):
    """Raised inside a model builder when the run's time is up (``reason`` "time_limit")
    or the run was stopped ("interrupted")."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# The running build's deadline (``time.monotonic()`` seconds, or None) and stop event.
_build_limits: contextvars.ContextVar[tuple[float | None, threading.Event] | None] = contextvars.ContextVar(
    "build_limits", default=None
)


@contextlib.contextmanager
def build_limits(deadline: float | None, stop: threading.Event) -> Iterator[None]:
    """Within this block, building a model and preparing its search (symmetries, a
    split's parts) stop (``BuildStopped``) at the deadline or when ``stop`` is set: the
    run's time limit covers them, and Ctrl-C ends them.  Threads started inside do not
    see it (a backend's own search watches ``stop`` and its time limit itself)."""
    token = _build_limits.set((deadline, stop))
    try:
        yield
    finally:
        _build_limits.reset(token)


def check_build_limits() -> None:
    """Raise ``BuildStopped`` when the run's time is up or it was stopped.  ``add_variable``
    calls this; a builder that works long between variables calls it too."""
    limits = _build_limits.get()
    if limits is None:
        return
    deadline, stop = limits
    if stop.is_set():
        raise BuildStopped("interrupted")
    if deadline is not None and time.monotonic() >= deadline:
        raise BuildStopped("time_limit")


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cycle collector while a model or its cover is made: they are many small
    tuples and lists that never form cycles, and the collector would only scan the
    growing heap again and again (it doubles the 100×100 build's time).  The collector
    is process-wide: a thread that finds it paused by another leaves it to that one to
    resume it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@attrs.frozen
class Constraint:
    """``sum(coefficient * x[var] for var, coefficient in terms) <sense> rhs``."""

    terms: tuple[tuple[int, int], ...]
    sense: Sense
    rhs: int
    name: str

    def holds(self, total: int) -> bool:
        """Whether a left-hand side adding up to ``total`` satisfies the row."""
        return {"==": total == self.rhs, "<=": total <= self.rhs, ">=": total >= self.rhs}[self.sense]


@attrs.frozen
class Placement:
    """A piece put on cells: what a decision variable of a tiling model stands for."""

    piece: str
    cells: Cells


@attrs.frozen(eq=False)
class Pins:
    """How a pinned model was made (``Model.pinned``): the model ``base`` with the
    variables ``fixed`` pinned to 1."""

    base: Model
    fixed: tuple[int, ...]


@attrs.define
class Model:
    """A 0-1 linear program with labelled variables.

    ``decision`` lists the variables whose values identify a solution (for a tiling: the
    placements); enumeration and counting are over distinct assignments of these.
    ``placements`` maps a variable index to the piece it places, where that applies.
    ``interior`` maps a variable to the cell it marks as enclosed (enclosure models);
    ``board`` is the set of cells a picture of a solution should show.
    ``objective`` is ``None`` for a feasibility problem.
    ``details`` are facts about how the model was built (rules, sizes), copied into
    ``Result.details``; ``verify``, when set, is called on every solution a run returns
    and raises if an independent check disagrees with the model.
    ``problem``, when set, is the builder's own statement of the problem, for a backend
    that solves it directly rather than through the rows (the enclosure plugin's fence
    backend); other backends ignore it.
    ``symmetries`` are permutations of the variables that carry every solution to a
    solution (for a tiling: the region's symmetries), identity first, forming a group;
    empty when unknown.  "Distinct" solutions are counted up to these; for a tiling the
    run fills them in (``symmetry.placement_symmetries``) when distinct is asked.
    ``pins``, set by ``pinned`` only, says which model this one pins variables of, so a
    backend may reuse what it made of that base model (``pinned_on`` checks it still holds).
    """

    name: str = "model"
    labels: list[str] = attrs.Factory(list)
    constraints: list[Constraint] = attrs.Factory(list)
    objective: dict[int, int] | None = None
    maximize: bool = True
    decision: list[int] = attrs.Factory(list)
    placements: dict[int, Placement] = attrs.Factory(dict)
    interior: dict[int, tuple[int, int]] = attrs.Factory(dict)
    board: frozenset[tuple[int, int]] = frozenset()
    details: dict[str, str | int | float] = attrs.Factory(dict)
    verify: Callable[[Any], None] | None = None
    symmetries: list[tuple[int, ...]] = attrs.Factory(list)
    problem: Any = None
    pins: Pins | None = None
    # The features its builder wrote (``host.capabilities.model_features``), with the rows
    # and variables it had then: trusted while the model still has that many.
    stated_features: tuple[frozenset[str], int, int] | None = None

    @property
    def num_variables(self) -> int:
        return len(self.labels)

    def add_variable(self, label: str, *, decision: bool = True, placement: Placement | None = None) -> int:
        index = len(self.labels)
        if index % CHECK_EVERY == 0:
            check_build_limits()
        self.labels.append(label)
        if decision:
            self.decision.append(index)
        if placement is not None:
            self.placements[index] = placement
        return index

    def add_placements(self, piece: str, placed: Sequence[Cells], numbered_from: int = 0) -> range:
        """One decision variable per placement of ``piece`` in ``placed``, labelled
        ``piece#k`` with k counted from ``numbered_from``: ``add_variable`` for the many
        placements of a tiling at once (the build of a small problem is most of its run)."""
        check_build_limits()
        first = len(self.labels)
        added = range(first, first + len(placed))
        self.labels.extend([f"{piece}#{k}" for k in range(numbered_from, numbered_from + len(placed))])
        self.decision.extend(added)
        self.placements.update(zip(added, map(Placement, itertools.repeat(piece), placed), strict=True))
        return added

    def add_constraint(self, terms: Iterable[tuple[int, int]], sense: Sense, rhs: int, name: str) -> Constraint:
        constraint = Constraint(tuple(terms), sense, rhs, name)
        self.constraints.append(constraint)
        return constraint

    def check(self, ones: Iterable[int]) -> list[str]:
        """Names of the constraints violated when exactly the variables ``ones`` are 1."""
        ones = set(ones)
        violated = []
        for constraint in self.constraints:
            if not constraint.holds(sum(coefficient for var, coefficient in constraint.terms if var in ones)):
                violated.append(constraint.name)
        return violated

    def objective_value(self, ones: Iterable[int]) -> int | None:
        if self.objective is None:
            return None
        return sum(self.objective.get(var, 0) for var in ones)

    def pinned(self, fixed: Iterable[int]) -> Model:
        """This model with the variables ``fixed`` pinned to 1, one row ``x == 1`` each:
        how the tree split makes a part.  The model's lists are shared, not copied, so it
        costs microseconds; a backend that reads ``pins`` derives the part from what it
        made of the whole model, the others see the rows (exact cover takes a pinned row
        first, a MIP presolve removes it), and solutions keep the whole model's variables."""
        fixed = tuple(fixed)
        pins = [Constraint(((var, 1),), "==", 1, f"fixed {self.labels[var]}") for var in fixed]
        earlier = self.pinned_on()
        base, before = (self, ()) if earlier is None else (earlier.base, earlier.fixed)
        return attrs.evolve(self, constraints=self.constraints + pins, symmetries=[], pins=Pins(base, before + fixed))

    def pinned_on(self) -> Pins | None:
        """``pins``, if this model is still its base with one row per pinned variable
        added (a model evolved from a pinned one with other rows is not)."""
        pins = self.pins
        if pins is None:
            return None
        base = pins.base
        same = (
            self.labels is base.labels
            and self.objective is base.objective
            and len(self.constraints) == len(base.constraints) + len(pins.fixed)
        )
        return pins if same else None

    def restricted(
        self, keep: Iterable[int], rows: Iterable[Constraint] = (), drop: Iterable[int] = (), name: str | None = None
    ) -> Model:
        """The model on the variables ``keep`` alone (every other one fixed at 0), renumbered
        in order, without the constraints numbered ``drop`` and with ``rows`` (numbered like
        this model) added: how a split makes a part.  Symmetries are dropped: a part has
        lost the symmetry of the whole."""
        kept = sorted(set(keep))
        new = {old: number for number, old in enumerate(kept)}
        dropped = set(drop)
        constraints = [
            Constraint(tuple((new[var], c) for var, c in row.terms if var in new), row.sense, row.rhs, row.name)
            for row in (*(row for number, row in enumerate(self.constraints) if number not in dropped), *rows)
        ]
        return Model(
            name=name or self.name,
            labels=[self.labels[var] for var in kept],
            constraints=constraints,
            objective=None if self.objective is None else {new[v]: c for v, c in self.objective.items() if v in new},
            maximize=self.maximize,
            decision=[new[var] for var in self.decision if var in new],
            placements={new[var]: placed for var, placed in self.placements.items() if var in new},
            interior={new[var]: cell for var, cell in self.interior.items() if var in new},
            board=self.board,
            details=dict(self.details),
        )
