#include "sim/report.hpp"

#include "sim/copy_lanes.hpp"
#include "sim/csv.hpp"
#include "sim/host_issue.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace hs {

using OJson = nlohmann::ordered_json;

double Report::total_energy() const {
  return hs::total_energy(execution);
}

std::string engine_label(const std::string& engine) {
  if (engine == "simgrid") return "SimGrid replay";
  if (engine == "evaluator") return "contention-aware evaluator";
  if (engine == "analytic") return "contention-free lower bound";
  return engine;
}

Report make_report(RunInfo info, const Plan& plan, const CostModel& cost, Execution e,
                   std::vector<EngineFigure> cross_check) {
  Report r;
  r.info = std::move(info);
  r.plan = &plan;
  r.cost = &cost;
  r.memory = memory_usage(plan, cost, e);
  if (!e.issued.empty()) r.host_waits = host_waits(plan, cost.graph(), e);
  r.execution = std::move(e);
  r.cross_check = std::move(cross_check);
  return r;
}

namespace {

// How many ops the plan runs on device `d`, all its streams together.
int ops_on(const Plan& plan, std::size_t d) {
  int count = 0;
  for (const auto& stream : plan.queues[d])
    count += static_cast<int>(stream.size());
  return count;
}

// What the host spent issuing each device's ops (sim/host_issue.hpp): their mean per op, and whether the
// figure is the device's own (a calibration's or the platform's) or the ops' (the graph's framework).
struct HostIssueCost {
  double per_op = 0.0;
  bool device_own = false;
};
std::vector<HostIssueCost> host_issue_costs(const Report& r) {
  const IssueCosts costs = r.cost->issue_costs();
  std::vector<HostIssueCost> out;
  for (std::size_t d = 0; d < costs.device.size(); ++d) {
    double total = 0.0;
    for (const auto& stream : r.plan->queues[d])
      for (OpId o : stream)
        total += costs.of(static_cast<std::size_t>(o), d);
    const int count = ops_on(*r.plan, d);
    const bool own = costs.device[d] > 0.0;
    out.push_back({own ? costs.device[d] : total / std::max(count, 1), own});
  }
  return out;
}

std::vector<double> busy_seconds(const Report& r) {
  return busy_seconds_per_device(r.execution, *r.plan, r.cost->platform().devices.size());
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Every routed pair, hop by hop, so a reader sees which links a transfer between two devices crossed. Past
// 64 devices (a cluster: a thousand devices have a million pairs), only the pairs the run's transfers
// joined; `heterosim info --routes` lists a platform's all.
constexpr int kEveryRouteUpTo = 64;

OJson routes_json(const Platform& p, const Execution& e) {
  std::vector<std::pair<DeviceId, DeviceId>> pairs;
  if (p.device_count() <= kEveryRouteUpTo) {
    for (DeviceId a = 0; a < p.device_count(); ++a)
      for (DeviceId b = 0; b < p.device_count(); ++b)
        if (a != b) pairs.emplace_back(a, b);
  } else {
    for (const auto& t : e.transfers)
      if (t.from != t.to) pairs.emplace_back(t.from, t.to);
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  }
  OJson routes = OJson::array();
  for (const auto& [a, b] : pairs) {
    const Route* route = p.route(a, b);
    if (!route) continue;
    OJson hops = OJson::array();
    for (const auto& h : route->hops)
      hops.push_back({{"link", p.links[static_cast<std::size_t>(h.link)].name},
                      {"direction", h.forward ? "forward" : "reverse"}});
    routes.push_back({{"from", p.devices[static_cast<std::size_t>(a)].name},
                      {"to", p.devices[static_cast<std::size_t>(b)].name},
                      {"origin", route->computed ? "computed" : "explicit"},
                      {"latency_s", route->latency},
                      {"bandwidth_bytes_per_s", route->bandwidth},
                      {"hops", hops}});
  }
  return routes;
}

// Every op's and transfer's record. Built in place and moved, not copied: at 100,000 ops a copy of these
// arrays costs as much as building them.
OJson timeline_json(const Report& r) {
  const Platform& p = r.cost->platform();
  const Graph& g = r.cost->graph();
  const Execution& e = r.execution;
  OJson out{{"ops", OJson::array()}, {"transfers", OJson::array()}};
  OJson& ops = out["ops"];
  ops.get_ref<OJson::array_t&>().reserve(e.ops.size());
  for (std::size_t o = 0; o < e.ops.size(); ++o)
    ops.push_back({{"op", g.ops[o].name},
                   {"kind", g.ops[o].kind},
                   {"device", p.devices[static_cast<std::size_t>(r.plan->device[o])].name},
                   {"stream", r.plan->stream[o]},
                   {"pstate", r.plan->pstate[o]},
                   {"start_s", e.ops[o].start},
                   {"end_s", e.ops[o].end}});
  OJson& transfers = out["transfers"];
  transfers.get_ref<OJson::array_t&>().reserve(e.transfers.size());
  for (const auto& t : e.transfers)
    transfers.push_back({{"tensor", g.tensor(t.tensor).name},
                         {"from", p.devices[static_cast<std::size_t>(t.from)].name},
                         {"to", p.devices[static_cast<std::size_t>(t.to)].name},
                         {"bytes", t.bytes},
                         {"start_s", t.start},
                         {"end_s", t.end}});
  return out;
}

} // namespace

OJson report_json(const Report& r, Timeline timeline) {
  const Platform& p = r.cost->platform();
  const Graph& g = r.cost->graph();
  const Execution& e = r.execution;
  OJson j;
  j["format"] = "heterosim-report";
  j["version"] = 1;
  j["platform"] = r.info.platform;
  j["workload"] = r.info.workload;
  j["policy"] = r.info.policy;
  j["engine"] = e.engine;
  j["seed"] = r.info.seed;
  j["ops"] = g.op_count();
  j["makespan_s"] = e.makespan;
  if (!r.cross_check.empty()) {
    OJson checks = OJson::array();
    for (const auto& c : r.cross_check)
      checks.push_back(
          {{"engine", c.engine},
           {"meaning", engine_label(c.engine)},
           {"makespan_s", c.makespan},
           {"difference_percent", e.makespan > 0 ? 100.0 * (c.makespan - e.makespan) / e.makespan : 0.0}});
    j["cross_check"] = checks;
  }
  OJson energy;
  energy["total_j"] = r.total_energy();
  OJson dev_energy, link_energy;
  for (std::size_t d = 0; d < p.devices.size(); ++d)
    dev_energy[p.devices[d].name] = e.device_energy[d];
  for (std::size_t l = 0; l < p.links.size(); ++l)
    link_energy[p.links[l].name] = e.link_energy[l];
  energy["devices_j"] = dev_energy;
  energy["links_j"] = link_energy;
  j["energy"] = energy;
  const auto busy = busy_seconds(r);
  OJson devices;
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    const int count = ops_on(*r.plan, d);
    devices[p.devices[d].name] = {{"kind", p.devices[d].kind},
                                  {"ops", count},
                                  {"busy_s", busy[d]},
                                  {"utilization", e.makespan > 0 ? busy[d] / e.makespan : 0.0},
                                  {"peak_memory_bytes", r.memory.peak[d]},
                                  {"peak_memory_time_s", r.memory.peak_time[d]},
                                  {"parameter_bytes", r.memory.parameters[d]},
                                  {"memory_capacity_bytes", p.devices[d].memory_capacity},
                                  {"over_capacity", r.memory.peak[d] > p.devices[d].memory_capacity}};
  }
  if (!r.host_waits.empty()) {
    const std::vector<HostIssueCost> costs = host_issue_costs(r);
    for (std::size_t d = 0; d < p.devices.size(); ++d)
      if (const HostIssueCost& cost = costs[d]; cost.per_op > 0)
        devices[p.devices[d].name]["host_issue"] = {{"issue_overhead_s", cost.per_op},
                                                    {"figure", cost.device_own ? "device" : "ops"},
                                                    {"ops_waited", r.host_waits[d].ops},
                                                    {"waited_s", r.host_waits[d].seconds}};
  }
  j["devices"] = devices;
  const auto link_bytes = bytes_per_link(e, p);
  const auto link_busy = busy_seconds_per_link(e, p);
  OJson links;
  for (std::size_t l = 0; l < p.links.size(); ++l)
    links[p.links[l].name] = {{"bytes", link_bytes[l]},
                              {"busy_s", link_busy[l]},
                              {"busy_s_at_full_bandwidth", link_bytes[l] / p.links[l].bandwidth}};
  j["links"] = links;
  j["routes"] = routes_json(p, e);
  double moved = 0;
  for (const auto& t : e.transfers)
    moved += t.bytes;
  j["transfers"] = {{"count", e.transfers.size()}, {"bytes", moved}};
  j["timeline"] = timeline == Timeline::always || g.op_count() <= kTimelineOpsUpTo
                      ? timeline_json(r)
                      : OJson{{"omitted", std::to_string(g.op_count()) + " ops and " +
                                              std::to_string(e.transfers.size()) + " transfers, over " +
                                              std::to_string(kTimelineOpsUpTo) +
                                              " ops: pass --timeline to include them"}};
  return j;
}

