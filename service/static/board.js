/* A chess board drawn by python-chess (server-side SVG), redrawn here from FENs.
 *
 * The server sends the board as SVG in both orientations (in the page's JSON data island); this
 * script keeps one of them in the container, finds its squares by their class (``e4``), and draws
 * any FEN by placing python-chess's own piece definitions on them. It knows nothing about chess
 * rules: legality, SAN and mates come from the server with the data. Used by solve.js (exercises),
 * viewer.js (games) and play.js (playing on against the engine).
 */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var XLINK_NS = "http://www.w3.org/1999/xlink";
  var NAMES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };

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

  function squareOf(target) {
    var rect = target && target.closest ? target.closest("rect.square") : null;
    if (!rect) { return null; }
    for (var k = 0; k < rect.classList.length; k++) {
      if (/^[a-h][1-8]$/.test(rect.classList[k])) { return rect.classList[k]; }
    }
    return null;
  }

  /* container: the element holding the SVG; svgs: {normal, flipped} SVG texts (optional: the
   * SVG already in the container is used, and flipping is then unavailable). */
  function Board(container, svgs) {
    this.el = container;
    this.svgs = svgs || null;
    if (this.svgs && !this.svgs.normal) { this.svgs.normal = container.innerHTML; }  // the page's own SVG
    this.flipped = false;
    this.fen = container.getAttribute("data-fen") || "";
    this.marks = {};
    this.listeners = [];
    this._index();
    var self = this;
    container.addEventListener("click", function (event) {
      var sq = squareOf(event.target);
      if (sq) { self.listeners.forEach(function (fn) { fn(sq, event); }); }
    });
  }

  Board.prototype._index = function () {
    this.svg = this.el.querySelector("svg");
    this.squares = {};
    var squares = this.squares;
    Array.prototype.forEach.call(this.svg.querySelectorAll("rect.square"), function (rect) {
      var sq = squareOf(rect);
      if (sq) { squares[sq] = rect; }
    });
  };

  Board.prototype.onSquare = function (fn) { this.listeners.push(fn); };

  Board.prototype.draw = function (fen) {
    var svg = this.svg;
    var squares = this.squares;
    Array.prototype.forEach.call(svg.querySelectorAll("use.piece-drawn, svg > use"), function (u) {
      u.parentNode.removeChild(u);
    });
    var pieces = placement(fen);
    Object.keys(pieces).forEach(function (sq) {
      var rect = squares[sq];
      if (!rect) { return; }
      var symbol = pieces[sq];
      var id = "#" + (symbol === symbol.toUpperCase() ? "white-" : "black-") + NAMES[symbol.toLowerCase()];
      var use = document.createElementNS(SVG_NS, "use");
      use.setAttribute("href", id);
      use.setAttributeNS(XLINK_NS, "xlink:href", id);
      use.setAttribute("class", "piece-drawn");
      use.setAttribute("transform", "translate(" + rect.getAttribute("x") + ", " + rect.getAttribute("y") + ")");
      svg.appendChild(use);
    });
    this.fen = fen;
    this.el.setAttribute("data-fen", fen);
  };

  Board.prototype.mark = function (className, list) {
    var squares = this.squares;
    this.marks[className] = list.slice();
    Object.keys(squares).forEach(function (sq) { squares[sq].classList.remove(className); });
    list.forEach(function (sq) { if (squares[sq]) { squares[sq].classList.add(className); } });
  };

  Board.prototype.canFlip = function () { return !!(this.svgs && this.svgs.flipped); };

  Board.prototype.flip = function () {
    if (!this.canFlip()) { return; }
    this.flipped = !this.flipped;
    // The SVG texts are python-chess's output sent by our own server (no user text in them).
    this.el.innerHTML = this.flipped ? this.svgs.flipped : this.svgs.normal;
    this._index();
    this.draw(this.fen);
    var self = this;
    Object.keys(this.marks).forEach(function (name) { self.mark(name, self.marks[name]); });
    this.el.setAttribute("data-flipped", this.flipped ? "true" : "false");
  };

  Board.prototype.pieceAt = function (sq) { return placement(this.fen)[sq] || null; };
  Board.prototype.turn = function () { return this.fen.split(" ")[1]; };

  /* A typed move among the legal ones ({uci, san, san_en}): SAN in English or the page's letters,
   * or UCI, with or without +, #, x, =, -, in any case as long as only one legal move fits.
   * First the exact spelling in the page's letters or UCI, then any exact spelling, then any case.
   * Returns {move}, {ambiguous: [moves]} or {none: true}. */
  function clean(text, keepCase) {
    var s = String(text).replace(/e\.p\./gi, "").replace(/[+#!?x:=\-\s]/g, "").replace(/0/g, "O");
    return keepCase ? s : s.toLowerCase();
  }

  function parseMove(text, legal) {
    var typed = clean(text, true);
    if (!typed) { return { none: true }; }
    function matches(spellings, keepCase) {
      var found = [];
      var want = keepCase ? typed : typed.toLowerCase();
      legal.forEach(function (m) {
        var hit = spellings(m).some(function (s) { return s && clean(s, keepCase) === want; });
        if (hit) { found.push(m); }
      });
      // e7e8 names every promotion on that square: the queen is meant
      if (found.length > 1 && found.every(function (m) { return m.uci.slice(0, 4) === found[0].uci.slice(0, 4); })) {
        var queen = found.filter(function (m) { return m.uci.charAt(4) === "q"; });
        if (queen.length === 1) { return queen; }
      }
      return found;
    }
    var passes = [
      [function (m) { return [m.san, m.uci]; }, true],
      [function (m) { return [m.san, m.san_en, m.uci]; }, true],
      [function (m) { return [m.san, m.san_en, m.uci]; }, false]
    ];
    for (var k = 0; k < passes.length; k++) {
      var found = matches(passes[k][0], passes[k][1]);
      if (found.length === 1) { return { move: found[0] }; }
      if (found.length > 1) { return { ambiguous: found }; }
    }
    return { none: true };
  }

  /* The FEN after a legal move, for drawing only (placement and side to move; castling rights and
   * counters are not tracked: the server's FENs are used wherever it has them). */
  function applyMove(fen, uci) {
    var pieces = placement(fen);
    var from = uci.slice(0, 2);
    var to = uci.slice(2, 4);
    var piece = pieces[from];
    if (!piece) { return fen; }
    delete pieces[from];
    var kind = piece.toLowerCase();
    if (kind === "p" && from.charAt(0) !== to.charAt(0) && !pieces[to]) {
      delete pieces[to.charAt(0) + from.charAt(1)];  // en passant
    }
    if (kind === "k" && Math.abs(from.charCodeAt(0) - to.charCodeAt(0)) === 2) {
      var rank = from.charAt(1);
      var kingside = to.charAt(0) === "g";
      var rookFrom = (kingside ? "h" : "a") + rank;
      var rookTo = (kingside ? "f" : "d") + rank;
      pieces[rookTo] = pieces[rookFrom];
      delete pieces[rookFrom];
    }
    pieces[to] = uci.length > 4 ? (piece === piece.toUpperCase() ? uci.charAt(4).toUpperCase() : uci.charAt(4)) : piece;
    var rows = [];
    for (var r = 8; r >= 1; r--) {
      var row = "";
      var empty = 0;
      for (var f = 0; f < 8; f++) {
        var p = pieces["abcdefgh".charAt(f) + r];
        if (p) { row += (empty ? String(empty) : "") + p; empty = 0; } else { empty += 1; }
      }
      rows.push(row + (empty ? String(empty) : ""));
    }
    var fields = fen.split(" ");
    return rows.join("/") + " " + (fields[1] === "w" ? "b" : "w") + " - - 0 " + (fields[5] || "1");
  }

  window.ChessKB = window.ChessKB || {};
  window.ChessKB.parseMove = parseMove;
  window.ChessKB.applyMove = applyMove;
  window.ChessKB.Board = Board;
  window.ChessKB.placement = placement;
  window.ChessKB.squareOf = squareOf;
}());
