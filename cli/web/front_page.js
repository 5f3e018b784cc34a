// The Pareto front page: a scatter per pair of objectives (on the values the front is defined on), the
// baselines beside it, and a plan's details on hover (tooltip) and click (panel and table row).
(() => {
  const {el, svg, section, table, number} = HS;
  const front = HS.data("hs-front");
  const engine = front.front_engine || "evaluator";
  const KEYS =
      {latency: "latency_s", energy: "energy_j", memory: "memory_ratio", precision: "precision_penalty"};
  const objectives = front.objectives.map((o) => ({name: o.name, unit: o.unit, key: KEYS[o.name] || o.name}));
  const scores = (x) => x[engine] || x.evaluator;
  const value = (x, o) => scores(x)[o.key];
  const show = (o, v) =>
      (o.key === "latency_s"    ? HS.seconds(v) :
           o.key === "energy_j" ? HS.joules(v) :
                                  number(v));
  const plans = front.plans, baselines = front.baselines || [];
  const marks = [];
  let selected = null;

  const rewriteCount = (p) =>
      (p.rewrites ? Object.values(p.rewrites).reduce((n, list) => n + list.length, 0) : 0);
  const tipOf = (p) => [
      ["plan", `${p.id} (${p.origin})`], ...objectives.map((o) => [o.name, show(o, value(p, o))]),
      ["rewrites", rewriteCount(p)]];

  function details(p) {
    const rows = objectives.map(
        (o) => ({
          cells: [
            o.name, show(o, p.evaluator[o.key]), p.simgrid ? show(o, p.simgrid[o.key]) : "–",
            p.search_error && o.name in p.search_error ? HS.percent(p.search_error[o.name]) : "–"
          ]
        }));
    const placed = Object.entries(p.placement || {}).map(([d, ops]) => `${d}: ${ops.length} ops`).join(", ");
    return [
      el("h3", {}, `Plan ${p.id}: ${p.origin} (found at evaluation ${p.found_at_evaluation})`),
      table(["objective", "evaluator", "SimGrid replay", "search error"], rows),
      el("p", {}, `placement: ${placed || "–"}`),
      el("pre", {class: "details"}, JSON.stringify(p.rewrites || {}, null, 1))
    ];
  }
  const panel = el("div", {id: "plan-details"}, "Click a point or a row to see a plan's details.");
  function select(id) {
    selected = id;
    for (const m of marks) m.classList.toggle("selected", +m.dataset.id === id);
    for (const r of document.querySelectorAll("#plan-table tbody tr"))
      r.classList.toggle("chosen", +r.dataset.id === id);
    panel.dataset.id = String(id);
    panel.replaceChildren(...details(plans.find((p) => p.id === id)));
  }

  function scatter(a, b) {
    const all = plans.concat(baselines);
    const plot = HS.axes({
      x: {label: `${a.name} (${a.unit})`, values: all.map((x) => value(x, a))},
      y: {label: `${b.name} (${b.unit})`, values: all.map((x) => value(x, b))}
    });
    for (const p of plans) {
      const mark =
          svg("circle",
              {class: "plan", "data-id": p.id, r: 5, cx: plot.sx(value(p, a)), cy: plot.sy(value(p, b))});
      mark.addEventListener("mousemove", (e) => HS.tooltip(tipOf(p), e));
      mark.addEventListener("mouseleave", () => HS.tooltip(null));
      mark.addEventListener("click", () => select(p.id));
      marks.push(mark);
      plot.layer.append(mark);
    }
    // Baselines on top (there are few, and plans often sit on them); one label for those at one spot.
    const labels = new Map();
    for (const base of baselines) {
      const x = plot.sx(value(base, a)), y = plot.sy(value(base, b));
      const mark =
          svg("path", {class: "baseline", d: `M${x},${y - 6}L${x + 6},${y}L${x},${y + 6}L${x - 6},${y}Z`});
      mark.addEventListener(
          "mousemove",
          (e) => HS.tooltip(
              [["baseline", base.policy], ...objectives.map((o) => [o.name, show(o, value(base, o))])], e));
      mark.addEventListener("mouseleave", () => HS.tooltip(null));
      plot.layer.append(mark);
      const spot = `${Math.round(x)},${Math.round(y)}`;
      if (!labels.has(spot)) labels.set(spot, {x, y, names: []});
      labels.get(spot).names.push(base.policy);
    }
    for (const l of labels.values())
      plot.layer.append(svg("text", {x: l.x + 8, y: l.y + 4, class: "baseline-label"}, l.names.join(", ")));
    return el("figure", {"data-pair": `${a.name}-${b.name}`}, [
      plot.node,
      el("figcaption", {},
         `${b.name} against ${a.name}: ${plans.length} plans (circles), ${
             baselines.length} baselines (diamonds)`)
    ]);
  }

  function planTable() {
    const rows = plans.map(
        (p) => ({
          attrs: {"data-id": p.id},
          cells: [
            p.id, p.origin, ...objectives.map((o) => ({text: show(o, value(p, o)), value: value(p, o)})),
            rewriteCount(p)
          ]
        }));
    const t = table(["id", "origin", ...objectives.map((o) => o.name), "rewrites"], rows, {id: "plan-table"});
    t.addEventListener("click", (e) => {
      const row = e.target.closest("tbody tr");
      if (row) select(+row.dataset.id);
    });
    return t;
  }

  HS.start((app) => {
    const hv = front.hypervolume || {};
    app.append(
        el("p", {id: "front-summary", "data-plans": plans.length},
           `${front.algorithm} on ${front.workload} / ${front.platform}, seed ${front.seed}: ${
               plans.length} plans on the front ` +
               `after ${front.evaluations} of ${front.budget} evaluations; values from the ${
                   engine === "simgrid" ? "SimGrid replay" : "evaluator"}; ` +
               `hypervolume ${number(hv.front)} (baselines ${number(hv.baselines)})`));
    const pairs = [];
    for (let i = 0; i < objectives.length; ++i)
      for (let k = i + 1; k < objectives.length; ++k) pairs.push(scatter(objectives[i], objectives[k]));
    app.append(
        section("Objective pairs", el("div", {class: "plots"}, pairs)),
        section("Plans", [planTable(), panel]));
    if (plans.length) select(selected === null ? plans[0].id : selected);
  });
})();
