"""Time the n-omino generator: counting and building the free, one-sided and fixed
12-ominoes (63,600, 126,759 and 505,861 pieces).  Prints medians; writes nothing.

    .venv/bin/python benchmarks/generate.py [--n 12] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from polytile_generate import count, n_ominoes


def median_seconds(task, repeat: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = task()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    n, repeat = arguments.n, arguments.repeat
    print(f"n = {n}, median of {repeat}")
    print(f"{'task':<28}{'result':>10}{'seconds':>10}")
    for kind in ("free", "one-sided", "fixed"):
        seconds, value = median_seconds(lambda kind=kind: count(n, kind), repeat)
        print(f"{'count ' + kind:<28}{value:>10}{seconds:>10.2f}")
        seconds, value = median_seconds(lambda kind=kind: len(n_ominoes(n, kind)), repeat)
        print(f"{'build ' + kind + ' (named)':<28}{value:>10}{seconds:>10.2f}")


if __name__ == "__main__":
    main()
