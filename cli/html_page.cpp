#include "cli/html_page.hpp"

#include "cli/html_resources.hpp"
#include "sim/svg_chart.hpp"

namespace hs::cli {

std::string script_safe_json(const std::string& json) {
  std::string out;
  out.reserve(json.size() + json.size() / 64);
  for (char c : json)
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  return out;
}

std::string html_document(const std::string& title, const std::string& page_kind,
                          const std::vector<PageData>& data, const std::string& script) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  page += xml_escape(title);
  page += "</title>\n<style>\n";
  page += web::page_css;
  page += "</style>\n</head>\n<body data-page=\"" + xml_escape(page_kind) + "\">\n";
  page += "<noscript>This page draws itself with JavaScript; enable it to see the report.</noscript>\n";
  page += "<main id=\"app\"><h1>" + xml_escape(title) + "</h1></main>\n";
  for (const auto& d : data)
    page += "<script type=\"application/json\" id=\"" + xml_escape(d.id) + "\">" + script_safe_json(d.json) +
            "</script>\n";
  page += "<script>\n\"use strict\";\n";
  page += web::common_js;
  page += script;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

} // namespace hs::cli
