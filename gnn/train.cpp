#include "gnn/train.hpp"

#include "gnn/checkpoint.hpp"
#include "gnn/proposal.hpp"
#include "policies/heft.hpp"
#include "sim/contention_engine.hpp"
#include "sim/error.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>

namespace hs::gnn {
namespace {

// One (graph, platform) of the corpus, with what the training keeps about it.
struct Instance {
  std::unique_ptr<Graph> graph;
  std::unique_ptr<Platform> platform;
  std::unique_ptr<CostModel> cost;
  std::unique_ptr<ContentionEvaluator> evaluator;
  FeatureTensors x;
  double heft = 1.0;
  Proposal best;
  double best_makespan = 0.0;
};

double proposal_makespan(Instance& in, const Proposal& p) {
  return in.evaluator->makespan(plan_for_proposal(*in.cost, p, "gnn-train", false));
}

std::vector<Instance> make_corpus(const TrainOptions& o) {
  std::vector<Instance> corpus;
  for (const auto& platform : o.platforms)
    for (const auto& workload : o.workloads) {
      Instance in;
      in.graph = std::make_unique<Graph>(load_workload(workload, o.seed));
      in.platform = std::make_unique<Platform>(load_platform(platform));
      in.cost = std::make_unique<CostModel>(*in.graph, *in.platform);
      in.evaluator = std::make_unique<ContentionEvaluator>(*in.cost);
      in.x = to_tensors(graph_features(*in.cost));
      const Plan heft = heft_plan(*in.cost, true, "heft");
      in.heft = std::max(1e-30, in.evaluator->makespan(heft));
      in.best.device = heft.device;
      in.best.priority.assign(heft.device.size(), 0.0);
      in.best_makespan = proposal_makespan(in, in.best);
      corpus.push_back(std::move(in));
    }
  return corpus;
}

// Samples one device per op from the softmax of `logits` and a priority around `mu`.
Proposal sample_proposal(const torch::Tensor& probs, const torch::Tensor& mu, double sigma,
                         std::mt19937_64& rng) {
  const long n = probs.size(0), d = probs.size(1);
  const auto* p = probs.data_ptr<double>();
  const auto* m = mu.data_ptr<double>();
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  Proposal s;
  for (long i = 0; i < n; ++i) {
    double u = uniform(rng), acc = 0.0;
    DeviceId pick = static_cast<DeviceId>(d - 1);
    for (long j = 0; j < d; ++j) {
      acc += p[i * d + j];
      if (u < acc) {
        pick = static_cast<DeviceId>(j);
        break;
      }
    }
    while (pick > 0 && p[i * d + pick] <= 0.0)
      --pick; // rounding past the last feasible device
    s.device.push_back(pick);
    s.priority.push_back(std::clamp(m[i] + sigma * normal(rng), -0.95, 0.95));
  }
  return s;
}

struct Scored {
  double makespan;
  Proposal proposal;
};

// The cross-entropy loss of `out` against the elite proposals, plus their priorities' squared error.
torch::Tensor elite_loss(const NetOutput& out, const std::vector<Scored>& elite) {
  const auto logp = torch::log_softmax(out.logits, 1);
  torch::Tensor loss = torch::zeros({});
  for (const Scored& e : elite) {
    std::vector<int64_t> dev(e.proposal.device.begin(), e.proposal.device.end());
    const auto target = torch::tensor(dev, torch::kInt64);
    const auto prio = torch::tensor(e.proposal.priority, torch::kFloat64).to(torch::kFloat32);
    loss = loss + torch::nll_loss(logp, target) + (out.priority - prio).pow(2).mean();
  }
  return loss / static_cast<double>(elite.size());
}

// One instance's samples and loss for this iteration; updates its best plan.
torch::Tensor instance_step(Instance& in, PlacementNet& net, const TrainOptions& o, std::mt19937_64& rng,
                            TrainIteration& it) {
  const NetOutput out = net->forward(in.x);
  const auto probs = torch::softmax(out.logits.detach(), 1).to(torch::kFloat64).contiguous();
  const auto mu = out.priority.detach().to(torch::kFloat64).contiguous();
  std::vector<Scored> scored;
  for (int s = 0; s < o.samples; ++s) {
    Proposal p = sample_proposal(probs, mu, o.priority_sigma, rng);
    const double m = proposal_makespan(in, p);
    it.mean_ratio += m / in.heft;
    scored.push_back({m, std::move(p)});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.makespan < b.makespan; });
  if (scored.front().makespan < in.best_makespan) {
    in.best = scored.front().proposal;
    in.best_makespan = scored.front().makespan;
  }
  const auto keep = static_cast<std::size_t>(std::max(1.0, o.elite_fraction * o.samples));
  scored.resize(std::min(keep, scored.size()));
  scored.push_back({in.best_makespan, in.best});
  it.best_ratio += in.best_makespan / in.heft;
  return elite_loss(out, scored);
}

} // namespace

std::vector<TrainIteration> train(const TrainOptions& o, PlacementNet& net) {
  make_deterministic(o.seed);
  if (!net)
    net = PlacementNet(
        NetShape{op_feature_count(), pair_feature_count(), edge_feature_count(), o.hidden, o.layers});
  net->train();
  auto corpus = make_corpus(o);
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(o.learning_rate));
  std::mt19937_64 rng(o.seed);
  std::vector<TrainIteration> history;
  for (int iteration = 0; iteration < o.iterations; ++iteration) {
    TrainIteration it;
    optimizer.zero_grad();
    torch::Tensor loss = torch::zeros({});
    for (Instance& in : corpus)
      loss = loss + instance_step(in, net, o, rng, it);
    loss = loss / static_cast<double>(corpus.size());
    loss.backward();
    optimizer.step();
    it.loss = loss.item<double>();
    it.mean_ratio /= static_cast<double>(corpus.size()) * o.samples;
    it.best_ratio /= static_cast<double>(corpus.size());
    history.push_back(it);
  }
  net->eval();
  return history;
}

std::vector<TrainIteration> train_to_file(const TrainOptions& options, const std::string& out,
                                          const std::string& command) {
  // Checked before the training, which takes minutes, rather than after it.
  if (!std::ofstream(out + ".command"))
    throw InputError(out, "", "cannot write the checkpoint here (does its directory exist?)");
  PlacementNet net{nullptr};
  auto history = train(options, net);
  save_checkpoint(out, net, command);
  std::ofstream(out + ".command") << command << "\n";
  return history;
}

std::string training_csv(const std::vector<TrainIteration>& history) {
  std::string csv = "iteration,loss,mean_sampled_over_heft,best_over_heft\n";
  char row[128];
  for (std::size_t i = 0; i < history.size(); ++i) {
    std::snprintf(row, sizeof row, "%zu,%.6f,%.6f,%.6f\n", i, history[i].loss, history[i].mean_ratio,
                  history[i].best_ratio);
    csv.append(row);
  }
  return csv;
}

} // namespace hs::gnn
