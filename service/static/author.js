/* The teachers' authoring page: set up a FEN, play the solution, comment each move, save.
 * Every rule is checked on the server (POST /author/check, /author/save, /author/pgn); this
 * script only collects clicks and text. The token is sent in the X-Author-Token header. */
(function () {
  "use strict";
  // The forms are never submitted (the Content-Security-Policy forbids inline onsubmit handlers).
  for (const form of document.querySelectorAll("form#author, form#course-form")) {
    form.addEventListener("submit", (event) => event.preventDefault());
  }
  var $ = function (id) { return document.getElementById(id); };
  // The page's words in its language (service/i18n.py, through the template); English if missing.
  var stringsEl = $("author-strings");
  var S = stringsEl ? JSON.parse(stringsEl.textContent) : {};
  function say(key, fallback, values) {
    var text = S[key] || fallback;
    Object.keys(values || {}).forEach(function (name) { text = text.replace("{" + name + "}", values[name]); });
    return text;
  }
  var state = { fen: null, moves: [], from: null };

  function request(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Author-Token": $("token").value },
      body: JSON.stringify(body)
    });
  }

  function problem(response) {
    return response.text().then(function (text) {
      try { var data = JSON.parse(text); return data.message || data.error || text; } catch (e) { return text; }
    });
  }

  function exercise() {
    var themes = Array.prototype.map.call(document.querySelectorAll("input[name=theme]:checked"),
                                          function (box) { return box.value; });
    return {
      fen: state.fen, themes: themes, source: $("source").value, title: $("title").value,
      event: $("event").value, white: $("white").value, black: $("black").value,
      moves: state.moves.map(function (move, index) {
        var note = document.querySelector('#moves li[data-index="' + index + '"] input');
        return { uci: move.uci, comment: note ? note.value : "" };
      })
    };
  }

  function render(data) {
    $("author-board").innerHTML = data.svg;
    var list = $("moves");
    var comments = Array.prototype.map.call(list.querySelectorAll("input"), function (i) { return i.value; });
    list.innerHTML = "";
    data.san.forEach(function (san, index) {
      state.moves[index].san = san;
      var item = document.createElement("li");
      item.setAttribute("data-index", String(index));
      var label = document.createElement("span");
      label.className = "san";
      label.textContent = san + " ";
      var note = document.createElement("input");
      note.placeholder = say("comment", "comment on this move");
      note.value = comments[index] || "";
      item.appendChild(label);
      item.appendChild(note);
      list.appendChild(item);
    });
    $("move-status").textContent = data.over ? say("over", "The game is over.")
      : (data.turn === "white" ? say("white_to_play", "White to play.") : say("black_to_play", "Black to play."));
  }

  function refresh() {
    return request("/author/check", { fen: state.fen, moves: state.moves.map(function (m) { return m.uci; }) })
      .then(function (response) {
        if (!response.ok) { return problem(response).then(function (text) { throw new Error(text); }); }
        return response.json();
      })
      .then(function (data) {
        var errors = $("fen-errors");
        errors.innerHTML = "";
        if (!data.valid) {
          data.errors.forEach(function (error) {
            var item = document.createElement("li");
            item.textContent = say("fen_error", "{kind} error in {field}: {message}",
                                   { kind: error.kind, field: error.field, message: error.message });
            errors.appendChild(item);
          });
          $("author-board").innerHTML = "";
          state.fen = null;
          return;
        }
        render(data);
      });
  }

  $("check-fen").addEventListener("click", function () {
    state = { fen: $("fen").value.trim(), moves: [], from: null };
    $("moves").innerHTML = "";
    refresh().catch(function (error) { $("move-status").textContent = error.message; });
  });

  $("author-board").addEventListener("click", function (event) {
    if (!state.fen) { return; }
    var square = null;
    document.elementsFromPoint(event.clientX, event.clientY).some(function (element) {
      var match = element.getAttribute && /\bsquare\b.*\b([a-h][1-8])\b/.exec(element.getAttribute("class") || "");
      if (match) { square = match[1]; return true; }
      return false;
    });
    if (!square) { return; }
    if (!state.from) { state.from = square; $("move-status").textContent = say("from", "From {square}…", { square: square }); return; }
    var uci = state.from + square;
    state.from = null;
    if (uci.slice(0, 2) === uci.slice(2)) { return; }
    state.moves.push({ uci: uci });
    refresh().catch(function (error) {
      state.moves.pop();
      $("move-status").textContent = say("refused", "Refused:") + " " + error.message;
    });
  });

  $("undo").addEventListener("click", function () {
    if (state.moves.length) { state.moves.pop(); refresh(); }
  });

  $("save").addEventListener("click", function () {
    $("save-status").textContent = say("saving", "Saving…");
    request("/author/save", exercise()).then(function (response) {
      if (!response.ok) { return problem(response).then(function (text) { $("save-status").textContent = say("not_saved", "Not saved:") + " " + text; }); }
      return response.json().then(function (data) {
        var link = document.createElement("a");
        link.href = "/page?iri=" + encodeURIComponent(data.position);
        link.textContent = say("open_exercise", "Open the exercise's page");
        $("save-status").textContent = say("saved", "Saved into {source} ({games} exercises).",
                                           { source: data.source, games: String(data.games) }) + " ";
        $("save-status").appendChild(link);
      });
    });
  });

  $("save-course").addEventListener("click", function () {
    $("course-status").textContent = say("saving", "Saving…");
    request("/author/course", { course: $("course-text").value }).then(function (response) {
      if (!response.ok) { return problem(response).then(function (text) { $("course-status").textContent = say("not_saved", "Not saved:") + " " + text; }); }
      return response.json().then(function (data) {
        var link = document.createElement("a");
        link.href = "/course/" + encodeURIComponent(data.course);
        link.textContent = say("open_course", "open it");
        $("course-status").textContent = say("course_saved", "Saved: {chapters} chapters, {exercises} exercises —",
                                             { chapters: String(data.chapters), exercises: String(data.exercises) }) + " ";
        $("course-status").appendChild(link);
      });
    });
  });

  $("download").addEventListener("click", function () {
    request("/author/pgn", exercise()).then(function (response) {
      if (!response.ok) { return problem(response).then(function (text) { $("save-status").textContent = text; }); }
      return response.blob().then(function (blob) {
        var link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = "exercise.pgn";
        document.body.appendChild(link);
        link.click();
        link.remove();
      });
    });
  });
}());
