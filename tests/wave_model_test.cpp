// The size-aware GPU model: wave quantisation known answers, K splitting for few tiles, the power-limited
// clock, a fit that recovers known parameters, and leave-one-GPU-out that never sees the left-out GPU.
#include "graph_lookup.hpp"
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/wave_model.hpp"
#include "validation/deepbench.hpp"
#include "validation/wave_fit.hpp"
#include "workloads/workload_registry.hpp"

#include <cmath>
#include <doctest/doctest.h>

using namespace hs;
using namespace hs::validation;
using hs::test::op_named;

namespace {

WaveDevice v100_like() {
  WaveDevice d;
  d.peak_flops = 15.7e12;
  d.bandwidth = 900e9;
  d.units = 80;
  d.boost_clock_mhz = 1530;
  return d;
}

WaveParams no_launch() {
  WaveParams p;
  p.launch_seconds = 0;
  return p;
}

// One entry putting every GPU on the wave model, without launch cost.
Calibration wave_calibration() {
  Calibration c;
  Calibration::Entry e;
  e.name = "wave";
  e.applies_to.kinds = {"gpu"};
  e.wave = no_launch();
  c.entries.push_back(e);
  return c;
}

// One GPU with an A100's SMs, clock, fp32 peak and bandwidth.
Platform a100_like() {
  return parse_platform(R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "gpu", "kind": "gpu", "peak": {"fp32": 19.5e12}, "memory": {"bandwidth": 1555e9,
      "capacity": "40GB"}, "power": {"idle": 1, "busy": 2},
      "compute_units": {"count": 108, "boost_clock_mhz": 1410, "source": "test"}}], "links": []})",
                        "w.json");
}

} // namespace

TEST_CASE("a GEMM whose tiles fill one wave plus one tile takes about two waves") {
  const WaveDevice d = v100_like();
  const Tile t{128, 128};
  const GemmShape one_wave{128.0 * 80, 128, 4096};
  const GemmShape one_more{128.0 * 81, 128, 4096};
  const WaveTime a = gemm_time_with_tile(one_wave, d, no_launch(), t, 1);
  const WaveTime b = gemm_time_with_tile(one_more, d, no_launch(), t, 1);
  CHECK(a.waves == 1);
  CHECK(b.waves == 2);
  CHECK(b.seconds / a.seconds == doctest::Approx(2.0).epsilon(0.02));
  // FLOPs alone would say 81/80: the whole second wave is paid for one tile.
  CHECK(b.seconds / a.seconds > 1.9);
}

TEST_CASE("a GEMM with fewer tiles than SMs splits K and beats running its tiles alone") {
  const WaveDevice d = v100_like();
  const GemmShape skinny{1024, 16, 500000};
  const WaveTime best = gemm_wave_time(skinny, d, no_launch());
  CHECK(best.split_k > 1);
  const WaveTime unsplit = gemm_time_with_tile(skinny, d, no_launch(), best.tile, 1);
  CHECK(best.seconds < unsplit.seconds);
}

TEST_CASE("a board whose power limit cannot feed its peak runs at a lower clock, a datasheet clock wins") {
  WaveDevice d = v100_like();
  WaveParams p = no_launch();
  p.watts_per_tflops = 20;
  d.power_limit_watts = 400; // needs 314 W: not limited
  CHECK(sustained_clock_share(d, p) == 1.0);
  d.power_limit_watts = 70; // a T4-like budget
  CHECK(sustained_clock_share(d, p) == doctest::Approx(std::pow(70.0 / 314.0, 1 / 2.5)));
  const GemmShape big{8192, 8192, 8192};
  WaveDevice unlimited = d;
  unlimited.power_limit_watts = 0;
  CHECK(gemm_wave_time(big, d, p).seconds > 1.5 * gemm_wave_time(big, unlimited, p).seconds);
  d.sustained_clock_mhz = 1224;
  CHECK(sustained_clock_share(d, p) == doctest::Approx(0.8));
}

