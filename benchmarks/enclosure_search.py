"""The fence finder (plugins/enclosure/polytile_enclosure/finder.py) on the sets too large
for the boundary search's proof: the 35 free hexominoes, the 108 free heptominoes and
the 18 one-sided pentominoes.  Prints, per set, the best fence found, the relaxed bound
(bound.py), the gap, the orders evaluated and the seconds.  With --checkpoint DIR each
set keeps its best order and fence in DIR/<set>.json and a second run resumes from it.

The heptomino with a hole (P7-043) cannot be on a fence's boundary cycle as the finder
builds it, so the heptomino run uses the other 107: a fence of those is a fence of the
108 with that piece parked.  Their relaxed bound after the search would double the run;
with --bound-beside the bound runs beside the search instead, on a thread of its own for
the same seconds, and bounds the whole set, its holed pieces filled (``holes_filled`` in
enclosure_bound.py): one run gives the fence, the bound and the gap.

    .venv/bin/python benchmarks/enclosure_search.py --only hexominoes --seconds 300
    .venv/bin/python benchmarks/enclosure_search.py --only heptominoes --seconds 3600 \\
        --beam 20000 --checkpoint runs/      # again to resume
    .venv/bin/python benchmarks/enclosure_search.py --only heptominoes --seconds 6000 \\
        --beam 64000 --temperature 10 --bound-beside --checkpoint runs/
"""

from __future__ import annotations

import argparse
import random
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from enclosure_bound import holes_filled  # benchmarks/ is the script's own folder

from polytile_core.config.pipeline import resolve_pieces
from polytile_core.config.schema import PieceSpec
from polytile_core.host.registry import Host
from polytile_core.plugin import InputError, PieceType

if TYPE_CHECKING:
    from polytile_enclosure.fence import Fenced

# (name, pieces, best fence known, relaxed rounds by default): 1,597 for the hexominoes
# (Lyader and Podhaisky, 2025), 19,675 for the 108 heptominoes (best known, no proof),
# 308 for the one-sided pentominoes (proved, docs/enclosure.md).  The plain rounds stop at
# their limit: the hexominoes' after 133, the one-sided pentominoes' after 54.
SETS = [
    ("hexominoes", PieceSpec(family="n-ominoes", n=6), 1597, 150),
    ("heptominoes", PieceSpec(family="n-ominoes", n=7), 19675, 0),
    ("one-sided-pentominoes", PieceSpec(family="n-ominoes", n=5, kind="one-sided"), 308, 150),
]


class Best:
    """The best fence so far (the checkpoint's, then the run's)."""

    def __init__(self, fence: Fenced | None):
        self.fence = fence


def simple_pieces(pieces: list[PieceType]) -> tuple[list[PieceType], list[str]]:
    """The pieces the finder takes, and the names of those it cannot (holes, pinches)."""
    from polytile_enclosure.fence import piece_visits

    kept, left = [], []
    for piece in pieces:
        try:
            piece_visits([piece], 8)
            kept.append(piece)
        except InputError:
            left.append(piece.name)
    return kept, left


class Beside:
    """The relaxed bound of the whole set ``whole`` on a thread of its own while the search
    runs, for ``seconds``: holed pieces filled, plus their holes' cells (a valid bound of
    the whole set); each round printed as it ends."""

    def __init__(self, whole: list[PieceType], seconds: float):
        from polytile_enclosure.bound import relaxed_bound

        self.filled, self.allowance = holes_filled(whole)
        self.found = None
        self.started = time.perf_counter()

        def said(done: int, bound: float, live: int) -> None:
            print(f"    bound round {done}: {bound + self.allowance:.2f}, {live} live states", flush=True)

        def run() -> None:
            self.found = relaxed_bound(self.filled, 8, rounds=10**6, time_limit=seconds, threads=1, on_round=said)

        self.thread = threading.Thread(target=run, name="bound", daemon=True)
        self.thread.start()

    def result(self) -> tuple[int | None, float]:
        self.thread.join()
        bound = None if self.found is None else self.found.bound + self.allowance
        return bound, time.perf_counter() - self.started


def main() -> None:
    from polytile_enclosure import checkpoint
    from polytile_enclosure.bound import relaxed_bound
    from polytile_enclosure.finder import FinderSettings, OrderSearch, anneal

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the sets whose name contains this")
    parser.add_argument("--seconds", type=float, default=120, help="search time per set")
    parser.add_argument("--rounds", type=int, help="relaxed bound rounds (default: 150, none for the heptominoes)")
    parser.add_argument("--beam", type=int, default=0, help="states kept per layer (0: all)")
    parser.add_argument("--temperature", type=float, default=1.0, help="the annealing's hottest, in cells")
    parser.add_argument("--seed", type=int, help="default: a fresh one, printed")
    parser.add_argument("--checkpoint", type=Path, help="a directory for one checkpoint per set")
    parser.add_argument(
        "--bound-beside",
        action="store_true",
        help="the relaxed bound of the whole set (holes filled) on a thread beside the search, for as long",
    )
    arguments = parser.parse_args()
    print("| pieces | best fence found | best known | relaxed bound | gap | orders | search s | bound s | seed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, spec, known, default_rounds in SETS:
        if arguments.only and arguments.only not in name:
            continue
        whole = list(resolve_pieces([spec], Host()))
        pieces, left = simple_pieces(whole)
        beside = Beside(whole, arguments.seconds) if arguments.bound_beside else None
        seed = arguments.seed if arguments.seed is not None else random.randrange(2**32)
        search = OrderSearch(pieces, 8, FinderSettings(beam=arguments.beam, temperature=arguments.temperature))
        path = arguments.checkpoint / f"{name}.json" if arguments.checkpoint else None
        saved = checkpoint.load(path, pieces, 8) if path else None
        best = Best(saved.fence if saved else None)

        def better(found, best=best, path=path, pieces=pieces, saved=saved):
            if found.fence and (best.fence is None or len(found.fence.pocket) > len(best.fence.pocket)):
                best.fence = found.fence
                print(f"    {found.seconds:7.1f} s: {len(found.fence.pocket)}", flush=True)
                if path:
                    runs = (*(saved.runs if saved else ()), {"seed": found.seed, "seconds": round(found.seconds)})
                    checkpoint.save(path, pieces, 8, checkpoint.Checkpoint(found.order, found.fence, runs))

        found = anneal(
            search, seed=seed, time_limit=arguments.seconds, start=saved.order if saved else None, on_better=better
        )
        size = len(best.fence.pocket) if best.fence else 0
        rounds = default_rounds if arguments.rounds is None else arguments.rounds
        bound, bound_seconds = None, 0.0
        if beside is not None:
            bound, bound_seconds = beside.result()
        elif rounds:
            started = time.perf_counter()
            relaxed = relaxed_bound(pieces, 8, rounds=rounds)
            bound, bound_seconds = (relaxed.bound if relaxed else None), time.perf_counter() - started
        gap = f"{(bound - size) / bound:.1%}" if bound else "-"
        label = f"{name} ({len(pieces)}{', without ' + ', '.join(left) if left else ''})"
        if beside is not None and len(whole) != len(pieces):
            label = f"{name} ({len(pieces)} searched; the bound is all {len(whole)}'s)"
        print(
            f"| {label} | {size} | {known} | {bound if bound is not None else '-'} | {gap} | {found.evaluations} "
            f"| {found.seconds:.0f} | {bound_seconds:.0f} | {seed} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
