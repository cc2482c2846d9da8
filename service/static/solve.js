/* Solving an exercise on python-chess's SVG board, without a chess engine in the browser.
 *
 * The page embeds the solution line as JSON (#solution-data): for each ply its UCI move, SAN,
 * the teacher's comment, the FEN after it, whether the solver plays it, and the comments of the
 * alternatives the source gave. The learner clicks a piece, then a square; a move that is not the
 * line's is refused (with the teacher's comment on that alternative, if any); the opponent's
 * replies are played automatically. Attempts and solved counts are kept in localStorage.
 * Without JavaScript the page still shows the board and the <details> solution.
 */
(function () {
  "use strict";

  var dataEl = document.getElementById("solution-data");
  var boardEl = document.getElementById("board");
  if (!dataEl || !boardEl) { return; }
  var data = JSON.parse(dataEl.textContent);
  var svg = boardEl.querySelector("svg");
  var plies = data.plies || [];
  var S = data.strings || {};
  if (!svg || plies.length === 0) { return; }

  var SVG_NS = "http://www.w3.org/2000/svg";
  var XLINK_NS = "http://www.w3.org/1999/xlink";
  var NAMES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };

  var panel = document.getElementById("solve");
  var statusEl = document.getElementById("solve-status");
  var attemptsEl = document.getElementById("attempts");
  var solvedEl = document.getElementById("solved");
  var restartEl = document.getElementById("restart");
  if (panel) { panel.hidden = false; }

  // --- counters in localStorage (storage may be off: the page still works) -------------------
  var storageKey = "chesskb:" + data.iri;
  function loadCounts() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(storageKey) || "null");
      if (saved && typeof saved.attempts === "number") { return saved; }
    } catch (e) { /* no storage */ }
    return { attempts: 0, solved: 0 };
  }
  var counts = loadCounts();
  function saveCounts() {
    try { window.localStorage.setItem(storageKey, JSON.stringify(counts)); } catch (e) { /* no storage */ }
    if (attemptsEl) { attemptsEl.textContent = String(counts.attempts); }
    if (solvedEl) { solvedEl.textContent = String(counts.solved); }
  }
  saveCounts();

  // --- the board --------------------------------------------------------------------------
  var squares = {};
  Array.prototype.forEach.call(svg.querySelectorAll("rect.square"), function (rect) {
    for (var k = 0; k < rect.classList.length; k++) {
      if (/^[a-h][1-8]$/.test(rect.classList[k])) { squares[rect.classList[k]] = rect; }
    }
  });

  function placement(fen) {
    var pieces = {};
    var ranks = fen.split(" ")[0].split("/");
    for (var r = 0; r < 8; r++) {
      var file = 0;
      for (var c = 0; c < ranks[r].length; c++) {
        var ch = ranks[r].charAt(c);
        if (/[1-8]/.test(ch)) { file += parseInt(ch, 10); continue; }
        pieces["abcdefgh".charAt(file) + String(8 - r)] = ch;
        file += 1;
      }
    }
    return pieces;
  }

  function draw(fen) {
    Array.prototype.forEach.call(svg.querySelectorAll("use"), function (u) { u.parentNode.removeChild(u); });
    var pieces = placement(fen);
    Object.keys(pieces).forEach(function (sq) {
      var rect = squares[sq];
      if (!rect) { return; }
      var symbol = pieces[sq];
      var id = "#" + (symbol === symbol.toUpperCase() ? "white-" : "black-") + NAMES[symbol.toLowerCase()];
      var use = document.createElementNS(SVG_NS, "use");
      use.setAttribute("href", id);
      use.setAttributeNS(XLINK_NS, "xlink:href", id);
      use.setAttribute("transform", "translate(" + rect.getAttribute("x") + ", " + rect.getAttribute("y") + ")");
      svg.appendChild(use);
    });
    boardEl.setAttribute("data-fen", fen);
  }

  function mark(className, list) {
    Object.keys(squares).forEach(function (sq) { squares[sq].classList.remove(className); });
    list.forEach(function (sq) { if (squares[sq]) { squares[sq].classList.add(className); } });
  }

  // --- the solving state ----------------------------------------------------------------------
  var index = 0;
  var fen = data.fen;
  var selected = null;
  var busy = false;
  var started = false;
  var done = false;

  function say(text, kind) {
    if (!statusEl) { return; }
    statusEl.textContent = text;
    statusEl.className = "status " + (kind || "");
  }

  function turn() { return fen.split(" ")[1]; }
  function colourOf(symbol) { return symbol === symbol.toUpperCase() ? "w" : "b"; }

  function play(k) {
    fen = plies[k].fen;
    draw(fen);
    mark("last", [plies[k].uci.slice(0, 2), plies[k].uci.slice(2, 4)]);
    index = k + 1;
    boardEl.setAttribute("data-ply", String(index));
  }

  function finish() {
    done = true;
    counts.solved += 1;
    saveCounts();
    say(S.solved || "Solved!", "solved");
    boardEl.setAttribute("data-solved", "true");
  }

  function afterSolverMove(comment) {
    if (index >= plies.length) { finish(); return; }
    if (plies[index].solver) { say((S.correct || "") + (comment ? " " + comment : ""), "right"); return; }
    busy = true;
    say((S.correct || "") + (comment ? " " + comment : ""), "right");
    window.setTimeout(function () {
      var reply = plies[index];
      play(index);
      busy = false;
      if (index >= plies.length) { finish(); return; }
      say(reply.number + " " + reply.san + (reply.comment ? " — " + reply.comment : "") + ". " +
          (S.your_turn || ""), "reply");
    }, 500);
  }

  function alternativeComment(uci) {
    var alternatives = plies[index].alternatives || {};
    if (alternatives[uci]) { return alternatives[uci]; }
    var found = Object.keys(alternatives).filter(function (k) { return k.slice(0, 4) === uci; })[0];
    return found ? alternatives[found] : "";
  }

  // A click or drag cannot name a promotion piece: the line's own piece is taken. A typed UCI move
  // (e7e8n) names it and must match.
  function tryMove(from, to, promotion) {
    var uci = from + to;
    if (!started) {
      started = true;
      counts.attempts += 1;
      saveCounts();
    }
    var expected = plies[index].uci;
    mark("selected", []);
    selected = null;
    var promotionMatches = !promotion || expected.length < 5 || expected.charAt(4) === promotion;
    if (expected.slice(0, 4) === uci && promotionMatches) {
      var comment = plies[index].comment;
      play(index);
      afterSolverMove(comment);
      return;
    }
    var why = alternativeComment(uci);
    if (data.opening) {
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
  }

  function onSquare(sq) {
    if (busy || done) { return; }
    var pieces = placement(fen);
    var own = pieces[sq] && colourOf(pieces[sq]) === turn();
    if (selected === null || sq === selected || own) {
      selected = (own && sq !== selected) ? sq : null;
      mark("selected", selected ? [selected] : []);
      return;
    }
    tryMove(selected, sq);
  }

  function squareAt(target) {
    var rect = target && target.closest ? target.closest("rect.square") : null;
    if (!rect) { return null; }
    for (var k = 0; k < rect.classList.length; k++) {
      if (/^[a-h][1-8]$/.test(rect.classList[k])) { return rect.classList[k]; }
    }
    return null;
  }

  svg.addEventListener("click", function (event) {
    var sq = squareAt(event.target);
    if (sq) { onSquare(sq); }
  });

  // Dragging: press on a piece, release on another square (a click on the same square still
  // selects). The release target is found by position, since the pointer was captured elsewhere.
  var dragFrom = null;
  svg.addEventListener("pointerdown", function (event) {
    var sq = squareAt(event.target);
    var pieces = placement(fen);
    dragFrom = (sq && pieces[sq] && colourOf(pieces[sq]) === turn() && !busy && !done) ? sq : null;
  });
  svg.addEventListener("pointerup", function (event) {
    if (!dragFrom) { return; }
    var over = squareAt(document.elementFromPoint(event.clientX, event.clientY));
    var from = dragFrom;
    dragFrom = null;
    if (over && over !== from) {
      event.preventDefault();
      selected = null;
      tryMove(from, over);
      suppressClick = true;
    }
  });
  var suppressClick = false;
  svg.addEventListener("click", function (event) {
    if (suppressClick) { suppressClick = false; event.stopImmediatePropagation(); }
  }, true);

  // Typing a move (keyboard and screen-reader users): UCI, or SAN in English or the page's letters.
  function plain(san) { return san.replace(/[+#!?]/g, ""); }
  var form = document.getElementById("move-form");
  var input = document.getElementById("move-input");
  if (form && input) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (busy || done) { return; }
      var text = input.value.trim();
      input.value = "";
      if (/^[a-h][1-8][a-h][1-8][qrbn]?$/.test(text)) {
        tryMove(text.slice(0, 2), text.slice(2, 4), text.charAt(4) || null);
        return;
      }
      var expected = plies[index];
      if (plain(text) === plain(expected.san) || (expected.san_en && plain(text) === plain(expected.san_en))) {
        tryMove(expected.uci.slice(0, 2), expected.uci.slice(2, 4));
      } else {
        if (!started) { started = true; counts.attempts += 1; saveCounts(); }
        say((S.wrong || "Not the move.") + " (" + text + ")", "wrong");
      }
    });
  }

  function restart() {
    index = 0;
    fen = data.fen;
    selected = null;
    busy = false;
    started = false;
    done = false;
    draw(fen);
    mark("last", []);
    mark("selected", []);
    boardEl.setAttribute("data-ply", "0");
    boardEl.removeAttribute("data-solved");
    say(S.your_turn || "", "");
  }
  if (restartEl) { restartEl.addEventListener("click", restart); }
  boardEl.classList.add("interactive");
  boardEl.setAttribute("data-ply", "0");
  say(S.your_turn || "", "");
}());