TEST_CASE("the clock a board sustains follows its fp32 peak, whatever precision the kernel runs in") {
  // An A100 SXM (400 W, fp32 19.5 TF, fp16 tensor 312 TF): the power law fitted on fp32 GEMMs, applied to
  // the tensor-core peak, would need 6.1 kW and put the board at a third of its clock.
  Device a100;
  a100.name = "gpu0";
  a100.peak_flops = {{"fp32", 19.5e12}, {"fp16", 312e12}};
  a100.memory_bandwidth = 2039e9;
  a100.units.count = 108;
  a100.units.boost_clock_mhz = 1410;
  a100.units.power_limit_watts = 400;
  a100.units.architecture = "Ampere";
  WaveParams p = no_launch();
  p.watts_per_tflops = 19.7;
  CHECK(sustained_clock_share(wave_device(a100, "fp16"), p) == 1.0);
  a100.units.power_limit_watts = 250; // the PCIe board
  CHECK(sustained_clock_share(wave_device(a100, "fp16"), p) ==
        doctest::Approx(std::pow(250 / (19.7 * 19.5), 1 / 2.5)));
  CHECK(sustained_clock_share(wave_device(a100, "fp16"), p) ==
        sustained_clock_share(wave_device(a100, "fp32"), p));
}

TEST_CASE("the wave fit recovers the parameters that generated its points") {
  WaveParams truth;
  truth.peak_efficiency = 0.7;
  truth.memory_efficiency = 0.6;
  truth.launch_seconds = 8e-6;
  std::vector<WavePoint> points;
  for (double m : {64.0, 512.0, 2048.0, 7680.0})
    for (double n : {16.0, 128.0, 3000.0})
      for (double k : {256.0, 2560.0}) {
        WavePoint pt{{m, n, k}, v100_like(), 0};
        pt.seconds = gemm_wave_time(pt.shape, pt.device, truth).seconds;
        points.push_back(pt);
      }
  const WaveParams fit = fit_wave(points);
  CHECK(wave_mape(points, fit) < 2.0);
  CHECK(wave_mape(points, WaveParams{}) > 5.0); // the test could fail: defaults do not fit
}

TEST_CASE("leave one GPU out fits without any of the left-out GPU's points") {
  std::vector<DeepBenchPoint> points;
  for (const char* gpu : {"a", "b", "c"})
    for (int i = 0; i < 12; ++i) {
      DeepBenchPoint p;
      p.gpu = gpu;
      p.precision = "fp32";
      p.index = i;
      p.shape = {256.0 * (1 + i), 64.0 * (1 + i % 4), 1024};
      p.device = v100_like();
      p.device.units = gpu[0] == 'c' ? 40 : 80;
      p.point.seconds = gemm_wave_time(p.shape, p.device, WaveParams{}).seconds;
      points.push_back(p);
    }
  DeepBenchResult first, second;
  evaluate_deepbench_wave(points, first);
  for (auto& p : points)
    if (p.gpu == "c") p.point.seconds *= 10; // the left-out GPU's times must not move its own fit
  evaluate_deepbench_wave(points, second);
  CHECK(second.wave_fit_without.at("c").peak_efficiency == first.wave_fit_without.at("c").peak_efficiency);
  CHECK(second.wave_fit_without.at("c").launch_seconds == first.wave_fit_without.at("c").launch_seconds);
  // ... while the fit on c's own training problems does see them (the check above could fail).
  CHECK(second.wave_fit_own.at("c").peak_efficiency != first.wave_fit_own.at("c").peak_efficiency);
  CHECK(second.wave_leave_one_gpu_out.at("c").mape > 80.0);
}

TEST_CASE("a calibration with a wave model costs a graph's GEMMs by tiles and waves on devices with SMs") {
  GraphBuilder b("g");
  const double m = 128.0 * 81, n = 128, k = 4096;
  b.op("mm").kind("gemm").flops(2 * m * n * k).reads(4 * (m * k + k * n)).writes(4 * m * n);
  const Graph g = std::move(b).build();
  const auto shape = gemm_shape_of(g.op(0));
  REQUIRE(shape);
  CHECK(shape->m == doctest::Approx(m));
  CHECK(shape->n == doctest::Approx(n));
  CHECK(shape->k == doctest::Approx(k));
  const std::string device = R"("kind": "gpu", "peak": {"fp32": 15.7e12}, "memory": {"bandwidth": 900e9,
      "capacity": "16GB"}, "power": {"idle": 1, "busy": 2})";
  const Platform p = parse_platform(
      R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "with", )" +
          device + R"(, "compute_units": {"count": 80, "boost_clock_mhz": 1530, "source": "test"}},
      {"name": "without", )" +
          device + R"(}], "links": [], "unreachable": [["with", "without"]]})",
      "w.json");
  const CostModel cost(g, p, wave_calibration());
  const WaveTime expected = gemm_wave_time(*shape, wave_device(p.devices[0], "fp32"), no_launch());
  CHECK(cost.op_time(0, 0) == doctest::Approx(expected.seconds));
  CHECK(cost.op_time(0, 1) == doctest::Approx(CostModel(g, p).op_time(0, 1))); // no SMs: the roofline
}

