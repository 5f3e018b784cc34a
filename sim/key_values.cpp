#include "sim/key_values.hpp"

#include "sim/error.hpp"

namespace hs {

std::map<std::string, std::string> parse_key_values(const std::string& label, const std::string& text) {
  std::map<std::string, std::string> values;
  std::size_t pos = 0;
  std::string last_key;
  while (pos <= text.size() && !text.empty()) {
    const auto comma = text.find(',', pos);
    const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    if (eq == std::string::npos && !last_key.empty()) {
      values[last_key] += "," + item; // a list value: devices=P1,P2,P3
    } else {
      if (eq == std::string::npos || eq == 0) throw InputError(label, item, "expected key=value");
      last_key = item.substr(0, eq);
      if (!values.emplace(last_key, item.substr(eq + 1)).second)
        throw InputError(label, last_key, "given twice");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return values;
}

} // namespace hs
