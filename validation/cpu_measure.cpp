#include "validation/cpu_measure.hpp"

#include "validation/cpu_kernels.hpp"
#include "validation/thread_executor.hpp"
#include "validation/utc_time.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <ctime>
#include <fstream>
#include <memory>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <thread>

namespace hs::validation {

std::vector<KernelShape> cpu_measurement_grid(bool quick) {
  std::vector<KernelShape> grid;
  const int step = quick ? 2 : 1; // the quick grid keeps every other point of each sweep
  const std::vector<std::array<double, 3>> gemms = {
      {64, 64, 64},     {128, 128, 128},  {192, 192, 192},    {256, 256, 256},  {384, 384, 384},
      {512, 512, 512},  {768, 768, 768},  {1024, 1024, 1024}, {1024, 64, 1024}, {64, 1024, 1024},
      {1024, 1024, 64}, {512, 2048, 256}, {2048, 128, 512},   {256, 256, 2048}, {128, 4096, 128},
      {4096, 128, 128}, {32, 512, 512},   {512, 32, 512},     {512, 512, 32},   {1536, 256, 768}};
  for (std::size_t i = 0; i < gemms.size(); i += static_cast<std::size_t>(step))
    grid.push_back(gemm_shape(gemms[i][0], gemms[i][1], gemms[i][2]));
  const std::vector<std::array<double, 3>> convs = {
      {56, 64, 64},  {56, 32, 64},  {28, 128, 128}, {28, 64, 128}, {14, 256, 256}, {14, 128, 256},
      {7, 512, 512}, {7, 256, 512}, {112, 16, 32},  {28, 32, 32},  {14, 64, 64}};
  for (std::size_t i = 0; i < convs.size(); i += static_cast<std::size_t>(step))
    grid.push_back(conv2d_shape(convs[i][0], convs[i][1], convs[i][2]));
  for (const char* kind : {"elementwise", "reduction"})
    for (int e = 12; e <= 24; e += step)
      grid.push_back(vector_shape(kind, std::ldexp(1.0, e)));
  for (const char* kind : {"softmax", "layernorm"})
    for (int e = 2; e <= 14; e += step)
      grid.push_back(rows_shape(kind, std::ldexp(1.0, e), 1024));
  for (int e = 12; e <= (quick ? 26 : 28); e += step)
    grid.push_back(copy_shape(std::ldexp(1.0, e)));
  return grid;
}

namespace {

double thread_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Touches every cache line of its own buffer, evicting whatever a kernel left in the caches.
class CacheEvictor {
public:
  explicit CacheEvictor(std::size_t bytes) : buffer_(bytes, 1) {}
  void evict() {
    for (std::size_t i = 0; i < buffer_.size(); i += 64)
      buffer_[i] = static_cast<unsigned char>(buffer_[i] + 1);
  }

private:
  std::vector<unsigned char> buffer_;
};

// Times batches of `kernel` until the plan is satisfied; `keep_going(count, spent)` lets a caller
// synchronise several threads' decisions.
int batch_size(double first_run, const TimingPlan& plan) {
  if (plan.evict_bytes > 0) return 1;
  return std::clamp(static_cast<int>(20e-6 / std::max(first_run, 1e-9)), 1, 10000);
}

bool wants_more(const TimingPlan& plan, std::size_t count, double spent) {
  const auto n = static_cast<int>(count);
  return n < plan.min_repeats || (spent < plan.budget && n < plan.max_repeats);
}

} // namespace

RunTimes time_repeatedly(const std::function<void()>& kernel, const TimingPlan& plan) {
  using clock = std::chrono::steady_clock;
  std::unique_ptr<CacheEvictor> evictor =
      plan.evict_bytes ? std::make_unique<CacheEvictor>(plan.evict_bytes) : nullptr;
  const auto t_warm = clock::now();
  kernel(); // warm-up: page faults, lazy allocation
  const int batch = batch_size(std::chrono::duration<double>(clock::now() - t_warm).count(), plan);
  RunTimes times;
  double spent = 0.0;
  while (wants_more(plan, times.wall.size(), spent)) {
    if (evictor) evictor->evict();
    const double c0 = thread_cpu_now();
    const auto t0 = clock::now();
    for (int i = 0; i < batch; ++i)
      kernel();
    const double dt = std::chrono::duration<double>(clock::now() - t0).count();
    times.cpu.push_back((thread_cpu_now() - c0) / batch);
    times.wall.push_back(dt / batch);
    spent += dt;
  }
  return times;
}

RunTimes time_co_running(const KernelShape& s, int threads, const TimingPlan& plan) {
  using clock = std::chrono::steady_clock;
  std::vector<std::unique_ptr<CpuKernel>> kernels;
  for (int t = 0; t < threads; ++t)
    kernels.push_back(make_cpu_kernel(s));
  // Thread 0 decides, after each synchronised round, whether another round is needed.
  std::barrier sync(threads);
  std::atomic<bool> more{true};
  std::vector<RunTimes> times(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      auto& k = *kernels[static_cast<std::size_t>(t)];
      auto& mine = times[static_cast<std::size_t>(t)];
      std::unique_ptr<CacheEvictor> evictor =
          plan.evict_bytes ? std::make_unique<CacheEvictor>(plan.evict_bytes) : nullptr;
      const auto t_warm = clock::now();
      k.run();
      const int batch = batch_size(std::chrono::duration<double>(clock::now() - t_warm).count(), plan);
      double spent = 0;
      while (true) {
        if (evictor) evictor->evict();
        sync.arrive_and_wait(); // all threads start each round together
        const double c0 = thread_cpu_now();
        const auto t0 = clock::now();
        for (int i = 0; i < batch; ++i)
          k.run();
        const double dt = std::chrono::duration<double>(clock::now() - t0).count();
        mine.cpu.push_back((thread_cpu_now() - c0) / batch);
        mine.wall.push_back(dt / batch);
        spent += dt;
        if (t == 0) more = wants_more(plan, mine.wall.size(), spent);
        sync.arrive_and_wait();
        if (!more) break;
      }
    });
    pin_to_core(pool.back(), static_cast<unsigned>(t));
  }
  for (auto& th : pool)
    th.join();
  RunTimes all;
  for (const auto& v : times) {
    all.wall.insert(all.wall.end(), v.wall.begin(), v.wall.end());
    all.cpu.insert(all.cpu.end(), v.cpu.begin(), v.cpu.end());
  }
  return all;
}

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

