"""How long ``chesskb --version`` and ``chesskb --help`` take from a fresh interpreter (issue 34 item 6,
issue 37): the time a user waits before anything happens, and what every shell completion or script pays.

Each command runs ``--runs`` times, the commands interleaved so a busy machine slows each alike; the
figures are the minimum (what the code costs) and the median (what a user saw). Also counts the modules
``import chesskb.service.cli`` loads. Which code is measured follows ``PYTHONPATH`` (e.g. an older commit
unpacked with ``git archive``), as in the other benches.

    python bench/cli_startup.py --runs 20
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {"--version": ["--version"], "--help": ["--help"]}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    base = [sys.executable, "-m", "chesskb"]
    seconds: dict[str, list[float]] = {name: [] for name in COMMANDS}
    seconds["python -c pass"] = []
    for _ in range(args.runs):
        for name, extra in COMMANDS.items():
            seconds[name].append(timed(base + extra))
        seconds["python -c pass"].append(timed([sys.executable, "-c", "pass"]))
    for name, values in seconds.items():
        print(f"{name:<16} min {min(values):.3f} s  median {statistics.median(values):.3f} s  ({args.runs} runs)")
    count = subprocess.run([sys.executable, "-c", "import sys, chesskb.service.cli; print(len(sys.modules))"],
                           check=True, capture_output=True, text=True).stdout.strip()
    print(f"modules loaded by `import chesskb.service.cli`: {count}")


if __name__ == "__main__":
    main()