std::string timeline_csv(const Report& r) {
  const Platform& p = r.cost->platform();
  const Graph& g = r.cost->graph();
  std::ostringstream out;
  out.precision(17);
  out << "kind,name,device,stream,from,to,bytes,start_s,end_s,duration_s\n";
  for (std::size_t o = 0; o < r.execution.ops.size(); ++o) {
    const auto& run = r.execution.ops[o];
    out << "op," << csv_field(g.ops[o].name) << ','
        << csv_field(p.devices[static_cast<std::size_t>(r.plan->device[o])].name) << ',' << r.plan->stream[o]
        << ",,," << 0 << ',' << run.start << ',' << run.end << ',' << run.end - run.start << '\n';
  }
  for (const auto& t : r.execution.transfers)
    out << "transfer," << csv_field(g.tensor(t.tensor).name) << ",,,"
        << csv_field(p.devices[static_cast<std::size_t>(t.from)].name) << ','
        << csv_field(p.devices[static_cast<std::size_t>(t.to)].name) << ',' << t.bytes << ',' << t.start
        << ',' << t.end << ',' << t.end - t.start << '\n';
  return out.str();
}

namespace {

// Microseconds, as the trace format counts, on a whole-nanosecond grid: the viewer rounds to nanoseconds
// anyway, and rounding start and end (not start and duration) keeps a slice that ends when the next one
// starts from overlapping it by a rounding error.
struct TraceSpan {
  double ts_us, dur_us;
};
TraceSpan trace_span(double start, double end) {
  const auto s = std::llround(start * 1e9), e = std::llround(end * 1e9);
  return {static_cast<double>(s) / 1e3, static_cast<double>(e - s) / 1e3};
}

} // namespace