TEST_CASE("a GEMM with a bias is known by the dims it names, a matrix-vector product keeps the roofline") {
  GraphBuilder b("g");
  const double k = 1280, n = 5120;
  for (const double m : {128.0, 1.0}) { // a prefill's and a decode step's MLP projection (GPT-2 large)
    auto op = b.op(m > 1 ? "prefill" : "decode")
                  .kind("gemm")
                  .flops(2 * m * n * k + m * n) // and the bias's adds
                  .reads(4 * (m * k + k * n + n))
                  .writes(4 * m * n);
    b.mutable_op(op.id()).dims = {{"batch", 1}, {"m", m}, {"n", n}, {"k", k}};
  }
  auto wrong =
      b.op("wrong dims").kind("gemm").flops(2 * 64.0 * n * k).reads(4 * (64 * k + k * n)).writes(4 * 64 * n);
  b.mutable_op(wrong.id()).dims = {{"m", 32}, {"n", n}, {"k", k}}; // half the FLOPs: the bytes decide
  const Graph g = std::move(b).build();
  for (OpId o : {0, 1}) { // as the BLAS is called: the row-major product transposed
    const auto shape = gemm_shape_of(g.op(o));
    REQUIRE(shape);
    CHECK(shape->m == n);
    CHECK(shape->n == g.op(o).dims.at("m"));
    CHECK(shape->k == k);
  }
  CHECK_FALSE(matrix_vector(*gemm_shape_of(g.op(0))));
  CHECK(matrix_vector(*gemm_shape_of(g.op(1))));
  REQUIRE(gemm_shape_of(g.op(2)));
  CHECK(gemm_shape_of(g.op(2))->n * gemm_shape_of(g.op(2))->m == doctest::Approx(64 * n));

  const Platform p = a100_like();
  const CostModel wave(g, p, wave_calibration()), roofline(g, p);
  CHECK(wave.op_time(0, 0) ==
        doctest::Approx(
            gemm_wave_time(*gemm_shape_of(g.op(0)), wave_device(p.devices[0], "fp32"), no_launch()).seconds));
  CHECK(wave.op_time(1, 0) == roofline.op_time(1, 0));
}

TEST_CASE("a calibration with a wave model costs a graph's convolutions as their implicit GEMMs") {
  GraphBuilder b("g");
  // ResNet-50's first convolution at batch 8: 7x7, 3 -> 64 channels, stride 2, 224 -> 112.
  const double batch = 8, cin = 3, cout = 64, k = 7, out = 112;
  const double flops = 2 * batch * cout * out * out * cin * k * k;
  auto conv = b.op("conv1")
                  .kind("conv2d")
                  .flops(flops)
                  .reads(4 * batch * cin * 224 * 224)
                  .writes(4 * batch * cout * out * out);
  b.mutable_op(conv.id()).dims = {{"batch", batch}, {"cin", cin}, {"cout", cout}, {"kh", k},    {"kw", k},
                                  {"oh", out},      {"ow", out},  {"groups", 1},  {"stride", 2}};
  b.op("bare").kind("conv2d").flops(flops).reads(1e6).writes(1e6); // no dims: not a shape the model knows
  const Graph g = std::move(b).build();
  const auto shape = conv_shape_of(g.op(0));
  REQUIRE(shape);
  CHECK(shape->m == doctest::Approx(batch * out * out));
  CHECK(shape->n == doctest::Approx(cout));
  CHECK(shape->k == doctest::Approx(cin * k * k));
  CHECK(2 * shape->m * shape->n * shape->k == doctest::Approx(flops)); // the same work as the op
  CHECK(shape->window == 49); // the filter window and stride the learned model reads
  CHECK(shape->stride == 2);
  CHECK_FALSE(conv_shape_of(g.op(1)));
  CHECK_FALSE(gemm_shape_of(g.op(0)));

  const Platform p = parse_platform(
      R"({"format": "heterosim-platform", "version": 1, "name": "w", "devices": [
      {"name": "gpu", "kind": "gpu", "peak": {"fp32": 15.7e12}, "memory": {"bandwidth": 900e9,
      "capacity": "16GB"}, "power": {"idle": 1, "busy": 2},
      "compute_units": {"count": 80, "boost_clock_mhz": 1530, "source": "test"}}], "links": []})",
      "w.json");
  const CostModel cost(g, p, wave_calibration());
  const WaveTime expected = gemm_wave_time(*shape, wave_device(p.devices[0], "fp32"), no_launch());
  CHECK(cost.op_time(0, 0) == doctest::Approx(expected.seconds));
  CHECK(cost.op_time(0, 0) != doctest::Approx(CostModel(g, p).op_time(0, 0)));
  // Without dims the convolution keeps the roofline it had.
  CHECK(cost.op_time(1, 0) == doctest::Approx(CostModel(g, p).op_time(1, 0)));
}

