// ONNX import on models exported from PyTorch by workloads/onnx/make_fixtures.py (weights left out, their
// shapes kept), cross-checked against HeteroSim's own builders and closed forms.
#include "sim/error.hpp"
#include "sim/wave_model.hpp"
#include "workloads/graph_summary.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

#ifdef HS_HAVE_ONNX
#include <onnx/onnx_pb.h>

namespace {
std::string fixture(const std::string& name) {
  return std::string(HS_SOURCE_DIR) + "/workloads/onnx/" + name;
}
double kind_flops(const hs::GraphSummary& s, const std::string& kind) {
  auto it = s.by_kind.find(kind);
  return it == s.by_kind.end() ? 0.0 : it->second.flops;
}
} // namespace

TEST_CASE("Imported torchvision ResNet-18 matches the ResNet-18 builder within 2%") {
  const auto imported = hs::summarize(hs::load_workload(fixture("resnet18.onnx")));
  const auto built = hs::summarize(hs::load_workload("resnet18"));
  CHECK(imported.flops == doctest::Approx(built.flops).epsilon(0.02));
  CHECK(kind_flops(imported, "conv2d") == doctest::Approx(kind_flops(built, "conv2d")).epsilon(0.02));
  CHECK(kind_flops(imported, "gemm") == doctest::Approx(kind_flops(built, "gemm")));
  CHECK(imported.by_kind.at("conv2d").ops == 20);
  // The exporter folds each batch norm into its convolution as a bias (one per output channel instead of
  // a scale and a shift): 4800 fewer parameters than torchvision's 11,689,512.
  CHECK(imported.parameters == 11'689'512 - 4800);
  CHECK(imported.by_kind.at("input").ops == 1);
  // The classifier is exported as Gemm with transB = 1 (nn.Linear's weight, out x in): its dims name the
  // layout, so the GPU models cost the BLAS's "TN" call PyTorch makes, not a product of untransposed
  // operands.
  int gemms = 0;
  for (const auto& op : hs::load_workload(fixture("resnet18.onnx")).ops)
    if (op.kind == "gemm") {
      ++gemms;
      CHECK(op.dims.at("n") == 1000);
      CHECK(op.dims.at("k") == 512);
      CHECK(op.dims.at("transposed_a") == 0);
      CHECK(op.dims.at("transposed_b") == 1);
      const auto shape = hs::gemm_shape_of(op);
      REQUIRE(shape);
      CHECK(shape->m == 1000);
      CHECK(shape->transposed_a);
    }
  CHECK(gemms == 1);
}

TEST_CASE("Imported small BERT-style encoder: parameters and matmul FLOPs from its shapes") {
  const auto s = hs::summarize(hs::load_workload(fixture("tiny-bert.onnx")));
  // vocab 1000, 64 positions, hidden 128, FFN 512, 2 layers, 2 heads; batch 2, sequence 32.
  const double h = 128, inner = 512, layers = 2, rows = 2 * 32;
  CHECK(s.parameters == 1000 * h + 64 * h + 2 * h +
                            layers * (4 * (h * h + h) + (h * inner + inner) + (inner * h + h) + 4 * h));
  CHECK(kind_flops(s, "gemm") == 2 * rows * layers * (4 * h * h + 2 * h * inner));
  // Scores and context per layer, each 2 FLOPs x batch 2 x heads 2 x 32 x 32 x head dimension 64.
  CHECK(kind_flops(s, "attention") == layers * 2 * (2 * 2 * 2 * 32 * 32 * 64.0));
  CHECK(s.by_kind.at("softmax").ops == 2);
  CHECK(s.by_kind.at("embedding").ops == 2);
}

TEST_CASE(
    "Imported vision transformer: shapes the graph computes itself (class token, attention) are followed") {
  // torchvision's VisionTransformer, small: 32x32 images in 16x16 patches (4 + the class token = 5 tokens),
  // hidden 64, 2 layers, 2 heads, MLP 128, 1000 classes, batch 2. Its export expands the class token over the
  // batch through Shape, ConstantOfShape, Equal and Where, and slices Q, K, V by computed sizes.
  const auto s = hs::summarize(hs::load_workload(fixture("tiny-vit.onnx")));
  const double h = 64, mlp = 128, layers = 2, tokens = 5, batch = 2;
  const double per_layer = 2 * 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * mlp + mlp) + (mlp * h + h);
  // The class token feeds an Expand, not a weight slot, so the importer counts it as data: 64 fewer.
  CHECK(s.parameters == (3 * 16 * 16 * h + h) + tokens * h + layers * per_layer + 2 * h + (h * 1000 + 1000));
  // Q, K and V in one projection, the output projection and the MLP, over every token; the head on the
  // class token alone. The output projection and the head are exported as Gemm with a bias (one add per
  // output element); the other layers as MatMul and a separate Add.
  CHECK(kind_flops(s, "gemm") ==
        2 * batch * (layers * tokens * (h * 3 * h + h * h + 2 * h * mlp) + h * 1000) +
            batch * (layers * tokens * h + 1000));
  CHECK(s.by_kind.at("softmax").ops == 2);
}

