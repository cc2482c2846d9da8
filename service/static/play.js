/* "Play on": a game against the service's engine from the position on the board (seed 001).
 *
 * ChessKB.playOn(board, fen, container) opens a panel under the board: a strength choice, the
 * moves, a typed-move box, "Download the game (PGN)" and "Stop playing". The learner plays the
 * side to move; each move is sent to POST /play with the whole game so far, and the server checks
 * it, asks Stockfish for a reply at the chosen strength and returns the new position, the
 * learner's legal moves and the game as PGN. While a game is on, the board's data-mode is "play"
 * and the exercise or viewer scripts leave the board alone.
 */
(function () {
  "use strict";

  var configEl = document.getElementById("play-data");
  if (!configEl || !window.ChessKB) { return; }
  var config = JSON.parse(configEl.textContent);
  var S = config.strings || {};

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) { node.textContent = text; }
    return node;
  }

  var current = null;  // the game on, if any

  // The strength list shows the strength the engine really plays (it clamps a wish to its range).
  function showStrengthUsed(select, elo) {
    var value = String(elo);
    if (select.value === value) { return; }
    var found = Array.prototype.filter.call(select.options, function (o) { return o.value === value; })[0];
    if (!found) {
      found = el("option", { value: value }, value);
      select.insertBefore(found, select.firstChild);
    }
    found.selected = true;
  }

  // "You lost: the engine gave checkmate (0-1)." rather than the bare result: who won, and how.
  // answer.over is python-chess's termination name (checkmate, stalemate, fifty_moves …).
  function overText(answer, learner) {
    var key = "over_" + answer.over;
    if (answer.over === "checkmate") {
      key += answer.result === (learner === "w" ? "1-0" : "0-1") ? "_won" : "_lost";
    }
    return (S[key] || S.game_over || "Game over: {result}.").replace("{result}", answer.result || "");
  }

  function playOn(board, fen, container) {
    if (current) { current.stop(); }
    var startFen = fen;
    var moves = [];
    var legal = [];
    var pgn = "";
    var waiting = false;
    var selected = null;
    var over = false;
    var learner = startFen.split(" ")[1];

    var panel = el("section", { "class": "play", id: "play", "aria-label": S.play_on || "Play on" });
    var title = el("h2", {}, S.play_on || "Play on");
    var strength = el("label", {}, (S.strength || "Engine strength (Elo)") + " ");
    var select = el("select", { id: "play-elo" });
    (config.choices || []).forEach(function (elo) {
      var option = el("option", { value: String(elo) }, String(elo));
      if (elo === config["default"]) { option.selected = true; }
      select.appendChild(option);
    });
    strength.appendChild(select);
    var status = el("p", { id: "play-status", "class": "status", role: "status", "aria-live": "polite" });
    var list = el("ol", { id: "play-moves", "class": "play-moves" });
    var form = el("form", { id: "play-form", "class": "move-form" });
    var input = el("input", { id: "play-input", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
                              size: "8", "aria-label": S.type_move || "Type your move" });
    form.appendChild(input);
    form.appendChild(el("button", { type: "submit" }, S.play || "Play"));
    var download = el("button", { type: "button", id: "play-download" }, S.download_pgn || "Download (PGN)");
    var stopButton = el("button", { type: "button", id: "play-stop" }, S.stop_playing || "Stop playing");
    var engineNote = el("p", { id: "play-engine", "class": "note" });
    [title, strength, status, list, form, engineNote].forEach(function (n) { panel.appendChild(n); });
    var row = el("p", {});
    row.appendChild(download);
    row.appendChild(document.createTextNode(" "));
    row.appendChild(stopButton);
    panel.appendChild(row);
    // right under the board: on a phone the panel and its feedback stay in view
    var anchor = board.el.parentNode;
    anchor.insertBefore(panel, board.el.nextSibling);

    function say(text, kind) { status.textContent = text; status.className = "status " + (kind || ""); }

    function addMove(number, san, who) {
      var li = el("li", { "class": who }, number + " " + san);
      list.appendChild(li);
    }

    function request() {
      waiting = true;
      board.el.setAttribute("data-waiting", "true");
      if (moves.length) { say(S.engine_thinking || "The engine is thinking…", "reply"); }
      var xhr = new XMLHttpRequest();
      xhr.open("POST", config.url);
      xhr.setRequestHeader("Content-Type", "application/json");
      xhr.setRequestHeader("Accept", "application/json");
      var sent = moves.length;
      xhr.onload = function () {
        if (current !== game || sent !== moves.length) { return; }
        waiting = false;
        board.el.removeAttribute("data-waiting");
        var answer;
        try { answer = JSON.parse(xhr.responseText); } catch (e) { answer = { error: xhr.statusText }; }
        if (xhr.status !== 200) {
          say((S.engine_failed || "The engine could not answer:") + " " + (answer.error || xhr.status), "wrong");
          if (moves.length && moves.length % 2 === 1) { moves.pop(); list.removeChild(list.lastChild); }
          return;
        }
        if (answer.reply) {
          moves.push(answer.reply.uci);
          addMove(answer.reply.number, answer.reply.san, "reply");
          board.mark("last", [answer.reply.uci.slice(0, 2), answer.reply.uci.slice(2, 4)]);
        }
        board.draw(answer.fen);
        board.el.setAttribute("data-play-plies", String(moves.length));
        legal = answer.legal || [];
        pgn = answer.pgn || "";
        if (answer.elo) {
          engineNote.textContent = (S.engine_elo || "Engine at {elo} Elo").replace("{elo}", String(answer.elo));
          showStrengthUsed(select, answer.elo);
        }
        if (answer.over) {
          over = true;
          board.el.setAttribute("data-play-over", answer.result || "over");
          say(overText(answer, learner), answer.result === (learner === "w" ? "1-0" : "0-1") ? "solved" : "wrong");
        } else if (answer.reply) {
          say((S.engine_played || "The engine played {san}.").replace("{san}", answer.reply.san), "reply");
        } else {
          say((S.play_start || "Your move: you play {side}.").replace("{side}",
            learner === "w" ? (S.white || "White") : (S.black || "Black")), "");
        }
      };
      xhr.onerror = function () {
        waiting = false;
        board.el.removeAttribute("data-waiting");
        say((S.engine_failed || "The engine could not answer:") + " " + xhr.statusText, "wrong");
      };
      xhr.send(JSON.stringify({ fen: startFen, moves: moves, elo: Number(select.value) }));
    }

    function send(move) {
      if (waiting || over) { return; }
      board.mark("selected", []);
      selected = null;
      var fields = board.fen.split(" ");
      moves.push(move.uci);
      addMove(fields[5] + (fields[1] === "w" ? "." : "..."), move.san, "solver");
      board.draw(window.ChessKB.applyMove(board.fen, move.uci));
      board.mark("last", [move.uci.slice(0, 2), move.uci.slice(2, 4)]);
      request();
    }

    function tryMove(from, to) {
      var candidates = legal.filter(function (m) { return m.uci.slice(0, 4) === from + to; });
      if (!candidates.length) { say(S.illegal || "That move is not legal here.", "wrong"); return; }
      send(candidates.filter(function (m) { return m.uci.length < 5 || m.uci.charAt(4) === "q"; })[0] || candidates[0]);
    }

    function onSquare(sq) {
      if (current !== game || waiting || over) { return; }
      var piece = board.pieceAt(sq);
      var own = piece && (piece === piece.toUpperCase() ? "w" : "b") === learner;
      if (selected === null || sq === selected || own) {
        selected = (own && sq !== selected) ? sq : null;
        board.mark("selected", selected ? [selected] : []);
        return;
      }
      tryMove(selected, sq);
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (waiting || over) { return; }
      var found = window.ChessKB.parseMove(input.value, legal);
      input.value = "";
      if (found.move) { send(found.move); } else if (found.ambiguous) {
        say((S.ambiguous || "Which move?") + " " + found.ambiguous.map(function (m) { return m.san; }).join(", "),
            "wrong");
      } else { say(S.illegal || "That move is not legal here.", "wrong"); }
    });
    download.addEventListener("click", function () {
      var blob = new Blob([pgn], { type: "application/x-chess-pgn" });
      var link = el("a", { download: "chesskb-game.pgn" });
      link.href = URL.createObjectURL(blob);
      document.body.appendChild(link);
      link.click();
      link.remove();
    });

    var game = {
      stop: function () {
        current = null;
        board.el.removeAttribute("data-mode");
        if (panel.parentNode) { panel.parentNode.removeChild(panel); }
      },
      moves: function () { return moves.slice(); }
    };
    stopButton.addEventListener("click", function () { game.stop(); });
    current = game;
    board.el.setAttribute("data-mode", "play");
    board.el.setAttribute("data-play-plies", "0");
    board.mark("hint", []);
    board.mark("selected", []);
    board.onSquare(onSquare);
    board.draw(startFen);
    request();  // the learner's legal moves in the start position
    return game;
  }

  window.ChessKB.playOn = playOn;
}());
