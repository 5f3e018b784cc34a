#include "validation/cpu_validation.hpp"

#include "policies/policy.hpp"
#include "sim/analytic_engine.hpp"
#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/json_input.hpp"
#include "sim/simgrid_engine.hpp"
#include "validation/cpu_measure.hpp"
#include "validation/executable_graphs.hpp"
#include "validation/kernel_shapes.hpp"
#include "validation/thread_executor.hpp"
#include "validation/thread_platform.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace hs::validation {

const std::vector<std::string>& cpu_compute_kinds() {
  static const std::vector<std::string> kinds = {"gemm", "conv2d", "softmax", "layernorm"};
  return kinds;
}

bool cpu_point_held_out(int index_within_kind, int residue) {
  return index_within_kind % 3 == residue;
}

std::vector<double> cpu_tier_bounds(const MeasurementSet& m) {
  std::vector<double> bounds;
  for (const char* key : {"l2_cache_bytes", "l3_cache_bytes"})
    if (auto it = m.peaks.find(key); it != m.peaks.end()) bounds.push_back(it->second);
  return bounds;
}

Calibration cpu_calibration(const RooflineFit& fit) {
  Calibration c;
  c.source = "validation (fit on CPU kernel measurements)";
  Calibration::Entry e = fit.as_calibration_entry();
  e.name = "cpu";
  e.applies_to.kinds = {"cpu"};
  e.measured = "CPU kernel measurements";
  c.entries.push_back(std::move(e));
  return c;
}

namespace {

// The point's kernel shape where the cost model prices it by a CPU BLAS's loop structure (packing,
// im2col): on a CPU, with every dimension named. A GPU's kernels are not run that way.
std::optional<KernelShape> structured_shape(const KernelPoint& p, const MeasurementSet& m) {
  KernelShape shape{p.kind, p.shape};
  if (m.device_kind != "cpu" || !shape.complete()) return std::nullopt;
  return shape;
}

FitPoint fit_point(const KernelPoint& p, const MeasurementSet& m) {
  FitPoint f;
  f.kind = p.kind;
  f.flops = p.flops;
  f.bytes = p.bytes;
  f.seconds = p.p50;
  f.peak_flops = m.peaks.at("fp32_flops");
  f.bandwidth = m.peaks.at("memory_bandwidth");
  if (const auto shape = structured_shape(p, m)) {
    f.pack_bytes = shape->pack_bytes();
    f.im2col_bytes = shape->im2col_bytes();
  }
  return f;
}

} // namespace

std::vector<int> co_running_counts(const MeasurementSet& m) {
  std::set<int> counts;
  for (const auto& p : m.points)
    counts.insert(p.co_running);
  return {counts.begin(), counts.end()};
}

const RooflineFit& fit_for_threads(const FitsByThreads& fits, int threads) {
  if (auto it = fits.find(threads); it != fits.end()) return it->second;
  return fits.at(1);
}

CpuKernelValidation validate_cpu_kernels(const MeasurementSet& m, int co_running, int held_out_residue) {
  CpuKernelValidation v;
  std::map<std::string, int> seen;
  std::vector<FitPoint> train;
  std::vector<const KernelPoint*> test;
  for (const auto& p : m.points) {
    if (p.co_running != co_running) continue;
    if (cpu_point_held_out(seen[p.kind]++, held_out_residue))
      test.push_back(&p);
    else
      train.push_back(fit_point(p, m));
  }
  if (train.empty() || test.empty())
    throw InputError(m.device, "points",
                     "no kernel measured with " + std::to_string(co_running) + " co-running thread(s)");
  v.fit = fit_roofline(train, cpu_compute_kinds(), cpu_tier_bounds(m));
  v.train = static_cast<int>(train.size());
  v.test = static_cast<int>(test.size());

  // Predict through the cost model itself (one independent op per held-out point), so what is validated
  // is what `heterosim run --calibration` computes.
  GraphBuilder b("held-out-kernels");
  for (std::size_t i = 0; i < test.size(); ++i) {
    auto op = b.op("k" + std::to_string(i));
    // With its dimensions, as the workload builders describe the op (a convolution names its window).
    if (const auto shape = structured_shape(*test[i], m))
      describe_op(b.mutable_op(op.id()), *shape);
    else
      op.kind(test[i]->kind).flops(test[i]->flops).reads(test[i]->bytes);
  }
  const Graph g = std::move(b).build();
  const Platform platform = thread_platform(m, 1);
  const CostModel nominal(g, platform), calibrated(g, platform, cpu_calibration(v.fit));
  std::map<std::string, std::vector<double>> e_nom, e_cal;
  std::vector<double> all_nom, all_cal;
  for (std::size_t i = 0; i < test.size(); ++i) {
    KernelRow r{test[i]->kind, test[i]->label, test[i]->p50, nominal.op_time(static_cast<OpId>(i), 0),
                calibrated.op_time(static_cast<OpId>(i), 0)};
    const double en = percent_error(r.nominal, r.measured), ec = percent_error(r.calibrated, r.measured);
    e_nom[r.kind].push_back(en);
    e_cal[r.kind].push_back(ec);
    all_nom.push_back(en);
    all_cal.push_back(ec);
    v.held_out.push_back(std::move(r));
  }
  for (const auto& [kind, e] : e_nom)
    v.nominal[kind] = summarize(e);
  for (const auto& [kind, e] : e_cal)
    v.calibrated[kind] = summarize(e);
  v.nominal_all = summarize(all_nom);
  v.calibrated_all = summarize(all_cal);
  return v;
}

