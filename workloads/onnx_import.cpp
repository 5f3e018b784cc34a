// ONNX import (Debian's libonnx-dev): reads a model, runs ONNX shape inference, and maps every node to an op
// with FLOPs and bytes from the inferred shapes. Views (Reshape, Flatten, Squeeze, Unsqueeze, Identity,
// Dropout at inference) and constants (Constant, Shape, ...) become no op: their consumers read the
// underlying value. A node type the importer does not know is an error that names it: nothing is dropped.
//
// Weights: initializers, and graph inputs that only feed weight slots (a model exported with
// export_params=False keeps its weights as shaped graph inputs), count as parameters of the first op
// that reads them.
#include "workloads/onnx_import.hpp"

#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "workloads/onnx_shape_values.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <set>
#include <unordered_map>

namespace hs {
namespace {

struct TensorInfo {
  int elem_type = 0;
  std::vector<long long> dims;
  bool known = false;
  double elements() const {
    return std::accumulate(dims.begin(), dims.end(), 1.0,
                           [](double a, long long d) { return a * static_cast<double>(d); });
  }
};

double element_size(int t) {
  using onnx::TensorProto;
  switch (t) {
  case TensorProto::DOUBLE:
  case TensorProto::INT64:
  case TensorProto::UINT64:
    return 8;
  case TensorProto::FLOAT:
  case TensorProto::INT32:
  case TensorProto::UINT32:
    return 4;
  case TensorProto::FLOAT16:
  case TensorProto::BFLOAT16:
  case TensorProto::INT16:
  case TensorProto::UINT16:
    return 2;
  default:
    return 1;
  }
}

std::string precision_of(int t) {
  using onnx::TensorProto;
  switch (t) {
  case TensorProto::DOUBLE:
    return "fp64";
  case TensorProto::FLOAT16:
    return "fp16";
  case TensorProto::BFLOAT16:
    return "bf16";
  case TensorProto::INT8:
  case TensorProto::UINT8:
    return "int8";
  default:
    return "fp32";
  }
}

TensorInfo info_of(const onnx::ValueInfoProto& v) {
  TensorInfo i;
  if (!v.type().has_tensor_type()) return i;
  const auto& tt = v.type().tensor_type();
  i.elem_type = tt.elem_type();
  if (!tt.has_shape()) return i;
  i.known = true;
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value()) {
      i.known = false;
      break;
    }
    i.dims.push_back(d.dim_value());
  }
  return i;
}

const std::set<std::string> kViews = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
const std::set<std::string> kConstants = {"Constant", "Shape", "ConstantOfShape", "Size", "Range"};
const std::set<std::string> kElementwise = {
    "Add",   "Sub",     "Mul",  "Div",        "Pow",         "Sqrt",      "Relu", "LeakyRelu",
    "PRelu", "Sigmoid", "Tanh", "Erf",        "Exp",         "Log",       "Neg",  "Abs",
    "Clip",  "Max",     "Min",  "Reciprocal", "HardSigmoid", "HardSwish", "Gelu", "Where",
    "Cast",  "Equal",   "Less", "Greater",    "Not",         "And",       "Or",   "Floor",
    "Ceil",  "Round",   "Sign", "Softplus",   "Elu",         "Selu",      "Mish"};
// Pure data movement: a copy, no arithmetic.
const std::set<std::string> kCopies = {"Transpose", "Concat", "Split", "Slice",
                                       "Expand",    "Tile",   "Pad",   "Resize"};
const std::set<std::string> kReductions = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin",
                                           "ReduceProd", "ReduceL2",  "ReduceL1",  "ReduceSumSquare",
                                           "ArgMax",     "ArgMin"};
// Slots that hold weights, by op type (input index).
bool is_weight_slot(const std::string& op, int slot) {
  if (op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "LayerNormalization" ||
      op == "InstanceNormalization")
    return slot >= 1;
  if (op == "BatchNormalization") return slot >= 1;
  if (op == "Add" || op == "Mul") return slot <= 1; // commutative: exporters put a bias on either side
  if (op == "MatMul" || op == "Sub" || op == "Div" || op == "PRelu") return slot == 1;
  if (op == "Gather") return slot == 0;
  return false;
}

