#pragma once
// Reading back the SVG the charts write (their own output, one element per line), for tests.
#include <sstream>
#include <string>
#include <vector>

namespace hs::test {

inline int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// The opening tags of every <name ...> element, in order.
inline std::vector<std::string> elements(const std::string& svg, const std::string& name) {
  std::vector<std::string> out;
  const std::string open = "<" + name + " ";
  for (std::size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1))
    out.push_back(svg.substr(at, svg.find('>', at) - at + 1));
  return out;
}

// The value of attribute `name` in an opening tag; empty if it has none.
inline std::string attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t at = tag.find(key);
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size();
  return tag.substr(from, tag.find('"', from) - from);
}

inline double number_attribute(const std::string& tag, const std::string& name) {
  return std::stod(attribute(tag, name));
}

} // namespace hs::test
