// The pattern editor on /find: pieces dragged (or clicked) onto an empty board become list-form
// items ("Nf5 kg8") in the pattern field, which is what the form sends; the field stays editable,
// and items the board cannot show (R*7, !Pe4, a FEN-form board) are kept as typed.
(function () {
  "use strict";
  var board = document.getElementById("pattern-board");
  var field = document.getElementById("pattern");
  if (!board || !field) { return; }
  var GLYPHS = { K: "\u2654", Q: "\u2655", R: "\u2656", B: "\u2657", N: "\u2658", P: "\u2659",
                 k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
  var PLACED = /^[KQRBNPkqrbnp][a-h][1-8]$/;
  var selected = null;  // the palette piece a click places ("" removes)

  function square(name) { return board.querySelector('[data-square="' + name + '"]'); }

  function put(sq, piece) {
    sq.textContent = "";
    if (piece) {
      var span = document.createElement("span");
      span.className = "piece";
      span.draggable = true;
      span.dataset.piece = piece;
      span.textContent = GLYPHS[piece];
      sq.appendChild(span);
    }
  }

  function boardItems() {
    var items = [];
    board.querySelectorAll(".square").forEach(function (sq) {
      var piece = sq.querySelector(".piece");
      if (piece) { items.push(piece.dataset.piece + sq.dataset.square); }
    });
    return items;
  }

  // The field: the board's pieces, then the other items typed (a FEN-form board gives way to the drawing).
  function writeField() {
    var kept = field.value.split(/\s+/).filter(function (tok) {
      return tok && !PLACED.test(tok) && tok.indexOf("/") < 0;
    });
    field.value = boardItems().concat(kept).join(" ");
  }

  function readField() {
    board.querySelectorAll(".square").forEach(function (sq) { put(sq, ""); });
    field.value.split(/\s+/).forEach(function (tok) {
      if (PLACED.test(tok)) { put(square(tok.slice(1)), tok[0]); }
    });
  }

  var dragged = null;  // {piece, from: square element or null (palette)}
  document.addEventListener("dragstart", function (event) {
    var el = event.target;
    if (!(el instanceof Element) || !el.dataset || !el.dataset.piece) { return; }
    var from = el.closest("#pattern-board .square");
    dragged = { piece: el.dataset.piece, from: from };
    event.dataTransfer.setData("text/plain", el.dataset.piece);
    event.dataTransfer.effectAllowed = "move";
  });
  board.addEventListener("dragover", function (event) {
    var sq = event.target instanceof Element && event.target.closest(".square");
    if (sq && dragged) { event.preventDefault(); sq.classList.add("over"); }
  });
  board.addEventListener("dragleave", function (event) {
    var sq = event.target instanceof Element && event.target.closest(".square");
    if (sq) { sq.classList.remove("over"); }
  });
  board.addEventListener("drop", function (event) {
    var sq = event.target instanceof Element && event.target.closest(".square");
    if (!sq || !dragged) { return; }
    event.preventDefault();
    sq.classList.remove("over");
    if (dragged.from && dragged.from !== sq) { put(dragged.from, ""); }
    put(sq, dragged.piece);
    dragged = null;
    writeField();
  });
  // A piece dragged off the board is removed.
  document.addEventListener("dragend", function (event) {
    if (dragged && dragged.from && event.dataTransfer && event.dataTransfer.dropEffect === "none") {
      put(dragged.from, "");
      writeField();
    }
    dragged = null;
  });

  // Clicks: choose a palette piece (or the eraser), then click squares.
  document.getElementById("palette").addEventListener("click", function (event) {
    var button = event.target instanceof Element && event.target.closest("button[data-piece]");
    if (!button) { return; }
    document.querySelectorAll("#palette button").forEach(function (b) { b.classList.remove("selected"); });
    selected = button.dataset.piece;
    button.classList.add("selected");
  });
  board.addEventListener("click", function (event) {
    var sq = event.target instanceof Element && event.target.closest(".square");
    if (!sq || selected === null) { return; }
    var current = sq.querySelector(".piece");
    put(sq, current && current.dataset.piece === selected ? "" : selected);
    writeField();
  });
  document.getElementById("clear-board").addEventListener("click", function () {
    board.querySelectorAll(".square").forEach(function (sq) { put(sq, ""); });
    writeField();
  });
  field.addEventListener("input", readField);
}());
