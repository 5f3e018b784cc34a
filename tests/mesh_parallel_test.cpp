// Data x tensor x pipeline parallelism as Megatron-LM composes them (Narayanan et al., SC 2021): FLOPs kept
// exactly, each stage's all-reduces among its own tensor-parallel ranks, the pipeline bubble
// (p-1)/(m+p-1) with tensor parallelism inside the stages, and every replica's weights updated from the
// gradients of every replica and micro-batch.
#include "parallel_support.hpp"
#include "policies/policy.hpp"
#include "sim/cost_model.hpp"
#include "sim/graph_builder.hpp"
#include "sim/simgrid_engine.hpp"
#include "workloads/layer_roles.hpp"
#include "workloads/mesh_parallel.hpp"
#include "workloads/tensor_parallel.hpp"
#include "workloads/workload_registry.hpp"

#include <doctest/doctest.h>
#include <map>
#include <set>

using namespace hs;
using hs::test::gpus;
using hs::test::pinned_plan;

namespace {

// dp=2 x tp=2 x pp=2 over the 8 GPUs, `m` micro-batches.
Graph two_by_two_by_two(const Graph& step, int m) {
  MeshOptions mesh;
  mesh.devices = gpus(8);
  mesh.data = 2;
  mesh.tensor = 2;
  mesh.pipeline = 2;
  mesh.pipeline_options.microbatches = m;
  return mesh_parallel(step, mesh);
}

std::string block(int i, const char* op) {
  std::string name = "b";
  return name.append(std::to_string(i)).append(op); // append: GCC 12's -Wrestrict misfires on +
}

// `blocks` equal MLP blocks that Megatron splits: fc1 (columns) and fc2 (rows) of F FLOPs forward and 2F
// backward each, then a replicated residual that reads fc2's partial sums (an all-reduce forward, and one
// backward where the previous block's residual reads fc1's data gradient). The FLOPs are whole numbers so
// that the stage cuts fall exactly between blocks.
Graph mlp_blocks(int blocks) {
  GraphBuilder b("mlp");
  const double f = 1e11, act = 1e6;
  OpId previous = -1, previous_bwd = -1;
  for (int i = 0; i < blocks; ++i) {
    auto fc1 = b.op(block(i, ".mlp.fc1")).kind("gemm").flops(f);
    auto fc2 = b.op(block(i, ".mlp.fc2")).kind("gemm").flops(f);
    auto res = b.op(block(i, ".residual")).kind("elementwise").flops(1e9);
    auto res_bwd = b.op(block(i, ".residual.bwd")).kind("elementwise").flops(1e9);
    auto fc2_bwd = b.op(block(i, ".mlp.fc2.dgrad")).kind("gemm").flops(2 * f);
    auto fc1_bwd = b.op(block(i, ".mlp.fc1.dgrad")).kind("gemm").flops(2 * f);
    if (previous >= 0) b.tensor(block(i, ".in"), act, previous, {fc1.id()});
    fc1.feeds(fc2, act);
    fc2.feeds(res, act);
    fc1.feeds(fc1_bwd, act); // saved activations
    fc2.feeds(fc2_bwd, act);
    res_bwd.feeds(fc2_bwd, act);
    fc2_bwd.feeds(fc1_bwd, act);
    if (previous_bwd >= 0) b.tensor(block(i, ".grad_out"), act, fc1_bwd.id(), {previous_bwd});
    previous = res.id();
    previous_bwd = res_bwd.id();
  }
  b.tensor("loss", act, previous, {previous_bwd}); // the backward pass starts where the forward ends
  return std::move(b).build();
}

// "r1/m0/t1/name" from its parts; append, because GCC 12's -Wrestrict misfires on +.
std::string joined(std::initializer_list<std::string> parts) {
  std::string out;
  for (const auto& part : parts)
    out.append(out.empty() ? "" : "/").append(part);
  return out;
}

double makespan(const Graph& g) {
  const CostModel cost(g, test::gpu_node());
  return run_simgrid(pinned_plan(g, test::gpu_node(), false), cost).makespan;
}

double compute_flops(const Graph& g, bool optimizer) {
  double sum = 0;
  for (const auto& op : g.ops)
    if (op.kind != "collective" && op.kind != "barrier" && (op.kind == "optimizer") == optimizer)
      sum += op.flops;
  return sum;
}

// The all-reduces of a graph by instance ("m0/allreduce.<reader>"), each with the devices of its steps.
std::map<std::string, std::set<std::string>> tensor_all_reduces(const Graph& g) {
  std::map<std::string, std::set<std::string>> devices;
  for (const auto& op : g.ops)
    if (op.kind == "collective" && op.name.find("allreduce.") != std::string::npos) {
      const std::string without_rank = op.name.substr(0, op.name.rfind('.'));
      devices[without_rank.substr(0, without_rank.rfind('.'))].insert(op.allowed_devices.at(0));
    }
  return devices;
}

} // namespace

