// Lighthouse's accessibility, best-practices and SEO categories over a list of pages, in one
// Chromium for all of them (a Chromium per page costs more than the audits).
//
//   node tests/browser/lighthouse.mjs CHROMIUM FORM_FACTOR URL...
//
// FORM_FACTOR is "mobile" (Lighthouse's default: a phone's screen) or "desktop". Prints one JSON
// document: for each URL its scores and every scored audit that did not pass, with its details.
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";

const CATEGORIES = ["accessibility", "best-practices", "seo"];

function failing(lhr) {
  const audits = [];
  for (const category of CATEGORIES) {
    for (const ref of lhr.categories[category].auditRefs) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
        const items = (audit.details && audit.details.items) || [];
        audits.push({
          category,
          id: audit.id,
          title: audit.title,
          score: audit.score,
          items: items.slice(0, 10).map((item) => ({
            selector: item.node && item.node.selector,
            snippet: item.node && item.node.snippet,
            explanation: item.node && item.node.explanation,
            url: item.url || (item.sourceLocation && item.sourceLocation.url),
            description: item.description,
            source: item.source,
          })),
        });
      }
    }
  }
  return audits;
}

const [chromePath, formFactor, ...urls] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath,
  chromeFlags: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
});
const report = {};
try {
  for (const url of urls) {
    const result = await lighthouse(
      url,
      {
        port: chrome.port,
        output: "json",
        logLevel: process.env.LIGHTHOUSE_LOG || "error",
        onlyCategories: CATEGORIES,
        // The 404 page is audited too: Lighthouse otherwise refuses a page that is not a 200.
        ignoreStatusCode: true,
        // Server-rendered pages: nothing loads late, so Lighthouse need not wait for the network
        // and the CPU to fall quiet (its defaults cost seconds a page), nor take screenshots.
        pauseAfterFcpMs: 1,
        pauseAfterLoadMs: 1,
        networkQuietThresholdMs: 50,
        cpuQuietThresholdMs: 50,
        disableFullPageScreenshot: true,
        skipAboutBlank: true,
      },
      formFactor === "desktop" ? desktopConfig : undefined,
    );
    const lhr = result.lhr;
    report[url] = {
      runtimeError: lhr.runtimeError ? lhr.runtimeError.message : null,
      scores: Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c].score])),
      failing: failing(lhr),
    };
  }
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify(report, null, 2) + "\n");
