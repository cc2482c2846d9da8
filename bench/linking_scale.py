"""Issue 36 item 1: does importing games with many distinct players grow linearly?

Builds PGN files of N real-shaped games (the moves of the real games in tests/fixtures/candidates/, tags as
a Swiss writes them: one event per 500 games, ``Round "r.b"``, two players of their own per game, named
"Surname, Given" or "Surname,G" from syllables, so family names repeat as they do in real databases;
``--players-per-game 1.5`` lets the later games meet players already seen, as issue 36's 150,000 players in
100,000 games do),
imports each with the engine off, and prints the CPU seconds of ``chesskb import`` against python-chess
reading the same file, and their growth from one size to the next. ``--link-sizes`` also times
``kb.merge.linking.compute_links`` alone on that many synthetic players (up to a million without a store).

    CHESSKB_ENGINE=none .venv/bin/python bench/linking_scale.py --sizes 2000,10000,20000 \\
        --link-sizes 10000,100000,1000000
    CHESSKB_ENGINE=none .venv/bin/python bench/linking_scale.py --sizes 10000,100000 --players-per-game 1.5
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
REAL = [
    path for path in sorted((ROOT / "tests" / "fixtures" / "candidates").glob("*.pgn")) if not path.stem.endswith("-de")
]  # the German-lettered copy: python-chess reads English SAN
SYLLABLES = [
    "ka",
    "ri",
    "mo",
    "san",
    "tel",
    "vor",
    "gu",
    "len",
    "dra",
    "pov",
    "ski",
    "ner",
    "bal",
    "tor",
    "mil",
    "ha",
    "zu",
    "ren",
    "dal",
    "fe",
    "sor",
    "ni",
    "kov",
    "ber",
    "ma",
    "lo",
    "chi",
    "vin",
    "ta",
    "ro",
    "pe",
    "ga",
    "nu",
    "sel",
    "dor",
    "vas",
    "ik",
    "om",
    "bra",
]
GIVEN = [
    "Anna",
    "Boris",
    "Carla",
    "David",
    "Elena",
    "Farid",
    "Gita",
    "Hugo",
    "Irina",
    "Jan",
    "Karim",
    "Lena",
    "Marco",
    "Nadia",
    "Oleg",
    "Paula",
    "Rafael",
    "Sofia",
    "Tomas",
    "Ulla",
    "Victor",
    "Wei",
    "Xenia",
    "Yusuf",
    "Zoran",
    "Alireza",
    "Hikaru",
    "Liren",
    "Teimour",
    "Richard",
]
GAMES_PER_EVENT = 500


def real_movetexts() -> list[tuple[str, str]]:
    """The movetext of every real game in the fixtures (comments dropped), in SAN."""
    texts = []
    for path in REAL:
        with open(path, encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                exporter = chess.pgn.StringExporter(headers=False, comments=False, variations=False)
                texts.append((" ".join(game.accept(exporter).split()), game.headers["Result"]))
    return texts


def player_names(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names, written as a TWIC-like or a FIDE-like file writes them."""
    names: set[str] = set()
    out = []
    while len(out) < count:
        surname = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()
        given = rng.choice(GIVEN)
        key = (surname, given)
        if key in names:
            continue
        names.add(key)
        out.append(f"{surname}, {given}" if rng.random() < 0.5 else f"{surname},{given[0]}")
    return out


def player_count(size: int, players_per_game: float) -> int:
    """How many distinct players ``size`` games have: an even number, at least four, at most two per game."""
    count = min(2 * size, max(4, round(players_per_game * size)))
    return count - count % 2


def pairing(number: int, players: int) -> tuple[int, int]:
    """The two players of game ``number`` among ``players``: everyone once, then again against someone new.

    The first ``players / 2`` games each bring two new players; a game after those meets players already
    seen, white as before and black shifted by two more places on every pass, so a pair never meets twice
    in a row and the same written name stands for the same player in every game it plays.
    """
    white = 2 * number
    passes = white // players
    return white % players, (white + 1 + 2 * passes) % players


