#include "sim/simgrid_units.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

namespace hs::simgrid_units {
namespace {

using UnitTable = std::map<std::string, double, std::less<>>;

// `unit` and every decimal and binary prefix of it, abbreviated ("Gf", "GiBps") or spelled out ("gigaflops").
void add_prefixed(UnitTable& table, const std::string& unit, double value, bool binary, bool abbreviated) {
  static const char* const decimal_short[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static const char* const decimal_long[] = {"kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"};
  static const char* const binary_short[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  const char* const* prefixes = binary ? binary_short : abbreviated ? decimal_short : decimal_long;
  table.emplace(unit, value);
  for (int i = 0; i < 8; ++i) {
    value *= binary ? 1024.0 : 1000.0;
    table.emplace(prefixes[i] + unit, value);
  }
}

const UnitTable& speed_units() {
  static const UnitTable table = [] {
    UnitTable t;
    add_prefixed(t, "f", 1.0, false, true);
    add_prefixed(t, "flops", 1.0, false, false);
    return t;
  }();
  return table;
}

UnitTable bits_and_bytes(const std::string& bits, const std::string& bytes) {
  UnitTable t;
  for (bool binary : {false, true}) {
    add_prefixed(t, bits, 0.125, binary, true);
    add_prefixed(t, bytes, 1.0, binary, true);
  }
  return t;
}

double parse_with(const std::string& text, const UnitTable& units, const char* base_unit, const char* what) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  double value = 0.0;
  const auto [rest, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec == std::errc::invalid_argument)
    throw std::invalid_argument("'" + text + "' is not a " + what +
                                " (a number followed by a unit, e.g. 1Gf, " + "10GBps, 50us)");
  if (ec == std::errc::result_out_of_range)
    throw std::invalid_argument("'" + text + "' is out of range for a " + what);
  const std::string unit = rest == end ? std::string(base_unit) : std::string(rest, end);
  const auto u = units.find(unit);
  if (u == units.end())
    throw std::invalid_argument("unknown " + std::string(what) + " unit '" + unit + "' in '" + text + "'");
  const double scaled = value * u->second;
  if (!std::isfinite(scaled)) throw std::invalid_argument("'" + text + "' is not a finite " + what);
  if (scaled < 0)
    throw std::invalid_argument("'" + text + "': a " + std::string(what) + " cannot be negative");
  return scaled;
}

} // namespace

double speed(const std::string& text) {
  return parse_with(text, speed_units(), "f", "speed");
}

double bandwidth(const std::string& text) {
  static const UnitTable table = bits_and_bytes("bps", "Bps");
  return parse_with(text, table, "Bps", "bandwidth");
}

double size(const std::string& text) {
  static const UnitTable table = bits_and_bytes("b", "B");
  return parse_with(text, table, "B", "size");
}

double time(const std::string& text) {
  static const UnitTable table{
      {"w", 7 * 24 * 3600.0}, {"d", 24 * 3600.0}, {"h", 3600.0}, {"m", 60.0},  {"s", 1.0},
      {"ms", 1e-3},           {"us", 1e-6},       {"ns", 1e-9},  {"ps", 1e-12}};
  return parse_with(text, table, "s", "time");
}

std::vector<double> speeds(const std::string& text) {
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto first = item.find_first_not_of(" \t\n");
    const auto last = item.find_last_not_of(" \t\n");
    item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    out.push_back(speed(item));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

} // namespace hs::simgrid_units
