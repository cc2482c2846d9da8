"""ChessPosition KB installs like a well-kept Python tool: one import namespace (`chesskb`), every module
in the wheel, no packaging warnings, and a wheel that works in a fresh virtual environment."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.pgn_slices import write_games

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
#: The client's folders and where pyproject.toml installs them.
MAPPED = {
    "kb": "chesskb.kb",
    "ontology": "chesskb.ontology",
    "queries": "chesskb.queries",
    "service": "chesskb.service",
}


def _setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_python_package_is_listed_under_the_chesskb_namespace() -> None:
    config = _setuptools_config()
    for folder in MAPPED:  # the client's folders stay at the top; chesskb/<folder> links to each
        link = ROOT / "chesskb" / folder
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve()
    on_disk = {"chesskb"} | {
        ".".join([MAPPED[top], *init.parent.relative_to(ROOT / top).parts])
        for top in MAPPED
        for init in (ROOT / top).rglob("__init__.py")
    }
    listed = set(config["packages"])
    assert on_disk - listed == set(), "packages missing from pyproject.toml: a plain `pip install .` drops them"
    assert all(name == "chesskb" or name.startswith("chesskb.") for name in listed)


def test_no_module_imports_the_old_top_level_names() -> None:
    offenders = []
    for path in [*ROOT.glob("*/**/*.py")]:
        if ".venv" in path.parts or "build" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(
                (
                    "from kb",
                    "import kb",
                    "from service",
                    "import service",
                    "from queries",
                    "import queries",
                    "from ontology",
                    "import ontology",
                )
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {stripped}")
    assert offenders == [], "\n".join(offenders)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `python -m build --wheel` makes from this checkout (its output is checked for warnings)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PIP_NO_INPUT": "1"},
    )
    if done.returncode != 0 and "No module named build" in done.stderr:
        pytest.skip("the `build` package is in the test extra (scripts/setup.sh installs it)")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    noisy = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if ("warning" in line.lower() or "!!" in line)
        and "byte-compiling is disabled" not in line
        and "Location '" not in line
    ]  # pip's notice about this machine's unused local package indexes
    assert noisy == [], "\n".join(noisy[:40])
    (wheel_file,) = out.glob("chesskb-*.whl")
    return wheel_file


@pytest.mark.slow
def test_the_wheel_installs_only_chesskb_and_imports_the_shipped_data(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    # A fresh environment without pip of its own: the test's pip installs into it (``pip --python``), the
    # same install as the environment's own pip would make, without seeding pip and setuptools first.
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    python = env_dir / "bin" / "python"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    ours = {entry.name for entry in site.iterdir()} - _names_installed_by_dependencies(python, site)
    assert {name for name in ours if not name.startswith("chesskb-")} == {"chesskb"}
    for legacy in ("kb", "service", "queries", "ontology"):
        assert not (site / legacy).exists()

    chesskb = env_dir / "bin" / "chesskb"
    version = subprocess.run([str(chesskb), "--version"], capture_output=True, text=True, check=True).stdout
    from chesskb import __version__

    assert __version__ in version

    store = tmp_path / "store"
    # A few games and puzzles of the shipped files: what is checked is that the installed command reads
    # both formats and finds its package data, which any size shows (the data store imports them whole).
    puzzle_lines = (ROOT / "data" / "lichess" / "puzzles.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "puzzles.csv").write_text("".join(puzzle_lines[:6]), encoding="utf-8")
    pgn = write_games(ROOT / "data" / "pychess" / "mate_in_2.pgn", range(4), inputs / "mate_in_2.pgn")
    files = [str(pgn), str(inputs / "puzzles.csv")]
    # Run from an empty folder so nothing of the checkout can be imported by accident.
    imported = subprocess.run(
        [str(chesskb), "--store", str(store), "import", "--jobs", "1", *files],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "CHESSKB_ENGINE": "none"},
    )
    assert imported.returncode == 0, imported.stderr[-3000:]
    counted = subprocess.run(
        [
            str(chesskb),
            "--store",
            str(store),
            "query",
            "--format",
            "csv",
            "SELECT (COUNT(?m) AS ?n) WHERE { ?m a cp:Match }",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    import chess.pgn

    with open(files[0], encoding="utf-8", errors="replace") as handle:
        games = sum(1 for _ in iter(lambda: chess.pgn.read_headers(handle), None))
    with open(files[1], encoding="utf-8") as handle:
        puzzles = sum(1 for _ in handle) - 1
    assert int(counted.stdout.splitlines()[1]) == games + puzzles
    # Package data (queries, ontology, templates) is found from the installed wheel.
    listed = subprocess.run(
        [str(chesskb), "queries", "--format", "json"], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert '"mate-in-one"' in listed.stdout


def _names_installed_by_dependencies(python: Path, site: Path) -> set[str]:
    """Top-level entries of site-packages that belong to other distributions than chesskb."""
    script = (
        "import importlib.metadata as m, pathlib\n"
        "for d in m.distributions():\n"
        "    if d.metadata['Name'].lower() == 'chesskb':\n        continue\n"
        "    for f in d.files or []:\n        print(pathlib.PurePath(f).parts[0])\n"
    )
    done = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=True)
    return set(done.stdout.split()) | {"__pycache__", "_distutils_hack", "distutils-precedence.pth"}


def test_the_app_and_the_command_load_nothing_under_the_old_names() -> None:
    """Blueprints and commands named by strings are found under chesskb too: a module loaded twice (as
    ``service.x`` and ``chesskb.service.x``) has two ``ServiceError`` classes and answers 500."""
    script = (
        "import sys\nfrom chesskb.service.app import create_app\nfrom chesskb.service.cli import cli\n"
        "create_app({'STORE': sys.argv[1], 'QUERY_WORKERS': 0, 'PAGE_WORKERS': 0})\n"
        "cli.main(['--help'], standalone_mode=False)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'kb', 'service', 'queries', 'ontology'}))\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", script, str(Path(tmp) / "store")],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )  # where the bare folder names are importable
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
