"""What a decomposer returns: the parts of a problem, produced lazily.

A split *partitions* the solutions: every solution of the original problem is a
solution of exactly one part, so counts add up and parts solve independently.
A decomposer that declares it finds one solution only is the exception: its parts may
share solutions (the ``blocks`` split tries small sub-tilings, then the whole problem),
so it serves mode ``one`` only, and the plan refuses it for counting and listing.

Part models come from the plan's model builder, never from a decomposer's own copy of
it: a decomposer gets the whole model (``Model.restricted`` makes a part of it) and a
``build`` function for other problems (the ``blocks`` split's smaller regions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import attrs

from polytile_core.errors import InputError
from polytile_core.model.problem import TilingProblem
from polytile_core.model.zero_one import Model

# Builds the model of a tiling problem with the plan's builder and its options.
BuildModel = Callable[[TilingProblem], Model]


@attrs.frozen
class Part:
    """One subproblem: a name that identifies it (for reports and checkpoints) and its model.

    ``copies`` are the offsets at which a solution of the part is laid down to make a
    solution of the whole problem: one ``(0, 0)`` for an ordinary part, one per block for
    a part that tiles one of several congruent blocks.

    ``fixed``, when set, makes the part the whole model (``model``, shared by every part)
    with these variables fixed to 1: such a part travels as the indices alone, the model
    about once per worker (``polytile_core.solve.parcels``).

    ``images``, when set, are symmetries of ``model`` (permutations of its variables,
    the identity first) under which the part's solutions stand for others as well: a split
    that searches one placement per orbit of an anchor piece (the tree split) hands each
    solution on with its images, so the parts still partition the solutions.
    """

    key: str
    model: Model
    details: dict = attrs.Factory(dict)
    copies: tuple[tuple[int, int], ...] = ((0, 0),)
    fixed: tuple[int, ...] | None = None
    images: tuple[tuple[int, ...], ...] = ()
    empty: str | None = None


class SplitTooLarge(InputError):
    """A decomposer's analysis of this problem would not end in reasonable time or memory:
    its parts cannot be listed, and no certificate is claimed."""

    def __init__(self, message: str):
        super().__init__(message, path="split.method")


@attrs.define
class Split:
    """The parts of a problem.

    ``parts`` is an iterator (it may be astronomically long; never make a list of it);
    ``total`` is how many parts there are, when that is known without listing them;
    ``impossible`` is a short proof that there is no solution at all (then ``parts`` is empty).
    """

    parts: Iterator[Part]
    total: int | None = None
    impossible: str | None = None
    summary: dict = attrs.Factory(dict)
