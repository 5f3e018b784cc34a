#pragma once
// Everything a run produced, and the ways it is written out: a JSON report, a CSV timeline, a
// Chrome/Perfetto trace (open in ui.perfetto.dev) and a readable summary.
#include "sim/host_issue.hpp"
#include "sim/memory.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hs {

struct RunInfo {
  std::string platform;
  std::string workload;
  std::string policy;
  std::uint64_t seed = 0;
};

// What another engine said about the same plan, printed beside the main engine's figure.
struct EngineFigure {
  std::string engine; // "evaluator" (contention-aware) or "analytic" (contention-free lower bound)
  double makespan = 0.0;
};

struct Report {
  RunInfo info;
  const Plan* plan = nullptr;
  const CostModel* cost = nullptr;
  Execution execution;
  MemoryUsage memory;
  // Per device, the ops that waited for their host (sim/host_issue.hpp); empty when the run recorded no
  // issue times.
  std::vector<HostWait> host_waits;
  std::vector<EngineFigure> cross_check; // the other engines on the same plan

  double total_energy() const;
};

Report make_report(RunInfo info, const Plan& plan, const CostModel& cost, Execution e,
                   std::vector<EngineFigure> cross_check = {});

// The engine's name as printed: "SimGrid replay", "contention-aware evaluator", "contention-free lower
// bound".
std::string engine_label(const std::string& engine);

// The per-op and per-transfer timeline is written when the graph has at most kTimelineOpsUpTo ops or
// `timeline` is Timeline::always; above, "timeline" says what was left out and why (a thousand-GPU step has
// two million ops: their records were most of a run's CPU time and memory; timeline.csv has them in a full
// run).
constexpr int kTimelineOpsUpTo = 100000;
enum class Timeline { automatic, always };
nlohmann::ordered_json report_json(const Report& r, Timeline timeline = Timeline::automatic);
std::string timeline_csv(const Report& r);
std::string chrome_trace(const Report& r);
std::string summary_text(const Report& r);

} // namespace hs
