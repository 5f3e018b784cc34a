#include "sim/key_values.hpp"

#include "sim/error.hpp"

#include <algorithm>

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

std::vector<std::string> parse_name_list(const std::string& label, const std::string& key,
                                         const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto comma = text.find(',', pos);
    const std::string name = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (name.empty()) throw InputError(label, key, "empty name in '" + text + "'");
    if (std::find(out.begin(), out.end(), name) != out.end())
      throw InputError(label, key, "'" + name + "' listed twice");
    out.push_back(name);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

} // namespace hs
