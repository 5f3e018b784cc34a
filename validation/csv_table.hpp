#pragma once
// A small CSV reader (RFC 4180 quoting) with columns by header name and errors that name file and line.
#include <map>
#include <string>
#include <vector>

namespace hs::validation {

class CsvTable {
public:
  static CsvTable read(const std::string& path);

  std::size_t rows() const { return rows_.size(); }
  const std::string& text(std::size_t row, const std::string& column) const;
  // Throws InputError (file, line, column) unless the cell is a finite number.
  double number(std::size_t row, const std::string& column) const;
  // The same, and unless it is above zero.
  double positive(std::size_t row, const std::string& column) const;
  bool empty(std::size_t row, const std::string& column) const { return text(row, column).empty(); }
  bool has(const std::string& column) const { return columns_.count(column) != 0; }
  std::vector<std::string> columns() const;                          // the header's names, sorted
  std::size_t line(std::size_t row) const { return lines_.at(row); } // 1-based, in the file
  const std::string& file() const { return file_; }

private:
  std::string file_;
  std::map<std::string, std::size_t> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> lines_;
};

} // namespace hs::validation
