"""Read a neutral ``Model`` as an exact cover with multiplicities.

The tiling builder writes one ``== 1`` row per cell and one count row per piece
(``==``, ``<=`` or ``>=``), every coefficient 1 and every variable 0-1.  Here every
``== 1`` row with coefficients 1 becomes a *primary item* (covered exactly once) and
every other row a *group*: a weighted count that must end within bounds (rows on the
same variables, such as a piece's ``>= min`` and ``<= max``, merge into one group).
Positive weights other than 1 are accepted in groups, which is what the models of
tilings fixed by a symmetry need (a merged variable stands for several copies).

A part of the tree split is the whole model with a few variables pinned to 1
(``Model.pinned``).  Reading the whole model costs milliseconds, a part's search may
cost less, so ``pinned_problem`` reads the whole model once (kept while that model
lives) and makes each part's cover from it by leaving out the options that clash with
the pinned ones.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Sequence
from operator import itemgetter

import attrs

from polytile_core.plugin import InputError, Model, Pins, check_build_limits, collector_paused, scan_order

UNBOUNDED = 1 << 62
ONLY_ONE = {1}
_first, _second = itemgetter(0), itemgetter(1)  # of a term (var, coefficient)
# An option: its items and its (group, weight) memberships.
Option = tuple[tuple[int, ...], tuple[tuple[int, int], ...]]


@attrs.frozen
class CoverProblem:
    """Items are numbered 1..n_items; ``options[k]`` is (items, [(group, weight)]) of the
    model variable ``variables[k]``; ``rows[i - 1]`` is the constraint of item i.
    ``shapes[k]`` are the cells of option k's placement on the region (empty when its
    variable places no piece), which the frontier scan colours to prune states no tiling
    can finish.  ``order`` lists the items in the order the kernels fill them: first the
    ``cells`` (items found to be a region's cells), then the others; it is found when
    first asked (``scan``), since a count that a short search ends needs none, and a
    problem made from this one (``attrs.evolve``) keeps it."""

    n_items: int
    options: tuple[Option, ...]
    variables: tuple[int, ...]
    groups: tuple[tuple[int, int], ...]
    rows: tuple[int, ...]
    shapes: tuple[tuple[tuple[int, int], ...], ...]
    scan: ScanOrder = attrs.field(eq=False, repr=False)
    fixed: tuple[int, ...] = ()  # options a part of the tree split fixes (placed before its search)

    @property
    def order(self) -> tuple[int, ...]:
        return self.scan.found()[0]

    @property
    def cells(self) -> int:
        return self.scan.found()[1]

    def option_of(self) -> dict[int, int]:
        return {var: k for k, var in enumerate(self.variables)}


class ScanOrder:
    """``scan_order`` of a problem's items, found once, when first asked."""

    def __init__(self, n_items: int, options: Sequence[Option], shapes: Sequence[Sequence[tuple[int, int]]]):
        self._arguments: tuple[int, Sequence[Option], Sequence[Sequence[tuple[int, int]]]] | None = (
            n_items,
            options,
            shapes,
        )
        self._found: tuple[tuple[int, ...], int] | None = None

    def found(self) -> tuple[tuple[int, ...], int]:
        if self._found is None:
            assert self._arguments is not None
            n_items, options, shapes = self._arguments
            self._found = scan_order(n_items, [items for items, _ in options], shapes)
            self._arguments = None
        return self._found


def _refuse(reason: str) -> InputError:
    return InputError(
        f"the exactcover backend solves exact covers only (cells '== 1', piece counts): {reason}",
        path="solve.backend",
    )


def cover_problem(model: Model, *, allowed: set[int] | None = None) -> CoverProblem:
    """The exact cover of ``model``; variables outside ``allowed`` (when given) are left out.

    Refuses (``InputError``) a model with an objective, a non-positive or fractional
    coefficient, or a variable that covers no ``== 1`` row.
    """
    with collector_paused():
        return _cover_problem(model, allowed)


def _cover_problem(model: Model, allowed: set[int] | None) -> CoverProblem:
    if model.objective is not None:
        raise _refuse(f"model {model.name!r} has an objective (use cpsat or scip to optimise)")
    items_of: list[list[int]] = [[] for _ in range(model.num_variables)]
    rows: list[int] = []
    bounds: dict[tuple, list[int]] = {}
    for index, constraint in enumerate(model.constraints):
        if not index % 1024:
            check_build_limits()
        is_cell = constraint.sense == "==" and constraint.rhs == 1
        if is_cell and set(map(_second, constraint.terms)) == ONLY_ONE:  # a tiling's cell
            rows.append(index)
            item = len(rows)
            for var in map(_first, constraint.terms):
                items_of[var].append(item)
            continue
        terms = [(var, coefficient) for var, coefficient in constraint.terms if coefficient != 0]
        for _var, coefficient in terms:
            if not isinstance(coefficient, int) or coefficient < 0:
                raise _refuse(f"constraint {constraint.name!r} has the coefficient {coefficient!r}")
        if is_cell and all(c == 1 for _, c in terms):
            rows.append(index)
            for var, _ in terms:
                items_of[var].append(len(rows))
            continue
        key = tuple(sorted(terms))
        lo, hi = bounds.setdefault(key, [0, UNBOUNDED])
        if constraint.sense in ("==", ">="):
            lo = max(lo, constraint.rhs)
        if constraint.sense in ("==", "<="):
            hi = min(hi, constraint.rhs)
        bounds[key] = [lo, hi]
    for var, items in enumerate(items_of):
        if not items:
            raise _refuse(f"variable {model.labels[var]!r} covers no '== 1' row")
    groups: list[tuple[int, int]] = []
    member_of: dict[int, list[tuple[int, int]]] = {}
    forbidden: set[int] = set()
    for key, (lo, hi) in bounds.items():
        for var, weight in key:
            if weight > hi:
                forbidden.add(var)
        if lo <= 0 and hi >= sum(weight for _, weight in key):
            continue  # never binding
        for var, weight in key:
            member_of.setdefault(var, []).append((len(groups), weight))
        groups.append((lo, hi))
    options, variables = [], []
    for var in range(model.num_variables):
        if not var % 4096:
            check_build_limits()
        if var in forbidden or (allowed is not None and var not in allowed):
            continue
        options.append((tuple(items_of[var]), tuple(member_of.get(var, ()))))
        variables.append(var)
    check_build_limits()
    shapes = tuple(model.placements[var].cells if var in model.placements else () for var in variables)
    check_build_limits()
    return CoverProblem(
        len(rows),
        tuple(options),
        tuple(variables),
        tuple(groups),
        tuple(rows),
        shapes,
        ScanOrder(len(rows), options, shapes),
    )


@attrs.frozen(eq=False)
class WholeCover:
    """A whole model read once: its cover, and for each item the options that cover it."""

    problem: CoverProblem
    option_of: dict[int, int]  # model variable -> its option
    options_on: tuple[tuple[int, ...], ...]  # item i -> the options covering it, at i - 1
    size: tuple[int, int]  # the model's rows and variables when it was read

    @classmethod
    def of(cls, model: Model) -> WholeCover:
        problem = cover_problem(model)
        options_on: list[list[int]] = [[] for _ in range(problem.n_items)]
        for k, (items, _) in enumerate(problem.options):
            for item in items:
                options_on[item - 1].append(k)
        size = (len(model.constraints), model.num_variables)
        return cls(problem, problem.option_of(), tuple(map(tuple, options_on)), size)

    def pinned(self, fixed: tuple[int, ...]) -> CoverProblem | None:
        """The cover of this model with the variables ``fixed`` chosen: the options that
        share an item with a pinned one are left out, so each pinned option is the only
        one left on its items.  None when the pins rule each other (or themselves) out."""
        pinned = set()
        for var in fixed:
            k = self.option_of.get(var)
            if k is None:  # a variable no tiling can use (too many copies at once)
                return None
            pinned.add(k)
        covered = [item for k in pinned for item in self.problem.options[k][0]]
        if len(covered) != len(set(covered)):  # two pinned options on one item
            return None
        keep = bytearray(b"\x01") * len(self.problem.options)
        for other in itertools.chain.from_iterable([self.options_on[item - 1] for item in covered]):
            keep[other] = 0
        for k in pinned:
            keep[k] = 1
        problem = self.problem
        kept = list(itertools.compress(range(len(problem.options)), keep))
        return attrs.evolve(
            problem,
            options=tuple(problem.options[k] for k in kept),
            variables=tuple(problem.variables[k] for k in kept),
            shapes=tuple(problem.shapes[k] for k in kept),
            fixed=tuple(place for place, k in enumerate(kept) if k in pinned),
        )


# Whole models read, by id, each kept only while its model lives (a worker holds a few).
_whole_covers: dict[int, tuple[weakref.ref[Model], WholeCover]] = {}
# Threads solving parts of one model at once read it once: the others wait for it.
_reading = threading.Lock()


def whole_cover(model: Model) -> WholeCover:
    """``WholeCover.of(model)``, read once while ``model`` lives (and again if rows or
    variables were added to it since)."""
    key = id(model)
    with _reading:
        entry = _whole_covers.get(key)
        size = (len(model.constraints), model.num_variables)
        if entry is not None and entry[0]() is model and entry[1].size == size:
            return entry[1]
        whole = WholeCover.of(model)

        def forget(reference: weakref.ref[Model]) -> None:
            if _whole_covers.get(key, (None,))[0] is reference:
                del _whole_covers[key]

        _whole_covers[key] = (weakref.ref(model, forget), whole)
        return whole


def pinned_problem(pins: Pins) -> CoverProblem | None:
    """The cover of ``pins.base`` with ``pins.fixed`` chosen (see ``WholeCover.pinned``)."""
    return whole_cover(pins.base).pinned(pins.fixed)
