"""The kernels' own .jsonl lines (``_handover.h``, ``search.Listing``) against the lines
Python makes of the same solutions (``SolutionLines``), byte for byte and in order."""

from __future__ import annotations

import random
import threading

import pytest
from polytile_exactcover.cover import cover_problem
from polytile_exactcover.outcome import Limits
from polytile_exactcover.search import Listing, enumerate_covers

from polytile_core.plugin import LineSink, Region, SolutionLines
from polytile_core.testing import build_tiling, cells_of_table, pieces_of_table, random_instance


class Taken(list):
    """The batches a sink hands on: (text, count, firsts)."""

    def take(self, text: bytes, count: int, firsts: list[list[int]]) -> None:
        self.append((text, count, firsts))


def _python_lines(model, problem, kernel, decision, images, part, firsts):
    """What the kernel's lines should be: each solution as its callback gives it, left to
    its decision variables, under each image, made by ``SolutionLines``."""
    solutions: list[list[int]] = []
    enumerate_covers(problem, solutions.append, Limits(threading.Event(), None), kernel=kernel)
    found = []
    for ones in solutions:
        kept = [v for v in ones if decision is None or v in decision]
        found.extend([sorted(image[v] for v in kept) for image in images] if images else [kept])
    return SolutionLines(model.placements).lines(found, part), len(found), found[:firsts]


@pytest.mark.parametrize("kernel", ["dlx", "bitboard"])
def test_a_kernel_makes_the_lines_python_makes(kernel):
    seed = random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    for number in range(12):
        table = random_instance(rng, rng.choice([12, 16, 20, 24]))
        model = build_tiling(pieces_of_table(table), Region(cells_of_table(table)))
        problem = cover_problem(model)
        if kernel == "bitboard" and problem.n_items > 256:
            continue
        variables = list(range(model.num_variables))
        decision = frozenset(rng.sample(variables, len(variables) * 3 // 4)) if rng.random() < 0.5 else None
        images = [rng.sample(variables, len(variables)) for _ in range(rng.choice([0, 1, 3]))]
        part = rng.choice([None, "7", 'a "quoted" part', "é"])
        firsts = rng.choice([0, 1, 5, 1000])
        taken = Taken()
        sink = LineSink(SolutionLines(model.placements), part, images, firsts, taken.take)
        movers = tuple(images) if rng.random() < 0.5 else ()
        if movers:  # the backend's own images (``search_by_images``), not the sink's
            sink.images = ()
        report = enumerate_covers(
            problem, Listing(sink, decision, movers), Limits(threading.Event(), None), kernel=kernel
        )
        text, count, first = _python_lines(model, problem, kernel, decision, images, part, firsts)
        where = f"seed {seed}, instance {number}"
        assert b"".join(batch[0] for batch in taken) == text, where
        assert sum(batch[1] for batch in taken) == count == report.count * max(len(images), 1), where
        assert [ones for batch in taken for ones in batch[2]] == first, where
        assert sink.firsts == firsts - len(first), where


def test_a_listing_of_many_lines_is_handed_over_in_batches():
    """The 153 domino tilings of 3×8 (OEIS A001835) under 4 images: 612 lines, each once."""
    model = build_tiling(
        pieces_of_table({"pieces": [{"name": "D", "shape": ["##"], "unlimited": True}]}),
        Region(frozenset((r, c) for r in range(3) for c in range(8))),
    )
    problem = cover_problem(model)
    identity = list(range(model.num_variables))
    taken = Taken()
    sink = LineSink(SolutionLines(model.placements), None, [identity] * 4, 3, taken.take)
    report = enumerate_covers(problem, Listing(sink), Limits(threading.Event(), None), kernel="bitboard")
    lines = b"".join(batch[0] for batch in taken).splitlines()
    assert report.count == 153 and len(lines) == 612 and len(set(lines)) == 153
    assert sum(batch[1] for batch in taken) == 612 and sum(len(batch[2]) for batch in taken) == 3


@pytest.mark.parametrize("kernel", ["dlx", "bitboard"])
def test_a_failing_sink_or_text_stops_the_search_with_its_error(kernel):
    model = build_tiling(
        pieces_of_table({"pieces": [{"name": "D", "shape": ["##"], "unlimited": True}]}),
        Region(frozenset((r, c) for r in range(4) for c in range(4))),
    )
    problem = cover_problem(model)

    def refuse(*batch):
        raise RuntimeError("the disk is full")

    sink = LineSink(SolutionLines(model.placements), None, (), 0, refuse)
    with pytest.raises(RuntimeError, match="the disk is full"):
        enumerate_covers(problem, Listing(sink), Limits(threading.Event(), None), kernel=kernel)
    sink = LineSink(SolutionLines(model.placements), None, (), 0, lambda *batch: None)
    sink.text_of = lambda var: 1 / 0  # type: ignore[assignment, return-value]
    with pytest.raises(ZeroDivisionError):
        enumerate_covers(problem, Listing(sink), Limits(threading.Event(), None), kernel=kernel)