TEST_CASE(
    "a linear layer's GEMMs are the BLAS calls PyTorch makes: Y = X W^T is TN, dX = dY W is NN, dW is NT") {
  // BERT-base at batch 2, sequence 128: fc1 maps 768 features to 3072 over 256 rows, with a bias. The
  // BLAS computes the column-major transpose of each row-major product (Y^T = W X^T with the weight
  // transposed; dX^T = W^T dY^T; dW^T = X^T dY with dY transposed), so its m is the product's columns.
  const Graph g = load_workload("bert-base:batch=2,mode=training");
  const auto op = [&](const std::string& name) -> const Op& { return op_named(g, name); };
  const auto forward = gemm_shape_of(op("layer0.ffn.fc1"));
  const auto dgrad = gemm_shape_of(op("layer0.ffn.fc1.dgrad"));
  const auto wgrad = gemm_shape_of(op("layer0.ffn.fc1.wgrad"));
  REQUIRE(forward);
  REQUIRE(dgrad);
  REQUIRE(wgrad); // its FLOPs hold the bias gradient's sum too, one pass over dY
  CHECK(forward->m == 3072);
  CHECK(forward->n == 256);
  CHECK(forward->k == 768);
  CHECK(forward->transposed_a);
  CHECK_FALSE(forward->transposed_b);
  CHECK(dgrad->m == 768);
  CHECK(dgrad->n == 256);
  CHECK(dgrad->k == 3072);
  CHECK_FALSE(dgrad->transposed_a);
  CHECK_FALSE(dgrad->transposed_b);
  CHECK(wgrad->m == 3072);
  CHECK(wgrad->n == 768);
  CHECK(wgrad->k == 256);
  CHECK_FALSE(wgrad->transposed_a);
  CHECK(wgrad->transposed_b);
  CHECK(dgrad->m * dgrad->n * dgrad->k == forward->m * forward->n * forward->k);
  CHECK(wgrad->m * wgrad->n * wgrad->k == forward->m * forward->n * forward->k);
}

TEST_CASE("attention's batched products and each operand's gradient are GEMMs known by their dims") {
  // BERT-base at batch 2, sequence 128, heads fused: 24 products of [128, 64] x [64, 128] for the scores
  // and of [128, 128] x [128, 64] for the context.
  const Graph g = load_workload("bert-base:batch=2,mode=training,heads=fused");
  const auto op = [&](const std::string& name) -> const Op& { return op_named(g, name); };
  const auto scores = gemm_shape_of(op("layer0.attn.scores"));
  REQUIRE(scores);
  CHECK(scores->batch == 24);
  CHECK(scores->m == 128);
  CHECK(scores->n == 128);
  CHECK(scores->k == 64);
  CHECK(scores->transposed_a); // Q K^T reads the keys as stored: the BLAS's "TN", as torch.matmul calls it
  CHECK_FALSE(scores->transposed_b);
  const auto context_shape = gemm_shape_of(op("layer0.attn.context"));
  REQUIRE(context_shape);
  CHECK(context_shape->m == 64); // the BLAS's m is the row-major product's columns
  CHECK(context_shape->n == 128);
  CHECK_FALSE(context_shape->transposed_a);
  CHECK_FALSE(context_shape->transposed_b);
  // The context's gradients: dP = dC V^T ([128, 64] x [64, 128]) and dV = P^T dC ([128, 128] x [128, 64]),
  // two kernels whose FLOPs are each the forward product's.
  const auto probs_grad = gemm_shape_of(op("layer0.attn.context.bwd"));
  const auto v_grad = gemm_shape_of(op("layer0.attn.context.bwd_rhs"));
  REQUIRE(probs_grad);
  REQUIRE(v_grad);
  CHECK(probs_grad->m == 128);
  CHECK(probs_grad->n == 128);
  CHECK(probs_grad->k == 64);
  CHECK(probs_grad->transposed_a); // V as stored, transposed
  CHECK(v_grad->m == 64);
  CHECK(v_grad->n == 128);
  CHECK(v_grad->k == 128);
  CHECK(v_grad->transposed_b); // P as stored, transposed
  const Op& context = op("layer0.attn.context");
  CHECK(op("layer0.attn.context.bwd_rhs").flops == context.flops);
  CHECK(op("layer0.attn.context.bwd").flops >= context.flops);
  // Without dims an attention op is no GEMM: its bytes alone do not say which products it runs.
  Op undimensioned = context;
  undimensioned.dims.clear();
  CHECK_FALSE(gemm_shape_of(undimensioned));
}

