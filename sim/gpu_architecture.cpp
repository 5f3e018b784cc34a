#include "sim/gpu_architecture.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace hs {

ArchitectureTraits architecture_traits(const std::string& architecture) {
  struct Row {
    const char* name;
    bool amd;
    double generation;
  };
  static constexpr std::array<Row, 14> kRows{{{"kepler", false, 3.5},
                                              {"maxwell", false, 5.2},
                                              {"pascal", false, 6.0},
                                              {"volta", false, 7.0},
                                              {"turing", false, 7.5},
                                              {"ampere", false, 8.0},
                                              {"ada", false, 8.9},
                                              {"hopper", false, 9.0},
                                              {"blackwell", false, 10.0},
                                              {"polaris", true, 4.0},
                                              {"vega", true, 5.0},
                                              {"cdna", true, 6.0},
                                              {"cdna2", true, 7.0},
                                              {"cdna3", true, 8.0}}};
  std::string lower = architecture;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  int position = 0; // the rows run through NVIDIA's line, then AMD's
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    if (i > 0 && kRows[i].amd != kRows[i - 1].amd) position = 0;
    if (lower == kRows[i].name) return {true, kRows[i].amd, kRows[i].generation, position};
    ++position;
  }
  return {};
}

std::string nvidia_architecture(const std::string& compute_capability) {
  const std::string& c = compute_capability;
  const auto starts = [&](const char* prefix) { return c.rfind(prefix, 0) == 0; };
  if (starts("3.")) return "Kepler";
  if (starts("5.")) return "Maxwell";
  if (starts("6.")) return "Pascal";
  if (c == "7.0" || c == "7.2") return "Volta";
  if (c == "7.5") return "Turing";
  if (c == "8.9") return "Ada";
  if (starts("8.")) return "Ampere";
  if (starts("9.")) return "Hopper";
  if (starts("10.") || starts("12.")) return "Blackwell";
  return "";
}

} // namespace hs
