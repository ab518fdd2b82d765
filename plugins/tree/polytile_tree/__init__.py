"""polytile decomposer: split the exact-cover search tree into many small parts.

Branch as the exact-cover kernels do, so that each part is a subtree of the search that
will count it: on a cover of at most ``FILLED_IN_ORDER`` items, the kernel fills cells in
``fill_order`` (its first branch, then the first open cell in scan order), and so does the
split; on a larger one, the kernel takes the ``== 1`` row (a cell, or a piece used once)
with the fewest candidates left, and so does the split.  A part is the whole model with
the node's placements fixed to 1.  Every solution covers the branching row with exactly
one candidate, so the parts partition the solutions: counts add, listings concatenate.
(A split that branched on the fewest candidates while the parts' kernel filled cells in
order gave parts whose searches each repeated the top of the whole search: they took 1.4
times as long in all as the parts of this split, docs/split.md.)  This is embarrassingly
parallel search
(Régin, Rezgui and Malapert, CP 2013): many more parts than workers, each taken by
whichever worker is free.

The tail: the frontier grows best first (the open node with the largest size estimate is
branched next) until there are enough parts, and the parts are handed out largest
estimate first, so that the long ones start early and the run ends on small ones.
The estimate is the log of the product of every open row's candidates: a bound on the
search space left, which costs one pass over the model per node.

Symmetry: when the problem has symmetries and a row that every one of them maps onto
itself (an *anchor*: the X pentomino on 6×10), the tree starts from one placement of the
anchor per orbit, and each part carries its images (``Part.images``: one symmetry per
coset of that placement's stabiliser).  The run hands every solution of such a part on
with its images, so the parts still partition the solutions, and they search a fraction
of the tree (a quarter on 6×10), as the exactcover backend's own listing does.
"""

from __future__ import annotations

import heapq
import math
import time

import attrs

from polytile_core.plugin import (
    FILLED_IN_ORDER,
    BuildModel,
    Constraint,
    Decomposer,
    DecomposerCapabilities,
    InputError,
    Model,
    Part,
    Permutation,
    Register,
    Split,
    TilingProblem,
    check_build_limits,
    choose_anchor,
    doc,
    fill_order,
    hookimpl,
    movers,
    search_symmetries,
)

# Parts per job when [options.tree] does not say: tens per worker, so a free worker
# always finds one (Régin, Rezgui and Malapert: about 30).
PARTS_PER_JOB = 32
# Parts made when the number of jobs would ask for more (a cluster of thousands of workers).
MOST_PARTS = 100_000


@attrs.frozen
class TreeOptions:
    """Options of the search-tree split, from ``[options.tree]``."""

    parts: int | None = attrs.field(
        default=None,
        metadata=doc(
            f"parts to make: tens per worker, so a free worker always finds one (default {PARTS_PER_JOB} × --jobs, "
            f"at most {MOST_PARTS:,})",
            minimum=1,
        ),
    )

    def __attrs_post_init__(self) -> None:
        # The path is relative to [options.tree]: the core puts the table in front.
        if self.parts is not None and self.parts < 1:
            raise InputError(f"expected 1 or more, got {self.parts}", path="parts")


@attrs.frozen
class Node:
    """An open node: the variables fixed on the way to it, the row it branches on next
    (None at a leaf: nothing left to cover) with that row's candidates, and its estimate."""

    fixed: tuple[int, ...]
    candidates: tuple[int, ...] | None
    estimate: float
    images: tuple[Permutation, ...] = ()  # the symmetries its solutions stand for (see the module)


def is_item(constraint: Constraint) -> bool:
    """A ``== 1`` row with every coefficient 1: covered exactly once (a cell of a tiling)."""
    return constraint.sense == "==" and constraint.rhs == 1 and all(c == 1 for _, c in constraint.terms)


class Brancher:
    """The search tree of one model, read the way exact cover reads it."""

    def __init__(self, model: Model):
        self.constraints = model.constraints
        self.rows_of: list[list[tuple[int, int]]] = [[] for _ in range(model.num_variables)]
        self.capped: list[bool] = []
        # Per row: its largest coefficient, and the variables it counts (a full row drops them all).
        self.largest: list[int] = []
        self.counted: list[frozenset[int]] = []
        for row, constraint in enumerate(model.constraints):
            check_build_limits()  # a 100×100 board's rows hold 3 million terms: seconds in all
            for var, coefficient in constraint.terms:
                if coefficient:
                    self.rows_of[var].append((row, coefficient))
            self.capped.append(constraint.sense in ("==", "<="))
            self.largest.append(max((c for _, c in constraint.terms), default=0))
            self.counted.append(frozenset(var for var, c in constraint.terms if c > 0))
        # Each item row (in order) and its candidates (every coefficient of an item row is 1).
        self.items = {row: self.counted[row] for row, constraint in enumerate(model.constraints) if is_item(constraint)}
        # The item rows in the order a cell-filling kernel takes them; None: the fewest candidates first.
        self.fill: list[int] | None = None
        if 0 < len(self.items) <= FILLED_IN_ORDER:
            rows = list(self.items)
            number = {row: item for item, row in enumerate(rows, start=1)}
            # As the kernel reads the model: without the variables no solution can set (too many copies).
            never = {
                var
                for row, constraint in enumerate(model.constraints)
                if self.capped[row]
                for var, coefficient in constraint.terms
                if coefficient > constraint.rhs
            }
            usable = [var for var in range(model.num_variables) if var not in never]
            covers = [[number[row] for row, _ in self.rows_of[var] if row in number] for var in usable]
            shapes = [model.placements[var].cells if var in model.placements else () for var in usable]
            self.fill = [rows[item - 1] for item in fill_order(len(rows), covers, shapes)]

    def node(self, fixed: tuple[int, ...]) -> Node | None:
        """The node reached by fixing ``fixed``; None when a row is left without candidates."""
        used: dict[int, int] = {}  # how much of each row the fixed variables use
        for var in fixed:
            for row, coefficient in self.rows_of[var]:
                used[row] = used.get(row, 0) + coefficient
        dropped = set(fixed)  # and the variables that no longer fit beside them
        for row, amount in used.items():
            if not self.capped[row]:
                continue
            room = self.constraints[row].rhs - amount
            if room == 0:
                dropped |= self.counted[row]
            elif room < self.largest[row]:
                dropped.update(var for var, coefficient in self.constraints[row].terms if coefficient > room)
        best = -1
        fewest = 0
        estimate = 0.0
        for row, candidates in self.items.items():
            if row in used:
                continue
            left = len(candidates) - len(candidates & dropped)
            if not left:
                return None
            estimate += math.log(left)
            if best < 0 or left < fewest:
                best, fewest = row, left
        if best < 0:
            return Node(fixed, None, estimate)
        if self.fill is not None:
            best = next(row for row in self.fill if row not in used)
        return Node(fixed, tuple(var for var, _ in self.constraints[best].terms if var not in dropped), estimate)


