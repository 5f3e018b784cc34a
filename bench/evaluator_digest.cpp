// Everything the contention-aware evaluator computes, over a matrix of platforms x workloads x planning
// policies x scenarios, printed exactly (hexadecimal floats), one digest line per case. Two builds of the
// evaluator give the same lines when, and only when, they compute bit-identical timelines, energies and
// memory peaks on every case, and the policies that plan with the evaluator make the same plans.
// bench/compare_evaluator.sh builds it against another git revision and compares.
//
//   evaluator_digest [--full]
//
// prints `platform workload policy scenario digest` per case (--full: every number instead of a digest).
#include "policies/policy.hpp"
#include "sim/contention_engine.hpp"
#include "sim/scenario.hpp"
#include "workloads/workload_registry.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

using namespace hs;

namespace {

// FNV-1a over the printed form (or the printed form itself with --full).
struct Digest {
  bool full = false;
  std::uint64_t h = 1469598103934665603ULL;
  void add(const char* s) {
    if (full) std::fputs(s, stdout);
    for (; *s; ++s)
      h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ULL;
  }
  void number(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a ", x);
    add(buf);
  }
  void integer(long x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld ", x);
    add(buf);
  }
};

void add_execution(Digest& d, const Execution& e, const std::vector<double>& peaks) {
  d.add("\nmakespan ");
  d.number(e.makespan);
  d.add("\nops ");
  for (const OpRun& r : e.ops) {
    d.number(r.start);
    d.number(r.end);
  }
  d.add("\ntransfers ");
  for (const TransferRun& t : e.transfers) {
    d.integer(t.tensor);
    d.integer(t.from);
    d.integer(t.to);
    d.number(t.bytes);
    d.number(t.start);
    d.number(t.end);
  }
  d.add("\nenergy ");
  for (const double j : e.device_energy)
    d.number(j);
  for (const double j : e.link_energy)
    d.number(j);
  d.add("\npeaks ");
  for (const double b : peaks)
    d.number(b);
  d.add("\n");
}

void add_plan(Digest& d, const Plan& plan) {
  d.add("plan ");
  for (std::size_t o = 0; o < plan.device.size(); ++o) {
    d.integer(plan.device[o]);
    d.integer(plan.stream[o]);
    d.integer(plan.pstate[o]);
  }
  for (const auto& streams : plan.queues)
    for (const auto& queue : streams) {
      d.add("| ");
      for (const OpId o : queue)
        d.integer(o);
    }
}

// The scenarios: none, op-time noise, and availability steps on the first device and the first link.
std::vector<std::pair<std::string, Scenario>> scenarios(const Platform& p) {
  std::vector<std::pair<std::string, Scenario>> out;
  out.emplace_back("none", Scenario{});
  Scenario noise;
  noise.noise_cv = 0.3;
  noise.noise_seed = 7;
  out.emplace_back("noise", noise);
  Scenario steps;
  steps.devices.push_back({0, {{1e-4, 0.5}, {2e-3, 0.25}, {5e-3, 1.0}}});
  if (!p.links.empty()) steps.links.push_back({0, {{5e-5, 0.3}, {1e-3, 1.0}, {4e-3, 0.6}}});
  out.emplace_back("steps", steps);
  return out;
}

// One case: a fresh evaluator's run, then one reused evaluator's makespan, run in start order and run
// in canonical order (which must repeat the fresh run).
void run_case(Digest& d, const Plan& plan, const CostModel& cost, const Scenario& scenario) {
  add_plan(d, plan);
  add_execution(d, run_contention(plan, cost, scenario), {});
  ContentionEvaluator evaluator(cost, scenario);
  d.add("makespan-only ");
  d.number(evaluator.makespan(plan));
  const std::vector<double> peaks = evaluator.peak_memory();
  add_execution(d, evaluator.run(plan, false), peaks);
  add_execution(d, evaluator.run(plan, true), evaluator.peak_memory());
}

} // namespace

int main(int argc, char** argv) {
  const bool full = argc > 1 && std::strcmp(argv[1], "--full") == 0;
  const std::vector<std::string> platforms = {"workstation", "multi-gpu-node", "hetero-server",
                                              "dgx-a100-cluster"};
  const std::vector<std::string> workloads = {
      "random:ops=60",      "random:ops=300,precision=fp16",           "random:ops=2000,precision=fp16",
      "gcn:precision=fp16", "bert-base:batch=2,seq=64,precision=fp16", "resnet50:batch=2,mode=training"};
  try {
    for (const std::string& pname : platforms) {
      const Platform platform = load_platform(pname);
      for (const std::string& wname : workloads) {
        for (const std::uint64_t seed : {1, 2}) {
          if (seed == 2 && wname.rfind("random", 0) != 0) continue;
          Graph graph = load_workload(wname, seed);
          // The textbook form too: an explicit cost on every fifth tensor of the small random graph.
          if (wname == "random:ops=60")
            for (std::size_t t = 0; t < graph.tensors.size(); t += 5)
              graph.tensors[t].comm_time = 1e-6 * static_cast<double>(t % 7);
          const CostModel cost(graph, platform);
          for (const Policy& policy : planning_policies()) {
            Plan plan;
            try {
              plan = policy.plan({cost, seed});
              validate_plan(plan, cost);
            } catch (const std::exception& e) {
              std::printf("%s %s/%" PRIu64 " %s - skipped: %s\n", pname.c_str(), wname.c_str(), seed,
                          policy.name().c_str(), e.what());
              continue;
            }
            for (const auto& [sname, scenario] : scenarios(platform)) {
              Digest d;
              d.full = full;
              run_case(d, plan, cost, scenario);
              std::printf("%s %s/%" PRIu64 " %s %s %016" PRIx64 "\n", pname.c_str(), wname.c_str(), seed,
                          policy.name().c_str(), sname.c_str(), d.h);
            }
          }
          std::fflush(stdout);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evaluator_digest: %s\n", e.what());
    return 1;
  }
  return 0;
}
