#include "cli/compare_table.hpp"

#include "sim/csv.hpp"
#include "sim/units.hpp"

#include <algorithm>
#include <cstdio>

namespace hs::cli {
namespace {

std::string ratio(double v, double base) {
  if (!(base > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v / base);
  return buf;
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

double max_peak(const CompareRow& r) {
  return r.peak.empty() ? 0.0 : *std::max_element(r.peak.begin(), r.peak.end());
}

std::vector<std::string> text_cells(const CompareRow& row, const CompareRow& base, const Platform& platform) {
  if (!row.error.empty()) return {row.policy, row.kind, "failed: " + row.error};
  std::vector<std::string> cells = {row.policy,
                                    row.kind,
                                    units::format_time(row.latency),
                                    ratio(row.latency, base.latency),
                                    units::format_energy(row.energy),
                                    ratio(row.energy, base.energy),
                                    units::format_bytes(row.bytes),
                                    ratio(max_peak(row), max_peak(base))};
  for (std::size_t d = 0; d < row.peak.size(); ++d)
    cells.push_back(units::format_bytes(row.peak[d]) +
                    (row.peak[d] > platform.devices[d].memory_capacity ? "*" : ""));
  return cells;
}

} // namespace

std::string compare_text(const std::vector<CompareRow>& rows, const CompareRow& base,
                         const Platform& platform) {
  std::vector<std::string> header = {"policy", "kind", "latency",     "x",
                                     "energy", "x",    "bytes moved", "max peak x"};
  for (const auto& d : platform.devices)
    header.push_back("peak " + d.name);
  std::vector<std::vector<std::string>> table = {header};
  for (const auto& row : rows)
    table.push_back(text_cells(row, base, platform));
  // A failed row's message runs past the columns, so only the first two set their widths.
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& r : table)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c)
      if (r.size() == header.size() || c < 2) width[c] = std::max(width[c], r[c].size());
  std::string text;
  for (const auto& r : table) {
    for (std::size_t c = 0; c < r.size(); ++c)
      text += (c + 1 < r.size() ? pad(r[c], width[c] + 2) : r[c]);
    text += "\n";
  }
  return text;
}

std::string compare_csv(const std::vector<CompareRow>& rows, const CompareRow& base,
                        const Platform& platform) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "," + std::string.
  std::string csv = "policy,kind,latency_s,latency_ratio,energy_j,energy_ratio,bytes_moved,max_peak_ratio";
  for (const auto& d : platform.devices)
    csv.append(",").append(csv_field("peak_bytes_" + d.name));
  csv += ",error\n";
  for (const auto& row : rows) {
    if (!row.error.empty()) {
      csv.append(csv_field(row.policy)).append(",").append(row.kind).append(",,,,,,");
      csv.append(platform.devices.size(), ',');
      csv.append(",").append(csv_field(row.error)).append("\n");
      continue;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s,%s,%.9g,%s,%.9g,%s,%.17g,%s", csv_field(row.policy).c_str(),
                  row.kind.c_str(), row.latency, ratio(row.latency, base.latency).c_str(), row.energy,
                  ratio(row.energy, base.energy).c_str(), row.bytes,
                  ratio(max_peak(row), max_peak(base)).c_str());
    csv += buf;
    for (double pk : row.peak)
      csv.append(",").append(std::to_string(static_cast<long long>(pk)));
    csv += ",\n";
  }
  return csv;
}

} // namespace hs::cli
