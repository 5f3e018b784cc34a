#include "validation/workload_matching.hpp"

#include "sim/error.hpp"
#include "sim/nearest_name.hpp"

#include <map>

namespace hs::validation {

namespace {

// The workload's ops that do work, in topological order, and each one's label for errors.
struct WorkOrder {
  std::vector<OpId> ops;
  std::map<OpId, std::size_t> position;
  std::string label(const Graph& g, OpId id) const {
    return "op '" + g.op(id).name + "' (position " + std::to_string(position.at(id)) + " of the workload's " +
           std::to_string(ops.size()) + " ops that do work)";
  }
};

WorkOrder work_order(const Graph& g) {
  WorkOrder w;
  for (const OpId id : g.topological_order())
    if (matching_kind(g.op(id).kind) != "view") {
      w.position[id] = w.ops.size();
      w.ops.push_back(id);
    }
  return w;
}

// Distinct pass numbers in ascending order -> 0, 1, ...; without a pass column one pass.
std::map<long long, std::size_t> pass_ranks(const OpTimes& m) {
  std::map<long long, std::size_t> ranks;
  for (const auto& r : m.rows)
    ranks.emplace(r.pass, 0);
  std::size_t next = 0;
  for (auto& [pass, rank] : ranks)
    rank = next++;
  return ranks;
}

std::optional<OpId> resolve(const OpTimeRow& r, const Graph& g, const std::string& file) {
  if (r.index >= 0) {
    if (r.index >= g.op_count())
      throw InputError(file, r.where + ", column index",
                       "op " + std::to_string(r.index) + " is beyond the workload's " +
                           std::to_string(g.op_count()) + " ops");
    const auto id = static_cast<OpId>(r.index);
    if (!r.op.empty() && g.op(id).name != r.op)
      throw InputError(file, r.where + ", column op",
                       "names '" + r.op + "' but the workload's op " + std::to_string(id) + " is '" +
                           g.op(id).name + "'");
    return id;
  }
  return g.find_op(r.op);
}

std::string unknown_op(const OpTimeRow& r, const Graph& g) {
  std::vector<std::string> names;
  names.reserve(g.ops.size());
  for (const auto& op : g.ops)
    names.push_back(op.name);
  return "the workload has no op '" + r.op + "'" + did_you_mean(r.op, names) +
         ", and other rows name its ops";
}

WorkloadMatch match_by_name(const OpTimes& m, const Graph& g, const std::vector<OpId>& ids) {
  WorkloadMatch w;
  const auto ranks = pass_ranks(m);
  w.times.passes = ranks.size();
  w.times.seconds.assign(g.ops.size(), {});
  std::vector<std::vector<std::string>> seen(g.ops.size(), std::vector<std::string>(ranks.size()));
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const OpTimeRow& r = m.rows[i];
    const Op& op = g.op(ids[i]);
    if (matching_kind(op.kind) != matching_kind(r.kind))
      throw InputError(m.file, r.where + ", column kind",
                       "op '" + op.name + "' is a " + op.kind + " in the workload, not a " + r.kind);
    std::string& where = seen[static_cast<std::size_t>(ids[i])][ranks.at(r.pass)];
    if (!where.empty())
      throw InputError(m.file, r.where,
                       "op '" + op.name + "' already has a time in this pass (" + where + ")");
    where = r.where;
  }
  const WorkOrder order = work_order(g);
  for (std::size_t pass = 0; pass < ranks.size(); ++pass)
    for (const OpId id : order.ops)
      if (seen[static_cast<std::size_t>(id)][pass].empty())
        throw InputError(m.file, order.label(g, id),
                         "has no time" + (m.has_pass ? " in pass " + std::to_string(pass) : std::string()) +
                             " (every op that does work needs one)");
  for (const auto& [pass, rank] : ranks)
    for (std::size_t i = 0; i < m.rows.size(); ++i)
      if (m.rows[i].pass == pass)
        w.times.seconds[static_cast<std::size_t>(ids[i])].push_back(m.rows[i].seconds);
  w.how = m.rows.front().index >= 0 ? "by index" : "by name";
  return w;
}

WorkloadMatch match_by_order(const OpTimes& m, const Graph& g) {
  const WorkOrder order = work_order(g);
  std::vector<ModelOp> model;
  model.reserve(order.ops.size());
  for (const OpId id : order.ops)
    model.push_back({order.label(g, id), matching_kind(g.op(id).kind)});
  WorkloadMatch w;
  w.how = "in topological order by kind";
  w.times.seconds.assign(g.ops.size(), {});
  for (const auto& [pass, rank] : pass_ranks(m)) {
    std::vector<MeasuredOp> measured;
    for (const auto& r : m.rows)
      if (r.pass == pass) measured.push_back({r.op, matching_kind(r.kind), r.seconds, r.where});
    const PassTimes t = match_in_order(measured, model, m.file, m.noun);
    if (m.has_pass && t.passes != 1)
      throw InputError(m.file, "pass " + std::to_string(pass),
                       "holds the workload " + std::to_string(t.passes) + " times over");
    w.times.passes += t.passes;
    for (std::size_t k = 0; k < order.ops.size(); ++k) {
      auto& to = w.times.seconds[static_cast<std::size_t>(order.ops[k])];
      to.insert(to.end(), t.seconds[k].begin(), t.seconds[k].end());
    }
  }
  return w;
}

} // namespace

std::string matching_kind(const std::string& kind) {
  static const std::map<std::string, std::string> same = {
      {"attention", "gemm"},         {"linear", "gemm"},      {"matmul", "gemm"},
      {"pooling", "pool"},           {"conv", "conv2d"},      {"relu", "elementwise"},
      {"gelu", "elementwise"},       {"add", "elementwise"},  {"mul", "elementwise"},
      {"tanh", "elementwise"},       {"silu", "elementwise"}, {"sigmoid", "elementwise"},
      {"scale", "elementwise"},      {"bias", "elementwise"}, {"bias_add", "elementwise"},
      {"activation", "elementwise"}, {"input", "view"},       {"dropout", "view"}};
  const auto it = same.find(kind);
  return it == same.end() ? kind : it->second;
}

WorkloadMatch match_workload(const OpTimes& m, const Graph& g) {
  std::vector<OpId> ids;
  std::size_t named = 0;
  const OpTimeRow* unknown = nullptr;
  for (const auto& r : m.rows) {
    const auto id = resolve(r, g, m.file);
    ids.push_back(id.value_or(-1));
    if (id)
      ++named;
    else if (!unknown)
      unknown = &r;
  }
  WorkloadMatch w;
  if (named == m.rows.size())
    w = match_by_name(m, g, ids);
  else if (named == 0)
    w = match_by_order(m, g);
  else
    throw InputError(m.file, unknown->where + ", column op", unknown_op(*unknown, g));
  w.measured_rows = m.rows.size();
  return w;
}

} // namespace hs::validation
