// What `run --explain` says about a list schedule: the ranks that ordered the ops, and a replay of the
// decisions, one step at a time: at step k the chart shows the ops placed so far at their planned times,
// and the table the candidates weighed for the k-th op.
//   HS.explain(explain, report)  ->  a <section>
HS.explain = (() => {
  const {el, table, number} = HS;

  // Devices in the report's (platform) order, else in the order the decisions name them.
  function devicesOf(decisions, report) {
    const devices = [];
    for (const d of decisions)
      for (const name of [...d.candidates.map((c) => c.device), d.chosen])
        if (!devices.includes(name)) devices.push(name);
    const order = Object.keys((report && report.devices) || {});
    const at = (name) => (order.includes(name) ? order.indexOf(name) : order.length + devices.indexOf(name));
    return devices.sort((a, b) => at(a) - at(b));
  }

  function rankTable(explain) {
    const octDevices = [];
    for (const r of explain.ranks || [])
      for (const d of Object.keys(r.oct || {}))
        if (!octDevices.includes(d)) octDevices.push(d);
    const oct = (r, d) => (r.oct && r.oct[d] !== undefined ? r.oct[d] : null);
    const rows =
        (explain.ranks ||
         []).map((r) => ({
                   attrs: {"data-op": r.op, "data-rank": String(r.rank)},
                   cells: [
                     r.op, {text: number(r.rank), value: r.rank},
                     {text: number(r.mean_cost), value: r.mean_cost},
                     ...octDevices.map(
                         (d) => ({text: oct(r, d) === null ? "–" : number(oct(r, d)), value: oct(r, d)}))
                   ]
                 }));
    return table(
        ["op", explain.rank_name || "rank", "mean cost", ...octDevices.map((d) => `OCT ${d}`)], rows,
        {id: "rank-table"});
  }

  function candidateTable(explain, d) {
    if (!d) return el("p", {id: "candidates"}, "Step 0: nothing placed yet; move the slider.");
    const withOeft = d.candidates.some((c) => c.o_eft !== null && c.o_eft !== undefined);
    const rows = d.candidates.map(
        (c) => ({
          attrs: {class: c.device === d.chosen ? "chosen" : null, "data-device": c.device},
          cells: [
            c.device + (c.device === d.chosen ? " ✔" : ""), {text: number(c.start), value: c.start},
            {text: number(c.finish), value: c.finish},
            ...(withOeft ? [{text: number(c.o_eft), value: c.o_eft}] : [])
          ]
        }));
    const unit = explain.time_unit || "";
    return el("div", {id: "candidates", "data-op": d.op}, [
      el("p", {},
         `Step ${d.step}: ${d.op} goes to ${d.chosen}, ${number(d.start)} – ${number(d.finish)} ${unit}` +
             ` (${d.rule}${d.tie ? `; tie: ${d.tie}` : ""})`),
      table(["device", "start", "finish", ...(withOeft ? ["O_EFT"] : [])], rows, {class: "candidate-table"})
    ]);
  }

  // The chart of planned placements, the slider and ◀ ▶ buttons that pick the step, and the step's table.
  function replay(explain, report) {
    const decisions = explain.decisions || [];
    const devices = devicesOf(decisions, report);
    const kindOf =
        new Map(((report && report.timeline && report.timeline.ops) || []).map((o) => [o.op, o.kind]));
    const kindColour = HS.colours([...kindOf.values()]);
    const chart = HS.gantt({
      rows: devices,
      end: explain.makespan,
      bars: decisions.map(
          (d) => ({
            row: devices.indexOf(d.chosen),
            start: d.start,
            end: d.finish,
            cls: "op planned",
            fill: kindColour.get(kindOf.get(d.op)) || null,
            tip: [
              ["op", d.op], ["step", d.step], ["device", d.chosen], ["planned start", number(d.start)],
              ["planned finish", number(d.finish)], ["rule", d.rule]
            ]
          }))
    });
    const slider = el("input", {type: "range", id: "step-slider", min: 0, max: decisions.length, step: 1});
    const label = el("span", {id: "step-label"});
    const holder = el("div");
    const show = (k) => {
      slider.value = String(k);
      label.textContent = `step ${k} of ${decisions.length}`;
      label.dataset.step = String(k);
      chart.show((i) => i < k);
      chart.highlight(k - 1);
      holder.replaceChildren(candidateTable(explain, decisions[k - 1]));
    };
    slider.addEventListener("input", () => show(+slider.value));
    const button = (text, delta) => {
      const b = el("button", {type: "button"}, text);
      b.addEventListener("click", () => show(Math.min(decisions.length, Math.max(0, +slider.value + delta))));
      return b;
    };
    // #step=k in the address opens the page at step k (a link to one decision; the browser test uses it).
    const asked = /(?:^#|&)step=(\d+)/.exec(location.hash);
    show(asked ? Math.min(decisions.length, +asked[1]) : decisions.length);
    return [
      el("div", {class: "toolbar"}, [button("◀", -1), slider, button("▶", 1), label]), chart.node, holder
    ];
  }

  return (explain, report) => HS.section("How the schedule was built", [
    el("p", {},
       [
         `${explain.policy} (${explain.form}) on ${explain.workload} / ${explain.platform}: ` +
             `${(explain.decisions || []).length} decisions, planned length `,
         el("span", {id: "explain-makespan", "data-value": String(explain.makespan)},
            `${number(explain.makespan)} ${explain.time_unit || ""}`)
       ]),
    el("h3", {}, `Ranks (${explain.rank_name || "rank"})`), rankTable(explain), el("h3", {}, "Decisions"),
    ...replay(explain, report)
  ]);
})();
