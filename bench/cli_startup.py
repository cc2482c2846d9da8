"""How long ``chesskb --version`` and ``chesskb --help`` take from a fresh interpreter (issue 34 item 6,
issue 37): the time a user waits before anything happens, and what every shell completion or script pays.

Each command runs ``--runs`` times, the commands interleaved so a busy machine slows each alike; the
figures are the minimum and median wall time (what a user saw) and the median CPU time of the process
(user + system: what the code costs, much less moved by other work on a shared machine). Also counts the modules
``import chesskb.service.cli`` loads. Which code is measured follows ``PYTHONPATH`` (e.g. an older commit
unpacked with ``git archive``), as in the other benches.

    python bench/cli_startup.py --runs 20
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

COMMANDS = {"--version": ["--version"], "--help": ["--help"]}


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    base = [sys.executable, "-m", "chesskb"]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    runs["python -c pass"] = []
    for _ in range(args.runs):
        for name, extra in COMMANDS.items():
            runs[name].append(timed(base + extra))
        runs["python -c pass"].append(timed([sys.executable, "-c", "pass"]))
    for name, measured in runs.items():
        wall = [w for w, _ in measured]
        cpu = [c for _, c in measured]
        print(
            f"{name:<16} wall min {min(wall):.3f} s  median {statistics.median(wall):.3f} s  "
            f"cpu median {statistics.median(cpu):.3f} s  ({args.runs} runs)"
        )
    count = subprocess.run(
        [sys.executable, "-c", "import sys, chesskb.service.cli; print(len(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"modules loaded by `import chesskb.service.cli`: {count}")


if __name__ == "__main__":
    main()
