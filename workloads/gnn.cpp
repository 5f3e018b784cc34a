#include "workloads/gnn.hpp"

#include "sim/error.hpp"
#include "workloads/model_options.hpp"

namespace hs {

Graph gnn(const GnnOptions& o) {
  using layers::ValueId;
  layers::LayerGraph g(o.variant + "-n" + std::to_string(o.nodes) + "-e" + std::to_string(o.edges) + "-" +
                           o.model.precision + (o.model.training ? "-training" : "-inference"),
                       o.model);
  const double nodes = static_cast<double>(o.nodes), edges = static_cast<double>(o.edges);
  ValueId x = g.input("features", nodes * static_cast<double>(o.features) * g.elem());
  const ValueId edge_index = g.input("edge_index", edges * 2 * 8); // source and target, int64
  double width = static_cast<double>(o.features);
  for (long long l = 0; l < o.layers; ++l) {
    const std::string p = std::string("layer").append(std::to_string(l));
    const bool last = l + 1 == o.layers;
    const double out = static_cast<double>(last ? o.classes : o.hidden);
    if (o.variant == "gcn") {
      // H' = D^-1/2 (A + I) D^-1/2 H W: transform first (the narrower side), then aggregate along edges.
      // Self-loops are edges of the edge list, as in PyTorch Geometric's GCNConv.
      const ValueId h = g.linear(p + ".linear", x, nodes, width, out, true);
      const ValueId messages = g.gather(p + ".gather", h, edge_index, edges, out);
      x = g.scatter(p + ".aggregate", messages, edge_index, edges, nodes, out);
    } else {
      // h' = W_self h + W_neigh mean(h_neighbours) + b (lin_l with bias, lin_r without, as in PyG's
      // SAGEConv).
      const ValueId messages = g.gather(p + ".gather", x, edge_index, edges, width);
      const ValueId mean = g.scatter(p + ".aggregate", messages, edge_index, edges, nodes, width);
      const ValueId neighbours = g.linear(p + ".linear_neighbours", mean, nodes, width, out, true);
      const ValueId self = g.linear(p + ".linear_self", x, nodes, width, out, false);
      x = g.add(p + ".combine", {neighbours, self}, nodes * out);
    }
    if (!last) x = g.elementwise(p + ".relu", {x}, nodes * out, 1, layers::Saved::Output);
    width = out;
  }
  if (o.model.training) g.loss("loss", x, nodes, static_cast<double>(o.classes));
  return std::move(g).finish();
}

} // namespace hs

namespace {

hs::WorkloadBuilder gnn_builder(const std::string& variant, const std::string& what) {
  return hs::WorkloadBuilder{
      variant, what,
      hs::layers::model_parameters({{"nodes", "2708"},
                                    {"edges", "10556"},
                                    {"features", "1433"},
                                    {"hidden", "16"},
                                    {"classes", "7"},
                                    {"layers", "2", "defaults: Cora"}},
                                   {"batch", "1", "one graph per pass"}),
      [variant](hs::WorkloadParams& p) {
        hs::GnnOptions o;
        o.variant = variant;
        o.model.batch = 1;
        const auto common = hs::layers::read_model_options(p, variant, 1);
        o.model.precision = common.precision;
        o.model.training = common.training;
        if (common.batch != 1)
          throw hs::InputError(variant, "batch",
                               "full-graph training has no batch; size the graph with nodes= and edges=");
        o.nodes = p.integer("nodes", o.nodes, 1, 1'000'000'000);
        o.edges = p.integer("edges", o.edges, 1, 100'000'000'000);
        o.features = p.integer("features", o.features, 1, 1'000'000);
        o.hidden = p.integer("hidden", o.hidden, 1, 1'000'000);
        o.classes = p.integer("classes", o.classes, 1, 1'000'000);
        o.layers = p.integer("layers", o.layers, 1, 1000);
        return hs::gnn(o);
      }};
}

} // namespace

HS_REGISTER_WORKLOAD(gcn, gnn_builder("gcn", "GCN (Kipf & Welling 2017): per layer a GEMM, a gather over the "
                                             "edge list and a scatter-add to the nodes"))
HS_REGISTER_WORKLOAD(
    graphsage,
    gnn_builder("graphsage",
                "GraphSAGE, mean aggregator (Hamilton et al. 2017): gather, scatter-mean, two GEMMs"))
