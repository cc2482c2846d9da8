"""Damage copies of a store and see what ``chesskb stats`` does under a memory bound (issue 18.6).

Each trial copies the store, changes 8 random bytes in one random RocksDB table file of the live
generation and runs ``prlimit --as=BYTES chesskb --store COPY stats``. ``--without-manifest`` deletes
the generation's manifest first, which is what a store without the check at open did.

    .venv/bin/chesskb --store /tmp/damage-src import data/games/kasparov-deep-blue-1997.pgn
    .venv/bin/python bench/damaged_store.py /tmp/damage-src --trials 30 [--without-manifest]
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chesskb.kb.store.manifest import MANIFEST


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--memory", type=int, default=2_000_000_000, help="address-space bound in bytes")
    parser.add_argument("--without-manifest", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    chesskb = str(Path(sys.executable).with_name("chesskb"))
    outcomes: collections.Counter[str] = collections.Counter()
    slowest = 0.0
    with tempfile.TemporaryDirectory(prefix="chesskb-damage-") as tmp:
        for trial in range(args.trials):
            copy = Path(tmp) / f"s{trial}"
            shutil.copytree(args.store, copy, symlinks=True)
            generation = copy / os.readlink(copy / "CURRENT")
            if args.without_manifest:
                (generation / MANIFEST).unlink(missing_ok=True)
            victim = rng.choice(sorted(generation.glob("*.sst")))
            data = bytearray(victim.read_bytes())
            for _ in range(8):
                data[rng.randrange(len(data))] ^= 1 + rng.randrange(255)
            victim.write_bytes(bytes(data))
            started = time.monotonic()
            result = subprocess.run(
                ["prlimit", f"--as={args.memory}", chesskb, "--store", str(copy), "stats"],
                capture_output=True,
                text=True,
                timeout=600,
            )
            slowest = max(slowest, time.monotonic() - started)
            err = result.stderr
            outcomes[
                "refused: the store is damaged"
                if "store is damaged" in err
                else "aborted: memory allocation failed"
                if "memory allocation" in err
                else "error: RocksDB corruption"
                if "Corruption" in err
                else "exit 0: damage not noticed"
                if result.returncode == 0
                else f"other (exit {result.returncode})"
            ] += 1
            shutil.rmtree(copy)
    print(dict(outcomes), f"slowest {slowest:.2f} s")


if __name__ == "__main__":
    main()
