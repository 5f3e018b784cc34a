// What `run --explain` says about a list schedule: the ranks that ordered the ops, and a replay of the
// decisions, one step at a time: at step k the chart shows the ops placed so far at their planned times,
// and the table the candidates weighed for the k-th op.
HS.explain = (explain, report) => {
  const { el, section, table, number } = HS;
  const decisions = explain.decisions || [];
  const devices = [];
  for (const d of decisions) for (const name of [...d.candidates.map((c) => c.device), d.chosen])
    if (!devices.includes(name)) devices.push(name);
  if (report) {
    const order = Object.keys(report.devices || {});
    devices.sort((a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9));
  }
  const kindOf = new Map(((report && report.timeline && report.timeline.ops) || []).map((o) => [o.op, o.kind]));
  const kindColour = HS.colours([...kindOf.values()]);

  function ranks() {
    const octDevices = [];
    for (const r of explain.ranks || []) for (const d of Object.keys(r.oct || {})) if (!octDevices.includes(d)) octDevices.push(d);
    const rows = (explain.ranks || []).map((r) => ({
      attrs: { "data-op": r.op, "data-rank": String(r.rank) },
      cells: [r.op, { text: number(r.rank), value: r.rank }, { text: number(r.mean_cost), value: r.mean_cost },
        ...octDevices.map((d) => ({ text: number(r.oct ? r.oct[d] : null), value: r.oct ? r.oct[d] : null }))],
    }));
    return table(["op", explain.rank_name || "rank", "mean cost", ...octDevices.map((d) => `OCT ${d}`)], rows, { id: "rank-table" });
  }

  function candidates(d) {
    if (!d) return el("p", { id: "candidates" }, "Step 0: nothing placed yet; move the slider.");
    const withOeft = d.candidates.some((c) => c.o_eft !== null && c.o_eft !== undefined);
    const rows = d.candidates.map((c) => ({
      attrs: { class: c.device === d.chosen ? "chosen" : null, "data-device": c.device },
      cells: [c.device + (c.device === d.chosen ? " ✔" : ""), { text: number(c.start), value: c.start },
        { text: number(c.finish), value: c.finish }, ...(withOeft ? [{ text: number(c.o_eft), value: c.o_eft }] : [])],
    }));
    const headers = ["device", "start", "finish", ...(withOeft ? ["O_EFT"] : [])];
    return el("div", { id: "candidates", "data-op": d.op }, [
      el("p", {}, `Step ${d.step}: ${d.op} goes to ${d.chosen}, ${number(d.start)} – ${number(d.finish)} ${explain.time_unit || ""}` +
        ` (${d.rule}${d.tie ? `; tie: ${d.tie}` : ""})`),
      table(headers, rows, { class: "candidate-table" })]);
  }

  const bars = decisions.map((d) => ({
    row: devices.indexOf(d.chosen), start: d.start, end: d.finish, cls: "op planned",
    fill: kindColour.get(kindOf.get(d.op)) || null,
    tip: [["op", d.op], ["step", d.step], ["device", d.chosen], ["planned start", number(d.start)],
      ["planned finish", number(d.finish)], ["rule", d.rule]],
  }));
  const chart = HS.gantt({ rows: devices, bars, end: explain.makespan });
  const slider = el("input", { type: "range", id: "step-slider", min: 0, max: decisions.length, step: 1 });
  const label = el("span", { id: "step-label" });
  const holder = el("div");
  const show = (k) => {
    slider.value = String(k);
    label.textContent = `step ${k} of ${decisions.length}`;
    label.dataset.step = String(k);
    chart.show((i) => i < k);
    chart.highlight(k - 1);
    holder.replaceChildren(candidates(decisions[k - 1]));
  };
  slider.addEventListener("input", () => show(+slider.value));
  const stepBy = (delta) => show(Math.min(decisions.length, Math.max(0, +slider.value + delta)));
  const button = (text, delta) => {
    const b = el("button", { type: "button" }, text);
    b.addEventListener("click", () => stepBy(delta));
    return b;
  };
  // #step=k in the address opens the page at step k (a link to one decision; the browser test uses it).
  const asked = /(?:^#|&)step=(\d+)/.exec(location.hash);
  show(asked ? Math.min(decisions.length, +asked[1]) : decisions.length);

  const facts = `${explain.policy} (${explain.form}) on ${explain.workload} / ${explain.platform}: ` +
    `${decisions.length} decisions, planned length `;
  return section("How the schedule was built", [
    el("p", {}, [facts, el("span", { id: "explain-makespan", "data-value": String(explain.makespan) },
      `${number(explain.makespan)} ${explain.time_unit || ""}`)]),
    el("h3", {}, `Ranks (${explain.rank_name || "rank"})`), ranks(),
    el("h3", {}, "Decisions"),
    el("div", { class: "toolbar" }, [button("◀", -1), slider, button("▶", 1), label]),
    chart.node, holder]);
};
