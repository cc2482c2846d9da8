"""Writes seed-001-openings.pgn: the 19 openings seed 001's course included, one main line each, with
a comment giving the reason for every move (seed 001 §7.3: "a comment and the reason for every move").

The lines are the standard main lines (ECO as in shared/spec/seeds-001-004.md §1.7); the comments
are ours. Run it to regenerate the file; python-chess checks every move as it is written.
"""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn

OPENINGS: list[tuple[str, str, str, list[tuple[str, str]]]] = [
    (
        "Apertura Española",
        "Ruy Lopez",
        "C84",
        [
            ("e4", "Takes the centre and opens lines for the queen and the king's bishop."),
            ("e5", "Black claims an equal share of the centre."),
            ("Nf3", "Develops with an attack on e5."),
            ("Nc6", "Defends e5 while developing."),
            ("Bb5", "Pressure on the defender of e5: the Spanish idea."),
            ("a6", "Asks the bishop at once where it wants to go."),
            ("Ba4", "Keeps the pin-like pressure on c6."),
            ("Nf6", "Develops and counterattacks e4."),
            ("O-O", "The king is safe and e4 is indirectly defended."),
            ("Be7", "The Closed Spanish: Black prepares to castle."),
        ],
    ),
    (
        "Defensa de los dos Caballos",
        "Two Knights Defence",
        "C58",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("Nf3", "Attacks e5."),
            ("Nc6", "Defends it."),
            ("Bc4", "Aims at f7, the weakest point of Black's camp."),
            ("Nf6", "Black counterattacks e4 instead of guarding f7."),
            ("Ng5", "Double attack on f7 with knight and bishop."),
            ("d5", "Blocks the bishop's diagonal at the cost of a pawn."),
            ("exd5", "Wins the pawn back and opens the e-file."),
            ("Na5", "Hits the bishop: Black gains time for the pawn."),
        ],
    ),
    (
        "Apertura Italiana",
        "Italian Game",
        "C54",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("Nf3", "Attacks e5."),
            ("Nc6", "Defends it."),
            ("Bc4", "The bishop aims at f7."),
            ("Bc5", "Black mirrors: his bishop aims at f2."),
            ("c3", "Prepares d4 to build a full pawn centre."),
            ("Nf6", "Counterattacks e4 before White plays d4."),
            ("d4", "Strikes in the centre."),
            ("exd4", "Black must take: e5 is attacked twice."),
            ("cxd4", "White has the ideal centre of e4 and d4."),
            ("Bb4+", "Black gains time with a check."),
        ],
    ),
    (
        "Apertura Escocesa",
        "Scotch Game",
        "C45",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("Nf3", "Attacks e5."),
            ("Nc6", "Defends it."),
            ("d4", "Opens the centre at once: the Scotch."),
            ("exd4", "Black gives up the centre pawn for free development."),
            ("Nxd4", "Recaptures with a centralised knight."),
            ("Nf6", "Develops with an attack on e4."),
            ("Nxc6", "Exchanges to weaken Black's pawns."),
            ("bxc6", "Towards the centre: the c-pawns are doubled but control d5."),
            ("e5", "Drives the knight from f6."),
            ("Qe7", "Pins the e5 pawn against the king: the Mieses Variation."),
        ],
    ),
    (
        "Variante de la Apertura Escocesa",
        "Scotch Game, Classical Variation",
        "C45",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("Nf3", "Attacks e5."),
            ("Nc6", "Defends it."),
            ("d4", "Opens the centre."),
            ("exd4", "Takes the pawn."),
            ("Nxd4", "Centralised knight."),
            ("Bc5", "Attacks the knight on d4: the Classical Variation."),
            ("Be3", "Defends the knight and develops."),
            ("Qf6", "Adds a third attacker to d4."),
            ("c3", "Supports the knight with a pawn."),
            ("Nge7", "Develops, keeping f6 for the queen."),
        ],
    ),
    (
        "Gambito de Rey",
        "King's Gambit",
        "C39",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("f4", "Offers a pawn to deflect e5 and open the f-file."),
            ("exf4", "Accepting: Black wins a pawn and keeps White's king side open."),
            ("Nf3", "Stops Qh4+ and prepares to take back on f4."),
            ("g5", "Defends the extra pawn."),
            ("h4", "Undermines the g5 pawn at once."),
            ("g4", "Attacks the knight."),
            ("Ne5", "The Kieseritzky Gambit: the knight jumps to the centre."),
        ],
    ),
    (
        "Gambito Evans",
        "Evans Gambit",
        "C52",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("Nf3", "Attacks e5."),
            ("Nc6", "Defends it."),
            ("Bc4", "Aims at f7."),
            ("Bc5", "Aims at f2."),
            ("b4", "A pawn to deflect the bishop and gain time for c3 and d4."),
            ("Bxb4", "Accepts the gambit."),
            ("c3", "Attacks the bishop and prepares d4."),
            ("Ba5", "Keeps the bishop on the a5-e1 diagonal."),
            ("d4", "The centre opens with White ahead in development."),
            ("exd4", "Black takes a second pawn."),
            ("O-O", "Safety first; the lead in development is White's compensation."),
        ],
    ),
    (
        "Defensa Siciliana",
        "Sicilian Defence",
        "B56",
        [
            ("e4", "Centre and open lines."),
            ("c5", "Controls d4 from the side and unbalances the game."),
            ("Nf3", "Prepares d4."),
            ("d6", "Keeps e5 covered and frees the bishop."),
            ("d4", "Opens the centre."),
            ("cxd4", "Trades a wing pawn for a centre pawn."),
            ("Nxd4", "Centralised knight; Black has the half-open c-file."),
            ("Nf6", "Attacks e4."),
            ("Nc3", "Defends e4 and develops."),
        ],
    ),
    (
        "Defensa Siciliana de Paulsen",
        "Sicilian Defence, Paulsen (Kan) Variation",
        "B42",
        [
            ("e4", "Centre and open lines."),
            ("c5", "The Sicilian."),
            ("Nf3", "Prepares d4."),
            ("e6", "Opens the bishop's diagonal and keeps d5 covered."),
            ("d4", "Opens the centre."),
            ("cxd4", "Takes the centre pawn."),
            ("Nxd4", "Centralised knight."),
            ("a6", "The Kan: keeps the knight and bishop out of b5, prepares b5."),
            ("Bd3", "Defends e4 and eyes the king's side."),
        ],
    ),
    (
        "Defensa Siciliana de Paulsen modificada",
        "Sicilian Defence, Taimanov Variation",
        "B47",
        [
            ("e4", "Centre and open lines."),
            ("c5", "The Sicilian."),
            ("Nf3", "Prepares d4."),
            ("e6", "Flexible: keeps d5 covered."),
            ("d4", "Opens the centre."),
            ("cxd4", "Takes the centre pawn."),
            ("Nxd4", "Centralised knight."),
            ("Nc6", "Challenges the knight on d4: the Taimanov."),
            ("Nc3", "Develops and covers d5 and b5."),
            ("Qc7", "Controls e5 and prepares queenside play."),
        ],
    ),
    (
        "Defensa Siciliana de Boleslavsky",
        "Sicilian Defence, Boleslavsky Variation",
        "B58",
        [
            ("e4", "Centre and open lines."),
            ("c5", "The Sicilian."),
            ("Nf3", "Prepares d4."),
            ("Nc6", "Develops and watches d4."),
            ("d4", "Opens the centre."),
            ("cxd4", "Takes the centre pawn."),
            ("Nxd4", "Centralised knight."),
            ("Nf6", "Attacks e4."),
            ("Nc3", "Defends e4."),
            ("d6", "Solid: covers e5."),
            ("Be2", "A quiet development, ready to castle."),
            ("e5", "Boleslavsky's idea: drives the knight away and accepts a hole on d5 for space."),
        ],
    ),
    (
        "Defensa Siciliana de Rauzer",
        "Sicilian Defence, Richter-Rauzer Attack",
        "B66",
        [
            ("e4", "Centre and open lines."),
            ("c5", "The Sicilian."),
            ("Nf3", "Prepares d4."),
            ("Nc6", "Develops."),
            ("d4", "Opens the centre."),
            ("cxd4", "Takes the centre pawn."),
            ("Nxd4", "Centralised knight."),
            ("Nf6", "Attacks e4."),
            ("Nc3", "Defends e4."),
            ("d6", "Covers e5."),
            ("Bg5", "Richter's move: pins the knight and stops ...g6."),
            ("e6", "Solid: unpins with ...Be7 next."),
            ("Qd2", "Rauzer's plan: long castling and a king's-side attack."),
        ],
    ),
    (
        "Defensa Siciliana de Fischer",
        "Sicilian Defence, Najdorf, Fischer-Sozin Attack",
        "B87",
        [
            ("e4", "Centre and open lines."),
            ("c5", "The Sicilian."),
            ("Nf3", "Prepares d4."),
            ("d6", "Covers e5."),
            ("d4", "Opens the centre."),
            ("cxd4", "Takes the centre pawn."),
            ("Nxd4", "Centralised knight."),
            ("Nf6", "Attacks e4."),
            ("Nc3", "Defends e4."),
            ("a6", "The Najdorf: controls b5, prepares ...e5 or ...b5."),
            ("Bc4", "Fischer's favourite: the bishop aims at e6 and f7."),
        ],
    ),
    (
        "Gambito Escocés",
        "Scotch Gambit",
        "C44",
        [
            ("e4", "Centre and open lines."),
            ("e5", "Equal share of the centre."),
            ("Nf3", "Attacks e5."),
            ("Nc6", "Defends it."),
            ("d4", "Opens the centre."),
            ("exd4", "Takes the pawn."),
            ("Bc4", "The gambit: development first, the pawn can wait."),
            ("Bc5", "Black guards the extra pawn with the bishop."),
            ("O-O", "White castles and threatens c3 to open lines."),
            ("d6", "Solid: keeps the bishop's retreat and frees the other bishop."),
            ("c3", "Offers a second pawn to open the centre."),
        ],
    ),
    (
        "Defensa Francesa",
        "French Defence",
        "C13",
        [
            ("e4", "Centre and open lines."),
            ("e6", "Prepares ...d5 with a solid pawn chain."),
            ("d4", "Takes the full centre."),
            ("d5", "Challenges e4 at once."),
            ("Nc3", "Defends e4 and develops."),
            ("Nf6", "Attacks e4 again."),
            ("Bg5", "Pins the knight that attacks e4."),
            ("Be7", "Breaks the pin."),
            ("e5", "Gains space and drives the knight back."),
            ("Nfd7", "Black will attack the chain with ...c5 and ...f6."),
        ],
    ),
    (
        "Defensa Ufimsev",
        "Pirc Defence",
        "B08",
        [
            ("e4", "Centre and open lines."),
            ("d6", "Lets White build a centre, planning to attack it later."),
            ("d4", "Takes the full centre."),
            ("Nf6", "Attacks e4."),
            ("Nc3", "Defends e4."),
            ("g6", "Prepares the fianchetto."),
            ("Nf3", "The Classical system: simple development."),
            ("Bg7", "The bishop presses on the long diagonal toward d4."),
            ("Be2", "Ready to castle."),
            ("O-O", "King safety first."),
            ("O-O", "Both kings are safe; the fight is for the centre."),
        ],
    ),
    (
        "Defensa Escandinava",
        "Scandinavian Defence",
        "B01",
        [
            ("e4", "Centre and open lines."),
            ("d5", "Challenges e4 at once."),
            ("exd5", "Takes the pawn."),
            ("Qxd5", "Recaptures, accepting the loss of time."),
            ("Nc3", "Develops with tempo on the queen."),
            ("Qa5", "The queen stays active and pins c3 against the king."),
            ("d4", "Takes the centre."),
            ("Nf6", "Develops."),
            ("Nf3", "Develops."),
            ("c6", "Gives the queen a retreat and secures d5 and b5."),
        ],
    ),
    (
        "Defensa Alekhine",
        "Alekhine's Defence",
        "B05",
        [
            ("e4", "Centre and open lines."),
            ("Nf6", "Provokes the pawns forward to attack them later."),
            ("e5", "Gains space with tempo."),
            ("Nd5", "The knight finds a central post."),
            ("d4", "Builds the centre."),
            ("d6", "Undermines e5 at once."),
            ("Nf3", "Supports e5 and develops."),
            ("Bg4", "Pins the defender of e5: the Modern Variation."),
            ("Be2", "Breaks the pin and prepares castling."),
            ("e6", "Solid development."),
        ],
    ),
    (
        "Defensa Caro Kann",
        "Caro-Kann Defence",
        "B18",
        [
            ("e4", "Centre and open lines."),
            ("c6", "Prepares ...d5 while keeping the light-squared bishop free."),
            ("d4", "Takes the full centre."),
            ("d5", "Challenges e4."),
            ("Nc3", "Defends e4."),
            ("dxe4", "Black gives up the centre for free development."),
            ("Nxe4", "Centralised knight."),
            ("Bf5", "The bishop develops outside the pawn chain with tempo."),
            ("Ng3", "Chases the bishop."),
            ("Bg6", "Keeps the bishop on the diagonal."),
            ("h4", "Threatens h5 to trap or drive the bishop."),
            ("h6", "Gives the bishop a square on h7."),
        ],
    ),
]


def build() -> str:
    games = []
    for number, (name, english, eco, line) in enumerate(OPENINGS, start=1):
        game = chess.pgn.Game()
        game.headers.update(
            {
                "Event": "Seed 001 openings",
                "Site": "?",
                "Date": "????.??.??",
                "Round": str(number),
                "White": "?",
                "Black": "?",
                "Result": "*",
                "ECO": eco,
                "Opening": english,
                "Variation": name,
                "Annotator": "ChessPosition KB",
                # a line to practise, not a game: the Themes tag makes it an exercise
                # (kb/analysis/exercises.py)
                "Themes": "PositionBegin",
            }
        )
        game.comment = f"{english} ({name}, ECO {eco}). Play the book moves; each comment says why."
        node = game
        for san, comment in line:
            node = node.add_variation(node.board().parse_san(san), comment=comment)
        games.append(str(game))
    return "\n\n".join(games) + "\n"


if __name__ == "__main__":
    target = Path(__file__).with_name("seed-001-openings.pgn")
    target.write_text(build(), encoding="utf-8")
    print(f"wrote {target} ({len(OPENINGS)} openings)")
