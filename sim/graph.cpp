#include "sim/graph.hpp"

#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/topological_order.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

namespace hs {

Op Op::without_edges() const {
  Op copy;
  static_cast<OpAttributes&>(copy) = *this;
  return copy;
}

std::optional<OpId> Graph::find_op(const std::string& op_name) const {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == op_name) return static_cast<OpId>(i);
  return std::nullopt;
}

double Graph::total_flops() const {
  double f = 0;
  for (const auto& o : ops)
    f += o.flops;
  return f;
}

bool Graph::uses_explicit_times() const {
  return std::any_of(ops.begin(), ops.end(), [](const Op& o) { return o.has_explicit_times(); });
}

Op& OpHandle::op() {
  return b_->g_.ops[static_cast<std::size_t>(id_)];
}
OpHandle& OpHandle::kind(std::string k) {
  op().kind = std::move(k);
  return *this;
}
OpHandle& OpHandle::precision(std::string p) {
  op().precision = std::move(p);
  return *this;
}
OpHandle& OpHandle::flops(double f) {
  op().flops = f;
  return *this;
}
OpHandle& OpHandle::reads(double b) {
  op().bytes_read = b;
  return *this;
}
OpHandle& OpHandle::writes(double b) {
  op().bytes_written = b;
  return *this;
}
OpHandle& OpHandle::params(double b) {
  op().param_bytes = b;
  return *this;
}
OpHandle& OpHandle::workspace(double b) {
  op().workspace_bytes = b;
  return *this;
}
OpHandle& OpHandle::sensitivity(double s) {
  op().sensitivity = s;
  return *this;
}
OpHandle& OpHandle::host_issue(double seconds) {
  op().host_issue = seconds;
  return *this;
}
OpHandle& OpHandle::only_on(std::vector<std::string> kinds) {
  op().allowed_kinds = std::move(kinds);
  return *this;
}
OpHandle& OpHandle::pinned_to(std::vector<std::string> devices) {
  op().allowed_devices = std::move(devices);
  return *this;
}
OpHandle& OpHandle::time_on(const std::string& device, double s) {
  op().times[device] = s;
  return *this;
}

TensorId OpHandle::feeds(const OpHandle& consumer, double bytes, const std::string& tensor_name) {
  const std::string name = tensor_name.empty() ? b_->g_.ops[static_cast<std::size_t>(id_)].name + "->" +
                                                     b_->g_.ops[static_cast<std::size_t>(consumer.id())].name
                                               : tensor_name;
  return b_->tensor(name, bytes, id_, {consumer.id()});
}

TensorId OpHandle::feeds_in(const OpHandle& consumer, double comm_seconds, const std::string& tensor_name) {
  const TensorId t = feeds(consumer, 0.0, tensor_name);
  b_->set_comm_time(t, comm_seconds);
  return t;
}

OpHandle GraphBuilder::op(const std::string& name) {
  const auto id = static_cast<OpId>(g_.ops.size());
  if (name.empty()) throw InputError(label_, "ops[" + std::to_string(id) + "]", "op name must not be empty");
  if (!op_names_.emplace(name, id).second)
    throw InputError(label_, "ops[" + std::to_string(id) + "]", "duplicate op name '" + name + "'");
  Op o;
  o.name = name;
  g_.ops.push_back(std::move(o));
  return OpHandle(this, id);
}

OpHandle GraphBuilder::add(Op op) {
  const auto id = static_cast<OpId>(g_.ops.size());
  const auto place = [id] { return "ops[" + std::to_string(id) + "]"; };
  if (op.name.empty()) throw InputError(label_, place(), "op name must not be empty");
  if (!op.inputs.empty() || !op.outputs.empty())
    throw InputError(label_, place(), "op '" + op.name + "' is added with edges: tensors link ops");
  if (!op_names_.emplace(op.name, id).second)
    throw InputError(label_, place(), "duplicate op name '" + op.name + "'");
  g_.ops.push_back(std::move(op));
  return OpHandle(this, id);
}

TensorId GraphBuilder::tensor(const std::string& name, double bytes, OpId producer,
                              const std::vector<OpId>& consumers) {
  const auto id = static_cast<TensorId>(g_.tensors.size());
  const auto place = [id] { return "tensors[" + std::to_string(id) + "]"; };
  if (!tensor_names_.emplace(name, id).second)
    throw InputError(label_, place(), "duplicate tensor name '" + name + "'");
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw InputError(label_, place(), "tensor '" + name + "' needs a finite, non-negative size");
  const auto n = static_cast<OpId>(g_.ops.size());
  if (producer < 0 || producer >= n)
    throw InputError(label_, place(), "tensor '" + name + "' has no valid producer");
  Tensor t;
  t.name = name;
  t.bytes = bytes;
  t.producer = producer;
  for (OpId c : consumers) {
    if (c < 0 || c >= n) throw InputError(label_, place(), "tensor '" + name + "' names an unknown consumer");
    if (c == producer)
      throw InputError(label_, place(),
                       "op '" + g_.ops[static_cast<std::size_t>(c)].name + "' consumes its own output '" +
                           name + "'");
    if (std::find(t.consumers.begin(), t.consumers.end(), c) == t.consumers.end()) t.consumers.push_back(c);
  }
  g_.ops[static_cast<std::size_t>(producer)].outputs.push_back(id);
  for (OpId c : t.consumers)
    g_.ops[static_cast<std::size_t>(c)].inputs.push_back(id);
  g_.tensors.push_back(std::move(t));
  return id;
}