std::string cpuinfo_field(const std::string& field) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "";
}

// Size in bytes of the data or unified cache of `level` seen by cpu0 (sysfs), 0 when unknown.
double cache_bytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string lvl = read_first_line(dir + "level"), type = read_first_line(dir + "type");
    if (lvl.empty()) break;
    if (std::stoi(lvl) != level || type == "Instruction") continue;
    std::string size = read_first_line(dir + "size");
    if (size.empty()) return 0;
    double scale = 1;
    if (size.back() == 'K') scale = 1024;
    if (size.back() == 'M') scale = 1024 * 1024;
    if (scale > 1) size.pop_back();
    return std::stod(size) * scale;
  }
  return 0;
}

std::string scheduling_policy() {
  const int policy = sched_getscheduler(0);
  std::string name = policy == SCHED_FIFO    ? "SCHED_FIFO"
                     : policy == SCHED_RR    ? "SCHED_RR"
                     : policy == SCHED_OTHER ? "SCHED_OTHER"
                                             : "other";
  sched_param param{};
  sched_getparam(0, &param);
  return name + " priority " + std::to_string(param.sched_priority) + ", nice " +
         std::to_string(getpriority(PRIO_PROCESS, 0));
}

} // namespace

double cpu_core_peak_flops(std::string& how) {
  const std::string mhz = cpuinfo_field("cpu MHz");
  std::string flags(" ");
  flags += cpuinfo_field("flags");
  flags += ' ';
  if (mhz.empty()) {
    how = "unknown (no 'cpu MHz' in /proc/cpuinfo)";
    return 0.0;
  }
  const double hz = std::stod(mhz) * 1e6;
  double per_cycle = 8; // SSE: 4-wide multiply and add per cycle
  std::string isa = "SSE (4-wide mul + add)";
  if (flags.find(" avx512f ") != std::string::npos) {
    per_cycle = 64;
    isa = "AVX-512 FMA, 2 pipes x 16 lanes x 2";
  } else if (flags.find(" avx2 ") != std::string::npos && flags.find(" fma ") != std::string::npos) {
    per_cycle = 32;
    isa = "AVX2 FMA, 2 pipes x 8 lanes x 2";
  }
  std::ostringstream s;
  s << "nominal: " << mhz << " MHz ('cpu MHz' in /proc/cpuinfo at measurement time) x " << per_cycle
    << " fp32 FLOP/cycle (" << isa << "; pipe count assumed, not read from the CPU)";
  how = s.str();
  return hz * per_cycle;
}

