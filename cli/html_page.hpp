#pragma once
// Self-contained HTML pages (no server, no network: opened from disk) that draw themselves from JSON
// embedded in them. Each page's script sets document.body.dataset.ready to "1" once it has drawn.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace hs::cli {

// One JSON document embedded in a page: read by the script as JSON.parse of the element with this id.
struct PageData {
  std::string id;
  std::string json; // compact JSON text
};

// JSON text made safe inside <script>: every '<' becomes \u003c (the same string to JSON.parse), so no
// "</script>" or "<!--" in a name can end or disturb the element.
std::string script_safe_json(const std::string& json);

// The whole page: the stylesheet, the data elements, then `script` (run after the data is in the DOM).
std::string html_document(const std::string& title, const std::string& page_kind,
                          const std::vector<PageData>& data, const std::string& script);

} // namespace hs::cli