def grow(brancher: Brancher, roots: list[Node | None], target: int) -> tuple[list[Node], int]:
    """Branch the largest open node, from ``roots`` (None: a dead end), until there are
    ``target`` open nodes (or none can be branched); returns them, largest estimate first,
    and how many dead ends were cut.  A child stands for the same images as its parent."""
    heap = [(-root.estimate, number, root) for number, root in enumerate(roots) if root is not None]
    heapq.heapify(heap)
    leaves: list[Node] = []
    dead = len(roots) - len(heap)
    pushed = len(roots)
    while heap and len(heap) + len(leaves) < target:
        check_build_limits()  # the run's time limit and Ctrl-C hold while the tree grows
        _, _, node = heapq.heappop(heap)
        if node.candidates is None:
            leaves.append(node)
            continue
        for var in node.candidates:
            child = brancher.node((*node.fixed, var))
            if child is None:
                dead += 1
                continue
            heapq.heappush(heap, (-child.estimate, pushed, attrs.evolve(child, images=node.images)))
            pushed += 1
    nodes = [node for _, _, node in heap] + leaves
    nodes.sort(key=lambda node: -node.estimate)
    return nodes, dead


def anchored_roots(brancher: Brancher, model: Model, group: list[Permutation]) -> tuple[list[Node | None], str] | None:
    """The tree's first level when the problem is symmetric: one placement per orbit of
    the anchor (``choose_anchor``), each carrying one symmetry per coset of its
    stabiliser; and a line for the summary.  None without an anchor."""
    anchor = choose_anchor(model, brancher.items, group)
    if anchor is None:
        return None
    roots: list[Node | None] = []
    for var in anchor.representatives:
        root = brancher.node((var,))
        roots.append(None if root is None else attrs.evolve(root, images=movers(group, var)))
    line = (
        f"{len(group)} symmetries: the tree starts from {len(anchor.representatives)} of the "
        f"{len(anchor.variables)} placements of {model.constraints[anchor.row].name!r}, one per orbit, "
        "each part standing for its images"
    )
    return roots, line


class TreeSplit:
    """The decomposer registered as ``tree``: it splits the plan's model."""

    def split(
        self,
        problem: TilingProblem,
        model: Model,
        build: BuildModel,
        options: TreeOptions | None = None,
        *,
        jobs: int = 1,
    ) -> Split:
        options = options or TreeOptions()
        if model.objective is not None:
            raise InputError(
                "the tree split serves tilings (modes one, all and count), not optimisation", path="split.method"
            )
        brancher = Brancher(model)
        if not brancher.items:
            raise InputError(
                f"the tree split branches on '== 1' rows (cells); model {model.name!r} has none", path="split.method"
            )
        started = time.perf_counter()
        group = search_symmetries(model, problem.pieces)
        anchored = anchored_roots(brancher, model, group) if len(group) > 1 else None
        roots, symmetry = anchored if anchored is not None else ([brancher.node(())], "not used")
        target = min(PARTS_PER_JOB * jobs, MOST_PARTS) if options.parts is None else options.parts
        nodes, dead = grow(brancher, roots, target)
        summary = {
            "branching": "the first open cell in the order a cell-filling search takes"
            if brancher.fill is not None
            else "the == 1 row with the fewest candidates",
            "order": "largest estimate first",
            "symmetry": symmetry,
            "dead_ends": dead,
            "seconds": round(time.perf_counter() - started, 4),
        }
        if not nodes:
            return Split(
                iter(()),
                0,
                "no tiling: the search tree ends in dead ends only (a cell or a piece has no placement left)",
                summary,
            )
        depths = [len(node.fixed) for node in nodes]
        summary["depth"] = f"{min(depths)}..{max(depths)}"
        labels = model.labels
        parts = (
            Part(
                " ".join(labels[var] for var in node.fixed) + (f" ×{len(node.images)}" if node.images else "")
                or "whole",
                model,
                fixed=node.fixed,
                images=node.images,
            )
            for node in nodes
        )
        return Split(parts, len(nodes), None, summary)


@hookimpl
def polytile_register_decomposers(register: Register[Decomposer]) -> None:
    register(
        "tree",
        TreeSplit(),
        options=TreeOptions,
        help="split the exact-cover search tree into many parts, each with some placements fixed (for many workers)",
        capabilities=DecomposerCapabilities(when_long=True, min_jobs=2, subtrees=True),
    )
