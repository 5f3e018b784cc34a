// Appended to a copy of the sweep page by pages_test.sh: clicks the latency_s header twice and writes
// whether the table came out ascending, then descending, into document.body.dataset.sorted.
(() => {
  const table = document.getElementById("sweep-table");
  const headers = [...table.querySelectorAll("th")];
  const column = headers.findIndex((h) => h.textContent.startsWith("latency_s"));
  const values = () => [...table.querySelectorAll("tbody tr")].map((r) => +r.children[column].textContent);
  const sortedBy = (list, sign) => list.every((v, i) => i === 0 || sign * (v - list[i - 1]) >= 0);
  headers[column].click();
  const up = values();
  headers[column].click();
  const down = values();
  const ok = sortedBy(up, 1) && sortedBy(down, -1) && up[0] < up[up.length - 1];
  document.body.dataset.sorted =
      `${ok ? "ok" : "wrong"}: ascending ${up.join(" ")}; descending ${down.join(" ")}`;
})();
