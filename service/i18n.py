"""Interface strings in English and Spanish, and Spanish piece letters for moves (seed-000 §10.1).

The language comes from ``?lang=`` (``en`` default, ``es``). ``register_language`` reads it once per
request (``url_value_preprocessor``) and puts it back on every URL ``url_for`` builds
(``url_defaults``), so every link of a Spanish page stays Spanish without a view or template adding
it. Class and property labels are not here: the ontology carries them in both languages. Titles of
positions, games, boards and source records are composed from data by ``service.titles`` with these
strings, on every page that names one; the English prose the importer writes into stored labels
(``Mate in one — lichess puzzle 07iKJ``) is never shown as a title nor read back.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from flask import Flask, g, has_request_context, request

from chesskb.kb.reading.notation import english_san_to

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
        "undecided": "That move could not be judged in time: try another.",
        "your_turn": "Your move.", "attempts": "Attempts", "solved_count": "Solved",
        "solved_with_help": "Solved with help. Try the next one without.", "helped_count": "With help",
        "your_rating": "Your rating", "streak": "Streak", "lead_in": "Your opponent played {move}.",
        "restart": "Start again", "properties": "Properties", "linked_data": "Linked data",
        "source_claims": "Claimed by the source", "claim_moves": "mate in {moves}",
        "claim_proven": "proven: a member of the class",
        "claim_refuted": "refuted: proven false, not a member of the class",
        "claim_undecided": "undecided: neither proven nor refuted, not a member of the class",
        "claimed_unproven": "Claimed by a source, not proven",
        "claimed_unproven_help": "A source claims these positions for this class; no proof has decided the "
                                 "claim yet, so they are not among its members.",
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
        "game_move": "{game}, move {n}", "round_n": "round {n}",
        # the home page's ways in (service/home.py)
        "start_training": "Start training", "start_training_help": "Exercises near your level; your rating "
        "stays in this browser.", "daily": "Exercise of the day", "white_to_move": "White to move",
        "black_to_move": "Black to move", "solve_it": "Solve it", "n_positions": "{n} positions",
        "one_position": "1 position", "all_themes": "All the themes", "sparql_tour": "For SPARQL users",
        "tour_questions": "Three questions to start with (each shows its query):",
        "tour_endpoint": "The SPARQL endpoint", "tour_editor": "the query editor",
        "tour_owl": "The ontology as OWL (for Protégé)", "collections": "Collections",
        "sparql": "SPARQL", "browse_themes": "Browse the themes", "not_found": "Not found",
        "players_in": "Players", "in_games": "Appears in", "board": "Board",
        "language": "Español", "type_move": "Or type your move (Nf3, e8=Q or g1f3)", "play": "Play",
        "left_book": "You left the book at move {n}: the book move is {san}.",
        "courses": "Courses", "chapter": "Chapter", "level": "Level", "beginner": "beginner",
        "intermediate": "intermediate", "advanced": "advanced", "locked": "Locked: pass the previous chapter",
        "passed": "Passed", "pass_at": "Pass mark:",
        "chapters_one": "1 chapter", "chapters_many": "{n} chapters", "solved_of": "solved",
        "export_progress": "Save my progress",
        "import_progress": "Load my progress", "progress_note": "Your progress stays in this browser; "
        "save it to a file to take it to another one.",
        # the trainer: solving, hints, the game viewer, playing on against the engine
        "illegal": "That move is not legal here.", "ambiguous": "Which move? It could be:",
        "hint": "Hint", "hint_piece": "Move your {piece}.", "hint_square": "Your {piece} goes to {square}.",
        "piece_pawn": "pawn", "piece_knight": "knight", "piece_bishop": "bishop", "piece_rook": "rook",
        "piece_queen": "queen", "piece_king": "king",
        "showing": "The solution:", "solution_shown": "That is the solution. Start again to solve it yourself.",
        "solution_text": "The solution as text", "show_themes": "Show the themes (gives a clue)",
        "next_exercise": "Next exercise", "exercises": "Exercises", "back_to_class": "Back to the class",
        "back_to_course": "Back to the course", "back_to_query": "Back to the results",
        "back_to_source": "Back to the source", "back_to_list": "Back to the list",
        "replay": "Replay the game", "moves": "Moves", "first_move": "Start", "previous_move": "Back",
        "next_move": "Forward", "last_move": "End", "flip": "Flip the board", "exercise": "exercise",
        "game_cut": "The game is long: only its first moves are shown.",
        "play_on": "Play on against the engine",
        "play_on_needs_service": "Playing on against the engine needs the running service (chesskb serve).",
        "strength": "Engine strength (Elo)", "play_start": "Your move: you play {side}.",
        "engine_thinking": "The engine is thinking…", "engine_played": "The engine played {san}.",
        "download_pgn": "Download the game (PGN)", "stop_playing": "Stop playing",
        "game_over": "Game over: {result}.", "engine_elo": "Engine at {elo} Elo",
        "over_checkmate_won": "You won: you gave checkmate ({result}).",
        "over_checkmate_lost": "You lost: the engine gave checkmate ({result}).",
        "over_stalemate": "Draw by stalemate ({result}).",
        "over_insufficient_material": "Draw: neither side has the material to mate ({result}).",
        "over_seventyfive_moves": "Draw by the 75-move rule ({result}).",
        "over_fivefold_repetition": "Draw by fivefold repetition ({result}).",
        "over_fifty_moves": "Draw by the 50-move rule ({result}).",
        "over_threefold_repetition": "Draw by threefold repetition ({result}).",
        "engine_failed": "The engine could not answer:",
        "error": "Error", "queries_title": "Questions the knowledge base answers", "canned_queries": "canned queries",
        "also_as": "also as", "write_your_own": "write your own at", "query_name": "Name", "question": "Question",
        "parameters": "Parameters", "run": "Run", "fill_in": "Fill in the parameters and run the query.",
        "row": "row", "rows": "rows", "result_cut": "result cut at {n} rows (row limit)",
        "game_line": "{file}, game {game}, line {line}", "mate_in": "mate in {n}",
        "start_position": "Start position", "lichess_puzzle": "lichess puzzle {id}",
        "lichess_game": "lichess game {id}", "board_of": "Board of {game}",
        "source_named": "Source {name}",
        # canned queries: parameter types
        "type_string": "text", "type_keyword": "word", "type_name": "name", "type_pieces": "pieces",
        "type_integer": "whole number", "type_decimal": "number", "type_date": "date", "type_time": "time",
        "type_iri": "IRI", "type_class": "theme class", "type_boolean": "yes/no", "type_pattern": "pattern",
        # the teachers' authoring page (its script's messages too)
        "author_title": "Authoring", "author_heading": "Write an exercise", "author_token": "Authoring token",
        "author_fen": "Position (FEN)", "author_check": "Check and set up",
        "author_board": "Board: click a piece, then its square, to play the solution", "author_undo": "Take back",
        "author_source": "Save into source", "author_save": "Save to the knowledge base",
        "author_course": "Build a course",
        "author_course_help": "Chapters by level, each chosen by theme, phase, source and difficulty, or listed by "
                              "hand (the same text as a course file for",
        "author_save_course": "Save the course",
        "author_noscript": "The authoring page needs JavaScript; import PGN files with",
        "author_comment": "comment on this move", "author_over": "The game is over.",
        "author_white_to_play": "White to play.",
        "author_black_to_play": "Black to play.", "author_from": "From {square}…", "author_refused": "Refused:",
        "author_saving": "Saving…", "author_not_saved": "Not saved:",
        "author_saved": "Saved into {source} ({games} exercises).", "author_open_exercise": "Open the exercise's page",
        "author_course_saved": "Saved: {chapters} chapters, {exercises} exercises —", "author_open_course": "open it",
        "author_fen_error": "{kind} error in {field}: {message}",
        # the SPARQL editor
        "sparql_heading": "SPARQL endpoint", "sparql_endpoint": "Endpoint:",
        "sparql_protocol": "SPARQL 1.1 Protocol; these prefixes are predeclared:",
        "sparql_canned": "The canned questions are ready-made queries.",
        # error pages (shown in a language other than English, before the service's own message)
        "error_says": "The service says:", "error_400": "The request cannot be answered as it is. The service says:",
        "error_404": "There is nothing here. The service says:",
        "error_429": "Too many requests from your address: wait a moment. The service says:",
        "error_503": "The service cannot answer just now: try again in a moment. The service says:",
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
        "undecided": "No se pudo juzgar esa jugada a tiempo: prueba otra.",
        "your_turn": "Te toca.", "attempts": "Intentos", "solved_count": "Resueltos",
        "solved_with_help": "Resuelto con ayuda. Intenta el siguiente sin ella.", "helped_count": "Con ayuda",
        "your_rating": "Tu puntuación", "streak": "Racha", "lead_in": "Tu rival ha jugado {move}.",
        "restart": "Empezar de nuevo", "properties": "Propiedades", "linked_data": "Datos enlazados",
        "source_claims": "Lo que afirma la fuente", "claim_moves": "mate en {moves}",
        "claim_proven": "demostrado: es de la clase", "claim_refuted": "refutado: demostrado falso, no es de la clase",
        "claim_undecided": "sin decidir: ni demostrado ni refutado, no es de la clase",
        "claimed_unproven": "Afirmado por una fuente, sin demostrar",
        "claimed_unproven_help": "Una fuente atribuye estas posiciones a esta clase; ninguna demostración ha "
                                 "decidido aún la afirmación, así que no están entre sus miembros.",
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
        "game_move": "{game}, jugada {n}", "round_n": "ronda {n}",
        "start_training": "Empezar a entrenar", "start_training_help": "Ejercicios cerca de tu nivel; tu "
        "puntuación se guarda en este navegador.", "daily": "Ejercicio del día", "white_to_move": "Juegan blancas",
        "black_to_move": "Juegan negras", "solve_it": "Resuélvelo", "n_positions": "{n} posiciones",
        "one_position": "1 posición", "all_themes": "Todos los temas", "sparql_tour": "Para usuarios de SPARQL",
        "tour_questions": "Tres preguntas para empezar (cada una muestra su consulta):",
        "tour_endpoint": "El punto de acceso SPARQL", "tour_editor": "el editor de consultas",
        "tour_owl": "La ontología en OWL (para Protégé)", "collections": "Colecciones",
        "sparql": "SPARQL", "browse_themes": "Explorar los temas", "not_found": "No encontrado",
        "players_in": "Jugadores", "in_games": "Aparece en", "board": "Tablero",
        "language": "English", "type_move": "O escribe tu jugada (Cf3, e8=D o g1f3)", "play": "Jugar",
        "left_book": "Te saliste del libro en la jugada {n}: la jugada de libro es {san}.",
        "courses": "Cursos", "chapter": "Capítulo", "level": "Nivel", "beginner": "principiante",
        "intermediate": "intermedio", "advanced": "avanzado", "locked": "Bloqueado: aprueba el capítulo anterior",
        "passed": "Aprobado", "pass_at": "Se aprueba con",
        "chapters_one": "1 capítulo", "chapters_many": "{n} capítulos", "solved_of": "resueltos",
        "export_progress": "Guardar mi progreso", "import_progress": "Cargar mi progreso",
        "progress_note": "Tu progreso se queda en este navegador; guárdalo en un fichero para llevarlo a otro.",
        "illegal": "Esa jugada no es legal aquí.", "ambiguous": "¿Qué jugada? Puede ser:",
        "hint": "Pista", "hint_piece": "Mueve tu {piece}.", "hint_square": "Tu {piece} va a {square}.",
        "piece_pawn": "peón", "piece_knight": "caballo", "piece_bishop": "alfil", "piece_rook": "torre",
        "piece_queen": "dama", "piece_king": "rey",
        "showing": "La solución:", "solution_shown": "Esa es la solución. Empieza de nuevo para resolverla tú.",
        "solution_text": "La solución en texto", "show_themes": "Ver los temas (da una pista)",
        "next_exercise": "Siguiente ejercicio", "exercises": "Ejercicios", "back_to_class": "Volver a la clase",
        "back_to_course": "Volver al curso", "back_to_query": "Volver a los resultados",
        "back_to_source": "Volver a la fuente", "back_to_list": "Volver a la lista",
        "replay": "Reproducir la partida", "moves": "Jugadas", "first_move": "Inicio", "previous_move": "Atrás",
        "next_move": "Adelante", "last_move": "Final", "flip": "Girar el tablero", "exercise": "ejercicio",
        "game_cut": "La partida es larga: solo se muestran sus primeras jugadas.",
        "play_on": "Seguir jugando contra el motor",
        "play_on_needs_service": "Seguir jugando contra el motor necesita el servicio en marcha (chesskb serve).",
        "strength": "Fuerza del motor (Elo)", "play_start": "Te toca: juegas con {side}.",
        "engine_thinking": "El motor está pensando…", "engine_played": "El motor jugó {san}.",
        "download_pgn": "Descargar la partida (PGN)", "stop_playing": "Dejar de jugar",
        "game_over": "Fin de la partida: {result}.", "engine_elo": "Motor a {elo} Elo",
        "over_checkmate_won": "Has ganado: has dado jaque mate ({result}).",
        "over_checkmate_lost": "Has perdido: el motor te ha dado jaque mate ({result}).",
        "over_stalemate": "Tablas por rey ahogado ({result}).",
        "over_insufficient_material": "Tablas: ningún bando tiene material para dar mate ({result}).",
        "over_seventyfive_moves": "Tablas por la regla de las 75 jugadas ({result}).",
        "over_fivefold_repetition": "Tablas por quíntuple repetición ({result}).",
        "over_fifty_moves": "Tablas por la regla de las 50 jugadas ({result}).",
        "over_threefold_repetition": "Tablas por triple repetición ({result}).",
        "engine_failed": "El motor no pudo responder:",
        "error": "Error", "queries_title": "Preguntas que responde la base de conocimiento",
        "canned_queries": "consultas predefinidas", "also_as": "también en", "write_your_own": "escribe la tuya en",
        "query_name": "Nombre", "question": "Pregunta", "parameters": "Parámetros", "run": "Ejecutar",
        "fill_in": "Rellena los parámetros y ejecuta la consulta.", "row": "fila", "rows": "filas",
        "result_cut": "resultado cortado en {n} filas (límite de filas)",
        "game_line": "{file}, partida {game}, línea {line}", "mate_in": "mate en {n}",
        "start_position": "Posición inicial", "lichess_puzzle": "problema de lichess {id}",
        "lichess_game": "partida de lichess {id}", "board_of": "Tablero de {game}",
        "source_named": "Fuente {name}",
        "type_string": "texto", "type_keyword": "palabra", "type_name": "nombre", "type_pieces": "piezas",
        "type_integer": "número entero", "type_decimal": "número", "type_date": "fecha", "type_time": "hora",
        "type_iri": "IRI", "type_class": "clase de tema", "type_boolean": "sí/no", "type_pattern": "patrón",
        "author_title": "Edición", "author_heading": "Escribir un ejercicio", "author_token": "Clave de edición",
        "author_fen": "Posición (FEN)", "author_check": "Comprobar y colocar",
        "author_board": "Tablero: pulsa una pieza y luego su casilla para jugar la solución",
        "author_undo": "Deshacer", "author_source": "Guardar en la fuente",
        "author_save": "Guardar en la base de conocimiento", "author_course": "Crear un curso",
        "author_course_help": "Capítulos por nivel, cada uno elegido por tema, fase, fuente y dificultad, o "
                              "enumerado a mano (el mismo texto que un fichero de curso para",
        "author_save_course": "Guardar el curso",
        "author_noscript": "La página de edición necesita JavaScript; importa ficheros PGN con",
        "author_comment": "comentario de esta jugada", "author_over": "La partida ha terminado.",
        "author_white_to_play": "Juegan blancas.", "author_black_to_play": "Juegan negras.",
        "author_from": "Desde {square}…", "author_refused": "Rechazada:", "author_saving": "Guardando…",
        "author_not_saved": "No se guardó:", "author_saved": "Guardado en {source} ({games} ejercicios).",
        "author_open_exercise": "Abrir la página del ejercicio",
        "author_course_saved": "Guardado: {chapters} capítulos, {exercises} ejercicios —",
        "author_open_course": "abrirlo", "author_fen_error": "error de {kind} en {field}: {message}",
        "sparql_heading": "Punto de consulta SPARQL", "sparql_endpoint": "Dirección:",
        "sparql_protocol": "protocolo SPARQL 1.1; estos prefijos ya están declarados:",
        "sparql_canned": "Las preguntas predefinidas son consultas ya hechas.",
        "error_says": "El servicio responde (en inglés):",
        "error_400": "La petición no se puede responder tal como está. El servicio responde (en inglés):",
        "error_404": "Aquí no hay nada. El servicio responde (en inglés):",
        "error_429": "Demasiadas peticiones desde tu dirección: espera un momento. El servicio responde (en inglés):",
        "error_503": "El servicio no puede responder ahora: inténtalo de nuevo en un momento. "
                     "El servicio responde (en inglés):",
    },
}

#: Endpoints whose URLs do not depend on the language (static files, board images): ``url_for`` leaves
#: them without ``lang``, so the static site keeps one copy of each.
LANGUAGE_FREE = frozenset({"static", "pages.board_image"})


def _requested_lang() -> str:
    value = (request.args.get("lang") or "").lower()[:2]
    return value if value in LANGUAGES else "en"


def current_lang() -> str:
    """The request's interface language (``?lang=es``); English when absent or unknown."""
    lang = g.get("lang")
    return lang if lang is not None else _requested_lang()


