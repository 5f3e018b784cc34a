#include "validation/thread_executor.hpp"

#include "validation/cpu_kernels.hpp"
#include "validation/measurement_set.hpp"

#include <atomic>
#include <chrono>
#include <ctime>
#include <memory>
#include <pthread.h>
#include <sched.h>
#include <thread>

namespace hs::validation {
namespace {

using Clock = std::chrono::steady_clock;

// Spins for up to 200 ms before sleeping, as Intel's OpenMP runtime does by default (KMP_BLOCKTIME=200):
// a sleeping thread needs the scheduler to wake it, which costs from microseconds on an idle machine to
// milliseconds on a busy one, and that wake-up is the harness's cost, not the plan's. With 2 ms (before
// 2026-12-04) a wait longer than that slept, and so did the start of every run, which the makespan counted
// (on one thread the makespan exceeded the sum of its ops' times by 1-8 %).
void wait_for(const std::atomic<int>& flag) {
  const auto give_up = Clock::now() + std::chrono::milliseconds(200);
  while (flag.load(std::memory_order_acquire) == 0) {
    if (Clock::now() > give_up) {
      flag.wait(0);
      return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

struct OneRun {
  double makespan = 0.0;
  std::vector<double> op_seconds;
  std::vector<double> op_cpu_seconds;
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

OneRun run_once(const Graph& g, const std::vector<std::vector<OpId>>& queues,
                std::vector<std::unique_ptr<CpuKernel>>& kernels) {
  const auto n = static_cast<std::size_t>(g.op_count());
  std::vector<std::atomic<int>> done(n);
  for (auto& d : done)
    d.store(0);
  std::vector<Clock::time_point> start(n), end(n);
  std::vector<double> cpu(n);
  std::atomic<int> ready{0};
  std::atomic<int> go{0};
  Clock::time_point t0;
  std::vector<std::thread> threads;
  for (std::size_t d = 0; d < queues.size(); ++d) {
    threads.emplace_back([&, d] {
      ready.fetch_add(1);
      wait_for(go); // all threads start together, spinning: the clock starts before `go` is set
      for (OpId op : queues[d]) {
        for (OpId p : g.predecessors(op))
          wait_for(done[static_cast<std::size_t>(p)]);
        const double cpu0 = thread_cpu_seconds();
        start[static_cast<std::size_t>(op)] = Clock::now();
        kernels[static_cast<std::size_t>(op)]->run();
        end[static_cast<std::size_t>(op)] = Clock::now();
        cpu[static_cast<std::size_t>(op)] = thread_cpu_seconds() - cpu0;
        done[static_cast<std::size_t>(op)].store(1);
        done[static_cast<std::size_t>(op)].notify_all();
      }
    });
    pin_to_core(threads.back(), static_cast<unsigned>(d));
  }
  while (ready.load() < static_cast<int>(queues.size()))
    std::this_thread::yield();
  t0 = Clock::now();
  go.store(1);
  go.notify_all();
  for (auto& t : threads)
    t.join();
  OneRun r;
  r.op_seconds.resize(n);
  Clock::time_point last = t0;
  for (std::size_t i = 0; i < n; ++i) {
    r.op_seconds[i] = std::chrono::duration<double>(end[i] - start[i]).count();
    last = std::max(last, end[i]);
  }
  r.makespan = std::chrono::duration<double>(last - t0).count();
  r.op_cpu_seconds = std::move(cpu);
  return r;
}

} // namespace

void pin_to_core(std::thread& t, unsigned core) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core % cores, &set);
  pthread_setaffinity_np(t.native_handle(), sizeof set, &set);
}

RealExecution execute_on_threads(const Graph& g, const Plan& plan, int repeats) {
  std::vector<std::vector<OpId>> queues;
  for (std::size_t d = 0; d < plan.queues.size(); ++d) {
    for (std::size_t s = 1; s < plan.queues[d].size(); ++s)
      if (!plan.queues[d][s].empty())
        throw PlanError("the thread executor runs one stream per device; plan '" + plan.policy +
                        "' uses stream " + std::to_string(s) + " on device " + std::to_string(d));
    queues.push_back(plan.queues[d].empty() ? std::vector<OpId>{} : plan.queues[d][0]);
  }
  plan_execution_order(plan, g); // throws on a plan that would deadlock
  std::vector<std::unique_ptr<CpuKernel>> kernels;
  for (const Op& op : g.ops)
    kernels.push_back(make_cpu_kernel(shape_of_op(op, g.name)));
  run_once(g, queues, kernels); // warm-up: first touch of every buffer, caches, thread start-up
  RealExecution r;
  // Per op, its times in every run: one slow run (the machine's, not the plan's) would otherwise decide
  // the per-op figures.
  const auto n = static_cast<std::size_t>(g.op_count());
  std::vector<std::vector<double>> wall(n), cpu(n);
  for (int i = 0; i < repeats; ++i) {
    OneRun one = run_once(g, queues, kernels);
    r.makespans.push_back(one.makespan);
    for (std::size_t op = 0; op < n; ++op) {
      wall[op].push_back(one.op_seconds[op]);
      cpu[op].push_back(one.op_cpu_seconds[op]);
    }
  }
  for (std::size_t op = 0; op < n; ++op) {
    r.op_seconds.push_back(percentile(wall[op], 0.5));
    r.op_cpu_seconds.push_back(percentile(cpu[op], 0.5));
  }
  std::vector<double> sorted = r.makespans;
  r.p50 = percentile(sorted, 0.5);
  r.p95 = percentile(sorted, 0.95);
  return r;
}

} // namespace hs::validation
