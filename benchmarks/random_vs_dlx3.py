"""The default route against Knuth's dlx3 on random instances nobody tuned for (issue 29).

Each instance comes from ``polytile_core.testing.random_instance`` (holes, all three
kinds, exact, ranged and unlimited copies); the script prints its seed, so a run can be
repeated (``--seed``).  For each instance, in turn and ``--repeat`` times: polytile's
default route counts it on one job and on two (``polytile solve --mode count``, no
backend named; the run's own time from its result, without the interpreter's start and
the plugins' import), and dlx3 counts it on one core from ``toml2dlx.py``'s own translation.
The counts must agree.  It prints the medians, the ratio polytile / dlx3 per instance
(median and worst), and the two-job speedup of every instance that takes over 10 s on
one job.  Both tools get the same ``--limit`` a run: an instance neither counts within
it is left out (and said), and where only one does, the other's time is taken as the
limit (marked "over").

    .venv/bin/python benchmarks/random_vs_dlx3.py --dlx3 /tmp/knuth/bin/dlx3 --instances 12

Build dlx3 as ``../shared/tools/knuth/README.md`` says.  Record results with the machine
and date in docs/benchmarks/random.md, measured while nothing else runs.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomli_w

from polytile_core.testing import random_instance

ROOT = Path(__file__).resolve().parents[1]
TOML2DLX = ROOT.parent / "shared" / "tools" / "knuth" / "toml2dlx.py"


def polytile_count(pipeline: Path, jobs: int, limit: float) -> tuple[float, int | None, str]:
    command = [sys.executable, "-m", "polytile_core.cli.main", "solve", str(pipeline), "--mode", "count"]
    command += ["--jobs", str(jobs), "--time-limit", str(limit), "-o", "-", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return float("nan"), None, done.stderr.strip()[-200:]
    result = json.loads(done.stdout)
    route = result["details"].get("when_long") or result["details"].get("route", {}).get("how", "")
    # The run's own time, as an embedding program sees it: not the interpreter's start and
    # the plugins' import (about half a second, paid once per process).
    return result["seconds"], result["count"] if result["termination"] == "completed" else None, route


def _time(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds:.2f} s"


def dlx3_count(dlx3: str, problem: Path, limit: float) -> tuple[float, int | None]:
    started = time.perf_counter()
    try:
        done = subprocess.run(
            ["taskset", "-c", "0", dlx3], stdin=problem.open(), capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, None
    seconds = time.perf_counter() - started
    found = re.search(r"Altogether (\d+) solution", done.stderr)
    return seconds, int(found.group(1)) if found else None


def nine_by_nine(rng: random.Random) -> dict:
    """Issue 29's kind of instance: 9×9 less three random cells, six random free trominoes,
    tetrominoes or pentominoes with copy counts from 1 to 6 that fill the 78 cells, each
    piece's copies exact or within one of its count (the issue's instance had 17,428
    tilings: a count of copies that fills the region, not an open "at most 6", whose
    counts run to tens of millions and more)."""
    from polytile_core.host.builtin import CLASSIC_FAMILIES

    pool = {
        f"{name}{size}": rows
        for size, family in ((3, "trominoes"), (4, "tetrominoes"), (5, "pentominoes"))
        for name, rows in CLASSIC_FAMILIES[family].items()
    }
    while True:
        names = rng.sample(sorted(pool), 6)
        copies = [rng.randint(1, 6) for _ in names]
        if sum(c * sum(row.count("#") for row in pool[n]) for c, n in zip(copies, names, strict=True)) == 78:
            break
    cells = [(x, y) for x in range(9) for y in range(9)]
    holes = set(rng.sample(cells, 3))
    rows = ["".join("." if (x, y) in holes else "#" for x in range(9)) for y in range(9)]
    pieces = []
    for name, count in zip(names, copies, strict=True):
        copies_of = {"count": count} if rng.random() < 0.5 else {"min": max(count - 1, 0), "max": min(count + 1, 6)}
        pieces.append({"name": name, "shape": pool[name], **copies_of})
    return {"region": {"rows": rows}, "pieces": pieces}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dlx3", required=True, help="path of Knuth's dlx3")
    parser.add_argument("--instances", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--areas", default="50,60,70,80", help="areas to draw from, comma-separated")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds dlx3 may take per instance")
    parser.add_argument(
        "--nine",
        action="store_true",
        help="the issue's kind: 9×9 less 3 random cells, six pieces of 1 to 6 copies filling it",
    )
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"seed {seed}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    rng = random.Random(seed)
    areas = [int(area) for area in arguments.areas.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="polytile-random-"))
    rows = []
    for number in range(arguments.instances):
        table = random_instance(rng, rng.choice(areas)) if not arguments.nine else nine_by_nine(rng)
        pipeline = folder / f"i{number}.toml"
        pipeline.write_text(tomli_w.dumps(table))
        problem = folder / f"i{number}.dlx"
        problem.write_text(
            subprocess.run(
                [sys.executable, str(TOML2DLX), str(pipeline)], capture_output=True, text=True, check=True
            ).stdout
        )
        knuth: list[float] = []
        one: list[float] = []
        two: list[float] = []
        counts: set[tuple[str, int | None]] = set()
        route = ""
        beyond = False  # dlx3 did not finish within --limit: its time is only bounded
        behind = False  # nor did polytile on one job: its time is only bounded too
        for _ in range(arguments.repeat):
            if not beyond:
                seconds, count = dlx3_count(arguments.dlx3, problem, arguments.limit)
                if count is None:
                    beyond = True
                    knuth = [arguments.limit]
                else:
                    knuth.append(seconds)
                    counts.add(("dlx3", count))
            if not behind:
                seconds, count, route = polytile_count(pipeline, 1, arguments.limit)
                behind = count is None
                one = [arguments.limit] if behind else [*one, seconds]
                counts.add(("polytile", count))
            seconds, count, _ = polytile_count(pipeline, 2, arguments.limit)
            two.append(seconds if count is not None else arguments.limit)
            counts.add(("polytile", count))
            if beyond and behind:
                break
        area = sum(row.count("#") for row in table["region"]["rows"])
        if beyond and behind:
            print(f"i{number} (area {area}): neither dlx3 nor polytile finished in {arguments.limit:g} s; left out")
            continue
        finished = {count for _, count in counts if count is not None}
        agreed = len(finished) == 1
        row = {
            "name": f"i{number}",
            "area": area,
            "pieces": len(table["pieces"]),
            "count": next(iter(finished)),
            "dlx3": statistics.median(knuth),
            "one": statistics.median(one),
            "two": statistics.median(two),
            "agreed": agreed,
            "route": route,
            "beyond": beyond,
            "behind": behind,
        }
        rows.append(row)
        print(
            f"{row['name']} area {area}, {row['pieces']} pieces, count {row['count']:,}{'' if agreed else ' DISAGREE ' + str(counts)}: "
            f"dlx3 {'over ' if beyond else ''}{_time(row['dlx3'])}, "
            f"polytile 1 job {'over ' if behind else ''}{_time(row['one'])}, "
            f"2 jobs {_time(row['two'])} ({route})",
            flush=True,
        )
    if not rows:
        return
    ratios = [row["one"] / row["dlx3"] for row in rows]
    print(
        "\n| instance | area | pieces | tilings | dlx3 (1 core) | polytile, 1 job | polytile, 2 jobs | 1 job / dlx3 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row, ratio in zip(rows, ratios, strict=True):
        over, late = ("over " if row["beyond"] else ""), ("over " if row["behind"] else "")
        bound = "under " if over else "over " if late else ""
        print(
            f"| {row['name']} | {row['area']} | {row['pieces']} | {row['count']:,} | {over}{_time(row['dlx3'])} | "
            f"{late}{_time(row['one'])} | {_time(row['two'])} | {bound}{ratio:.2f} |"
        )
    print(
        f"\npolytile (1 job) / dlx3: median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} "
        f"(where one did not finish in {arguments.limit:g} s, its limit is taken as its time)"
    )
    long = [row for row in rows if row["one"] > 10]
    for row in long:
        print(f"{row['name']}: {row['one']:.1f} s on one job, two jobs {row['one'] / row['two']:.2f}x faster")
    if not all(row["agreed"] for row in rows):
        sys.exit("counts disagree")


if __name__ == "__main__":
    main()
