// hs_measure_cpu: times CPU kernels on one thread and writes a heterosim-measurements JSON file.
//   hs_measure_cpu --out FILE [--quick] [--rounds N] [--note TEXT] [--force]
#include "sim/json_input.hpp"
#include "validation/cpu_measure.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
  hs::validation::CpuMeasureOptions o;
  std::string out;
  bool force = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick")
      o.quick = true;
    else if (a == "--force")
      force = true;
    else if (a == "--out" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--note" && i + 1 < argc)
      o.note = argv[++i];
    else if (a == "--rounds" && i + 1 < argc) {
      const std::string n = argv[++i];
      char* end = nullptr;
      const long rounds = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || rounds < 1 || rounds > 50) {
        std::cerr << "hs_measure_cpu: --rounds: expected a whole number from 1 to 50, got '" << n << "'\n";
        return 2;
      }
      o.rounds = static_cast<int>(rounds);
    } else {
      std::cerr << "usage: hs_measure_cpu --out FILE [--quick] [--rounds N] [--note TEXT] [--force]\n";
      return 2;
    }
  }
  if (out.empty()) {
    std::cerr << "hs_measure_cpu: --out FILE is required\n";
    return 2;
  }
  try {
    o.progress = [](const std::string& s) { std::cerr << s << "\n"; };
    hs::write_file_atomically(out, hs::validation::measurement_set_json(hs::validation::measure_cpu(o)),
                              force);
  } catch (const std::exception& e) {
    std::cerr << "hs_measure_cpu: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "wrote " << out << "\n";
  return 0;
}