TEST_CASE("tensor x pipeline parallelism keeps every FLOP: m micro-batches of Megatron's splits") {
  const Graph step = load_workload("bert-base:mode=training,heads=fused,batch=1,seq=32");
  const int t = 2, m = 3;
  const Graph tp = tensor_parallel(step, {gpus(t)});
  const Graph both = tensor_pipeline_parallel(step, t, {gpus(8), m});
  CHECK(compute_flops(both, false) == doctest::Approx(m * compute_flops(tp, false)).epsilon(1e-12));
  CHECK(compute_flops(both, true) == doctest::Approx(compute_flops(tp, true)).epsilon(1e-12)); // one update
  const Graph all = two_by_two_by_two(step, m);
  const Graph replica = tensor_pipeline_parallel(step, t, {gpus(4), m});
  CHECK(compute_flops(all, false) == doctest::Approx(2 * compute_flops(replica, false)).epsilon(1e-12));
  CHECK(compute_flops(all, true) == doctest::Approx(2 * compute_flops(replica, true)).epsilon(1e-12));
}

TEST_CASE("each stage's tensor-parallel all-reduces run among that stage's ranks, as Megatron maps them") {
  const Graph step = load_workload("bert-base:mode=training,heads=fused,batch=1,seq=32");
  const int m = 2;
  const Graph g = tensor_pipeline_parallel(step, 2, {gpus(8), m}); // 4 stages of 2 consecutive GPUs
  const auto reduces = tensor_all_reduces(g);
  CHECK(reduces.size() == static_cast<std::size_t>(m * 4 * 12)); // 2 forward, 2 backward per layer
  std::set<std::set<std::string>> groups;
  for (const auto& [name, devices] : reduces)
    groups.insert(devices);
  CHECK(groups == std::set<std::set<std::string>>{
                      {"gpu0", "gpu1"}, {"gpu2", "gpu3"}, {"gpu4", "gpu5"}, {"gpu6", "gpu7"}});
  // The ring's chunks never leave the group: every transfer between two of its steps is inside one.
  for (const auto& x : g.tensors) {
    const Op& from = g.op(x.producer);
    if (from.kind != "collective") continue;
    for (OpId c : x.consumers)
      if (g.op(c).kind == "collective") {
        const int a = from.allowed_devices[0].back() - '0', b = g.op(c).allowed_devices[0].back() - '0';
        CHECK(a / 2 == b / 2);
      }
  }
  // The whole mesh: tensor ranks innermost, stages next, replicas outermost.
  const Graph all = two_by_two_by_two(step, m);
  std::map<std::string, std::set<std::string>> data_groups; // gradient all-reduces: "allreduce<q>.*"
  for (const auto& op : all.ops)
    if (op.name.rfind("allreduce", 0) == 0 && op.name.size() > 9 && std::isdigit(op.name[9]))
      data_groups[op.name.substr(0, op.name.find('.'))].insert(op.allowed_devices.at(0));
  std::set<std::set<std::string>> dp;
  for (const auto& [name, devices] : data_groups)
    dp.insert(devices);
  CHECK(dp == std::set<std::set<std::string>>{
                  {"gpu0", "gpu4"}, {"gpu1", "gpu5"}, {"gpu2", "gpu6"}, {"gpu3", "gpu7"}});
  const auto device_of = [&](const std::string& name) {
    for (const auto& op : all.ops)
      if (op.name == name) return op.allowed_devices.at(0);
    return std::string("none");
  };
  const std::string first = step.op(step.topological_order().front()).name;
  CHECK(device_of(joined({"r0", "m0", "t1", first})) == "gpu1");
  CHECK(device_of(joined({"r1", "m0", "t0", first})) == "gpu4");
  std::string last; // the step's last forward op (the loss): on the last stage
  const OpRoles roles = roles_of(step);
  for (OpId o : step.topological_order())
    if (roles.pass[static_cast<std::size_t>(o)] == Pass::Forward) last = step.op(o).name;
  CHECK(device_of(joined({"r1", "m1", "t1", last})) == "gpu7");
}