void GraphBuilder::set_comm_time(TensorId t, double seconds) {
  if (!(seconds >= 0))
    throw InputError(label_, "tensors[" + std::to_string(t) + "]", "communication time must not be negative");
  g_.tensors[static_cast<std::size_t>(t)].comm_time = seconds;
}

Graph GraphBuilder::build() && {
  return build_impl();
}

namespace {

// Every source of ops (files, importers, builders) meets this check: no negative, NaN or infinite work.
void check_quantities(const Graph& g, const std::string& label) {
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Op& o = g.ops[i];
    const auto place = [&] { return "ops[" + std::to_string(i) + "] ('" + o.name + "')"; };
    for (double v : {o.flops, o.bytes_read, o.bytes_written, o.param_bytes, o.workspace_bytes, o.sensitivity,
                     o.host_issue})
      if (!(v >= 0) || !std::isfinite(v))
        throw InputError(label, place(),
                         "sizes, FLOPs, sensitivity and host issue time must be finite and not negative");
    for (const auto& [dev, t] : o.times)
      if (!(t >= 0) || !std::isfinite(t))
        throw InputError(label, place() + ".times." + dev, "time must be finite and not negative");
  }
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    if (!std::isfinite(t.bytes) || (t.comm_time && !(std::isfinite(*t.comm_time) && *t.comm_time >= 0)))
      throw InputError(label, "tensors[" + std::to_string(i) + "] ('" + t.name + "')",
                       "size and transfer time must be finite and not negative");
  }
}

} // namespace

Graph GraphBuilder::build_impl() {
  Graph& g = g_;
  check_quantities(g, label_);
  const std::size_t n = g.ops.size();
  g.preds_.assign(n, {});
  g.succs_.assign(n, {});
  for (const auto& t : g.tensors)
    for (OpId c : t.consumers) {
      auto& s = g.succs_[static_cast<std::size_t>(t.producer)];
      if (std::find(s.begin(), s.end(), c) == s.end()) {
        s.push_back(c);
        g.preds_[static_cast<std::size_t>(c)].push_back(t.producer);
      }
    }
  std::vector<int> indegree(n);
  for (std::size_t i = 0; i < n; ++i)
    indegree[i] = static_cast<int>(g.preds_[i].size());
  g.topo_ = stable_topological_order(
      indegree, [&](OpId o) -> const std::vector<OpId>& { return g.succs_[static_cast<std::size_t>(o)]; });
  g.topo_pos_.assign(n, 0);
  for (std::size_t i = 0; i < g.topo_.size(); ++i)
    g.topo_pos_[static_cast<std::size_t>(g.topo_[i])] = static_cast<int>(i);
  if (g.topo_.size() != n) {
    // Walk backwards through ops still blocked to print one concrete cycle.
    OpId start = -1;
    for (std::size_t i = 0; i < n && start < 0; ++i)
      if (indegree[i] > 0) start = static_cast<OpId>(i);
    std::vector<int> seen(n, -1);
    std::vector<OpId> path;
    OpId cur = start;
    while (seen[static_cast<std::size_t>(cur)] < 0) {
      seen[static_cast<std::size_t>(cur)] = static_cast<int>(path.size());
      path.push_back(cur);
      for (OpId p : g.preds_[static_cast<std::size_t>(cur)])
        if (indegree[static_cast<std::size_t>(p)] > 0) {
          cur = p;
          break;
        }
    }
    // path runs backwards along edges; reverse the looping part, and start at the lowest id for a stable
    // message.
    std::vector<OpId> loop(path.begin() + seen[static_cast<std::size_t>(cur)], path.end());
    std::reverse(loop.begin(), loop.end());
    std::rotate(loop.begin(), std::min_element(loop.begin(), loop.end()), loop.end());
    std::string cycle;
    for (OpId o : loop)
      cycle += g.ops[static_cast<std::size_t>(o)].name + " -> ";
    cycle += g.ops[static_cast<std::size_t>(loop.front())].name;
    throw InputError(label_, "ops", "the graph has a cycle: " + cycle);
  }
  return std::move(g_);
}

} // namespace hs
