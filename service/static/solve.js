/* Solving an exercise on python-chess's SVG board, without a chess engine in the browser.
 *
 * The page embeds the solution line as JSON (#solution-data): for each ply its UCI move, SAN,
 * the teacher's comment, the FEN after it, whether the solver plays it, whether it mates, the
 * comments of the alternatives the source gave and, before each of the solver's plies, every
 * legal move (UCI, SAN, mate). So the script can tell an illegal move from a legal wrong one,
 * accept another mate where the line's move mates, and read typed moves (SAN, UCI, Spanish
 * letters, any case). The opponent's replies are played automatically; "Start again" cancels a
 * pending reply (each timer belongs to one attempt). A hint names the piece, then the square;
 * "Show the solution" plays the line on the board with its comments. Each played move and its
 * comment stays in the move list beside the board. Attempts and solved counts are kept in
 * localStorage. Without JavaScript the page still shows the board and the written solution.
 *
 * As on lichess, the opponent's move that leads to the exercise (data.lead_in) is played and
 * highlighted before the learner moves; a hint or the shown solution makes a later solve "solved
 * with help" (counted apart, never as solved); and the first outcome of each exercise rates the
 * learner (rating.js: Glicko-2 and a streak). Per exercise, localStorage "chesskb:" + IRI holds
 * {attempts, solved, helped, rated}.
 */