std::string execution_set_json(const ExecutionSet& s) {
  Json j;
  j["format"] = "heterosim-executions";
  j["version"] = 2;
  j["environment"] = s.environment;
  j["executions"] = Json::array();
  for (const auto& r : s.records) {
    j["executions"].push_back(
        {{"graph", {{"generator", "validation executable_graph"}, {"ops", r.ops}, {"seed", r.seed}}},
         {"threads", r.threads},
         {"policy", r.policy},
         {"queues", r.queues},
         {"repeats", r.repeats},
         {"p50_s", r.p50},
         {"p95_s", r.p95},
         {"op_seconds_p50", r.op_seconds},
         {"op_cpu_seconds_p50", r.op_cpu_seconds}});
  }
  return j.dump(1) + "\n";
}

ExecutionSet load_execution_set(const std::string& path) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  root.expect_only({"format", "version", "environment", "executions", "notes"});
  if (root.at("format").as_string() != "heterosim-executions")
    root.at("format").fail("expected format \"heterosim-executions\"");
  // Version 1 stored each op's times in the last timed run, version 2 their P50 over the runs.
  const auto version = root.at("version").as_integer(1, 1000);
  if (version > 2) root.at("version").fail("unsupported version (this build reads 1 and 2)");
  const char* op_wall = version == 1 ? "op_seconds_last_run" : "op_seconds_p50";
  const char* op_cpu = version == 1 ? "op_cpu_seconds_last_run" : "op_cpu_seconds_p50";
  ExecutionSet s;
  if (auto env = root.find("environment"))
    for (const auto& [k, v] : env->members())
      s.environment[k] = v.as_string();
  for (const auto& n : root.at("executions").items()) {
    n.expect_only({"graph", "threads", "policy", "queues", "repeats", "p50_s", "p95_s", op_wall, op_cpu});
    ExecutionRecord r;
    const auto graph = n.at("graph");
    graph.expect_only({"generator", "ops", "seed"});
    r.ops = static_cast<int>(graph.at("ops").as_integer(1, 100000));
    r.seed = static_cast<std::uint64_t>(graph.at("seed").as_integer(0, 1LL << 62));
    r.threads = static_cast<int>(n.at("threads").as_integer(1, 1024));
    r.policy = n.at("policy").as_string();
    for (const auto& q : n.at("queues").items()) {
      std::vector<int> queue;
      for (const auto& op : q.items())
        queue.push_back(static_cast<int>(op.as_integer(0, r.ops - 1)));
      r.queues.push_back(std::move(queue));
    }
    if (static_cast<int>(r.queues.size()) != r.threads) n.at("queues").fail("needs one queue per thread");
    r.repeats = static_cast<int>(n.at("repeats").as_integer(1, 1 << 30));
    r.p50 = n.at("p50_s").as_number();
    r.p95 = n.at("p95_s").as_number();
    if (!(r.p50 > 0)) n.at("p50_s").fail("a measured time must be positive");
    if (auto ops = n.find(op_wall))
      for (const auto& t : ops->items())
        r.op_seconds.push_back(t.as_number());
    if (auto ops = n.find(op_cpu))
      for (const auto& t : ops->items())
        r.op_cpu_seconds.push_back(t.as_number());
    for (const auto* list : {&r.op_seconds, &r.op_cpu_seconds})
      if (!list->empty() && static_cast<int>(list->size()) != r.ops)
        n.fail("per-op lists need one value per op");
    s.records.push_back(std::move(r));
  }
  return s;
}

