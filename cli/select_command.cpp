// `heterosim select`: pick one plan from a stored front without searching again, for example
// `--front out/front.json --min energy --max-latency 1.05x` (within 5% of the front's best latency).
#include "cli/commands.hpp"
#include "policies/pareto/objectives.hpp"
#include "policies/pareto/select.hpp"
#include "sim/json_input.hpp"

#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace hs::cli {
namespace {

struct SelectOptions {
  std::string front;
  std::string minimise = "latency";
  std::string engine = "simgrid";
  std::map<std::string, std::string> limits; // objective -> limit text
  std::string weights;                       // weighted-sum mode over the front's normalised objectives
  std::string out;
  bool force = false;
};

const std::map<std::string, std::string>& value_keys() {
  static const std::map<std::string, std::string> k = {{"latency", "latency_s"},
                                                       {"energy", "energy_j"},
                                                       {"memory", "memory_ratio"},
                                                       {"precision", "precision_penalty"}};
  return k;
}

std::vector<std::string> objective_names() {
  std::vector<std::string> names;
  for (const auto& entry : value_keys())
    names.push_back(entry.first);
  return names;
}

std::size_t objective_index(const std::string& name, const std::string& option) {
  const auto names = objective_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  throw InputError(option, name, "unknown objective (known: energy, latency, memory, precision)");
}

// Each plan's values on the chosen engine, in objective_names() order; the front's own objectives must be
// ones this build knows, or its normalised values mean nothing.
std::vector<std::vector<double>> plan_values(const JsonNode& root, const std::string& engine) {
  for (const auto& objective : root.at("objectives").items())
    if (!pareto::parse_objective(objective.at("name").as_string()))
      objective.at("name").fail("unknown objective '" + objective.at("name").as_string() +
                                "' (known: latency, energy, memory, precision)");
  std::vector<std::vector<double>> values;
  for (const auto& p : root.at("plans").items()) {
    const auto scores = p.find(engine);
    if (!scores)
      p.fail("has no " + engine + " values (" +
             (engine == "simgrid" ? "the front was searched with --no-replay; use --engine evaluator"
                                  : "a front written by an older HeteroSim; search it again") +
             ")");
    std::vector<double> v;
    for (const auto& name : objective_names()) {
      const JsonNode value = scores->at(value_keys().at(name));
      const double x = value.as_number(); // finite: as_number refuses anything else
      if (x < 0) value.fail("an objective value cannot be negative (got " + value.raw().dump() + ")");
      v.push_back(x);
    }
    values.push_back(std::move(v));
  }
  if (values.empty()) root.at("plans").fail("the front has no plans");
  return values;
}

// The weighted sum of the normalised objectives (in the front's objective order), among plans within the
// limits, on the chosen engine's values normalised as the front normalises them.
std::optional<std::size_t> weighted_pick(const JsonNode& root, const std::vector<std::vector<double>>& values,
                                         std::size_t minimise, const std::vector<pareto::Limit>& limits,
                                         const std::string& weights) {
  const auto objectives = root.at("objectives").items();
  const std::vector<double> w = pareto::parse_weights(weights, objectives.size());
  const JsonNode norm = root.at("normalisation");
  const double by_latency = norm.at("latency_s").as_number(), by_energy = norm.at("energy_j").as_number();
  if (!(by_latency > 0)) norm.at("latency_s").fail("must be positive");
  if (!(by_energy > 0)) norm.at("energy_j").fail("must be positive");
  std::vector<std::vector<double>> normalised;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!pareto::select_plan({values[i]}, minimise, limits)) continue; // outside the limits
    std::vector<double> v;
    for (const auto& objective : objectives) {
      const std::string name = objective.at("name").as_string();
      const double raw = values[i][objective_index(name, "objectives")];
      v.push_back(name == "latency" ? raw / by_latency : name == "energy" ? raw / by_energy : raw);
    }
    normalised.push_back(std::move(v));
    index.push_back(i);
  }
  const auto pick = pareto::weighted_choice(normalised, w);
  return pick ? std::optional<std::size_t>(index[*pick]) : std::nullopt;
}

// A plan file `heterosim run --plan` replays: the front's platform and workload, and the plan.
void write_stored_plan(const JsonNode& root, const Json& plan, const SelectOptions& o) {
  nlohmann::ordered_json stored;
  stored["format"] = "heterosim-plan";
  stored["version"] = 1;
  stored["platform"] = root.at("platform").as_string();
  stored["workload"] = root.at("workload").as_string();
  stored["front"] = o.front;
  stored["plan"] = plan;
  write_file_atomically(o.out, stored.dump(1) + "\n", o.force);
  std::cout << "wrote " << o.out << "\n";
}

int run_select(const SelectOptions& o) {
  const Json j = read_json_file(o.front);
  const JsonNode root(j, o.front, "");
  root.expect_format("heterosim-pareto-front", true);
  const std::size_t minimise = objective_index(o.minimise, "--min");
  std::vector<pareto::Limit> limits;
  for (const auto& [name, text] : o.limits) {
    try {
      limits.push_back(pareto::parse_limit(objective_index(name, "--max-" + name), text));
    } catch (const std::invalid_argument& e) {
      throw InputError("--max-" + name, text, e.what());
    }
  }
  const auto values = plan_values(root, o.engine);
  const std::optional<std::size_t> chosen = o.weights.empty()
                                                ? pareto::select_plan(values, minimise, limits)
                                                : weighted_pick(root, values, minimise, limits, o.weights);
  if (!chosen) {
    std::cerr << "heterosim: no plan in " << o.front << " meets the limits\n";
    return 4;
  }
  const Json& plan = root.at("plans").items()[*chosen].raw();
  const auto names = objective_names();
  std::cout << "plan " << plan.at("id") << " (" << plan.at("origin").get<std::string>() << "): ";
  for (std::size_t i = 0; i < names.size(); ++i)
    std::cout << (i ? ", " : "") << names[i] << " " << values[*chosen][i];
  std::cout << " (" << o.engine << " engine)\n";
  if (!o.out.empty()) write_stored_plan(root, plan, o);
  return 0;
}

Action select_command(CLI::App& app) {
  auto o = std::make_shared<SelectOptions>();
  auto* cmd =
      app.add_subcommand("select", "Pick a plan from a stored Pareto front (heterosim pareto's front.json)");
  cmd->add_option("--front", o->front, "front.json written by heterosim pareto")->required();
  cmd->add_option("--min", o->minimise, "Objective to minimise: latency, energy, memory or precision")
      ->capture_default_str();
  for (const char* name : {"latency", "energy", "memory", "precision"})
    cmd->add_option_function<std::string>(
        std::string("--max-") + name, [o, name](const std::string& v) { o->limits[name] = v; },
        std::string("Upper limit on ") + name +
            ": a value in its unit, or a multiple of the front's best such as 1.05x");
  cmd->add_option(
         "--engine", o->engine,
         "Whose values to compare: simgrid (the replay, the front's judge) or evaluator (the search's)")
      ->check(CLI::IsMember({"simgrid", "evaluator"}))
      ->capture_default_str();
  cmd->add_option(
      "--weights", o->weights,
      "Weighted-sum mode: one weight per objective of the front (normalised values), instead of --min");
  cmd->add_option("--out", o->out, "Write the chosen plan (JSON) to this file");
  cmd->add_flag("--force", o->force, "Overwrite --out if it exists");
  return [o] { return run_select(*o); };
}

HS_REGISTER_COMMAND(select, {"select", select_command})

} // namespace
} // namespace hs::cli