def write_corpus(size: int, path: Path, movetexts: list[tuple[str, str]], players_per_game: float = 2.0) -> int:
    """Write ``size`` games to ``path``; return how many distinct players they have."""
    rng = random.Random(size)
    players = player_count(size, players_per_game)
    names = player_names(players, rng)
    with open(path, "w", encoding="utf-8") as out:
        for number in range(size):
            text, result = movetexts[number % len(movetexts)]
            event, place = divmod(number, GAMES_PER_EVENT)
            white, black = pairing(number, players)
            out.write(
                f'[Event "Bench Open {event + 1}"]\n[Site "Somewhere"]\n[Date "2023.05.{1 + place % 9:02d}"]\n'
                f'[Round "{1 + place // 50}.{1 + place % 50}"]\n[White "{names[white]}"]\n'
                f'[Black "{names[black]}"]\n[Result "{result}"]\n\n{text}\n\n'
            )
    return players


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def reading_cpu(path: Path) -> float:
    start = time.process_time()
    with open(path, encoding="utf-8") as handle:
        while chess.pgn.read_game(handle) is not None:
            pass
    return time.process_time() - start


def import_cpu(path: Path, store: Path, code: Path | None = None) -> tuple[float, float]:
    shutil.rmtree(store, ignore_errors=True)
    env = {**os.environ, "CHESSKB_ENGINE": "none", **({"PYTHONPATH": str(code)} if code else {})}
    before, wall = cpu_of_children(), time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "import", "--jobs", "1", str(path)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return cpu_of_children() - before, time.perf_counter() - wall


def linking_cpu(size: int) -> float:
    from chesskb.kb.merge.linking import PlayerNames, compute_links
    from chesskb.kb.reading.names import name_key

    names = player_names(size, random.Random(size))
    players = [PlayerNames(f"p{k}", {name_key(n)}, {n}) for k, n in enumerate(names)]
    start = time.process_time()
    compute_links(players)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="2000,10000", help="games per imported file (comma-separated)")
    parser.add_argument(
        "--players-per-game",
        type=float,
        default=2.0,
        help="distinct players per game (2: every game two new players; 1.5: issue 36's 150k players in 100k games)",
    )
    parser.add_argument("--link-sizes", default="", help="players for compute_links alone (comma-separated)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/chesskb-bench/linking"))
    parser.add_argument(
        "--code",
        type=Path,
        help="import with the chesskb found here (an older checkout, "
        "e.g. `git archive REV | tar -x -C DIR`) to compare",
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    movetexts = real_movetexts()
    previous = None
    print(
        f"{'games':>8} {'players':>8} {'read CPU s':>10} {'import CPU s':>12} {'wall s':>7} {'ratio':>6} "
        f"{'CPU/game ms':>11} {'growth':>7}"
    )
    for size in (int(s) for s in args.sizes.split(",") if s):
        path = args.work / f"games-{size}.pgn"
        players = write_corpus(size, path, movetexts, args.players_per_game)
        read = reading_cpu(path)
        cpu, wall = import_cpu(path, args.work / f"store-{size}", args.code)
        growth = f"{cpu / previous[1] / (size / previous[0]):.2f}" if previous else "-"
        print(
            f"{size:>8} {players:>8} {read:>10.1f} {cpu:>12.1f} {wall:>7.1f} {cpu / read:>6.2f} "
            f"{1000 * cpu / size:>11.2f} {growth:>7}",
            flush=True,
        )
        previous = (size, cpu)
    previous = None
    for size in (int(s) for s in args.link_sizes.split(",") if s):
        cpu = linking_cpu(size)
        growth = f"{cpu / previous[1] / (size / previous[0]):.2f}" if previous else "-"
        print(
            f"compute_links: {size:>8} players {cpu:>7.2f} CPU s  {1e6 * cpu / size:>6.1f} µs/player  growth {growth}",
            flush=True,
        )
        previous = (size, cpu)


if __name__ == "__main__":
    main()
