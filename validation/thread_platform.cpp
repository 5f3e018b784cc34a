#include "validation/thread_platform.hpp"

#include "sim/error.hpp"
#include "sim/json_input.hpp"

namespace hs::validation {

std::string thread_platform_json(const MeasurementSet& m, int threads) {
  auto peak = m.peaks.find("fp32_flops");
  auto bw = m.peaks.find("memory_bandwidth");
  if (peak == m.peaks.end() || bw == m.peaks.end())
    throw InputError(m.device, "peaks",
                     "a CPU measurement set needs fp32_flops and memory_bandwidth to build a platform");
  const auto env = [&](const char* key) {
    auto it = m.environment.find(key);
    return it == m.environment.end() ? std::string("not recorded") : it->second;
  };
  Json j;
  j["format"] = "heterosim-platform";
  j["version"] = 1;
  j["name"] = "this-cpu-" + std::to_string(threads) + "t";
  j["description"] = "CPU threads of the measured machine (" + env("cpu_model") +
                     "), one device per thread, as run by the validation executor.";
  j["notes"] =
      "Peak FLOPs: " + env("fp32_flops_source") + ". Memory bandwidth: " + env("memory_bandwidth_source") +
      ". Threads share one address space, so a tensor consumed on another thread is read in place: links are "
      "free (no copy happens in the executor). Capacity and power are placeholders: validation compares time "
      "only.";
  j["devices"] = Json::array();
  for (int t = 0; t < threads; ++t) {
    Json d;
    d["name"] = "cpu" + std::to_string(t);
    d["kind"] = "cpu";
    d["peak"] = {{"fp32", peak->second}};
    d["memory"] = {{"bandwidth", bw->second}, {"capacity", "64GiB"}};
    d["power"] = {{"idle", "0W"}, {"busy", "1W"}};
    d["copy_engines"] = 8;
    d["source"] = "measurement set of " + env("date") + " (see notes)";
    j["devices"].push_back(std::move(d));
  }
  j["links"] = Json::array();
  j["routes"] = Json::array();
  for (int a = 0; a < threads; ++a)
    for (int b = a + 1; b < threads; ++b) {
      const std::string name = "mem-" + std::to_string(a) + "-" + std::to_string(b);
      j["links"].push_back({{"name", name},
                            {"bandwidth", "1000TBps"},
                            {"latency", 0},
                            {"sharing", "split-duplex"},
                            {"source", "shared memory: no copy (see notes)"}});
      j["routes"].push_back(
          {{"from", "cpu" + std::to_string(a)}, {"to", "cpu" + std::to_string(b)}, {"links", {name}}});
    }
  return j.dump(1) + "\n";
}

Platform thread_platform(const MeasurementSet& m, int threads) {
  return parse_platform(thread_platform_json(m, threads),
                        "this-cpu-" + std::to_string(threads) + "t (generated)");
}

} // namespace hs::validation
