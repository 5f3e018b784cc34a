#include "validation/csv_table.hpp"

#include "sim/error.hpp"

#include <cmath>
#include <fstream>

namespace hs::validation {
namespace {

std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

} // namespace

CsvTable CsvTable::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open the file");
  CsvTable t;
  t.file_ = path;
  std::string line;
  if (!std::getline(in, line)) throw InputError(path, "line 1", "empty file (a header line is expected)");
  const auto header = split_line(line);
  for (std::size_t i = 0; i < header.size(); ++i)
    t.columns_[header[i]] = i;
  std::size_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    auto cells = split_line(line);
    if (cells.size() != header.size())
      throw InputError(path, "line " + std::to_string(number),
                       "has " + std::to_string(cells.size()) + " fields, the header has " +
                           std::to_string(header.size()));
    t.rows_.push_back(std::move(cells));
    t.lines_.push_back(number);
  }
  return t;
}

std::vector<std::string> CsvTable::columns() const {
  std::vector<std::string> names;
  for (const auto& [name, index] : columns_)
    names.push_back(name);
  return names;
}

const std::string& CsvTable::text(std::size_t row, const std::string& column) const {
  auto it = columns_.find(column);
  if (it == columns_.end()) throw InputError(file_, "header", "no column '" + column + "'");
  return rows_.at(row)[it->second];
}

double CsvTable::positive(std::size_t row, const std::string& column) const {
  const double v = number(row, column);
  if (!(v > 0))
    throw InputError(file_, "line " + std::to_string(lines_.at(row)) + ", column " + column,
                     "must be positive, not " + text(row, column));
  return v;
}

double CsvTable::number(std::size_t row, const std::string& column) const {
  const std::string& s = text(row, column);
  const std::string place = "line " + std::to_string(lines_.at(row)) + ", column " + column;
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(v)) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw InputError(file_, place, "expected a number, found '" + s + "'");
  }
}

} // namespace hs::validation
