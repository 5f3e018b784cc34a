#include "sim/xml_tree.hpp"

#include "sim/error.hpp"

#include <expat.h>
#include <fstream>
#include <memory>
#include <sstream>

namespace hs {

const std::string* XmlElement::attribute(const std::string& key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

namespace {

struct TreeBuilder {
  XML_Parser parser;
  XmlElement root;
  std::vector<XmlElement*> open; // the path from the document element to the current one
  bool have_root = false;
};

void on_start(void* data, const XML_Char* name, const XML_Char** attributes) {
  auto& b = *static_cast<TreeBuilder*>(data);
  XmlElement e;
  e.name = name;
  e.line = static_cast<int>(XML_GetCurrentLineNumber(b.parser));
  for (const XML_Char** a = attributes; *a; a += 2)
    e.attributes.emplace_back(a[0], a[1]);
  if (b.open.empty()) {
    b.root = std::move(e);
    b.have_root = true;
    b.open.push_back(&b.root);
  } else {
    auto& children = b.open.back()->children;
    children.push_back(std::move(e));
    b.open.push_back(&children.back());
  }
}

void on_end(void* data, const XML_Char*) {
  static_cast<TreeBuilder*>(data)->open.pop_back();
}

} // namespace

XmlElement parse_xml_text(const std::string& text, const std::string& file_label) {
  const std::unique_ptr<XML_ParserStruct, void (*)(XML_Parser)> parser(XML_ParserCreate(nullptr),
                                                                       XML_ParserFree);
  if (!parser) throw InputError(file_label, "", "cannot create an XML parser (out of memory)");
  TreeBuilder b{parser.get(), {}, {}, false};
  XML_SetUserData(parser.get(), &b);
  XML_SetElementHandler(parser.get(), on_start, on_end);
  if (XML_Parse(parser.get(), text.data(), static_cast<int>(text.size()), 1) == XML_STATUS_ERROR)
    throw InputError(file_label, "line " + std::to_string(XML_GetCurrentLineNumber(parser.get())),
                     std::string("not well-formed XML: ") + XML_ErrorString(XML_GetErrorCode(parser.get())));
  if (!b.have_root) throw InputError(file_label, "", "no XML element in the file");
  return std::move(b.root);
}

XmlElement read_xml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return parse_xml_text(s.str(), path);
}

} // namespace hs
