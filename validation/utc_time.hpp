#pragma once
// The measurement date stamped into every environment snapshot, shared by the CPU and CUDA programs
// (header-only, so the standalone CUDA program needs no HeteroSim library).
#include <ctime>
#include <string>

namespace hs::validation {

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

} // namespace hs::validation