TEST_CASE(
    "An imported model at another precision: file:precision=fp16 halves its bytes and changes its peak") {
  const hs::Graph fp32 = hs::load_workload(fixture("tiny-bert.onnx"));
  const hs::Graph fp16 = hs::load_workload(fixture("tiny-bert.onnx") + ":precision=fp16");
  REQUIRE(fp16.op_count() == fp32.op_count());
  double params32 = 0, params16 = 0, tensors32 = 0, tensors16 = 0;
  for (std::size_t o = 0; o < fp32.ops.size(); ++o) {
    params32 += fp32.ops[o].param_bytes;
    params16 += fp16.ops[o].param_bytes;
    CHECK(fp16.ops[o].flops == fp32.ops[o].flops);
    if (fp32.ops[o].precision == "fp32") CHECK(fp16.ops[o].precision == "fp16");
  }
  for (std::size_t t = 0; t < fp32.tensors.size(); ++t) {
    tensors32 += fp32.tensors[t].bytes;
    tensors16 += fp16.tensors[t].bytes;
  }
  CHECK(params16 == doctest::Approx(params32 / 2));
  CHECK(tensors16 < tensors32);
  CHECK_THROWS_WITH_AS(hs::load_workload(fixture("tiny-bert.onnx") + ":precision=fp12"),
                       doctest::Contains("'fp12' is not one of"), hs::InputError);
  CHECK_THROWS_WITH_AS(hs::load_workload(fixture("tiny-bert.onnx") + ":batch=2"),
                       doctest::Contains("unknown parameter"), hs::InputError);
}

TEST_CASE("ONNX import names unsupported node types and refuses to drop them") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("unsupported");
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int d : {4, 8})
    tt->mutable_shape()->add_dim()->set_dim_value(d);
  for (const char* op : {"Relu", "Einsum", "Einsum", "NonMaxSuppression"}) {
    auto* n = g->add_node();
    n->set_op_type(op);
    // std::string("y").append(...), not "y" + ...: GCC 12 -Wrestrict false positive (PR 105329)
    n->add_input(g->node_size() == 1 ? std::string("x")
                                     : std::string("y").append(std::to_string(g->node_size() - 1)));
    n->add_output(std::string("y").append(std::to_string(g->node_size())));
  }
  const auto path = std::filesystem::temp_directory_path() / "heterosim-unsupported.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    REQUIRE(m.SerializeToOstream(&out));
  }
  CHECK_THROWS_WITH_AS(
      hs::load_workload(path.string()),
      doctest::Contains("unsupported ONNX node types: Einsum (2 nodes), NonMaxSuppression (1 node)"),
      hs::InputError);
  std::filesystem::remove(path);

  const auto junk = std::filesystem::temp_directory_path() / "heterosim-junk.onnx";
  std::ofstream(junk) << "not a model";
  CHECK_THROWS_AS(hs::load_workload(junk.string()), hs::InputError);
  std::filesystem::remove(junk);
}

TEST_CASE("ONNX import refuses a node without the inputs or output its type needs") {
  // Found by fuzz_onnx: a node with fewer inputs than its type reads was indexed past its input list
  // (undefined behaviour in protobuf's accessor).
  for (const auto& missing : {std::pair{"Relu", 0}, {"MatMul", 1}}) {
    const char* op = missing.first; // a plain name: clang 14 cannot capture a structured binding
    const int inputs = missing.second;
    CAPTURE(op);
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("missing-input");
    auto* in = g->add_input();
    in->set_name("x");
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name("n0");
    for (int i = 0; i < inputs; ++i)
      n->add_input(std::string("x"));
    n->add_output(std::string("y"));
    const auto path = std::filesystem::temp_directory_path() / "heterosim-missing-input.onnx";
    {
      std::ofstream out(path, std::ios::binary);
      REQUIRE(m.SerializeToOstream(&out));
    }
    CHECK_THROWS_WITH_AS(hs::load_workload(path.string()), doctest::Contains("named input"), hs::InputError);
    std::filesystem::remove(path);
  }
}

TEST_CASE("ONNX import refuses a zero stride before shape inference divides by it") {
  // Found by fuzz_onnx: libonnx 1.12's convolution shape inference divides by `strides` unchecked, so a
  // stride of 0 stopped the whole process with SIGFPE. Every window attribute must be at least 1.
  for (const char* attribute : {"strides", "dilations", "kernel_shape"}) {
    CAPTURE(attribute);
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("zero-stride");
    for (const auto& [name, dims] : {std::pair{"x", std::vector<int>{1, 3, 8, 8}}, {"w", {4, 3, 3, 3}}}) {
      auto* in = g->add_input();
      in->set_name(name);
      auto* tt = in->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(onnx::TensorProto::FLOAT);
      for (int d : dims)
        tt->mutable_shape()->add_dim()->set_dim_value(d);
    }
    auto* n = g->add_node();
    n->set_op_type("Conv");
    n->set_name("conv0");
    n->add_input(std::string("x"));
    n->add_input(std::string("w"));
    n->add_output(std::string("y"));
    auto* a = n->add_attribute();
    a->set_name(attribute);
    a->set_type(onnx::AttributeProto::INTS);
    a->add_ints(1);
    a->add_ints(0);
    const auto path = std::filesystem::temp_directory_path() / "heterosim-zero-stride.onnx";
    {
      std::ofstream out(path, std::ios::binary);
      REQUIRE(m.SerializeToOstream(&out));
    }
    // append, not operator+: GCC 12 -Wrestrict false positive (PR 105329), as above
    const std::string expected = std::string("attribute '").append(attribute).append("' must be at least 1");
    CHECK_THROWS_WITH_AS(hs::load_workload(path.string()), doctest::Contains(expected.c_str()),
                         hs::InputError);
    std::filesystem::remove(path);
  }
}
#else
TEST_CASE("ONNX import is not built") {
  MESSAGE("libonnx-dev/libprotobuf-dev missing at configure time: ONNX tests skipped (scripts/setup.sh "
          "installs them)");
}
#endif
