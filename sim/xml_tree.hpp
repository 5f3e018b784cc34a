#pragma once
// A small XML element tree with the line each element starts on, read with Debian's expat (libexpat1-dev),
// so that importers of XML formats (the SimGrid platform reader, sim/simgrid_xml_platform.hpp) can name the
// file and line of whatever they refuse. Text between elements is dropped: the formats read here keep
// everything in attributes. External DTDs are never fetched.
#include <string>
#include <utility>
#include <vector>

namespace hs {

struct XmlElement {
  std::string name;
  int line = 0;
  std::vector<std::pair<std::string, std::string>> attributes; // in file order
  std::vector<XmlElement> children;

  // nullptr when the element has no such attribute.
  const std::string* attribute(const std::string& key) const;
};

// Throws InputError(path, "line N", ...) for a file that cannot be read or is not well-formed XML.
XmlElement read_xml_file(const std::string& path);
XmlElement parse_xml_text(const std::string& text, const std::string& file_label);

} // namespace hs
