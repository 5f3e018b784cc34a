// Helpers every page shares: reading the embedded data, building DOM and SVG, formatting figures, sortable
// tables, one tooltip, and the ready marker the browser test waits for.
const HS = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";

  function data(id) {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  // el("td", {class: "num", "data-s": 1.5}, "1.5 s"): attributes, then text or child nodes.
  function build(node, attrs, content) {
    for (const [k, v] of Object.entries(attrs || {}))
      if (v !== null && v !== undefined) node.setAttribute(k, v);
    if (content === undefined || content === null) return node;
    for (const c of Array.isArray(content) ? content : [content])
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }
  const el = (tag, attrs, content) => build(document.createElement(tag), attrs, content);
  const svg = (tag, attrs, content) => build(document.createElementNS(SVG_NS, tag), attrs, content);

  function withUnit(v, steps, unit) {
    if (v === null || v === undefined || !Number.isFinite(v)) return "–";
    const a = Math.abs(v);
    for (const [scale, prefix] of steps)
      if (a >= scale || scale === steps[steps.length - 1][0])
        return `${+ (v / scale).toPrecision(4)} ${prefix}${unit}`;
    return `${v} ${unit}`;
  }
  const SI =
      [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""], [1e-3, "m"], [1e-6, "µ"], [1e-9, "n"]];
  const seconds = (v) => (v === 0 ? "0 s" : withUnit(v, SI.slice(4), "s"));
  const joules = (v) => (v === 0 ? "0 J" : withUnit(v, SI, "J"));
  const bytes = (v) => (v === 0 ? "0 B" : withUnit(v, SI.slice(0, 5), "B"));
  const percent = (v) => `${(100 * v).toFixed(1)}%`;
  const number = (v) => (typeof v === "number" ? String(+v.toPrecision(6)) : String(v));

  // A table whose headers sort it (click again for the other direction). Each cell is a value, or
  // {text, value, attrs} to show one thing and sort on another.
  function table(headers, rows, attrs) {
    const cell = (c) =>
        (c !== null && typeof c === "object" && !(c instanceof Node) ? c : {text: c, value: c});
    const body = el("tbody");
    const draw = (order) => {
      body.replaceChildren(...order.map(
          (r) => el("tr", r.attrs || {}, r.cells.map((c) => {
            const x = cell(c);
            return el(
                "td", Object.assign(typeof x.value === "number" ? {class: "num"} : {}, x.attrs || {}),
                x.text);
          }))));
    };
    let sorted = {column: -1, sign: 1};
    const head = el("tr", {}, headers.map((h, i) => {
      const th = el("th", {title: "click to sort"}, h);
      th.addEventListener("click", () => {
        sorted = {column: i, sign: sorted.column === i ? -sorted.sign : 1};
        const key = (r) => cell(r.cells[i]).value;
        const order = rows.slice().sort((a, b) => sorted.sign * compare(key(a), key(b)));
        for (const t of head.children) t.removeAttribute("data-sorted");
        th.setAttribute("data-sorted", sorted.sign > 0 ? "up" : "down");
        draw(order);
      });
      return th;
    }));
    draw(rows);
    return el("table", attrs || {}, [el("thead", {}, head), body]);
  }

  // Numbers before text, nulls last, text in natural order ("op2" before "op10").
  function compare(a, b) {
    const rank = (v) => (v === null || v === undefined ? 2 : typeof v === "number" ? 0 : 1);
    if (rank(a) !== rank(b)) return rank(a) - rank(b);
    if (typeof a === "number") return a - b;
    return String(a).localeCompare(String(b), "en", {numeric: true});
  }

  let tip = null;
  function tooltip(lines, event) {
    if (!tip) {
      tip = el("div", {id: "tooltip", role: "tooltip"});
      document.body.append(tip);
    }
    if (!lines) {
      tip.style.display = "none";
      return;
    }
    tip.replaceChildren(...lines.map(([k, v]) => el("div", {}, [el("b", {}, k + " "), String(v)])));
    tip.style.display = "block";
    const x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 4);
    const y = Math.min(event.clientY + 14, window.innerHeight - tip.offsetHeight - 4);
    tip.style.left = `${Math.max(0, x)}px`;
    tip.style.top = `${Math.max(0, y)}px`;
  }

  // Ten colours that stay apart on a white background; kinds get them in sorted order, so a kind keeps
  // its colour across pages of one workload.
  const PALETTE = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#bab0ac"
  ];
  function colours(names) {
    const map = new Map();
    [...new Set(names)].sort().forEach((n, i) => map.set(n, PALETTE[i % PALETTE.length]));
    return map;
  }

  function section(title, content) {
    return el("section", {}, [el("h2", {}, title), ...(Array.isArray(content) ? content : [content])]);
  }

  // Runs a page's drawing, then marks the body: "1" when it drew, "error" with the message shown if not.
  function start(draw) {
    try {
      draw(document.getElementById("app"));
      document.body.dataset.ready = "1";
    } catch (e) {
      document.getElementById("app").append(
          el("pre", {class: "error"}, `This page could not draw: ${e.stack || e}`));
      document.body.dataset.ready = "error";
    }
  }

  return {
    data,
    el,
    svg,
    seconds,
    joules,
    bytes,
    percent,
    number,
    table,
    compare,
    tooltip,
    colours,
    section,
    start
  };
})();