TEST_CASE("a pipeline of tensor-parallel stages still idles (p-1)/(m+p-1) of the step") {
  const int p = 4, t = 2;
  const Graph g = mlp_blocks(p);
  // One micro-batch crosses the p stages forward and back: p stage times, all-reduces included.
  const double stage = makespan(tensor_pipeline_parallel(g, t, {gpus(p * t), 1})) / p;
  for (auto schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneForwardOneBackward})
    for (int m : {4, 8}) {
      const double step = makespan(tensor_pipeline_parallel(g, t, {gpus(p * t), m, schedule}));
      CAPTURE(m);
      CHECK(1 - m * stage / step == doctest::Approx((p - 1.0) / (m + p - 1.0)).epsilon(0.02));
    }
  // Interleaved, 2 chunks per device (Narayanan et al. 2021, section 2.2.2): the bubble shrinks to
  // (p-1)/(v m + p-1).
  const Graph chunks = mlp_blocks(2 * p);
  const double per_stage = makespan(tensor_pipeline_parallel(chunks, t, {gpus(p * t), 1})) / p;
  const int m = 8, v = 2;
  PipelineOptions o{gpus(p * t), m};
  o.interleave = v;
  const double step = makespan(tensor_pipeline_parallel(chunks, t, o));
  CHECK(1 - m * per_stage / step == doctest::Approx((p - 1.0) / (v * m + p - 1.0)).epsilon(0.02));
}

TEST_CASE("every replica's weights receive the gradient all-reduced over every replica and micro-batch") {
  const Graph step = load_workload("bert-base:mode=training,heads=fused,batch=1,seq=32");
  const int d = 2, m = 2;
  MeshOptions mesh;
  mesh.devices = gpus(8);
  mesh.data = d;
  mesh.tensor = 2;
  mesh.pipeline = 2;
  mesh.pipeline_options.microbatches = m;
  const Graph all = mesh_parallel(step, mesh);
  std::map<std::string, OpId> by_name;
  for (OpId o = 0; o < all.op_count(); ++o)
    by_name.emplace(all.op(o).name, o);
  int checked = 0;
  for (OpId x = 0; x < step.op_count(); ++x) {
    if (step.op(x).kind != "optimizer") continue;
    for (int r = 0; r < d; ++r)
      for (int rank = 0; rank < 2; ++rank) {
        const std::string tp = joined({"t"}).append(std::to_string(rank));
        const OpId update =
            by_name.at(joined({joined({"r"}).append(std::to_string(r)), tp, step.op(x).name}));
        // It reads the data-parallel all-reduce, and its ancestors hold every contribution to the gradient.
        bool reads_all_reduce = false;
        for (TensorId in : all.op(update).inputs)
          reads_all_reduce |= all.op(all.tensor(in).producer).name.rfind("allreduce", 0) == 0;
        CHECK(reads_all_reduce);
        std::vector<bool> seen(static_cast<std::size_t>(all.op_count()));
        std::vector<OpId> todo{update};
        while (!todo.empty()) {
          const OpId y = todo.back();
          todo.pop_back();
          for (OpId z : all.predecessors(y))
            if (!seen[static_cast<std::size_t>(z)]) {
              seen[static_cast<std::size_t>(z)] = true;
              todo.push_back(z);
            }
        }
        for (OpId grad : step.predecessors(x))
          for (int j = 0; j < d; ++j)
            for (int k = 0; k < m; ++k) {
              const std::string name =
                  joined({joined({"r"}).append(std::to_string(j)), joined({"m"}).append(std::to_string(k)),
                          tp, step.op(grad).name});
              CAPTURE(name);
              CHECK(seen[static_cast<std::size_t>(by_name.at(name))]);
            }
        ++checked;
      }
  }
  CHECK(checked > 100);
}

