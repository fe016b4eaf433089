/* Deadlines (R13): each [data-countdown] box counts down to its data-deadline and, when the
   visitor's own time zone differs from the league's (data-zone), says the deadline in it too.
   The server already wrote the time left and the league's time: the page reads without this.
   A box whose deadline passes gets the class is-closed and sends a bubbling "deadline-passed"
   event (the pick page closes its forms on it). */
(function () {
  "use strict";

  var labelsNode = document.getElementById("countdown-labels");
  var labels = labelsNode ? JSON.parse(labelsNode.textContent) : {};
  var lang = document.documentElement.lang || undefined;

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  /* A moment in the page's language, in time zone tz: French writes the first of the month
     « 1er » (« vendredi 1er janvier »), as the server does. */
  function dateText(when, options, tz) {
    var french = /^fr\b/.test(lang || "");
    var format = new Intl.DateTimeFormat(lang, Object.assign({ timeZone: tz }, options));
    return format.formatToParts(when).map(function (part) {
      return french && part.type === "day" && part.value === "1" ? "1er" : part.value;
    }).join("");
  }

  function remaining(ms) {
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400); s -= d * 86400;
    var h = Math.floor(s / 3600); s -= h * 3600;
    var m = Math.floor(s / 60); s -= m * 60;
    var parts = [];
    if (d) parts.push(d + "\u00a0" + labels.days);
    if (d || h) parts.push((d ? pad(h) : h) + "\u00a0" + labels.hours);
    parts.push(((d || h) ? pad(m) : m) + "\u00a0" + labels.minutes);
    if (!d) parts.push(pad(s) + "\u00a0" + labels.seconds);
    return parts.join(" ");
  }

  /* The server wrote the league's time; add the visitor's own time when it differs. */
  var countdowns = Array.prototype.slice.call(document.querySelectorAll("[data-countdown]"));
  countdowns.forEach(function (box) {
    var deadline = new Date(box.getAttribute("data-deadline"));
    box._deadline = deadline;
    var local = box.querySelector("[data-local]");
    if (!local || !window.Intl) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var league = box.closest("[data-zone]");
    var format = function (tz) {
      return dateText(deadline, {
        weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit"
      }, tz);
    };
    if (zone && format(zone) !== format(league ? league.getAttribute("data-zone") : "Europe/Paris")) {
      local.querySelector("[data-local-text]").textContent = format(zone) + " (" + zone + ")";
      local.hidden = false;
    }
  });

  /* A deadline without a countdown (a table's row, [data-local-time]): the visitor's own time
     beside the league's, when they differ. */
  Array.prototype.forEach.call(document.querySelectorAll("[data-local-time]"), function (cell) {
    var local = cell.querySelector("[data-local]");
    if (!local || !window.Intl) return;
    var deadline = new Date(cell.getAttribute("data-deadline"));
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var format = function (tz) {
      return dateText(deadline, {
        weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
      }, tz);
    };
    if (zone && format(zone) !== format(cell.getAttribute("data-zone") || "Europe/Paris")) {
      local.querySelector("[data-local-text]").textContent = format(zone) + " (" + zone + ")";
      local.hidden = false;
    }
  });

  function tick() {
    var now = Date.now();
    countdowns.forEach(function (box) {
      var text = box.querySelector("[data-countdown-text]");
      var left = box._deadline.getTime() - now;
      if (left <= 0) {
        if (!box.classList.contains("is-closed")) {
          box.classList.add("is-closed");
          text.textContent = labels.closed;
          box.dispatchEvent(new CustomEvent("deadline-passed", { bubbles: true }));
        }
        return;
      }
      box.classList.toggle("is-soon", left < 3600 * 1000);
      text.textContent = remaining(left);
    });
  }
  if (countdowns.length) {
    tick();
    setInterval(tick, 1000);
  }
})();