(function () {
  "use strict";

  var dataEl = document.getElementById("solution-data");
  var boardEl = document.getElementById("board");
  if (!dataEl || !boardEl || !window.ChessKB) { return; }
  var data = JSON.parse(dataEl.textContent);
  var plies = data.plies || [];
  var S = data.strings || {};
  if (!boardEl.querySelector("svg") || plies.length === 0) { return; }
  var board = new window.ChessKB.Board(boardEl);

  var panel = document.getElementById("solve");
  var buttons = document.getElementById("trainer-buttons");
  var statusEl = document.getElementById("solve-status");
  var movesEl = document.getElementById("solve-moves");
  var attemptsEl = document.getElementById("attempts");
  var solvedEl = document.getElementById("solved");
  var themesEl = document.getElementById("themes");
  var nextEl = document.getElementById("next-exercise");
  if (panel) { panel.hidden = false; }
  if (buttons) { buttons.hidden = false; }
  var NAMES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };

  // --- counters in localStorage (storage may be off: the page still works) -------------------
  var storageKey = "chesskb:" + data.iri;
  function loadCounts() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(storageKey) || "null");
      if (saved && typeof saved.attempts === "number") { return saved; }
    } catch (e) { /* no storage */ }
    return { attempts: 0, solved: 0, helped: 0 };
  }
  var counts = loadCounts();
  var helpedEl = document.getElementById("helped");
  function saveCounts() {
    try { window.localStorage.setItem(storageKey, JSON.stringify(counts)); } catch (e) { /* no storage */ }
    if (attemptsEl) { attemptsEl.textContent = String(counts.attempts); }
    if (solvedEl) { solvedEl.textContent = String(counts.solved); }
    if (helpedEl) { helpedEl.textContent = String(counts.helped || 0); }
  }
  saveCounts();

  // --- the state of one attempt ----------------------------------------------------------------
  var index = 0;          // next ply of the line
  var fen = data.fen;
  var selected = null;
  var busy = false;       // the opponent's reply or the solution is being played
  var started = false;
  var done = false;
  var attempt = 0;        // bumped by "Start again": timers of an older attempt do nothing
  var hintLevel = 0;
  var offLine = null;     // after a right move off the stored line: {legal, left} from the server's judge

  function say(text, kind) {
    if (!statusEl) { return; }
    statusEl.textContent = text;
    statusEl.className = "status " + (kind || "");
  }

  function later(fn, ms) {
    var mine = attempt;
    window.setTimeout(function () { if (mine === attempt) { fn(); } }, ms);
  }

  function addMove(number, san, comment, who) {
    if (!movesEl) { return; }
    var li = document.createElement("li");
    li.className = who;
    var move = document.createElement("span");
    move.className = "san";
    move.textContent = number + " " + san;
    li.appendChild(move);
    if (comment) {
      var c = document.createElement("span");
      c.className = "comment";
      c.textContent = " " + comment;
      li.appendChild(c);
    }
    movesEl.appendChild(li);
  }

  function showLast(uci) { board.mark("last", uci ? [uci.slice(0, 2), uci.slice(2, 4)] : []); }

  function play(k, who) {
    fen = plies[k].fen;
    board.draw(fen);
    showLast(plies[k].uci);
    addMove(plies[k].number, plies[k].san, plies[k].comment, who);
    index = k + 1;
    boardEl.setAttribute("data-ply", String(index));
  }

  function revealThemes() { if (themesEl) { themesEl.open = true; } }

  function finish() {
    done = true;
    recordSolve();
    revealThemes();
    if (nextEl) { nextEl.classList.add("ready"); nextEl.focus({ preventScroll: true }); }
  }

  function afterSolverMove(comment) {
    var praise = (S.correct || "") + (comment ? " " + comment : "");
    if (index >= plies.length) { finish(); return; }
    say(praise, "right");
    if (plies[index].solver) { return; }
    busy = true;
    later(function () {
      var reply = plies[index];
      play(index, "reply");
      busy = false;
      if (index >= plies.length) { finish(); return; }
      say(reply.number + " " + reply.san + (reply.comment ? " — " + reply.comment : "") + ". " +
          (S.your_turn || ""), "reply");
    }, 500);
  }

  function alternativeComment(uci) {
    var alternatives = offLine ? {} : (plies[index].alternatives || {});
    if (alternatives[uci]) { return alternatives[uci]; }
    var found = Object.keys(alternatives).filter(function (k) { return k.slice(0, 4) === uci.slice(0, 4); })[0];
    return found ? alternatives[found] : "";
  }

  function countAttempt() {
    if (!started) {
      started = true;
      counts.attempts += 1;
      saveCounts();
    }
  }

  function refuse(uci) {
    var why = alternativeComment(uci);
    if (data.opening && !offLine) {
      // An opening line: say where the learner left the book, which move it plays and why.
      var book = plies[index];
      var moveNumber = Math.floor(index / 2) + 1;
      var text = (S.left_book || "You left the book at move {n}: the book move is {san}.")
        .replace("{n}", String(moveNumber)).replace("{san}", book.san);
      say(text + (book.comment ? " " + book.comment : "") + (why ? " " + why : ""), "wrong");
    } else {
      say((S.wrong || "Not the move.") + (why ? " " + why : ""), "wrong");
    }
    boardEl.setAttribute("data-refused", uci);
    rateOnce(false);
  }

  // A learner's move, already known to be legal (an entry of currentLegal()).
  function judge(move) {
    countAttempt();
    board.mark("selected", []);
    board.mark("hint", []);
    selected = null;
    if (offLine) { askJudge(move, offLine.left); return; }
    var expected = plies[index];
    if (move.uci === expected.uci) {
      var comment = expected.comment;
      play(index, "solver");
      hintLevel = 0;
      afterSolverMove(comment);
      return;
    }
    if (expected.mates && move.mate) {
      // Another mate where the line mates: as good as the line's move.
      fen = window.ChessKB.applyMove(fen, move.uci);
      board.draw(fen);
      showLast(move.uci);
      addMove(expected.number, move.san, "", "solver");
      index = plies.length;
      boardEl.setAttribute("data-ply", String(index));
      boardEl.setAttribute("data-alternative", move.uci);
      finish();
      return;
    }
    if (data.judge && data.mate_in && !data.opening) { askJudge(move, data.mate_in - solverMovesPlayed()); return; }
    refuse(move.uci);
  }

  // --- moves off the stored line (issue 32): any move that keeps the forced mate is right ------------
  // The server proves it (POST data.judge) and answers with the most resilient defence and the
  // learner's legal moves after it; from then on every move is judged there. Without a server (the
  // static site) a move off the line is refused as before.
  function currentLegal() { return offLine ? offLine.legal : (plies[index].legal || []); }

  function solverMovesPlayed() {
    var played = 0;
    for (var k = 0; k < index; k += 1) { if (plies[k].solver) { played += 1; } }
    return played;
  }

  function moveNumber(position) {
    var fields = position.split(" ");
    return fields[5] + (fields[1] === "w" ? "." : "...");
  }

  function askJudge(move, left) {
    if (left < 1) { refuse(move.uci); return; }
    busy = true;
    var mine = attempt;
    var from = fen;
    window.fetch(data.judge, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ fen: from, move: move.uci, left: left })
    }).then(function (response) {
      if (!response.ok) { throw new Error(String(response.status)); }
      return response.json();
    }).then(function (answer) {
      if (mine !== attempt) { return; }
      busy = false;
      if (answer.verdict !== "proven") {
        if (answer.verdict === "undecided") { say(S.undecided || "That move cannot be judged here.", "wrong"); }
        else { refuse(move.uci); }
        boardEl.setAttribute("data-refused", move.uci);
        return;
      }
      playOffLine(move, from, answer);
    }).catch(function () {
      if (mine !== attempt) { return; }
      busy = false;
      refuse(move.uci);
    });
  }

  function playOffLine(move, from, answer) {
    fen = window.ChessKB.applyMove(from, move.uci);
    board.draw(fen);
    showLast(move.uci);
    addMove(moveNumber(from), move.san, "", "solver");
    boardEl.setAttribute("data-alternative", move.uci);
    hintLevel = 0;
    if (answer.mate || !answer.reply) { offLine = null; index = plies.length; finish(); return; }
    offLine = { legal: [], left: answer.left };
    busy = true;
    say(S.correct || "", "right");
    later(function () {
      fen = answer.fen;
      board.draw(fen);
      showLast(answer.reply.uci);
      addMove(answer.reply.number, answer.reply.san, "", "reply");
      offLine = { legal: answer.legal, left: answer.left };
      busy = false;
      say(answer.reply.number + " " + answer.reply.san + ". " + (S.your_turn || ""), "reply");
    }, 500);
  }

  function illegal(text) {
    countAttempt();
    board.mark("selected", []);
    selected = null;
    say((S.illegal || "That move is not legal here.") + (text ? " (" + text + ")" : ""), "wrong illegal");
    boardEl.setAttribute("data-refused", "illegal");
  }

  // A click or drag cannot name a promotion piece: the line's own piece is taken, else a queen.
  function tryMove(from, to) {
    var legal = currentLegal();
    var candidates = legal.filter(function (m) { return m.uci.slice(0, 4) === from + to; });
    if (candidates.length === 0) { illegal(from + "-" + to); return; }
    var lineMove = offLine ? "" : plies[index].uci;
    var move = candidates.filter(function (m) { return m.uci === lineMove; })[0] ||
      candidates.filter(function (m) { return m.uci.length < 5 || m.uci.charAt(4) === "q"; })[0] || candidates[0];
    judge(move);
  }

  function ready() { return !busy && !done && boardEl.getAttribute("data-mode") !== "play"; }

  function onSquare(sq) {
    if (!ready()) { return; }
    var piece = board.pieceAt(sq);
    var own = piece && (piece === piece.toUpperCase() ? "w" : "b") === board.turn();
    if (selected === null || sq === selected || own) {
      selected = (own && sq !== selected) ? sq : null;
      board.mark("selected", selected ? [selected] : []);
      return;
    }
    tryMove(selected, sq);
  }

  var suppressClick = false;
  board.onSquare(function (sq) {
    if (suppressClick) { suppressClick = false; return; }
    onSquare(sq);
  });

  // Dragging: press on a piece, release on another square (a click on the same square still
  // selects). The release target is found by position, since the pointer was captured elsewhere.
  var dragFrom = null;
  boardEl.addEventListener("pointerdown", function (event) {
    var sq = window.ChessKB.squareOf(event.target);
    var piece = sq ? board.pieceAt(sq) : null;
    dragFrom = (piece && (piece === piece.toUpperCase() ? "w" : "b") === board.turn() && ready()) ? sq : null;
  });
  boardEl.addEventListener("pointerup", function (event) {
    if (!dragFrom) { return; }
    var over = window.ChessKB.squareOf(document.elementFromPoint(event.clientX, event.clientY));
    var from = dragFrom;
    dragFrom = null;
    if (over && over !== from) {
      event.preventDefault();
      selected = null;
      suppressClick = true;
      tryMove(from, over);
    }
  });

  // Typing a move (keyboard and screen-reader users): SAN in English or the page's letters, or UCI.
  var form = document.getElementById("move-form");
  var input = document.getElementById("move-input");
  if (form && input) {
    form.hidden = false;   // right under the board (on a phone too), shown once the script runs
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (!ready()) { return; }
      var text = input.value.trim();
      input.value = "";
      if (!text) { return; }
      var found = window.ChessKB.parseMove(text, currentLegal());
      if (found.move) {
        judge(found.move);
      } else if (found.ambiguous) {
        say((S.ambiguous || "Which move? It could be:") + " " +
            found.ambiguous.map(function (m) { return m.san; }).join(", "), "wrong");
      } else {
        illegal(text);
      }
    });
  }

  // --- help: hint, the solution on the board ---------------------------------------------------
  function pieceName(uci) {
    var piece = window.ChessKB.placement(fen)[uci.slice(0, 2)] || "p";
    return S["piece_" + NAMES[piece.toLowerCase()]] || NAMES[piece.toLowerCase()];
  }

  function hint() {
    if (!ready() || offLine) { return; }  // off the stored line there is no move to hint at
    var expected = plies[index];
    markHelped();
    hintLevel += 1;
    if (hintLevel === 1) {
      board.mark("hint", [expected.uci.slice(0, 2)]);
      say((S.hint_piece || "Move your {piece}.").replace("{piece}", pieceName(expected.uci)), "hint");
    } else {
      board.mark("hint", [expected.uci.slice(0, 2), expected.uci.slice(2, 4)]);
      say((S.hint_square || "Your {piece} goes to {square}.").replace("{piece}", pieceName(expected.uci))
        .replace("{square}", expected.uci.slice(2, 4)), "hint");
    }
    boardEl.setAttribute("data-hint", String(hintLevel));
  }

  function showSolution() {
    var wasDone = done;
    markHelped();
    reset(false);
    busy = true;
    done = wasDone;
    revealThemes();
    say(S.showing || "The solution:", "reply");
    if (data.intro && movesEl) { addMove("", "", data.intro, "intro"); }
    function step(k) {
      if (k >= plies.length) {
        busy = false;
        done = true;
        boardEl.setAttribute("data-shown", "true");
        say(S.solution_shown || "That is the solution. Start again to solve it yourself.", "reply");
        return;
      }
      play(k, plies[k].solver ? "solver" : "reply");
      say(plies[k].number + " " + plies[k].san + (plies[k].comment ? " — " + plies[k].comment : ""), "reply");
      later(function () { step(k + 1); }, 900);
    }
    later(function () { step(0); }, 300);
  }

  function reset(announce) {
    attempt += 1;           // every pending reply or solution step of the old attempt is void
    index = 0;
    fen = data.fen;
    selected = null;
    busy = false;
    started = false;
    done = false;
    hintLevel = 0;
    offLine = null;
    board.draw(fen);
    showLast(data.last_move || "");
    board.mark("selected", []);
    board.mark("hint", []);
    if (movesEl) { movesEl.textContent = ""; }
    boardEl.setAttribute("data-ply", "0");
    ["data-solved", "data-shown", "data-hint", "data-refused", "data-alternative"].forEach(function (name) {
      boardEl.removeAttribute(name);
    });
    if (announce) { say(S.your_turn || "", ""); }
  }

  function on(id, fn) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener("click", fn); }
  }
  on("restart", function () { reset(true); });
  on("hint", hint);
  on("show-solution", showSolution);
  on("play-on", function () {
    if (window.ChessKB.playOn) {
      attempt += 1;
      busy = false;
      window.ChessKB.playOn(board, fen, document.querySelector("article.position"));
    }
  });

  // The static site: "Next exercise" from the listing the learner came from (context.js).
  if (!nextEl && window.ChessKB.storedContext) {
    var stored = window.ChessKB.storedContext();
    if (stored && buttons) {
      if (stored.next) {
        nextEl = document.createElement("a");
        nextEl.className = "button next-exercise";
        nextEl.id = "next-exercise";
        nextEl.href = stored.next;
        nextEl.textContent = (S.next_exercise || "Next exercise") + " →";
        buttons.appendChild(nextEl);
      }
      var back = document.createElement("a");
      back.className = "button back";
      back.id = "back-link";
      back.href = stored.back;
      back.textContent = "← " + (S.back_to_list || "Back to the list");
      buttons.appendChild(back);
    }
  }

  // --- solved, solved with help, the learner's rating (rating.js) ----------------------------
  var helped = false;     // a hint or the solution was seen on this page: a later solve is "with help"
  var learnerEl = document.getElementById("learner");
  var rating = window.ChessKB.rating;

  function markHelped() {
    helped = true;
    rateOnce(false);
  }

  function recordSolve() {
    if (helped) {
      counts.helped = (counts.helped || 0) + 1;
      say(S.solved_with_help || "Solved with help.", "solved helped");
      boardEl.setAttribute("data-solved", "help");
    } else {
      counts.solved += 1;
      say(S.solved || "Solved!", "solved");
      boardEl.setAttribute("data-solved", "true");
    }
    saveCounts();
    rateOnce(!helped);
  }

  // The first outcome of an exercise rates the learner; later attempts at it do not.
  function rateOnce(solved) {
    if (!rating || counts.rated || typeof data.difficulty !== "number") { return; }
    counts.rated = true;
    saveCounts();
    rating.record({ difficulty: data.difficulty, deviation: data.deviation }, solved);
    showLearner();
  }

  function showLearner() {
    if (!rating) { return; }
    var learner = rating.load();
    if (learnerEl) {
      learnerEl.hidden = false;
      document.getElementById("learner-rating").textContent = String(Math.round(learner.rating));
      document.getElementById("streak").textContent = String(learner.streak);
    }
    // "Next exercise" in training goes back to /train with the rating as it is now.
    Array.prototype.forEach.call(document.querySelectorAll("a[data-train]"), function (a) {
      a.href = rating.trainUrl(a.getAttribute("href").split("?")[0]);
    });
  }

  // The opponent's move into the exercise, played on the board before the learner's turn.
  var LEAD_IN_MS = 600;
  function playLeadIn(then) {
    var lead = data.lead_in;
    if (!lead || !lead.fen) { then(); return; }
    busy = true;
    board.draw(lead.fen);
    showLast("");
    boardEl.setAttribute("data-lead-in", "pending");
    var mine = attempt;   // "Start again" meanwhile has drawn the exercise already
    window.setTimeout(function () {
      if (mine === attempt) {
        board.draw(fen);
        showLast(lead.uci);
        busy = false;
        say((data.intro ? data.intro + " " : "") + (S.lead_in || "Your opponent played {move}.")
          .replace("{move}", lead.number + " " + lead.san) + " " + (S.your_turn || ""), "reply");
      }
      boardEl.setAttribute("data-lead-in", "played");
      then();
    }, LEAD_IN_MS);
  }

  showLearner();
  reset(true);
  if (data.intro) { say(data.intro + " " + (S.your_turn || ""), ""); }
  playLeadIn(function () { boardEl.classList.add("interactive"); });
}());
