"""Interface strings in English and Spanish, and Spanish piece letters for moves (seed-000 §10.1).

The language comes from ``?lang=`` (``en`` default, ``es``); every page passes it on in its links.
Class and property labels are not here: the ontology carries them in both languages.
"""

from __future__ import annotations

from flask import request

LANGUAGES = ("en", "es")

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "home": "Home", "themes": "Themes", "search": "Search", "questions": "Questions",
        "position": "Position", "white": "White", "black": "Black",
        "to_move": "to move", "side_to_move": "Side to move",
        "castling": "Castling rights", "kingside": "short (O-O)", "queenside": "long (O-O-O)",
        "yes": "yes", "no": "no", "en_passant": "En passant square", "none": "none",
        "halfmove": "Moves without capture or pawn move (half-move clock)", "move_number": "Move number",
        "game_data": "Game data", "classes": "Themes of this position", "solution": "Solution",
        "show_solution": "Show the solution", "solve": "Solve it on the board",
        "solve_help": "Click a piece, then the square to move it to.",
        "wrong": "That is not the move.", "correct": "Correct.", "solved": "Solved!",
        "your_turn": "Your move.", "attempts": "Attempts", "solved_count": "Solved",
        "restart": "Start again", "properties": "Properties", "linked_data": "Linked data",
        "event": "Event", "site": "Site", "date": "Date", "round": "Round", "result": "Result",
        "opening": "Opening", "variation": "Variation", "eco": "ECO", "annotator": "Annotator",
        "termination": "Termination", "time_control": "Time control", "title": "Title", "elo": "Elo",
        "fen": "FEN", "source": "Source", "game": "Game", "puzzle_rating": "Puzzle rating",
        "positions": "Positions", "games": "Games", "count": "positions", "page": "Page",
        "next": "Next", "previous": "Previous", "opponent": "Opponent", "colour": "Colour",
        "name_variants": "Names used", "ratings": "Ratings", "standings": "Standings",
        "points": "Points", "played": "Played", "player": "Player", "players": "Players",
        "events": "Events", "sources": "Sources", "openings": "Openings",
        "search_help": "Player, event, opening, ECO code or FEN", "results": "Results",
        "find": "Find by pattern", "find_similar": "Find similar positions", "pattern": "Pattern",
        "pattern_help": "Drag pieces onto the board (or click a piece, then a square); drag a piece off the "
                        "board to remove it. Or type: Nf5 kg8 R*7 (* any file or rank, !Pe4 no white pawn on "
                        "e4) or a FEN-form board such as */*/*/*/???PP???/*/*/*.",
        "any_side": "either", "material": "Material", "material_help": "e.g. KRP-KR; + after a side: at least",
        "either_colour": "Either colour (also the colour-flipped pattern)", "clear_board": "Clear the board",
        "remove_piece": "Remove", "save_url": "This page's address is the search: bookmark it to come back.",
        "no_results": "Nothing found.", "original_text": "As written in the source",
        "theme_tree": "Theme classes", "with_subclasses": "including subclasses",
        "welcome": "Didactic chess positions as a linked knowledge base: browse by theme, solve "
                   "on the board, query with SPARQL.",
        "sparql": "SPARQL", "browse_themes": "Browse the themes", "not_found": "Not found",
        "players_in": "Players", "in_games": "Appears in", "board": "Board",
        "language": "Español", "type_move": "Or type your move (Nf3, e8=Q or g1f3)", "play": "Play",
        "left_book": "You left the book at move {n}: the book move is {san}.",
        "courses": "Courses", "chapter": "Chapter", "level": "Level", "beginner": "beginner",
        "intermediate": "intermediate", "advanced": "advanced", "locked": "Locked: pass the previous chapter",
        "passed": "Passed", "pass_at": "Passed at", "solved_of": "solved", "export_progress": "Save my progress",
        "import_progress": "Load my progress", "progress_note": "Your progress stays in this browser; "
        "save it to a file to take it to another one.",
    },
    "es": {
        "home": "Inicio", "themes": "Temas", "search": "Buscar", "questions": "Preguntas",
        "position": "Posición", "white": "Blancas", "black": "Negras",
        "to_move": "juegan", "side_to_move": "Turno",
        "castling": "Enroques posibles", "kingside": "corto (O-O)", "queenside": "largo (O-O-O)",
        "yes": "sí", "no": "no", "en_passant": "Casilla de captura al paso", "none": "ninguna",
        "halfmove": "Movimientos sin captura ni avance de peón", "move_number": "Número de movimiento",
        "game_data": "Datos de la partida", "classes": "Temas de esta posición", "solution": "Solución",
        "show_solution": "Ver la solución", "solve": "Resuélvela en el tablero",
        "solve_help": "Pulsa una pieza y luego la casilla a la que va.",
        "wrong": "Esa no es la jugada.", "correct": "Correcto.", "solved": "¡Resuelto!",
        "your_turn": "Te toca.", "attempts": "Intentos", "solved_count": "Resueltos",
        "restart": "Empezar de nuevo", "properties": "Propiedades", "linked_data": "Datos enlazados",
        "event": "Evento", "site": "Lugar", "date": "Fecha", "round": "Ronda", "result": "Resultado",
        "opening": "Apertura", "variation": "Variante", "eco": "ECO", "annotator": "Comentarista",
        "termination": "Final", "time_control": "Ritmo de juego", "title": "Título", "elo": "Elo",
        "fen": "FEN", "source": "Fuente", "game": "Partida", "puzzle_rating": "Valoración del problema",
        "positions": "Posiciones", "games": "Partidas", "count": "posiciones", "page": "Página",
        "next": "Siguiente", "previous": "Anterior", "opponent": "Rival", "colour": "Color",
        "name_variants": "Nombres usados", "ratings": "Valoraciones", "standings": "Clasificación",
        "points": "Puntos", "played": "Jugadas", "player": "Jugador", "players": "Jugadores",
        "events": "Eventos", "sources": "Fuentes", "openings": "Aperturas",
        "search_help": "Jugador, evento, apertura, código ECO o FEN", "results": "Resultados",
        "find": "Buscar por patrón", "find_similar": "Buscar posiciones parecidas", "pattern": "Patrón",
        "pattern_help": "Arrastra piezas al tablero (o pulsa una pieza y luego una casilla); saca una pieza del "
                        "tablero para quitarla. O escribe: Nf5 kg8 R*7 (* cualquier columna o fila, !Pe4 sin peón "
                        "blanco en e4) o un tablero en forma FEN como */*/*/*/???PP???/*/*/*. Las letras son las "
                        "inglesas (K rey, Q dama, R torre, B alfil, N caballo, P peón).",
        "any_side": "cualquiera", "material": "Material", "material_help": "p. ej. KRP-KR; + tras un bando: al menos",
        "either_colour": "Cualquier color (también el patrón con los colores invertidos)",
        "clear_board": "Vaciar el tablero", "remove_piece": "Quitar",
        "save_url": "La dirección de esta página es la búsqueda: guárdala en marcadores para volver.",
        "no_results": "No se encontró nada.", "original_text": "Tal como lo escribe la fuente",
        "theme_tree": "Clases de temas", "with_subclasses": "incluidas las subclases",
        "welcome": "Posiciones didácticas de ajedrez como base de conocimiento enlazada: explora por "
                   "tema, resuelve en el tablero, consulta con SPARQL.",
        "sparql": "SPARQL", "browse_themes": "Explorar los temas", "not_found": "No encontrado",
        "players_in": "Jugadores", "in_games": "Aparece en", "board": "Tablero",
        "language": "English", "type_move": "O escribe tu jugada (Cf3, e8=D o g1f3)", "play": "Jugar",
        "left_book": "Te saliste del libro en la jugada {n}: la jugada de libro es {san}.",
        "courses": "Cursos", "chapter": "Capítulo", "level": "Nivel", "beginner": "principiante",
        "intermediate": "intermedio", "advanced": "avanzado", "locked": "Bloqueado: aprueba el capítulo anterior",
        "passed": "Aprobado", "pass_at": "Se aprueba con", "solved_of": "resueltos",
        "export_progress": "Guardar mi progreso", "import_progress": "Cargar mi progreso",
        "progress_note": "Tu progreso se queda en este navegador; guárdalo en un fichero para llevarlo a otro.",
    },
}

#: English SAN piece letters -> Spanish (Rey, Dama, Torre, Alfil, Caballo); files are lower case.
_SPANISH_PIECES = str.maketrans({"K": "R", "Q": "D", "R": "T", "B": "A", "N": "C"})


def current_lang() -> str:
    """The request's interface language (``?lang=es``); English when absent or unknown."""
    value = (request.args.get("lang") or "").lower()[:2]
    return value if value in LANGUAGES else "en"


def strings(lang: str) -> dict[str, str]:
    return STRINGS.get(lang, STRINGS["en"])


def localise_san(san: str, lang: str) -> str:
    """A SAN move with the language's piece letters (``Nf3`` -> ``Cf3``, ``e8=Q`` -> ``e8=D``).

    Only upper-case letters name pieces in SAN; castling (``O-O``) has none of them.
    """
    return san.translate(_SPANISH_PIECES) if lang == "es" else san
