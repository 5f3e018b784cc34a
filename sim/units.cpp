#include "sim/units.hpp"

#include <array>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace hs::units {
namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

// Longest suffixes first, so "GiBps" is not read as "GiB" followed by garbage.
constexpr std::array kTime{Suffix{"ns", 1e-9},  Suffix{"us", 1e-6}, Suffix{"ms", 1e-3},
                           Suffix{"min", 60.0}, Suffix{"s", 1.0},   Suffix{"h", 3600.0}};
constexpr std::array kBandwidth{Suffix{"KiBps", 1024.0},
                                Suffix{"MiBps", 1048576.0},
                                Suffix{"GiBps", 1073741824.0},
                                Suffix{"TiBps", 1099511627776.0},
                                Suffix{"kBps", 1e3},
                                Suffix{"KBps", 1e3},
                                Suffix{"MBps", 1e6},
                                Suffix{"GBps", 1e9},
                                Suffix{"TBps", 1e12},
                                Suffix{"kbps", 125.0},
                                Suffix{"Kbps", 125.0},
                                Suffix{"Mbps", 125e3},
                                Suffix{"Gbps", 125e6},
                                Suffix{"Tbps", 125e9},
                                Suffix{"Bps", 1.0}};
constexpr std::array kFlops{Suffix{"kf", 1e3},  Suffix{"Mf", 1e6},  Suffix{"Gf", 1e9},
                            Suffix{"Tf", 1e12}, Suffix{"Pf", 1e15}, Suffix{"f", 1.0}};
constexpr std::array kPower{Suffix{"mW", 1e-3}, Suffix{"kW", 1e3}, Suffix{"W", 1.0}};
constexpr std::array kBytes{Suffix{"KiB", 1024.0},       Suffix{"MiB", 1048576.0},
                            Suffix{"GiB", 1073741824.0}, Suffix{"TiB", 1099511627776.0},
                            Suffix{"kB", 1e3},           Suffix{"KB", 1e3},
                            Suffix{"MB", 1e6},           Suffix{"GB", 1e9},
                            Suffix{"TB", 1e12},          Suffix{"B", 1.0}};
constexpr std::array kEnergy{Suffix{"mJ", 1e-3}, Suffix{"kJ", 1e3}, Suffix{"J", 1.0}};

template <std::size_t N> double apply(std::string_view unit, const std::array<Suffix, N>& table, Quantity q) {
  for (const auto& s : table)
    if (unit == s.text) return s.factor;
  throw std::invalid_argument("unknown unit '" + std::string(unit) + "' for a " + std::string(name(q)));
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return std::string(s);
}

std::string pretty(double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s", v, unit);
  return buf;
}

} // namespace

std::string_view name(Quantity q) {
  switch (q) {
  case Quantity::Time:
    return "time (s, ms, us, ns)";
  case Quantity::Bandwidth:
    return "bandwidth (Bps, MBps, GBps, GiBps, Gbps)";
  case Quantity::Flops:
    return "throughput (f, Gf, Tf, Pf flop/s)";
  case Quantity::Power:
    return "power (W, kW, mW)";
  case Quantity::Bytes:
    return "size (B, KB, MB, GB, GiB)";
  case Quantity::Energy:
    return "energy (J, kJ, mJ)";
  case Quantity::Plain:
    return "number";
  }
  return "quantity";
}

namespace {
double factor_of(const std::string& unit, Quantity q, const std::string& s) {
  if (unit.empty()) return 1.0;
  switch (q) {
  case Quantity::Time:
    return apply(unit, kTime, q);
  case Quantity::Bandwidth:
    return apply(unit, kBandwidth, q);
  case Quantity::Flops:
    return apply(unit, kFlops, q);
  case Quantity::Power:
    return apply(unit, kPower, q);
  case Quantity::Bytes:
    return apply(unit, kBytes, q);
  case Quantity::Energy:
    return apply(unit, kEnergy, q);
  case Quantity::Plain:
    break;
  }
  throw std::invalid_argument("'" + s + "' must be a plain number");
}
} // namespace

double parse(std::string_view text, Quantity q) {
  const std::string s = trim(text);
  if (s.empty()) throw std::invalid_argument("empty value where a " + std::string(name(q)) + " was expected");
  double value = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range)
    throw std::invalid_argument("'" + s + "' is out of range (no double holds it)");
  if (ec != std::errc() || ptr == begin)
    throw std::invalid_argument("'" + s + "' is not a " + std::string(name(q)));
  if (!std::isfinite(value)) throw std::invalid_argument("'" + s + "' is not finite");
  const std::string unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  const double scaled = value * factor_of(unit, q, s);
  // Checked after scaling: "1e300Tf" is finite as written and infinite in flop/s.
  if (!std::isfinite(scaled))
    throw std::invalid_argument("'" + s + "' is out of range once scaled to base units");
  if (scaled != 0 && std::abs(scaled) < DBL_MIN)
    throw std::invalid_argument("'" + s + "' is too close to zero to be meaningful");
  return scaled;
}

std::string format_time(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-6) return pretty(s * 1e9, "ns");
  if (s < 1e-3) return pretty(s * 1e6, "us");
  if (s < 1) return pretty(s * 1e3, "ms");
  return pretty(s, "s");
}

std::string format_bytes(double b) {
  if (b < 1e3) return pretty(b, "B");
  if (b < 1e6) return pretty(b / 1e3, "KB");
  if (b < 1e9) return pretty(b / 1e6, "MB");
  if (b < 1e12) return pretty(b / 1e9, "GB");
  return pretty(b / 1e12, "TB");
}

std::string format_energy(double j) {
  if (j < 1) return pretty(j * 1e3, "mJ");
  if (j < 1e3) return pretty(j, "J");
  return pretty(j / 1e3, "kJ");
}

std::string format_flops(double f) {
  if (f < 1e9) return pretty(f / 1e6, "MFLOP");
  if (f < 1e12) return pretty(f / 1e9, "GFLOP");
  return pretty(f / 1e12, "TFLOP");
}

} // namespace hs::units
