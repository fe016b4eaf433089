// The season desk: follow a season start's progress from its JSON (the job's own steps, written
// by the worker as it goes), then load the desk again to show the result. Without JavaScript,
// the card's <noscript> refresh does the same every few seconds.
(() => {
  const job = document.getElementById("start-job");
  if (!job || !["queued", "running"].includes(job.dataset.status)) return;
  if (job.querySelector("[data-job=lost]")) return;  // the card offers to start it again
  const bar = job.querySelector("progress");
  const message = job.querySelector(".job-message");
  const status = job.querySelector(".job-status");
  const done = job.querySelector(".job-done");
  const total = job.querySelector(".job-total");
  const poll = async () => {
    try {
      const response = await fetch(job.dataset.jobUrl, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const state = await response.json();
        if (!["queued", "running"].includes(state.status) || state.lost) {
          window.location.reload();
          return;
        }
        job.dataset.status = state.status;
        if (bar) {
          bar.value = state.percent;
          bar.textContent = `${state.percent} %`;
        }
        if (message) message.textContent = state.message;
        if (status && state.status_label) status.textContent = state.status_label;
        if (done) done.textContent = state.done;
        if (total) total.textContent = state.total;
      }
    } catch (error) {
      // The next poll tries again.
    }
    window.setTimeout(poll, 1000);
  };
  window.setTimeout(poll, 500);
})();