TEST_CASE("a convolution's gradients are implicit GEMMs of their own, left to the roofline without gradient "
          "trees") {
  // ResNet-18 at batch 2: layer1's 3x3 convolutions map 64 to 64 channels over 56 x 56 pixels; the stem maps
  // 3 channels to 64 with a 7x7 window at stride 2, 224 -> 112.
  const Graph g = load_workload("resnet18:batch=2,mode=training");
  const auto data = conv_shape_of(op_named(g, "layer1.0.1.conv.dgrad"));
  const auto weights = conv_shape_of(op_named(g, "layer1.0.1.conv.wgrad"));
  const auto stem = conv_shape_of(op_named(g, "stem.conv.wgrad"));
  REQUIRE(data);
  REQUIRE(weights);
  REQUIRE(stem);
  CHECK(data->conv_pass == 1); // dX: per output pixel, the input channels from every filter's window
  CHECK(data->m == 2 * 56 * 56);
  CHECK(data->n == 64);
  CHECK(data->k == 64 * 9);
  CHECK(weights->conv_pass == 2); // dW: per filter, each input channel's window, over the pixels
  CHECK(weights->m == 64);
  CHECK(weights->n == 64 * 9);
  CHECK(weights->k == 2 * 56 * 56);
  CHECK(stem->m == 64);
  CHECK(stem->n == 3 * 49);
  CHECK(stem->k == 2 * 112 * 112);
  CHECK(stem->stride == 2);
  // Each is the forward pass's product, in another order.
  const auto forward = conv_shape_of(op_named(g, "layer1.0.1.conv"));
  REQUIRE(forward);
  CHECK(forward->conv_pass == 0);
  CHECK(data->m * data->n * data->k == forward->m * forward->n * forward->k);
  CHECK(weights->m * weights->n * weights->k == forward->m * forward->n * forward->k);
  // The wave model alone was fitted on GEMMs and missed DeepBench's gradients by 45-104 %: without trees for
  // them a gradient keeps the roofline, while the forward pass takes the wave model.
  const Platform p = a100_like();
  const CostModel wave(g, p, wave_calibration()), roofline(g, p);
  const auto id = [&](const char* name) { return *g.find_op(name); };
  CHECK(wave.op_time(id("layer1.0.1.conv.dgrad"), 0) == roofline.op_time(id("layer1.0.1.conv.dgrad"), 0));
  CHECK(wave.op_time(id("layer1.0.1.conv.wgrad"), 0) == roofline.op_time(id("layer1.0.1.conv.wgrad"), 0));
  CHECK(wave.op_time(id("layer1.0.1.conv"), 0) ==
        doctest::Approx(gemm_wave_time(*forward, wave_device(p.devices[0], "fp32"), no_launch()).seconds));
}

TEST_CASE("row_major_dims undoes blas_gemm: nn.Linear's TN call back to the product a graph op names") {
  // Y [512, 3072] = X [512, 768] W^T, W stored [3072, 768]: cuBLAS computes Y^T = W X^T, "TN", m = 3072.
  const GemmShape call = blas_gemm(512, 3072, 768, 2, 4, false, true);
  CHECK(call.m == 3072);
  CHECK(call.n == 512);
  CHECK(call.transposed_a);
  CHECK_FALSE(call.transposed_b);
  const std::map<std::string, double> dims = row_major_dims(call);
  CHECK(dims == std::map<std::string, double>{
                    {"batch", 2}, {"m", 512}, {"n", 3072}, {"k", 768}, {kTransposedA, 0}, {kTransposedB, 1}});
  const GemmShape again = blas_gemm(dims, 4);
  CHECK(again.m == call.m);
  CHECK(again.n == call.n);
  CHECK(again.k == call.k);
  CHECK(again.batch == call.batch);
  CHECK(again.transposed_a == call.transposed_a);
  CHECK(again.transposed_b == call.transposed_b);
  // A flag a graph leaves out is 0, a batch it leaves out 1.
  const GemmShape plain = blas_gemm(std::map<std::string, double>{{"m", 8}, {"n", 16}, {"k", 32}}, 2);
  CHECK(plain.batch == 1);
  CHECK_FALSE(plain.transposed_a);
  CHECK_FALSE(plain.transposed_b);
  CHECK(plain.m == 16);
}
