#pragma once
// One CSV quoting rule for every table HeteroSim writes.
#include <string>

namespace hs {

// RFC 4180: a field with a comma, quote or newline is quoted, and its quotes doubled.
inline std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace hs