def _pull_lang(endpoint: str | None, values: dict[str, Any] | None) -> None:
    g.lang = _requested_lang()


def _add_lang(endpoint: str, values: dict[str, Any]) -> None:
    """``url_for`` in a non-English request gives the language to every URL that does not name one."""
    if not has_request_context() or endpoint in LANGUAGE_FREE or "lang" in values:
        return
    lang = current_lang()
    if lang != "en":
        values["lang"] = lang


def register_language(app: Flask) -> None:
    """Read the language once per request and keep it on every URL the app builds."""
    app.url_value_preprocessor(_pull_lang)
    app.url_defaults(_add_lang)


def strings(lang: str) -> dict[str, str]:
    return STRINGS.get(lang, STRINGS["en"])


def localise_san(san: str, lang: str) -> str:
    """A SAN move with the language's piece letters (``Nf3`` -> ``Cf3``, ``e8=Q`` -> ``e8=D``), by
    the one table of piece letters (``kb.reading.notation``); castling (``O-O``) has none of them."""
    return english_san_to(lang, san) if lang == "es" else san


# --- the ontology's texts ---------------------------------------------------------------------

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
RDFS_COMMENT = "http://www.w3.org/2000/01/rdf-schema#comment"


@lru_cache(maxsize=4)
def ontology_texts(predicate: str) -> dict[str, dict[str, str]]:
    """term IRI -> {language: text} of one annotation property (``RDFS_LABEL``, ``RDFS_COMMENT``) in the
    shipped ontology; a text without a language counts as English."""
    from chesskb.kb.store.ontology_graph import ontology_quads
    from chesskb.kb.vocab import text_of

    by_term: dict[str, dict[str, str]] = {}
    for quad in ontology_quads():
        if quad.predicate.value == predicate:
            by_term.setdefault(text_of(quad.subject), {})[getattr(quad.object, "language", None) or "en"] = \
                text_of(quad.object)
    return by_term