ExecutionSet measure_executions(const MeasurementSet& m, const FitsByThreads& fits,
                                const ExecutionPlanOptions& o) {
  ExecutionSet s;
  s.environment = cpu_environment();
  const int rounds = std::max(1, o.rounds);
  s.environment["executor"] =
      "validation thread executor: one pinned thread per device, kernels as in the "
      "measurement set; " +
      std::to_string(rounds) + " round(s) over all graphs, each running every graph " +
      std::to_string(o.repeats) + " timed times after one warm-up run; P50 over all runs is compared";
  s.environment["kernel_measurements_date"] =
      m.environment.count("date") ? m.environment.at("date") : "not recorded";
  struct Planned {
    Graph graph;
    Plan plan;
    int threads;
    std::uint64_t seed;
  };
  std::vector<Planned> planned;
  for (int threads : o.threads) {
    const Platform platform = thread_platform(m, threads);
    for (int seed = 1; seed <= o.graphs; ++seed) {
      Graph g = executable_graph({o.ops, static_cast<std::uint64_t>(seed)});
      const CostModel cost(g, platform, cpu_calibration(fit_for_threads(fits, threads)));
      Plan plan = policy_by_name(o.policy).plan(PolicyContext{cost, static_cast<std::uint64_t>(seed)});
      validate_plan(plan, cost);
      planned.push_back({std::move(g), std::move(plan), threads, static_cast<std::uint64_t>(seed)});
    }
  }
  // Per graph: every run's makespan, and each op's P50 in every round.
  std::vector<std::vector<double>> makespans(planned.size());
  std::vector<std::vector<std::vector<double>>> op_wall(planned.size()), op_cpu(planned.size());
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < planned.size(); ++i) {
      const RealExecution real = execute_on_threads(planned[i].graph, planned[i].plan, o.repeats);
      makespans[i].insert(makespans[i].end(), real.makespans.begin(), real.makespans.end());
      op_wall[i].resize(real.op_seconds.size());
      op_cpu[i].resize(real.op_cpu_seconds.size());
      for (std::size_t op = 0; op < real.op_seconds.size(); ++op) {
        op_wall[i][op].push_back(real.op_seconds[op]);
        op_cpu[i][op].push_back(real.op_cpu_seconds[op]);
      }
    }
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    ExecutionRecord r;
    r.ops = o.ops;
    r.seed = p.seed;
    r.threads = p.threads;
    r.policy = p.plan.policy;
    for (const auto& dev : p.plan.queues)
      r.queues.push_back(dev.empty() ? std::vector<int>{} : dev[0]);
    r.repeats = static_cast<int>(makespans[i].size());
    r.p50 = percentile(makespans[i], 0.5);
    r.p95 = percentile(makespans[i], 0.95);
    for (auto& times : op_wall[i])
      r.op_seconds.push_back(percentile(times, 0.5));
    for (auto& times : op_cpu[i])
      r.op_cpu_seconds.push_back(percentile(times, 0.5));
    if (o.progress)
      o.progress(p.graph.name + " on " + std::to_string(p.threads) + " thread(s): P50 makespan " +
                 std::to_string(r.p50 * 1e3) + " ms");
    s.records.push_back(std::move(r));
  }
  s.environment["loadavg_at_end"] = cpu_environment().at("loadavg_at_start");
  return s;
}

namespace {

// SimGrid's makespan for `plan` with every op taking its measured time on the device the plan gave it.
double measured_ops_makespan(const Graph& g, const Plan& plan, const Platform& platform,
                             const std::vector<double>& op_seconds) {
  Graph timed = g;
  for (std::size_t op = 0; op < timed.ops.size(); ++op) {
    const DeviceId d = plan.device[op];
    timed.ops[op].times = {{platform.devices[static_cast<std::size_t>(d)].name, op_seconds.at(op)}};
  }
  return run_simgrid(plan, CostModel(timed, platform)).makespan;
}

// `c` with `seconds` more launch overhead on every op of every entry.
Calibration with_executor_overhead(Calibration c, double seconds) {
  for (auto& e : c.entries)
    e.launch_overhead = e.launch_overhead.value_or(0.0) + seconds;
  return c;
}

// Each graph's own: its one-thread P50 makespan beyond the sum of its ops' P50 wall times, per op.
std::map<std::uint64_t, double> own_executor_overheads(const ExecutionSet& s) {
  std::map<std::uint64_t, double> own;
  for (const auto& r : s.records) {
    if (r.threads != 1 || r.op_seconds.empty()) continue;
    double ops = 0;
    for (double t : r.op_seconds)
      ops += t;
    own[r.seed] = std::max(0.0, (r.p50 - ops) / static_cast<double>(r.op_seconds.size()));
  }
  return own;
}

} // namespace

