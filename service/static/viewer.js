/* Replaying a game on its Match page (and in the static site, from file://).
 *
 * The page embeds the game as JSON (#game-data): a flat list of nodes (start = 0), each with its
 * parent, its variations (children, main continuation first), SAN, comment, NAGs and the FEN after
 * it, plus the board SVG both ways round. The move list is the server's HTML; this script makes
 * its moves clickable, steps with the buttons and the arrow keys (Home/End for the ends), flips the
 * board, highlights the current move and its squares, and says which exercise starts here.
 */
(function () {
  "use strict";

  var dataEl = document.getElementById("game-data");
  var boardEl = document.getElementById("viewer-board");
  if (!dataEl || !boardEl || !window.ChessKB) { return; }
  var data = JSON.parse(dataEl.textContent);
  var nodes = data.nodes || [];
  if (nodes.length < 2) { return; }
  var board = new window.ChessKB.Board(boardEl, { normal: data.svg, flipped: data.svg_flipped });
  var controls = document.getElementById("viewer-controls");
  var nowEl = document.getElementById("viewer-now");
  var movesEl = document.getElementById("viewer-moves");
  if (controls) { controls.hidden = false; }
  boardEl.classList.add("viewing");

  var current = 0;

  function show(id) {
    if (id < 0 || id >= nodes.length) { return; }
    current = id;
    var node = nodes[id];
    board.draw(node.fen);
    board.mark("last", node.uci ? [node.uci.slice(0, 2), node.uci.slice(2, 4)] : []);
    boardEl.setAttribute("data-node", String(id));
    var links = movesEl ? movesEl.querySelectorAll("a.mv") : [];
    for (var k = 0; k < links.length; k++) {
      var on = links[k].getAttribute("data-node") === String(id);
      links[k].classList.toggle("current", on);
      if (on) {
        links[k].setAttribute("aria-current", "step");
        if (links[k].scrollIntoView && movesEl.scrollHeight > movesEl.clientHeight) {
          links[k].scrollIntoView({ block: "nearest" });
        }
      } else {
        links[k].removeAttribute("aria-current");
      }
    }
    if (nowEl) {
      nowEl.textContent = node.uci ? node.number + " " + node.san + (node.nags.length ? node.nags.join("") : "") +
        (node.comment ? " — " + node.comment : "") : "";
    }
  }

  function next() { var n = nodes[current]; if (n.children.length) { show(n.children[0]); } }
  function previous() { var n = nodes[current]; if (n.parent !== null) { show(n.parent); } }
  function first() { show(0); }
  function last() { var id = current; while (nodes[id].children.length) { id = nodes[id].children[0]; } show(id); }

  function on(id, fn) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener("click", fn); }
  }
  on("v-next", next);
  on("v-prev", previous);
  on("v-first", first);
  on("v-last", last);
  on("v-flip", function () { board.flip(); });

  if (movesEl) {
    movesEl.addEventListener("click", function (event) {
      var link = event.target.closest ? event.target.closest("a.mv") : null;
      if (!link) { return; }
      event.preventDefault();
      show(Number(link.getAttribute("data-node")));
    });
  }

  document.addEventListener("keydown", function (event) {
    var tag = (event.target && event.target.tagName) || "";
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(tag) || event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (boardEl.getAttribute("data-mode") === "play") { return; }
    var keys = { ArrowRight: next, ArrowLeft: previous, Home: first, End: last };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });

  // "Play on" from the position on the board (the service's engine; play.js).
  var playButton = document.getElementById("v-play-on");
  if (playButton && window.ChessKB.playOn) {
    playButton.addEventListener("click", function () {
      window.ChessKB.playOn(board, nodes[current].fen, document.getElementById("viewer"));
    });
  }

  window.ChessKB.viewer = { show: show, current: function () { return current; } };
  show(0);
}());
