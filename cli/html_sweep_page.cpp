// The sweep page, and the checks that keep a malformed sweep from becoming a page that draws nothing.
#include "cli/html_page.hpp"
#include "cli/html_report.hpp"
#include "cli/html_resources.hpp"
#include "sim/json_input.hpp"

#include <set>
#include <string>
#include <vector>

namespace hs::cli {
namespace {

const char* const kLabel = "sweep";

std::vector<std::string> unique_names(const JsonNode& list) {
  const auto names = list.as_string_list();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!seen.insert(names[i]).second)
      throw InputError(kLabel, list.path() + "[" + std::to_string(i) + "]",
                       "\"" + names[i] + "\" is listed twice");
  return names;
}

void check_row(const JsonNode& row, const std::vector<std::string>& parameters,
               const std::vector<std::string>& metrics) {
  if (!row.raw().is_object()) row.fail("must be an object");
  for (const auto& p : parameters) {
    const auto v = row.at(p);
    if (!v.raw().is_string() && !v.raw().is_number()) v.fail("must be a string or a number (a parameter)");
  }
  // A metric may be null: the run that should have measured it failed.
  for (const auto& m : metrics) {
    const auto v = row.find(m);
    if (v && !v->raw().is_number() && !v->raw().is_null()) v->fail("must be a number or null (a metric)");
  }
}

void check_plot(const JsonNode& plot, const std::set<std::string>& parameters,
                const std::set<std::string>& metrics) {
  plot.expect_only({"x", "y", "series", "where"});
  if (auto where = plot.find("where"))
    for (const auto& [name, value] : where->members()) {
      if (!parameters.count(name)) value.fail("names no parameter");
      if (!value.raw().is_string() && !value.raw().is_number()) value.fail("must be a string or a number");
    }
  const auto x = plot.at("x");
  if (!parameters.count(x.as_string()) && !metrics.count(x.as_string()))
    x.fail("names neither a parameter nor a metric");
  const auto y = plot.at("y");
  if (!metrics.count(y.as_string())) y.fail("names no metric");
  const auto series = plot.find("series");
  if (series && !series->raw().is_null() && !parameters.count(series->as_string()))
    series->fail("names no parameter (null for a single line)");
}

void check_sweep(const nlohmann::json& sweep) {
  const JsonNode root(sweep, kLabel, "");
  root.expect_only({"title", "parameters", "metrics", "rows", "plots"});
  root.at("title").as_string();
  const auto parameters = unique_names(root.at("parameters"));
  const auto metrics = unique_names(root.at("metrics"));
  if (metrics.empty()) root.at("metrics").fail("lists no metric");
  for (const auto& p : parameters)
    for (const auto& m : metrics)
      if (p == m) root.at("metrics").fail("\"" + m + "\" is also a parameter");
  for (const auto& row : root.at("rows").items())
    check_row(row, parameters, metrics);
  const std::set<std::string> parameter_set(parameters.begin(), parameters.end());
  const std::set<std::string> metric_set(metrics.begin(), metrics.end());
  for (const auto& plot : root.at("plots").items())
    check_plot(plot, parameter_set, metric_set);
}

} // namespace

std::string sweep_page(const nlohmann::json& sweep) {
  check_sweep(sweep);
  return html_document("HeteroSim sweep: " + sweep.at("title").get<std::string>(), "sweep",
                       {{"hs-sweep", sweep.dump()}}, std::string(web::plot_js) + web::sweep_page_js);
}

} // namespace hs::cli