ExecutorOverhead executor_overhead_all_graphs(const ExecutionSet& s) {
  ExecutorOverhead e;
  for (const auto& [seed, overhead] : own_executor_overheads(s)) {
    e.seconds_per_op += overhead;
    ++e.graphs;
  }
  if (e.graphs > 0) e.seconds_per_op /= e.graphs;
  return e;
}

std::map<std::uint64_t, double> executor_overhead_per_op(const ExecutionSet& s) {
  const auto own = own_executor_overheads(s);
  std::map<std::uint64_t, double> out;
  for (const auto& r : s.records) {
    double sum = 0;
    int n = 0;
    for (const auto& [seed, overhead] : own)
      if (seed != r.seed) {
        sum += overhead;
        ++n;
      }
    out[r.seed] = n > 0 ? sum / n : 0.0;
  }
  return out;
}

EndToEndValidation predict_executions(const ExecutionSet& s, const MeasurementSet& m,
                                      const FitsByThreads& fits) {
  EndToEndValidation v;
  std::vector<double> errors, adjusted_errors, replay_errors, without_executor;
  const auto executor = executor_overhead_per_op(s);
  for (const auto& r : s.records) {
    const Graph g = executable_graph({r.ops, r.seed});
    const Platform platform = thread_platform(m, r.threads);
    const Calibration kernels = cpu_calibration(fit_for_threads(fits, r.threads));
    const CostModel kernels_only(g, platform, kernels);
    const CostModel cost(g, platform, with_executor_overhead(kernels, executor.at(r.seed)));
    Plan plan = Plan::empty(g.op_count(), platform, r.policy);
    for (std::size_t d = 0; d < r.queues.size(); ++d)
      for (int op : r.queues[d])
        plan.append(op, static_cast<DeviceId>(d));
    validate_plan(plan, cost);
    EndToEndRow row;
    row.graph = g.name;
    row.threads = r.threads;
    row.measured = r.p50;
    row.simgrid = run_simgrid(plan, cost).makespan;
    row.analytic = run_analytic(plan, cost).makespan;
    row.error = percent_error(row.simgrid, row.measured);
    row.executor_overhead = executor.at(r.seed);
    row.simgrid_without_executor = run_simgrid(plan, kernels_only).makespan;
    row.error_without_executor = percent_error(row.simgrid_without_executor, row.measured);
    without_executor.push_back(row.error_without_executor);
    for (double t : r.op_seconds)
      row.measured_op_sum += t;
    double cpu_sum = 0;
    for (double t : r.op_cpu_seconds)
      cpu_sum += t;
    if (cpu_sum > 0 && row.measured_op_sum > 0) {
      row.core_share = cpu_sum / row.measured_op_sum;
      row.share_adjusted = row.measured * std::min(1.0, row.core_share);
      row.share_adjusted_error = percent_error(row.simgrid, row.share_adjusted);
      adjusted_errors.push_back(row.share_adjusted_error);
    }
    if (r.op_seconds.size() == static_cast<std::size_t>(g.op_count())) {
      row.measured_ops_replay = measured_ops_makespan(g, plan, platform, r.op_seconds);
      row.measured_ops_replay_error = percent_error(row.measured_ops_replay, row.measured);
      replay_errors.push_back(row.measured_ops_replay_error);
    }
    for (OpId op = 0; op < g.op_count(); ++op) {
      const double predicted = cost.op_time(op, plan.device[static_cast<std::size_t>(op)]);
      row.predicted_op_sum += predicted;
      const auto i = static_cast<std::size_t>(op);
      row.ops.push_back({shape_of_op(g.op(op), g.name).label(),
                         i < r.op_seconds.size() ? r.op_seconds[i] : 0.0, predicted});
    }
    errors.push_back(row.error);
    v.rows.push_back(std::move(row));
  }
  v.simgrid = summarize(errors);
  v.simgrid_without_executor = summarize(without_executor);
  v.share_adjusted = summarize(adjusted_errors);
  v.measured_ops_replay = summarize(replay_errors);
  return v;
}

} // namespace hs::validation
