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

  /* A moment in the site's one shape (matrixhockey/formats/): « Friday 27 November 2026, 17:00 »,
     « vendredi 27 novembre 2026, 17:00 », in the page's language and the zone tz. Built from
     Intl's parts, since each language's own order and punctuation differ from the site's.
     French writes the first of the month « 1er », as the server does. */
  function moment(date, tz) {
    var parts = {};
    new Intl.DateTimeFormat(lang, {
      weekday: "long", day: "numeric", month: "long", year: "numeric",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: tz
    }).formatToParts(date).forEach(function (part) { parts[part.type] = part.value; });
    var day = /^fr\b/.test(lang || "") && parts.day === "1" ? "1er" : parts.day;
    return parts.weekday + " " + day + " " + parts.month + " " + parts.year + ", "
      + parts.hour + ":" + parts.minute;
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

  /* The visitor's own time under a deadline (its [data-local] part), when their zone's moment
     differs from the league's (leagueZone). */
  function showLocal(holder, deadline, leagueZone) {
    var local = holder.querySelector("[data-local]");
    if (!local || !window.Intl) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && moment(deadline, zone) !== moment(deadline, leagueZone || "Europe/Paris")) {
      local.querySelector("[data-local-text]").textContent = moment(deadline, zone) + " (" + zone + ")";
      local.hidden = false;
    }
  }

  /* The server wrote the league's time; add the visitor's own time when it differs. */
  var countdowns = Array.prototype.slice.call(document.querySelectorAll("[data-countdown]"));
  countdowns.forEach(function (box) {
    box._deadline = new Date(box.getAttribute("data-deadline"));
    var league = box.closest("[data-zone]");
    showLocal(box, box._deadline, league && league.getAttribute("data-zone"));
  });

  /* A deadline without a countdown (a table's row, [data-local-time]): the visitor's own time
     beside the league's, when they differ. */
  Array.prototype.forEach.call(document.querySelectorAll("[data-local-time]"), function (cell) {
    showLocal(cell, new Date(cell.getAttribute("data-deadline")), cell.getAttribute("data-zone"));
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
