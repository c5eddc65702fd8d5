// The dashboard's live updates. Every 2 seconds, while the tab is visible,
// it fetches the page again and swaps in each part marked data-live whose
// HTML changed, so new delivery attempts and requests appear without a
// reload. Every page works without it: the server renders the whole page.
"use strict";
(function () {
  const period = 2000;
  const self = document.body.dataset.self;
  const badge = document.getElementById("live");
  if (!self || !badge) return;
  let busy = false;

  function show(on) {
    badge.textContent = on ? "live" : "offline";
    badge.className = on ? "live on" : "live off";
  }

  async function refresh() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const res = await fetch(self, { cache: "no-store", headers: { Accept: "text/html" } });
      if (!res.ok) throw new Error("HTTP " + res.status);
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      for (const part of document.querySelectorAll("[data-live]")) {
        const fresh = doc.getElementById(part.id);
        // What the reader opened stays open.
        for (const open of part.querySelectorAll("details[id][open]")) {
          const same = fresh && fresh.querySelector("#" + CSS.escape(open.id));
          if (same) same.open = true;
        }
        if (fresh && fresh.innerHTML !== part.innerHTML) {
          part.replaceWith(document.adoptNode(fresh));
        }
      }
      show(true);
    } catch (e) {
      show(false); // the server stopped, or restarts: try again later
    } finally {
      busy = false;
    }
  }

  show(true);
  setInterval(refresh, period);
  document.addEventListener("visibilitychange", refresh);
})();
