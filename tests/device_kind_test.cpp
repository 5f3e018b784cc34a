// `device=`: a framework program moved to one device runs every op there, whatever a policy would pick.
#include "cli_support.hpp"
#include "policies/policy.hpp"
#include "test_support.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <doctest/doctest.h>

using namespace hs;

namespace {
std::size_t ops_on(const Plan& plan, DeviceId d) {
  return static_cast<std::size_t>(std::count(plan.device.begin(), plan.device.end(), d));
}
} // namespace

TEST_CASE("device=gpu keeps every op on a GPU, implementation=huggingface implies it, device=any frees it") {
  const Graph hf = load_workload("bert-large:implementation=huggingface");
  CHECK(std::all_of(hf.ops.begin(), hf.ops.end(),
                    [](const Op& op) { return op.allowed_kinds == std::vector<std::string>{"gpu"}; }));
  const Graph any = load_workload("bert-large:implementation=huggingface,device=any");
  CHECK(std::all_of(any.ops.begin(), any.ops.end(), [](const Op& op) { return op.allowed_kinds.empty(); }));
  CHECK(std::all_of(any.ops.begin(), any.ops.end(), [](const Op& op) { return op.host_issue > 0; }));

  // On a one-GPU server HEFT sends some of BERT-large's ops to the host CPU when it may; the Hugging Face
  // program runs them all on the GPU.
  const Platform p = load_platform("l4-server");
  const DeviceId gpu = *p.find_device("gpu0"), cpu = *p.find_device("cpu0");
  const CostModel free_cost(any, p), pinned_cost(hf, p);
  const Plan free = policy_by_name("heft").plan({free_cost, 1});
  const Plan pinned = policy_by_name("heft").plan({pinned_cost, 1});
  CHECK(ops_on(free, cpu) > 0);
  CHECK(ops_on(pinned, gpu) == hf.ops.size());
}

TEST_CASE("device= names a kind the platform lacks: the run fails naming an op and the kind") {
  CHECK(load_workload("resnet18:device=cpu").ops.front().allowed_kinds == std::vector<std::string>{"cpu"});
  CHECK_THROWS_WITH_AS(load_workload("resnet18:device=tpu"), doctest::Contains("device"), InputError);
  const auto dir = test::scratch_dir("device-kind", "npu");
  const auto r = test::heterosim("run --platform workstation --workload bert-base:device=npu --out " +
                                 (dir / "o").string());
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("no device can run op 'input_ids'") != std::string::npos);
  CHECK(r.output.find("may not run on a gpu") != std::string::npos);
}
