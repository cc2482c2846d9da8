"""The README's sample session cannot go stale: ``scripts/readme_sample.py --check`` runs its commands
for real and compares their output (games, sources, quads, IRIs, rows; the timings masked, the export's
byte count within a few bytes) with what the README shows."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.shared_proofs import proofs_of_the_run


@pytest.mark.slow
def test_the_readme_sample_is_what_the_commands_print(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Its import shares the run's mate proofs (``tests.shared_proofs``): the session stores import the same
    collections, and no line of the sample says who proved a mate."""
    with proofs_of_the_run(tmp_path_factory):
        done = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "readme_sample.py"), "--check"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr


def test_only_the_timings_and_the_bytes_tolerance_are_masked() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import readme_sample
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    line = "imported 439 games into 4 sources: … (1 skipped with errors, 48259 quads, 18.6 s, 24 games/s) -> kb"
    assert readme_sample.masked(line) == (
        "imported 439 games into 4 sources: … (1 skipped with errors, 48259 quads, <seconds>, <rate>) -> kb"
    )
    assert readme_sample.masked(line.replace("48259", "48260")) != readme_sample.masked(line)
    slow = line.replace("24 games/s", "9.29 games/s")  # under ten games a second the rate has decimals
    assert readme_sample.masked(slow) == readme_sample.masked(line)
    wrote = "wrote kb.owl (3,516,950 bytes)"
    assert readme_sample.same_sample(wrote, wrote.replace("950", "949"))
    assert not readme_sample.same_sample(wrote, wrote.replace("3,516", "3,517"))
