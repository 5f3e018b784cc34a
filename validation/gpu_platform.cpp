#include "validation/gpu_platform.hpp"

#include "sim/error.hpp"
#include "sim/gpu_architecture.hpp"
#include "sim/json_input.hpp"

#include <cmath>
#include <cstdlib>

namespace hs::validation {

namespace {

std::string env_or(const MeasurementSet& m, const char* key, const std::string& fallback) {
  auto it = m.environment.find(key);
  return it == m.environment.end() || it->second.empty() ? fallback : it->second;
}

// A number the snapshot stores as text; InputError naming the key when it is not one.
double env_number(const MeasurementSet& m, const char* key) {
  const std::string text = env_or(m, key, "");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0))
    throw InputError(m.device, std::string("environment.") + key,
                     "must be a positive number, not '" + text + "'");
  return v;
}

// What NVML said about the board (hs_measure_cuda, where the driver's library loaded): its power limit, its
// maximum SM clock (the boost the peaks assume), the clock it held under SGEMM and the driver's version; and
// the cuDNN version, where one loaded.
void add_board_facts(const MeasurementSet& m, Json& units) {
  const auto has = [&](const char* key) { return m.environment.count(key) > 0; };
  if (has("max_sm_clock_mhz")) units["boost_clock_mhz"] = env_number(m, "max_sm_clock_mhz");
  if (has("power_limit_w")) units["power_limit"] = std::to_string(env_number(m, "power_limit_w")) + "W";
  if (has("sm_clock_under_sgemm_mhz"))
    units["sustained_clock_mhz"] = env_number(m, "sm_clock_under_sgemm_mhz");
  if (has("nvidia_driver")) { // "535.104.05" -> 535.104, as the DeepBench stacks write it
    const std::string text = env_or(m, "nvidia_driver", "");
    const auto second_dot = text.find('.', text.find('.') + 1);
    const double v = std::strtod(text.substr(0, second_dot).c_str(), nullptr);
    if (v > 0) units["driver_version"] = v;
  }
  if (has("cudnn")) { // cudnnGetVersion: 9.1.0 is 90100, 8.9.6 is 8906
    const double v = env_number(m, "cudnn");
    units["dnn_version"] = v >= 90000 ? std::floor(v / 10000) + std::floor(std::fmod(v, 10000) / 100) / 10
                                      : std::floor(v / 1000) + std::floor(std::fmod(v, 1000) / 100) / 10;
  }
  if (has("board_source"))
    units["source"] = units["source"].get<std::string>() + "; " + env_or(m, "board_source", "");
}

} // namespace

std::string measured_model(const MeasurementSet& m) {
  return env_or(m, "gpu_model", m.device);
}

std::string gpu_platform_json(const MeasurementSet& m) {
  auto peak = m.peaks.find("fp32_flops");
  auto bw = m.peaks.find("memory_bandwidth");
  if (peak == m.peaks.end() || bw == m.peaks.end())
    throw InputError(m.device, "peaks",
                     "a GPU measurement set needs fp32_flops and memory_bandwidth to build a platform");
  Json d;
  d["name"] = m.device;
  d["kind"] = "gpu";
  d["model"] = measured_model(m);
  d["peak"] = {{"fp32", peak->second}};
  d["memory"] = {{"bandwidth", bw->second}, {"capacity", "16GiB"}};
  d["power"] = {{"idle", "0W"}, {"busy", "1W"}};
  if (m.environment.count("multiprocessors")) {
    Json u = {{"count", static_cast<int>(env_number(m, "multiprocessors"))},
              {"source", "cudaDeviceProp.multiProcessorCount and cudaDevAttrClockRate of the measured GPU"}};
    if (m.environment.count("clock_khz")) u["boost_clock_mhz"] = env_number(m, "clock_khz") / 1e3;
    add_board_facts(m, u);
    // What the learned model reads (sim/learned_model.hpp): the architecture and the CUDA runtime
    // (cudaRuntimeGetVersion: 1000 x major + 10 x minor).
    const std::string arch = nvidia_architecture(env_or(m, "compute_capability", ""));
    if (!arch.empty()) u["architecture"] = arch;
    if (m.environment.count("cuda_runtime")) {
      const double v = env_number(m, "cuda_runtime");
      u["runtime_version"] = std::floor(v / 1000) + std::fmod(v, 1000) / 100;
    }
    d["compute_units"] = std::move(u);
  }
  d["source"] = "measurement set of " + env_or(m, "date", "an unrecorded date") +
                ". Peak FLOPs: " + env_or(m, "fp32_flops_source", "not recorded") +
                ". Memory bandwidth: " + env_or(m, "memory_bandwidth_source", "not recorded") +
                ". Capacity and power are placeholders: validation compares time only.";
  Json j;
  j["format"] = "heterosim-platform";
  j["version"] = 1;
  j["name"] = "this-gpu";
  j["description"] = "The measured GPU (" + measured_model(m) + ") alone, as hs_measure_cuda timed it.";
  j["devices"] = Json::array({std::move(d)});
  j["links"] = Json::array();
  return j.dump(1) + "\n";
}

} // namespace hs::validation
