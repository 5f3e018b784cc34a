#include "sim/graph_io.hpp"

#include "sim/graph_builder.hpp"
#include "sim/json_input.hpp"

#include <map>
#include <unordered_map>

namespace hs {

using units::Quantity;

namespace {

// An op's named dimensions; a layout flag (sim/graph.hpp) is 0 or 1.
std::map<std::string, double> graph_op_dims(const JsonNode& d) {
  std::map<std::string, double> dims;
  for (const auto& [dim, v] : d.members()) {
    dims[dim] = v.as_number();
    if (v.as_number() < 0) v.fail("a dimension must not be negative");
    if ((dim == kTransposedA || dim == kTransposedB) && v.as_number() != 0 && v.as_number() != 1)
      v.fail("a layout flag is 0 or 1 (1: that operand is stored transposed)");
  }
  return dims;
}

} // namespace

Graph parse_graph(const Json& j, const std::string& file) {
  const JsonNode root(j, file, "");
  root.expect_only({"format", "version", "name", "description", "source", "ops", "tensors", "notes"});
  root.expect_format("heterosim-graph", false);
  GraphBuilder b(root.string_or("name", "graph"), file);
  std::unordered_map<std::string, OpId> ids;
  for (const auto& n : root.at("ops").items()) {
    n.expect_only({"name", "kind", "precision", "flops", "bytes_read", "bytes_written", "params", "workspace",
                   "sensitivity", "host_issue", "allowed_kinds", "allowed_devices", "times", "dims",
                   "notes"});
    const auto name = n.at("name").as_string();
    if (ids.count(name)) n.at("name").fail("duplicate op name '" + name + "'");
    auto h = b.op(name);
    ids[name] = h.id();
    h.kind(n.has("kind") ? n.at("kind").as_op_kind() : "generic").precision(n.string_or("precision", "fp32"));
    h.flops(n.quantity_or("flops", Quantity::Plain, 0.0));
    h.reads(n.quantity_or("bytes_read", Quantity::Bytes, 0.0));
    h.writes(n.quantity_or("bytes_written", Quantity::Bytes, 0.0));
    h.params(n.quantity_or("params", Quantity::Bytes, 0.0));
    h.workspace(n.quantity_or("workspace", Quantity::Bytes, 0.0));
    if (auto s = n.find("sensitivity")) h.sensitivity(s->as_number());
    h.host_issue(n.quantity_or("host_issue", Quantity::Time, 0.0));
    if (auto k = n.find("allowed_kinds")) h.only_on(k->as_string_list());
    if (auto d = n.find("allowed_devices")) h.pinned_to(d->as_string_list());
    if (auto t = n.find("times"))
      for (const auto& [dev, v] : t->members())
        h.time_on(dev, v.as_quantity(Quantity::Time));
    if (auto d = n.find("dims")) b.mutable_op(h.id()).dims = graph_op_dims(*d);
  }
  if (auto tensors = root.find("tensors")) {
    for (const auto& n : tensors->items()) {
      n.expect_only({"name", "bytes", "producer", "consumers", "comm_time", "notes"});
      const auto producer_name = n.at("producer").as_string();
      auto p = ids.find(producer_name);
      if (p == ids.end()) n.at("producer").fail("unknown op '" + producer_name + "'");
      std::vector<OpId> consumers;
      for (const auto& c : n.at("consumers").items()) {
        const auto cname = c.as_string();
        auto it = ids.find(cname);
        if (it == ids.end()) c.fail("unknown op '" + cname + "'");
        if (it->second == p->second) c.fail("op '" + cname + "' cannot consume its own output");
        consumers.push_back(it->second);
      }
      const std::string name = n.string_or("name", producer_name + "#" + std::to_string(b.op_count()) + "." +
                                                       std::to_string(consumers.size()));
      const double bytes = n.quantity_or("bytes", Quantity::Bytes, 0.0);
      TensorId t = -1;
      try {
        t = b.tensor(name, bytes, p->second, consumers);
      } catch (const InputError& e) {
        n.fail(e.detail());
      }
      if (auto ct = n.find("comm_time")) b.set_comm_time(t, ct->as_quantity(Quantity::Time));
    }
  }
  return std::move(b).build();
}

Graph load_graph(const std::string& path) {
  return parse_graph(read_json_file(path), path);
}

Json graph_to_json(const Graph& g) {
  Json ops = Json::array();
  for (const auto& o : g.ops) {
    Json j{{"name", o.name},
           {"kind", o.kind},
           {"precision", o.precision},
           {"flops", o.flops},
           {"bytes_read", o.bytes_read},
           {"bytes_written", o.bytes_written}};
    if (o.param_bytes > 0) j["params"] = o.param_bytes;
    if (o.workspace_bytes > 0) j["workspace"] = o.workspace_bytes;
    if (o.sensitivity != 0) j["sensitivity"] = o.sensitivity;
    if (o.host_issue > 0) j["host_issue"] = o.host_issue;
    if (!o.allowed_kinds.empty()) j["allowed_kinds"] = o.allowed_kinds;
    if (!o.allowed_devices.empty()) j["allowed_devices"] = o.allowed_devices;
    if (!o.times.empty()) j["times"] = o.times;
    if (!o.dims.empty()) j["dims"] = o.dims;
    ops.push_back(std::move(j));
  }
  Json tensors = Json::array();
  for (const auto& t : g.tensors) {
    Json consumers = Json::array();
    for (OpId c : t.consumers)
      consumers.push_back(g.op(c).name);
    Json j{
        {"name", t.name}, {"bytes", t.bytes}, {"producer", g.op(t.producer).name}, {"consumers", consumers}};
    if (t.comm_time) j["comm_time"] = *t.comm_time;
    tensors.push_back(std::move(j));
  }
  return Json{
      {"format", "heterosim-graph"}, {"version", 1}, {"name", g.name}, {"ops", ops}, {"tensors", tensors}};
}

} // namespace hs
