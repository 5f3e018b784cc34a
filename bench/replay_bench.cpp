// Replay throughput: HeteroSim's actor-per-stream replay against the eager SimGrid approach of building
// the whole DAG as s4u activities linked by add_successor (DESIGN.md: quadratic in SimGrid 3.32).
//
//   replay_bench lazy  OPS   -> one line: ops, transfers, wall and CPU seconds, events per CPU second, peak
//   RSS (KiB) replay_bench eager OPS   -> the same for the eager baseline
//
// Each replay runs in a child process (one SimGrid engine per process) whose wall time and peak RSS are
// measured by the parent with wait4(), so graph generation and planning are not counted.
#include "bench/bench_plans.hpp"
#include "policies/policy.hpp"
#include "sim/simgrid_engine.hpp"
#include "sim/simgrid_platform.hpp"
#include "workloads/random_dag.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <simgrid/s4u.hpp>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sg4 = simgrid::s4u;
using namespace hs;

namespace {

using bench::fastest_per_op;

std::size_t count_transfers(const Plan& plan, const Graph& g) {
  std::size_t n = 0;
  for (const auto& t : g.tensors) {
    std::vector<DeviceId> seen;
    for (OpId c : t.consumers) {
      const DeviceId d = plan.device[static_cast<std::size_t>(c)];
      if (d != plan.device[static_cast<std::size_t>(t.producer)] &&
          std::find(seen.begin(), seen.end(), d) == seen.end()) {
        seen.push_back(d);
        ++n;
      }
    }
  }
  return n;
}

// The baseline: every op an Exec and every transfer a Comm, all created up front and chained.
void eager_replay(const Plan& plan, const CostModel& cost) {
  int argc = 1;
  char name[] = "bench";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  xbt_log_control_set("root.thresh:critical");
  configure_exact_network();
  const SimgridPlatform sg = build_simgrid_platform(cost.platform());
  const Graph& g = cost.graph();
  std::vector<sg4::ExecPtr> execs;
  execs.reserve(static_cast<std::size_t>(g.op_count()));
  for (OpId o = 0; o < g.op_count(); ++o) {
    const DeviceId d = plan.device[static_cast<std::size_t>(o)];
    execs.push_back(sg4::Exec::init()
                        ->set_flops_amount(cost.op_time(o, d) * kNominalSpeed)
                        ->set_host(sg.hosts[static_cast<std::size_t>(d)]));
  }
  // Stream order and same-device data dependencies, each edge once (SimGrid refuses duplicates).
  std::set<std::pair<OpId, OpId>> exec_edges;
  for (const auto& streams : plan.queues)
    for (const auto& q : streams)
      for (std::size_t i = 1; i < q.size(); ++i)
        exec_edges.emplace(q[i - 1], q[i]);
  std::vector<sg4::CommPtr> comms;
  for (TensorId t = 0; t < g.tensor_count(); ++t) {
    const auto& tensor = g.tensor(t);
    const DeviceId from = plan.device[static_cast<std::size_t>(tensor.producer)];
    for (OpId c : tensor.consumers) {
      const DeviceId to = plan.device[static_cast<std::size_t>(c)];
      if (to == from) {
        exec_edges.emplace(tensor.producer, c);
        continue;
      }
      auto comm = sg4::Comm::sendto_init(sg.hosts[static_cast<std::size_t>(from)],
                                         sg.hosts[static_cast<std::size_t>(to)])
                      ->set_payload_size(static_cast<uint64_t>(tensor.bytes));
      execs[static_cast<std::size_t>(tensor.producer)]->add_successor(comm.get());
      comm->add_successor(execs[static_cast<std::size_t>(c)].get());
      comms.push_back(comm);
    }
  }
  for (const auto& [a, b] : exec_edges)
    execs[static_cast<std::size_t>(a)]->add_successor(execs[static_cast<std::size_t>(b)].get());
  for (auto& e : execs)
    e->vetoable_start();
  for (auto& c : comms)
    c->vetoable_start();
  engine.run();
}

struct Measured {
  double seconds;
  double cpu_seconds; // user + system: less sensitive than wall time to other load on the machine
  long max_rss_kib;
  bool ok;
};

template <class F> Measured in_child(F&& f) {
  std::fflush(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    f();
    _exit(0);
  }
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  return {s, cpu, usage.ru_maxrss, WIFEXITED(status) && WEXITSTATUS(status) == 0};
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "lazy") != 0 && std::strcmp(argv[1], "eager") != 0)) {
    std::fprintf(stderr, "usage: replay_bench lazy|eager OPS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int ops = std::stoi(argv[2]);
  const Platform platform = load_platform("hetero-server");
  RandomDagOptions o;
  o.ops = ops;
  o.seed = 42;
  const Graph g = random_ml_dag(o);
  const CostModel cost(g, platform);
  const Plan plan = fastest_per_op(cost);
  validate_plan(plan, cost);
  const std::size_t transfers = count_transfers(plan, g);
  const Measured m = mode == "lazy" ? in_child([&] { (void)run_simgrid_in_this_process(plan, cost); })
                                    : in_child([&] { eager_replay(plan, cost); });
  if (!m.ok) {
    std::fprintf(stderr, "replay failed\n");
    return 1;
  }
  const double events = static_cast<double>(ops) + static_cast<double>(transfers);
  std::printf("%s %d %zu %.3f %.3f %.0f %ld\n", mode.c_str(), ops, transfers, m.seconds, m.cpu_seconds,
              events / m.cpu_seconds, m.max_rss_kib);
  return 0;
}
