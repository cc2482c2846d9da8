"""mypy over the whole package (``pyproject.toml``, ``[tool.mypy]``), against a baseline that may only shrink.

``kb/``, ``queries/`` and ``service/`` have no mypy error, and any error there fails the test: the baseline cannot
hold one (issue 37). ``.mypy-baseline.txt`` is kept for the rest of the package (``chesskb/*.py``, ``ontology/``),
empty now: one line per allowed error as ``path: message  [code]`` (no line numbers, so an edit above an old error
does not move it), for a stricter setting turned on before every error it finds is fixed. A new error fails the
test; so does a baseline line that no longer happens, so the file shrinks as errors are fixed.

After fixing errors, or to see the list: ``python tests/test_types.py --write-baseline``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".mypy-baseline.txt"
#: Packages with no mypy error at all: an error here fails whatever the baseline says.
ERROR_FREE = ("chesskb/kb/", "chesskb/queries/", "chesskb/service/")
#: The flags the whole package is checked under (``[tool.mypy]``): every function annotated, every generic with its
#: type arguments, and no untyped library value returned as a typed one. mypy cannot report what a looser setting
#: hides, so the settings are checked too.
STRICT_FLAGS = ("disallow_untyped_defs", "disallow_any_generics", "warn_return_any")
_ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*?)\s+\[(?P<code>[a-z-]+)\]$")


@lru_cache(maxsize=1)
def mypy_errors() -> Counter[str]:
    """Each error mypy reports, as a baseline line, with how often it occurs (one run serves every test)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-error-summary",
            "--hide-error-context",
            "--no-pretty",
            "--show-error-codes",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed to run: {done.stderr[-2000:] or done.stdout[-2000:]}")
    found: Counter[str] = Counter()
    for line in done.stdout.splitlines():
        error = _ERROR.match(line.strip())
        if error:
            found[f"{error['path']}: {error['message']}  [{error['code']}]"] += 1
    return found


def read_baseline() -> Counter[str]:
    lines = BASELINE.read_text(encoding="utf-8").splitlines() if BASELINE.exists() else []
    return Counter(line for line in lines if line and not line.startswith("#"))


def in_error_free_package(line: str) -> bool:
    return line.startswith(ERROR_FREE)


def write_baseline(errors: Counter[str]) -> None:
    """The baseline of ``errors``, leaving out those of the error-free packages (which no baseline can allow)."""
    header = [
        "# mypy errors allowed for now outside kb/, queries/ and service/ (which may have none, so they are",
        "# never listed here): may only shrink (tests/test_types.py says how to regenerate it).",
    ]
    allowed = sorted(line for line in errors.elements() if not in_error_free_package(line))
    BASELINE.write_text("\n".join(header + allowed) + "\n", encoding="utf-8")


def test_kb_queries_and_service_have_no_mypy_error() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra (scripts/setup.sh installs it)")
    found = sorted(line for line in mypy_errors().elements() if in_error_free_package(line))
    assert not found, "mypy errors in kb/, queries/ or service/ (fix them: no baseline allows them):\n" + "\n".join(
        found
    )


def test_mypy_finds_no_error_beyond_the_baseline_and_the_baseline_is_not_stale() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra (scripts/setup.sh installs it)")
    found, allowed = mypy_errors(), read_baseline()
    new = found - allowed
    assert not new, "new mypy errors (fix them; never add them to the baseline):\n" + "\n".join(sorted(new))
    fixed = allowed - found
    assert not fixed, (
        "fixed, so delete from .mypy-baseline.txt (python tests/test_types.py --write-baseline):\n"
        + "\n".join(sorted(fixed))
    )


def test_the_whole_package_is_checked_under_the_strict_flags() -> None:
    """No error found means nothing only if mypy looked: the strict flags hold for the whole package, no override
    names one of its modules (the overrides are for untyped libraries), and no file turns a check off for itself."""
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert {flag: settings.get(flag) for flag in STRICT_FLAGS} == dict.fromkeys(STRICT_FLAGS, True)
    for override in settings.get("overrides", []):
        modules = [override["module"]] if isinstance(override["module"], str) else override["module"]
        assert not [m for m in modules if m.split(".")[0] == "chesskb"], f"an override loosens the package: {override}"
    for folder in ("kb", "queries", "service", "ontology"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"^# *mypy:|^# *type: *ignore\b", text, re.MULTILINE), f"{path}: checks turned off"


def test_the_baseline_only_names_real_errors_in_checked_files() -> None:
    """A hand-edited baseline line that is not an error line would allow nothing and hide nothing; one in kb/,
    queries/ or service/ would allow what the packages may not have."""
    for line in read_baseline():
        path = line.split(":", 1)[0]
        assert (ROOT / path).is_file() and re.search(r"  \[[a-z-]+\]$", line), line
        assert not in_error_free_package(line), f"kb/, queries/ and service/ may have no mypy error: {line}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-baseline"]:
        errors = mypy_errors()
        write_baseline(errors)
        per_package = Counter(line.split("/")[1] for line in errors.elements())
        print(
            f"mypy errors per package: {dict(sorted(per_package.items()))}; written to {BASELINE.name}: "
            f"{sum(1 for line in errors.elements() if not in_error_free_package(line))}"
        )
        if any(in_error_free_package(line) for line in errors):
            sys.exit("kb/, queries/ or service/ have mypy errors, which no baseline allows: fix them")
    else:
        sys.exit("usage: python tests/test_types.py --write-baseline")