TEST_CASE("tensor x pipeline parallelism refuses what it cannot build, saying why") {
  const Graph step = load_workload("bert-base:mode=training,heads=fused,batch=1,seq=32");
  CHECK_THROWS_WITH(tensor_pipeline_parallel(step, 2, {gpus(4), 0}),
                    doctest::Contains("at least 1 micro-batch"));
  CHECK_THROWS_WITH(tensor_pipeline_parallel(step, 2, {gpus(5), 2}), doctest::Contains("not a whole number"));
  CHECK_THROWS_WITH(tensor_pipeline_parallel(mlp_blocks(1), 2, {gpus(8), 2}),
                    doctest::Contains("needs at least 4 layers"));
  CHECK_THROWS_WITH(tensor_pipeline_parallel(load_workload("bert-base:heads=fused,seq=32"), 2, {gpus(4), 2}),
                    doctest::Contains("no backward pass"));
  PipelineOptions chunks{gpus(8), 4};
  chunks.interleave = 2;
  CHECK_THROWS_WITH(
      tensor_pipeline_parallel(mlp_blocks(2), 2, chunks),
      doctest::Contains("a pipeline of 4 stages x 2 chunks needs at least 8 layers (6 forward ops)"));
  PipelineOptions odd{gpus(4), 3};
  odd.interleave = 2;
  CHECK_THROWS_WITH(tensor_pipeline_parallel(step, 2, odd), doctest::Contains("multiple of the stages"));
  MeshOptions mesh;
  mesh.devices = gpus(6);
  mesh.data = 2;
  mesh.tensor = 2;
  mesh.pipeline = 2;
  CHECK_THROWS_WITH(mesh_parallel(step, mesh), doctest::Contains("needs 8 devices (got 6)"));
}

TEST_CASE("wherever the stage cuts fall, even between a layer's Q and K, the schedule has no cycle") {
  // A cut inside an attention block leaves one all-reduce with partial sums from two chunks: it must run
  // where they are read (the chunk that runs last), or the two stages' barriers wait for each other.
  const Graph step = load_workload("bert-large:mode=training,heads=fused,batch=1,seq=32");
  for (int p : {2, 3, 4})
    for (int v : {1, 2, 3}) {
      PipelineOptions o{gpus(2 * p), 2 * p};
      o.interleave = v;
      CAPTURE(p);
      CAPTURE(v);
      CHECK_NOTHROW(tensor_pipeline_parallel(step, 2, o));
    }
}

TEST_CASE("a mesh of one device pins the step to it, so a policy cannot place it elsewhere") {
  // `--parallel dp=1,devices=gpu0`: on l4-server fastest-device would otherwise take the host CPU for
  // BERT-large at batch 1 (its datasheet figures beat the L4's there); the mesh says the GPU.
  GraphBuilder b("step");
  b.op("free").flops(1e6);
  b.op("placed").flops(1e6).pinned_to({"cpu0"});
  MeshOptions one;
  one.devices = {"gpu1"};
  const Graph g = mesh_parallel(std::move(b).build(), one);
  CHECK(g.op(0).allowed_devices == std::vector<std::string>{"gpu1"});
  CHECK(g.op(1).allowed_devices == std::vector<std::string>{"cpu0"}); // a pin already made stays
  const Platform l4 = load_platform("l4-server");
  const Graph bert = load_workload("bert-large:implementation=huggingface");
  one.devices = {"gpu0"};
  const Graph pinned = mesh_parallel(bert, one);
  const CostModel cost(pinned, l4);
  const Plan plan = policy_by_name("fastest-device").plan({cost, 0});
  for (OpId o = 0; o < pinned.op_count(); ++o)
    CHECK(l4.devices[static_cast<std::size_t>(plan.device[static_cast<std::size_t>(o)])].name == "gpu0");
}
