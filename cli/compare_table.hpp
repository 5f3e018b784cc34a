#pragma once
// compare's rows and their two forms: the aligned table it prints and the CSV it writes, both with every
// ratio relative to one baseline row.
#include "sim/platform.hpp"

#include <string>
#include <vector>

namespace hs::cli {

struct CompareRow {
  std::string policy;
  std::string kind;  // "static" or "run-time"
  std::string error; // why the policy failed on this input; empty when it ran
  double latency = 0, energy = 0, bytes = 0;
  std::vector<double> peak; // per device
};

std::string compare_text(const std::vector<CompareRow>& rows, const CompareRow& base,
                         const Platform& platform);
std::string compare_csv(const std::vector<CompareRow>& rows, const CompareRow& base,
                        const Platform& platform);

} // namespace hs::cli
