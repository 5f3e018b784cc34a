// Appended to a copy of a front page by pages_test.sh: hovers and clicks the last plan's point and writes
// whether the tooltip and the details panel show that plan into document.body.dataset.clicked.
(() => {
  const points = [...document.querySelectorAll("circle.plan")];
  const target = points[points.length - 1];
  const id = target.dataset.id;
  const box = target.getBoundingClientRect();
  target.dispatchEvent(
      new MouseEvent("mousemove", {clientX: box.left + 2, clientY: box.top + 2, bubbles: true}));
  const tip = document.getElementById("tooltip");
  const tipShown = tip && tip.style.display === "block" && tip.textContent.startsWith(`plan ${id} `);
  target.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  const panel = document.getElementById("plan-details");
  const row = document.querySelector(`#plan-table tbody tr[data-id="${id}"]`);
  const marked = [...document.querySelectorAll("circle.plan.selected")].every((c) => c.dataset.id === id);
  const ok = tipShown && panel.dataset.id === id && panel.textContent.includes(`Plan ${id}:`) &&
      row.classList.contains("chosen") && marked;
  document.body.dataset.clicked =
      `${ok ? "ok" : "wrong"}: plan ${id}; tooltip ${tip ? tip.textContent : "none"}; ` +
      `panel shows plan ${panel.dataset.id}`;
})();
