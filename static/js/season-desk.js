// The season desk: follow a season start's progress, then show the new state.
(() => {
  const job = document.getElementById("start-job");
  if (!job || !["queued", "running"].includes(job.dataset.status)) return;
  const bar = job.querySelector("progress");
  const message = job.querySelector(".job-message");
  const status = job.querySelector(".job-status");
  const poll = async () => {
    try {
      const response = await fetch(job.dataset.jobUrl, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const state = await response.json();
        bar.value = state.percent;
        bar.textContent = `${state.percent} %`;
        message.textContent = state.message;
        if (!["queued", "running"].includes(state.status)) {
          window.location.reload();
          return;
        }
      }
    } catch (error) {
      // The next poll tries again.
    }
    window.setTimeout(poll, 1500);
  };
  window.setTimeout(poll, 1000);
})();
