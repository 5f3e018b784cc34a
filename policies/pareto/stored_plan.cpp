#include "policies/pareto/stored_plan.hpp"

#include "sim/json_input.hpp"

#include <map>

namespace hs::pareto {
namespace {

std::map<std::string, OpId> op_ids(const Graph& g) {
  std::map<std::string, OpId> ids;
  for (OpId o = 0; o < g.op_count(); ++o)
    ids.emplace(g.op(o).name, o);
  return ids;
}

OpId op_named(const std::map<std::string, OpId>& ids, const JsonNode& n) {
  const auto it = ids.find(n.as_string());
  if (it == ids.end())
    n.fail("no op '" + n.as_string() + "' in the workload's graph (is it the same workload?)");
  return it->second;
}

DeviceId device_named(const Platform& p, const JsonNode& n) {
  const auto d = p.find_device(n.as_string());
  if (!d) n.fail("no device '" + n.as_string() + "' on platform '" + p.name + "'");
  return *d;
}

// The rewrite decision a stored plan names, against the candidates the search would find on `base`.
RewriteDecision decision_for(const JsonNode& rewrites, const CostModel& base, const RewriteCandidates& cand,
                             const std::map<std::string, OpId>& ids) {
  const Graph& g = base.graph();
  RewriteDecision d;
  d.fuse.assign(cand.fusions.size(), false);
  d.split.assign(cand.splits.size(), false);
  d.precision.assign(static_cast<std::size_t>(g.op_count()), "");
  rewrites.expect_only({"fusions", "splits", "demotions"});
  if (auto fusions = rewrites.find("fusions"))
    for (const auto& chain : fusions->items()) {
      std::vector<OpId> ops;
      for (const auto& name : chain.items())
        ops.push_back(op_named(ids, name));
      std::size_t f = 0;
      while (f < cand.fusions.size() && cand.fusions[f].chain != ops)
        ++f;
      if (f == cand.fusions.size())
        chain.fail("is not a chain the search can fuse on this graph and platform");
      d.fuse[f] = true;
    }
  if (auto splits = rewrites.find("splits"))
    for (const auto& split : splits->items()) {
      const OpId op = op_named(ids, split.at("op"));
      std::size_t s = 0;
      while (s < cand.splits.size() && cand.splits[s].op != op)
        ++s;
      if (s == cand.splits.size()) split.at("op").fail("is not a GEMM the search can split on this graph");
      d.split[s] = true;
    }
  if (auto demotions = rewrites.find("demotions"))
    for (const auto& dm : demotions->items()) {
      const OpId op = op_named(ids, dm.at("op"));
      d.precision[static_cast<std::size_t>(op)] = dm.at("to").as_string();
    }
  return d;
}

} // namespace

StoredPlan load_stored_plan(const std::string& path, std::optional<int> id, const CostModel& base) {
  const Json j = read_json_file(path);
  const JsonNode root(j, path, "");
  const std::string format = root.at("format").as_string();
  std::optional<JsonNode> entry;
  StoredPlan out;
  if (format == "heterosim-pareto-front") {
    root.expect_format(format, true);
    const auto plans = root.at("plans").items();
    if (plans.empty()) root.at("plans").fail("the front has no plans");
    if (!id && plans.size() > 1)
      root.at("plans").fail("holds " + std::to_string(plans.size()) +
                            " plans: pick one with --plan-id (see the ids in front.json or front.csv)");
    const int pick = id.value_or(0);
    if (pick < 0 || pick >= static_cast<int>(plans.size()))
      root.at("plans").fail("has no plan " + std::to_string(pick) + " (ids 0 to " +
                            std::to_string(plans.size() - 1) + ")");
    entry = plans[static_cast<std::size_t>(pick)];
    out.label = path + " plan " + std::to_string(pick);
  } else if (format == "heterosim-plan") {
    root.expect_format(format, true);
    if (id) root.fail("holds one plan; --plan-id is only for fronts");
    entry = root.at("plan");
    out.label = path;
  } else {
    root.at("format").fail("expected \"heterosim-pareto-front\" or \"heterosim-plan\"");
  }
  if (auto platform = root.find("platform"); platform && platform->as_string() != base.platform().name)
    platform->fail("the plan was made for platform '" + platform->as_string() + "', not '" +
                   base.platform().name + "'");
  if (auto workload = root.find("workload"); workload && workload->as_string() != base.graph().name)
    workload->fail("the plan was made for workload '" + workload->as_string() + "', not '" +
                   base.graph().name + "'");
  if (auto origin = entry->find("origin")) out.label += " (" + origin->as_string() + ")";
  StoredPlan plan = stored_plan_from_entry(*entry, base);
  plan.label = out.label;
  return plan;
}

StoredPlan stored_plan_from_entry(const JsonNode& entry_node, const CostModel& base) {
  const JsonNode* entry = &entry_node;
  StoredPlan out;
  const Platform& p = base.platform();
  const auto ids = op_ids(base.graph());
  const RewriteCandidates cand = find_rewrite_candidates(base);
  RewriteDecision decision = decision_for(entry->at("rewrites"), base, cand, ids);
  out.cost = &base;
  if (decision.changes_graph()) {
    out.rewritten = std::make_shared<const RewrittenModel>(
        base, std::make_shared<const RewriteCandidates>(cand), std::move(decision));
    out.cost = &out.rewritten->cost();
  }
  const Graph& g = out.cost->graph();
  const auto plan_ids = op_ids(g);
  out.plan = Plan::empty(g.op_count(), p, "stored plan");
  std::vector<bool> placed(static_cast<std::size_t>(g.op_count()), false);
  for (const auto& [device, queue] : entry->at("order").members()) {
    const DeviceId d = device_named(p, JsonNode(Json(device), entry->file(), queue.path()));
    const auto queue_on = [&](const JsonNode& names, int stream) {
      for (const auto& name : names.items()) {
        const OpId o = op_named(plan_ids, name);
        if (placed[static_cast<std::size_t>(o)]) name.fail("op '" + name.as_string() + "' is queued twice");
        placed[static_cast<std::size_t>(o)] = true;
        out.plan.append(o, d, stream);
      }
    };
    const auto items = queue.items();
    // One list of names (the device's first stream), or one list per stream.
    if (items.empty() || !items.front().raw().is_array()) {
      queue_on(queue, 0);
      continue;
    }
    const int streams = p.devices[static_cast<std::size_t>(d)].streams;
    if (static_cast<int>(items.size()) > streams)
      queue.fail("lists " + std::to_string(items.size()) + " streams; " + device + " has " +
                 std::to_string(streams));
    for (std::size_t s = 0; s < items.size(); ++s)
      queue_on(items[s], static_cast<int>(s));
  }
  for (OpId o = 0; o < g.op_count(); ++o)
    if (!placed[static_cast<std::size_t>(o)])
      entry->at("order").fail("does not place op '" + g.op(o).name + "'");
  return out;
}

} // namespace hs::pareto