std::string chrome_trace(const Report& r) {
  const Platform& p = r.cost->platform();
  const Graph& g = r.cost->graph();
  const CopyLanes lanes = assign_copy_lanes(r.execution);
  OJson events = OJson::array();
  constexpr int kCopyLaneBase = 1000; // transfers get their own lanes below the streams
  // A device's copy lanes are numbered after kCopyLaneBase in (destination, lane) order.
  std::vector<int> tid_of_lane(lanes.lanes.size());
  std::vector<int> next_tid(p.devices.size(), kCopyLaneBase);
  for (std::size_t l = 0; l < lanes.lanes.size(); ++l)
    tid_of_lane[l] = next_tid[static_cast<std::size_t>(lanes.lanes[l].from)]++;
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", d},
                      {"args", {{"name", p.devices[d].name + " (" + p.devices[d].kind + ")"}}}});
    for (std::size_t s = 0; s < r.plan->queues[d].size(); ++s)
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", d},
                        {"tid", s},
                        {"args", {{"name", "stream " + std::to_string(s)}}}});
  }
  for (std::size_t l = 0; l < lanes.lanes.size(); ++l) {
    const CopyLane& lane = lanes.lanes[l];
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", lane.from},
                      {"tid", tid_of_lane[l]},
                      {"args",
                       {{"name", "copy to " + p.devices[static_cast<std::size_t>(lane.to)].name + " #" +
                                     std::to_string(lane.index)}}}});
  }
  for (std::size_t o = 0; o < r.execution.ops.size(); ++o) {
    const auto& run = r.execution.ops[o];
    const TraceSpan span = trace_span(run.start, run.end);
    events.push_back({{"ph", "X"},
                      {"name", g.ops[o].name},
                      {"cat", g.ops[o].kind},
                      {"pid", r.plan->device[o]},
                      {"tid", r.plan->stream[o]},
                      {"ts", span.ts_us},
                      {"dur", span.dur_us},
                      {"args", {{"flops", g.ops[o].flops}, {"pstate", r.plan->pstate[o]}}}});
  }
  for (std::size_t i = 0; i < r.execution.transfers.size(); ++i) {
    const TransferRun& t = r.execution.transfers[i];
    const TraceSpan span = trace_span(t.start, t.end);
    events.push_back({{"ph", "X"},
                      {"name", g.tensor(t.tensor).name},
                      {"cat", "transfer"},
                      {"pid", t.from},
                      {"tid", tid_of_lane[static_cast<std::size_t>(lanes.lane_of[i])]},
                      {"ts", span.ts_us},
                      {"dur", span.dur_us},
                      {"args", {{"bytes", t.bytes}}}});
  }
  return OJson{{"displayTimeUnit", "ns"}, {"traceEvents", events}}.dump() + "\n";
}

