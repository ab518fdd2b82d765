"""Listing all 9,356 tilings of 6×10 with the 12 pentominoes (``--backend exactcover
--mode all``) to a result file: peak memory, time and file size of the ``.json`` route
(every solution kept, written at the end) against the streamed ``.jsonl`` route.

    .venv/bin/python benchmarks/resultfiles.py [--repeat 3]

Each run is ``polytile solve`` in a fresh process that reports its own peak resident
memory (``ru_maxrss``).  Prints medians.  A baseline row shows the same listing with no
output file (``--mode count``), the memory of the interpreter, the plugins and the model.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parent.parent
PIPELINE = ROOT / "examples" / "pentomino-6x10.toml"
CHILD = """
import resource, sys, time
from polytile_core.cli.main import main
started = time.perf_counter()
code = main(sys.argv[1:])
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, code, file=sys.stderr)
"""


def measure(arguments: list[str]) -> tuple[float, float]:
    done = subprocess.run([sys.executable, "-c", CHILD, *arguments], capture_output=True, text=True)
    seconds, peak, code = done.stderr.split()[-3:]
    if code != "0":
        sys.exit(f"polytile {' '.join(arguments)} failed:\n{done.stderr}")
    return float(seconds), float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average), {time.strftime('%Y-%m-%d %H:%M')}")
    common = ["solve", str(PIPELINE), "--backend", "exactcover", "-q", "--force"]
    print(f"{'route':<32} {'seconds':>8} {'peak MB':>8} {'file size':>12}")
    with tempfile.TemporaryDirectory() as folder:
        routes = {
            "count only (no file)": [*common, "--mode", "count"],
            "--mode all -o all.json": [*common, "--mode", "all", "-o", f"{folder}/all.json"],
            "--mode all -o all.jsonl": [*common, "--mode", "all", "-o", f"{folder}/all.jsonl"],
        }
        for name, route in routes.items():
            runs = [measure(route) for _ in range(arguments.repeat)]
            size = ""
            if "-o" in route:
                path = Path(route[route.index("-o") + 1])
                size = f"{path.stat().st_size:,} B"
                if path.suffix == ".jsonl":
                    closing = json.loads(path.read_text().splitlines()[-1])
                else:
                    closing = json.loads(path.read_text())
                if closing["count"] != 9356:  # Haselgrove 1960 (docs/oracles.md)
                    sys.exit(f"{name}: counted {closing['count']}, not 9,356")
            seconds = statistics.median(run[0] for run in runs)
            peak = statistics.median(run[1] for run in runs)
            print(f"{name:<32} {seconds:>8.2f} {peak:>8.0f} {size:>12}")
        print(f"the same .json in the earlier layout (a table per piece, indented): {earlier_size(folder):,} B")


def earlier_size(folder: str) -> int:
    """The size the listing took before solutions were stored compactly."""
    from polytile_core.convert import CONVERTER
    from polytile_core.output.reading import read_result

    result = read_result(Path(folder) / "all.json")
    data = CONVERTER.unstructure(result)
    data["gap"] = result.gap
    return len(json.dumps(data, indent=1)) + 1


if __name__ == "__main__":
    main()