long long attribute_int(const onnx::NodeProto& n, const std::string& name, long long fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

std::vector<long long> attribute_ints(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return {};
}

class OnnxImporter {
public:
  OnnxImporter(onnx::ModelProto& m, const std::string& file) : m_(m), file_(file) {}

  Graph import() {
    onnx::GraphProto& g = *m_.mutable_graph();
    // Before shape inference: ONNX's own inference divides by some attributes unchecked (a Conv with strides
    // 0 stops the process with SIGFPE in libonnx 1.12), and runs on node types this importer would refuse.
    check_supported(g);
    check_attributes(g);
    try {
      // Data propagation computes shapes that the graph computes itself (Shape -> Gather -> Concat ->
      // Expand, as torch exports ViT's class token broadcast over the batch), not only declared ones.
      const onnx::ShapeInferenceOptions options(false, 0, true);
      onnx::shape_inference::InferShapes(m_, onnx::OpSchemaRegistry::Instance(), options);
      // Each round may give shapes that let later ones be computed; the bound only guards against a loop.
      for (int round = 0; round < 256 && onnx_import::add_computed_shapes(g) > 0; ++round)
        onnx::shape_inference::InferShapes(m_, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      throw InputError(file_, "", std::string("ONNX shape inference failed: ") + e.what());
    }
    for (const auto& t : g.initializer()) {
      TensorInfo i;
      i.elem_type = t.data_type();
      i.dims.assign(t.dims().begin(), t.dims().end());
      i.known = true;
      info_[t.name()] = i;
      weights_.insert(t.name());
    }
    for (const auto& v : g.input())
      if (!info_.count(v.name())) info_[v.name()] = info_of(v);
    for (const auto& v : g.value_info())
      info_[v.name()] = info_of(v);
    for (const auto& v : g.output())
      info_[v.name()] = info_of(v);
    classify_graph_inputs(g);

    // Exporters name graphs generically ("torch_jit"): the file name says more.
    GraphBuilder b(std::filesystem::path(file_).stem().string(), file_);
    builder_ = &b;
    for (const auto& v : g.input())
      if (!weights_.count(v.name())) {
        auto h = b.op(unique_name("input:" + v.name()));
        h.kind("input")
            .precision(precision_of(info_[v.name()].elem_type))
            .writes(bytes(v.name(), "graph input"));
        producer_[v.name()] = h.id();
      }
    for (int i = 0; i < g.node_size(); ++i)
      node(g.node(i), i);
    for (const auto& [name, consumers] : consumers_) {
      auto p = producer_.find(name);
      if (p == producer_.end()) continue;
      std::vector<OpId> c(consumers.begin(), consumers.end());
      b.tensor(name, bytes(name, "tensor"), p->second, c);
    }
    return std::move(b).build();
  }

private:
  // A graph input that feeds only weight slots, directly or through views, transposes and casts (how
  // exporters lay out a Linear layer's weight), is a weight; anything else is data.
  void classify_graph_inputs(const onnx::GraphProto& g) {
    std::unordered_map<std::string, std::vector<std::pair<const onnx::NodeProto*, int>>> uses;
    for (const auto& n : g.node())
      for (int s = 0; s < n.input_size(); ++s)
        uses[n.input(s)].emplace_back(&n, s);
    std::unordered_map<std::string, bool> memo;
    std::function<bool(const std::string&)> weight_only = [&](const std::string& name) {
      if (auto m = memo.find(name); m != memo.end()) return m->second;
      memo[name] = false; // no cycles in a valid model; guards against bad ones
      auto it = uses.find(name);
      bool ok = it != uses.end();
      if (ok)
        for (const auto& [node, slot] : it->second) {
          if (is_weight_slot(node->op_type(), slot)) continue;
          if (is_weight_passthrough(node->op_type()) && slot == 0) {
            for (const auto& o : node->output())
              ok = ok && weight_only(o);
            continue;
          }
          ok = false;
        }
      return memo[name] = ok;
    };
    for (const auto& v : g.input())
      if (!weights_.count(v.name()) && weight_only(v.name())) weights_.insert(v.name());
  }

  static bool is_weight_passthrough(const std::string& op) {
    return kViews.count(op) || op == "Transpose" || op == "Cast";
  }

  void check_supported(const onnx::GraphProto& g) {
    for (const auto& n : g.node()) {
      if (!known(n.op_type()) || !n.domain().empty()) continue; // reported below, all at once
      const int needed = kConstants.count(n.op_type()) ? 0
                         : n.op_type() == "Conv" || n.op_type() == "Gemm" || n.op_type() == "MatMul" ||
                                 n.op_type() == "Gather"
                             ? 2
                             : 1;
      bool named = true;
      for (int i = 0; i < std::min(needed, n.input_size()); ++i)
        named = named && !n.input(i).empty();
      if (n.input_size() < needed || !named)
        throw InputError(file_, "node '" + node_label(n) + "'",
                         n.op_type() + " needs " + std::to_string(needed) + " named input" +
                             (needed == 1 ? "" : "s") + ", it has " + std::to_string(n.input_size()));
      if (n.output_size() < 1 || n.output(0).empty())
        throw InputError(file_, "node '" + node_label(n) + "'", n.op_type() + " has no named output");
    }
    std::map<std::string, int> unsupported;
    for (const auto& n : g.node())
      if (!known(n.op_type()) || !n.domain().empty())
        ++unsupported[(n.domain().empty() ? "" : n.domain() + ":") + n.op_type()];
    if (unsupported.empty()) return;
    std::string list;
    for (const auto& [op, count] : unsupported)
      list += (list.empty() ? "" : ", ") + op + " (" + std::to_string(count) + " node" +
              (count > 1 ? "s" : "") + ")";
    throw InputError(file_, "", "unsupported ONNX node types: " + list + "; nothing was imported");
  }

  // Attributes that size or step through a window (and that shape inference divides by) must be positive.
  void check_attributes(const onnx::GraphProto& g) {
    static const std::set<std::string> positive = {"strides", "dilations", "kernel_shape", "group",
                                                   "blocksize"};
    for (const auto& n : g.node())
      for (const auto& a : n.attribute()) {
        if (!positive.count(a.name())) continue;
        const bool bad =
            a.type() == onnx::AttributeProto::INT
                ? a.i() < 1
                : std::any_of(a.ints().begin(), a.ints().end(), [](long long v) { return v < 1; });
        if (bad)
          throw InputError(file_, "node '" + node_label(n) + "'",
                           "attribute '" + a.name() + "' must be at least 1 in every entry");
      }
  }

  static bool known(const std::string& op) {
    static const std::set<std::string> others = {"Conv",
                                                 "Gemm",
                                                 "MatMul",
                                                 "Softmax",
                                                 "LogSoftmax",
                                                 "LayerNormalization",
                                                 "BatchNormalization",
                                                 "MaxPool",
                                                 "AveragePool",
                                                 "GlobalAveragePool",
                                                 "GlobalMaxPool",
                                                 "Gather"};
    return kViews.count(op) || kConstants.count(op) || kElementwise.count(op) || kCopies.count(op) ||
           kReductions.count(op) || others.count(op);
  }

  const TensorInfo& shape(const std::string& name, const onnx::NodeProto& n) {
    auto it = info_.find(name);
    if (it == info_.end() || !it->second.known)
      throw InputError(file_, "node '" + node_label(n) + "'",
                       "the shape of '" + name +
                           "' is unknown after shape inference (give the model's inputs fixed shapes)");
    return it->second;
  }

  double bytes(const std::string& name, const char* what) {
    auto it = info_.find(name);
    if (it == info_.end() || !it->second.known)
      throw InputError(file_, std::string(what) + " '" + name + "'",
                       "shape unknown after shape inference (give the model's inputs fixed shapes)");
    return it->second.elements() * element_size(it->second.elem_type);
  }

  static std::string node_label(const onnx::NodeProto& n) {
    return n.name().empty() ? n.op_type() : n.name();
  }

  std::string unique_name(const std::string& base) {
    std::string name = base;
    for (int k = 2; used_names_.count(name); ++k)
      name = base + "#" + std::to_string(k);
    used_names_.insert(name);
    return name;
  }

  void node(const onnx::NodeProto& n, int index) {
    const std::string& op = n.op_type();
    if (kConstants.count(op)) {
      for (const auto& o : n.output())
        constants_.insert(o);
      return;
    }
    if (weights_.count(resolve_name(n.input(0))) &&
        is_weight_passthrough(op)) { // weight layout, done once offline
      for (const auto& o : n.output())
        weights_.insert(o);
      return;
    }
    if (kViews.count(op)) { // the output is the input, seen differently
      const std::string& src = n.input(0);
      if (constants_.count(src) || weights_.count(src)) {
        for (const auto& o : n.output())
          (weights_.count(src) ? weights_ : constants_).insert(o);
      } else {
        for (const auto& o : n.output())
          alias_[o] = resolve_name(src);
      }
      return;
    }
    const TensorInfo& out = shape(n.output(0), n);
    const double out_elements = out.elements();
    double flops = 0;
    std::string kind = "elementwise";
    std::map<std::string, double> dims;
    auto input_shape = [&](int i) -> const TensorInfo& { return shape(n.input(i), n); };
    if (op == "Conv") {
      const auto& w = input_shape(1).dims; // [Cout, Cin/group, k...]
      double per_output = 1;
      for (std::size_t d = 1; d < w.size(); ++d)
        per_output *= static_cast<double>(w[d]);
      flops = 2 * out_elements * per_output + (n.input_size() > 2 && !n.input(2).empty() ? out_elements : 0);
      kind = "conv2d";
    } else if (op == "Gemm") {
      const auto& a = input_shape(0).dims;
      if (a.size() != 2)
        throw InputError(file_, "node '" + node_label(n) + "'", "Gemm's first input must be 2-D");
      const bool transposed_a = attribute_int(n, "transA", 0) != 0;
      const double k = static_cast<double>(transposed_a ? a[0] : a[1]);
      flops = 2 * out_elements * k + (n.input_size() > 2 && !n.input(2).empty() ? out_elements : 0);
      kind = "gemm";
      // The GEMM and its layout (an exported nn.Linear is transB = 1), for the size-aware GPU models.
      if (out.dims.size() == 2 && out.dims[0] > 0 && out.dims[1] > 0)
        dims = {{"batch", 1},
                {"m", static_cast<double>(out.dims[0])},
                {"n", static_cast<double>(out.dims[1])},
                {"k", k},
                {kTransposedA, transposed_a ? 1.0 : 0.0},
                {kTransposedB, attribute_int(n, "transB", 0) != 0 ? 1.0 : 0.0}};
    } else if (op == "MatMul") {
      const auto& a = input_shape(0).dims;
      if (a.empty())
        throw InputError(file_, "node '" + node_label(n) + "'", "MatMul's first input has no dimension");
      flops = 2 * out_elements * static_cast<double>(a.back());
      kind = weights_.count(resolve_name(n.input(1))) ? "gemm" : "attention";
    } else if (op == "Softmax" || op == "LogSoftmax") {
      flops = 5 * out_elements;
      kind = "softmax";
    } else if (op == "LayerNormalization") {
      flops = 8 * out_elements;
      kind = "layernorm";
    } else if (op == "BatchNormalization") {
      flops = 5 * out_elements;
      kind = "batchnorm";
    } else if (op == "MaxPool" || op == "AveragePool") {
      const auto k = attribute_ints(n, "kernel_shape");
      flops = out_elements * std::accumulate(k.begin(), k.end(), 1.0, [](double a, long long d) {
                return a * static_cast<double>(d);
              });
      kind = "pooling";
    } else if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
      flops = input_shape(0).elements();
      kind = "pooling";
    } else if (op == "Gather") {
      flops = out_elements;
      kind = weights_.count(resolve_name(n.input(0))) ? "embedding" : "gather";
    } else if (kReductions.count(op)) {
      flops = input_shape(0).elements();
      kind = "reduce";
    } else if (kCopies.count(op)) {
      flops = 0;
    } else { // elementwise
      flops = out_elements;
    }
    auto h = builder_->op(unique_name(n.name().empty() ? op + "_" + std::to_string(index) : n.name()));
    h.kind(kind).precision(precision_of(out.elem_type)).flops(flops);
    builder_->mutable_op(h.id()).dims = std::move(dims);
    double read = 0, params = 0, written = 0;
    for (int i = 0; i < n.input_size(); ++i) {
      const std::string& name = n.input(i);
      if (name.empty()) continue;
      const std::string src = resolve_name(name);
      if (constants_.count(src)) continue;
      double in_bytes = bytes(src, "tensor");
      if (kind == "embedding" && i == 0)
        in_bytes = out_elements * element_size(out.elem_type); // rows looked up
      read += in_bytes;
      if (weights_.count(src)) {
        if (owned_.insert(src).second) params += bytes(src, "weight");
        continue;
      }
      auto p = producer_.find(src);
      if (p == producer_.end())
        throw InputError(file_, "node '" + node_label(n) + "'", "input '" + name + "' has no producer");
      consumers_[src].insert(h.id());
    }
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      written += bytes(o, "tensor");
      producer_[o] = h.id();
    }
    h.reads(read).writes(written).params(params);
  }

  std::string resolve_name(const std::string& name) const {
    auto it = alias_.find(name);
    return it == alias_.end() ? name : it->second;
  }

  onnx::ModelProto& m_;
  std::string file_;
  GraphBuilder* builder_ = nullptr;
  std::unordered_map<std::string, TensorInfo> info_;
  std::set<std::string> weights_, constants_, owned_, used_names_;
  std::unordered_map<std::string, std::string> alias_;
  std::unordered_map<std::string, OpId> producer_;
  std::map<std::string, std::set<OpId>> consumers_;
};

} // namespace

Graph load_onnx(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw InputError(path, "", "not an ONNX model (protobuf parse failed)");
  return OnnxImporter(model, path).import();
}

} // namespace hs

HS_REGISTER_WORKLOAD_FILE_FORMAT(onnx, hs::WorkloadFileFormat{
                                           ".onnx", "ONNX model (shape inference by libonnx)", hs::load_onnx})
