#include "cli/html_report.hpp"

#include "cli/html_page.hpp"
#include "cli/html_resources.hpp"
#include "sim/error.hpp"

namespace hs::cli {
namespace {

void expect_format(const nlohmann::ordered_json& doc, const std::string& label, const std::string& format) {
  if (!doc.is_object()) throw InputError(label, "", "is not a JSON object");
  const auto f = doc.find("format");
  if (f == doc.end() || *f != format) throw InputError(label, "format", "is not \"" + format + "\"");
  const auto v = doc.find("version");
  if (v == doc.end() || *v != 1)
    throw InputError(label, "version", "is not 1, the only version this build reads");
}

std::string text_or(const nlohmann::ordered_json& doc, const char* key, const std::string& fallback) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : fallback;
}

} // namespace

std::string run_page(const nlohmann::ordered_json& report, const nlohmann::ordered_json* explain) {
  expect_format(report, "report", "heterosim-report");
  std::vector<PageData> data = {{"hs-report", report.dump()}};
  if (explain) {
    expect_format(*explain, "explain", "heterosim-explain");
    data.push_back({"hs-explain", explain->dump()});
  }
  const std::string title = "HeteroSim run: " + text_or(report, "workload", "?") + " on " +
                            text_or(report, "platform", "?") + " (" + text_or(report, "policy", "?") + ")";
  return html_document(title, "run", data, std::string(web::gantt_js) + web::explain_js + web::run_page_js);
}

std::string front_page(const nlohmann::ordered_json& front) {
  expect_format(front, "front", "heterosim-pareto-front");
  const std::string title =
      "HeteroSim Pareto front: " + text_or(front, "workload", "?") + " on " + text_or(front, "platform", "?");
  return html_document(title, "front", {{"hs-front", front.dump()}},
                       std::string(web::plot_js) + web::front_page_js);
}

} // namespace hs::cli
