/* The pick page's small helpers: countdowns and local times, the pick preview, the steppers,
   one submission per click, copying the receipt. The page works without them. */
(function () {
  "use strict";

  var labelsNode = document.getElementById("countdown-labels");
  var labels = labelsNode ? JSON.parse(labelsNode.textContent) : {};
  var lang = document.documentElement.lang || undefined;

  function pad(n) { return (n < 10 ? "0" : "") + n; }

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

  /* Deadlines: the server wrote Paris time; add the visitor's own time when it differs. */
  var countdowns = Array.prototype.slice.call(document.querySelectorAll("[data-countdown]"));
  countdowns.forEach(function (box) {
    var deadline = new Date(box.getAttribute("data-deadline"));
    box._deadline = deadline;
    var local = box.querySelector("[data-local]");
    if (!local || !window.Intl) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var league = box.closest("[data-zone]");
    var paris = "Europe/Paris";
    var format = function (tz) {
      return new Intl.DateTimeFormat(lang, {
        weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit",
        timeZone: tz
      }).format(deadline);
    };
    if (zone && format(zone) !== format(league ? league.getAttribute("data-zone") : paris)) {
      local.querySelector("[data-local-text]").textContent = format(zone) + " (" + zone + ")";
      local.hidden = false;
    }
  });

  function closeForms(box) {
    var week = box.closest(".week");
    if (!week) return;
    week.querySelectorAll("[data-pick-form] button[type=submit]").forEach(function (button) {
      button.disabled = true;
      button.textContent = button.getAttribute("data-closed");
    });
  }

  function tick() {
    var now = Date.now();
    countdowns.forEach(function (box) {
      var text = box.querySelector("[data-countdown-text]");
      var left = box._deadline.getTime() - now;
      if (left <= 0) {
        if (!box.classList.contains("is-closed")) {
          box.classList.add("is-closed");
          text.textContent = labels.closed;
          closeForms(box);
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

  /* The pick as the tiles and steppers say it (R10), or as typed. */
  document.querySelectorAll("[data-pick-form]").forEach(function (form) {
    var preview = form.querySelector("[data-preview]");
    var typed = form.querySelector("[data-part=notation]");
    var needsShootout = form.getAttribute("data-shootout") === "1";

    function value(part) {
      var checked = form.querySelector("input[data-part=" + part + "]:checked");
      return checked ? checked.value : "";
    }
    function count(part) {
      var input = form.querySelector("input[data-part=" + part + "]");
      return input ? Math.max(0, parseInt(input.value, 10) || 0) : 0;
    }
    function update() {
      var text = typed && typed.value.trim();
      form.classList.toggle("is-typed", !!text);
      if (text) {
        preview.textContent = text.toUpperCase().replace(/\s+/g, "");
        return;
      }
      var column = value("column");
      var extraTime = value("extra_time");
      var shootout = needsShootout ? value("shootout") : "";
      var pick = (column || "?") + "+".repeat(count("extra_goals")) +
        "#".repeat(count("great_saves")) + "(" + (extraTime || "?") + ")" +
        (needsShootout ? "(" + (shootout || "?") + ")" : "");
      preview.textContent = (column || extraTime) ? pick : "—";
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);

    form.querySelectorAll("[data-stepper]").forEach(function (stepper) {
      var input = stepper.querySelector("input");
      stepper.querySelectorAll("[data-step]").forEach(function (button) {
        button.addEventListener("click", function () {
          var max = parseInt(input.max, 10) || 0;
          var next = (parseInt(input.value, 10) || 0) + parseInt(button.getAttribute("data-step"), 10);
          input.value = Math.min(max, Math.max(0, next));
          update();
        });
      });
    });

    /* One click, one pick: a second click while sending does nothing (R12 would keep both). */
    form.addEventListener("submit", function (event) {
      var button = form.querySelector("button[type=submit]");
      if (form.dataset.sending) {
        event.preventDefault();
        return;
      }
      form.dataset.sending = "1";
      button.setAttribute("aria-disabled", "true");
      button.textContent = button.getAttribute("data-sending");
    });
    update();
  });

  /* The receipt: focus it for screen readers, copy its hash. */
  var receipt = document.querySelector("[data-receipt]");
  if (receipt) receipt.focus();
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      if (!navigator.clipboard) return;
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = button.getAttribute("data-copied");
      });
    });
  });
})();