std::map<std::string, std::string> cpu_environment() {
  std::map<std::string, std::string> env;
  env["cpu_model"] = cpuinfo_field("model name");
  env["cpu_mhz"] = cpuinfo_field("cpu MHz");
  env["hardware_threads"] = std::to_string(std::thread::hardware_concurrency());
  env["kernel_threads"] = "1 (Eigen built without OpenMP: each kernel runs on the calling thread)";
#if defined(__clang__)
  env["compiler"] = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  env["compiler"] = std::string("gcc ") + __VERSION__;
#endif
  env["eigen"] = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                 std::to_string(EIGEN_MINOR_VERSION);
  env["simd"] = Eigen::SimdInstructionSetsInUse();
#ifdef HS_KERNEL_ARCH
  env["kernel_arch"] = std::string("kernels compiled for ") + HS_KERNEL_ARCH + " (HS_NATIVE_KERNELS)";
#endif
  env["date"] = utc_now();
  env["loadavg_at_start"] = read_first_line("/proc/loadavg");
  env["os"] = read_first_line("/proc/sys/kernel/osrelease");
  env["scheduling"] = scheduling_policy();
  return env;
}

MeasurementSet measure_cpu(const CpuMeasureOptions& o) {
  MeasurementSet m;
  m.device = "cpu-thread";
  m.device_kind = "cpu";
  m.environment = cpu_environment();
  if (!o.note.empty()) m.environment["note"] = o.note;
  const int rounds = o.quick ? 1 : std::max(1, o.rounds);
  m.environment["timing"] = "p50_s and p95_s: thread CPU time (CLOCK_THREAD_CPUTIME_ID) per run, so that "
                            "time slices taken by other "
                            "processes do not count (their cache and memory traffic still does); wall_p50_s: "
                            "steady_clock. One warm-up run, then at least " +
                            std::to_string(o.min_repeats) +
                            " runs (up to 15 within a time budget), spread over " + std::to_string(rounds) +
                            " round(s) of the whole grid";
  // Co-running threads need cores of their own.
  const int neighbours =
      std::min(o.co_running, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const auto per_round = [&](int runs) { return (runs + rounds - 1) / rounds; };
  TimingPlan timing;
  timing.min_repeats = per_round(o.min_repeats);
  timing.budget = (o.quick ? 0.01 : 0.1) / rounds;
  timing.max_repeats = o.quick ? o.min_repeats : per_round(15); // each cold run costs an eviction pass too
  const double l3 = cache_bytes(3);
  timing.evict_bytes = static_cast<std::size_t>(std::max(64.0 * 1024 * 1024, 2 * l3));
  m.environment["cache_state"] = "cold: before every timed run each thread touches " +
                                 std::to_string(timing.evict_bytes >> 20) +
                                 " MiB of another buffer, as graph ops in the thread executor start cold";
  const auto grid = cpu_measurement_grid(o.quick);
  const auto record = [&](const KernelShape& s, int co_running, RunTimes times) {
    KernelPoint p;
    p.kind = s.kind;
    std::ostringstream label;
    label << s.label();
    if (co_running > 1) label << " x" << co_running << " threads";
    p.label = label.str();
    p.shape = s.dims;
    p.flops = s.flops();
    p.bytes = s.bytes();
    p.repeats = static_cast<int>(times.cpu.size());
    p.co_running = co_running;
    p.p50 = percentile(times.cpu, 0.5);
    p.p95 = percentile(times.cpu, 0.95);
    p.wall_p50 = percentile(times.wall, 0.5);
    if (o.progress) {
      std::ostringstream line; // (not string +: GCC 12 warns falsely about -Wrestrict there)
      line << p.label << ": P50 " << p.p50 * 1e6 << " us";
      o.progress(line.str());
    }
    m.points.push_back(std::move(p));
  };

  // Share of a core this thread got while timing kernels alone: below 1 when other processes competed
  // for the core (time slicing inflates wall-clock times; P50 helps only partly).
  double solo_wall = 0, solo_cpu = 0;
  const auto thread_cpu_seconds = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  std::vector<RunTimes> alone(grid.size()), together(grid.size());
  const auto append = [](RunTimes& all, const RunTimes& more) {
    all.cpu.insert(all.cpu.end(), more.cpu.begin(), more.cpu.end());
    all.wall.insert(all.wall.end(), more.wall.begin(), more.wall.end());
  };
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < grid.size(); ++i) {
      const KernelShape& s = grid[i];
      auto kernel = make_cpu_kernel(s);
      const double cpu0 = thread_cpu_seconds();
      const auto wall0 = std::chrono::steady_clock::now();
      append(alone[i], time_repeatedly([&] { kernel->run(); }, timing));
      solo_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      solo_cpu += thread_cpu_seconds() - cpu0;
      kernel.reset();
      if (neighbours > 1) append(together[i], time_co_running(s, neighbours, timing));
    }
  for (std::size_t i = 0; i < grid.size(); ++i) {
    record(grid[i], 1, alone[i]);
    if (neighbours > 1) record(grid[i], neighbours, together[i]);
  }
  m.environment["loadavg_at_end"] = read_first_line("/proc/loadavg");
  {
    std::ostringstream share;
    share << solo_cpu / solo_wall
          << " (thread CPU time / wall time while timing kernels alone; 1 = a core of its own)";
    m.environment["core_share_while_timing"] = share.str();
  }
  std::string how;
  if (const double peak = cpu_core_peak_flops(how); peak > 0) {
    m.peaks["fp32_flops"] = peak;
    m.environment["fp32_flops_source"] = how;
  }
  // Memory bandwidth of one thread: the best large copy (at least 64 MiB moved, beyond the caches).
  double best = 0;
  for (const auto& p : m.points)
    if (p.kind == "copy" && p.co_running == 1 && p.bytes >= 64.0 * 1024 * 1024)
      best = std::max(best, p.bytes / p.p50);
  for (int level : {2, 3})
    if (const double bytes = cache_bytes(level); bytes > 0) {
      m.peaks[level == 2 ? "l2_cache_bytes" : "l3_cache_bytes"] = bytes;
      m.environment["cache_source"] =
          "/sys/devices/system/cpu/cpu0/cache (as the OS reports it; a VM may report its host's sizes)";
    }
  if (best > 0) {
    m.peaks["memory_bandwidth"] = best;
    m.environment["memory_bandwidth_source"] = "measured: best P50 of the memcpy points moving at least 64 "
                                               "MiB (read + written bytes / time), one thread";
  }
  return m;
}

} // namespace hs::validation