namespace {

// Per device whose host issues its ops (sim/host_issue.hpp), how many waited for their host and how long.
std::string host_issue_text(const Report& r) {
  if (r.host_waits.empty()) return "";
  const Platform& p = r.cost->platform();
  const std::vector<HostIssueCost> costs = host_issue_costs(r);
  std::string text;
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    const HostIssueCost& cost = costs[d];
    if (cost.per_op <= 0) continue;
    text += "host issue " + p.devices[d].name + ": " + units::format_time(cost.per_op) +
            (cost.device_own ? " per op; " : " per op on average, the graph's own figures; ") +
            std::to_string(r.host_waits[d].ops) + " of " + std::to_string(ops_on(*r.plan, d)) +
            " ops waited for their host, " + units::format_time(r.host_waits[d].seconds) + " in all\n";
  }
  return text;
}

} // namespace

std::string summary_text(const Report& r) {
  const Platform& p = r.cost->platform();
  const Execution& e = r.execution;
  std::ostringstream out;
  out << "platform  " << r.info.platform;
  // Device figures are datasheet values or stated assumptions; the file says which, per number.
  if (!p.file.empty()) {
    std::error_code ec;
    const auto shown = std::filesystem::proximate(p.file, ec);
    out << "  (figures and their sources: " << (ec ? p.file : shown.string()) << ")";
  }
  out << "\nworkload  " << r.info.workload << " (" << r.cost->graph().op_count() << " ops)\npolicy    "
      << r.info.policy << "\nengine    " << e.engine << "\n\n";
  out << "latency   " << units::format_time(e.makespan) << "   (" << engine_label(e.engine) << ")";
  for (const auto& c : r.cross_check)
    out << "\n          " << units::format_time(c.makespan) << "   ("
        << fmt("%+.2f%%", e.makespan > 0 ? 100.0 * (c.makespan - e.makespan) / e.makespan : 0.0) << ", "
        << engine_label(c.engine) << ")";
  out << "\nenergy    " << units::format_energy(r.total_energy()) << "\n\n";
  const auto busy = busy_seconds(r);
  char line[256];
  std::snprintf(line, sizeof line, "%-12s %-6s %6s %8s %12s %12s %12s\n", "device", "kind", "ops", "util",
                "energy", "peak mem", "capacity");
  out << line;
  for (std::size_t d = 0; d < p.devices.size(); ++d) {
    const int count = ops_on(*r.plan, d);
    std::snprintf(line, sizeof line, "%-12s %-6s %6d %7.1f%% %12s %12s %12s%s\n", p.devices[d].name.c_str(),
                  p.devices[d].kind.c_str(), count, e.makespan > 0 ? 100.0 * busy[d] / e.makespan : 0.0,
                  units::format_energy(e.device_energy[d]).c_str(),
                  units::format_bytes(r.memory.peak[d]).c_str(),
                  units::format_bytes(p.devices[d].memory_capacity).c_str(),
                  r.memory.peak[d] > p.devices[d].memory_capacity ? "  OVER CAPACITY" : "");
    out << line;
  }
  out << host_issue_text(r);
  const auto link_bytes = bytes_per_link(e, p);
  const auto link_busy = busy_seconds_per_link(e, p);
  double moved = 0;
  for (const auto& t : e.transfers)
    moved += t.bytes;
  out << "\ntransfers " << e.transfers.size() << " moving " << units::format_bytes(moved) << "\n";
  for (std::size_t l = 0; l < p.links.size(); ++l)
    if (link_bytes[l] > 0 || e.link_energy[l] > 0) {
      std::snprintf(line, sizeof line, "  %-20s %12s %12s   busy %s\n", p.links[l].name.c_str(),
                    units::format_bytes(link_bytes[l]).c_str(),
                    units::format_energy(e.link_energy[l]).c_str(), units::format_time(link_busy[l]).c_str());
      out << line;
    }
  return out.str();
}

} // namespace hs
