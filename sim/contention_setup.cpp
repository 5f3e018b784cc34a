#include "sim/contention_engine.hpp"
#include "sim/host_issue.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

// The evaluator's tables: the platform's (built once), the bound graph's (on rebind), and the per-run state
// (reset before each run). The event loop is in sim/contention_engine.cpp.
namespace hs {

namespace {
// Mixes of flowing routes remembered across runs; a run adds at most two per transfer, and a few thousand
// cover a search on one platform. Beyond this the evaluator starts afresh (about 100 bytes each).
constexpr std::size_t kMaxSharingStates = 1 << 18;

std::vector<double> link_capacities(const Platform& p) {
  std::vector<double> c(2 * p.links.size(), 0.0);
  for (std::size_t l = 0; l < p.links.size(); ++l)
    c[2 * l] = c[2 * l + 1] = p.links[l].bandwidth;
  return c;
}
} // namespace

ContentionEvaluator::ContentionEvaluator(const CostModel& cost, const Scenario& scenario)
    : platform_(&cost.platform()), devices_(cost.platform().device_count()),
      sharing_(link_capacities(cost.platform())), noise_cv_(scenario.noise_cv),
      noise_seed_(scenario.noise_seed) {
  const auto n = static_cast<std::size_t>(devices_);
  route_slot_.assign(n * n, -1);
  rebind(cost);
  for (const Device& d : platform_->devices) {
    pstate_speed_.emplace_back();
    for (const auto& st : d.pstates)
      pstate_speed_.back().push_back(st.speed);
  }
  for (const auto& prof : scenario.devices)
    for (const auto& st : prof.steps)
      profile_events_.push_back({st.at, prof.index, -1, st.availability});
  for (const auto& prof : scenario.links)
    for (const auto& st : prof.steps) {
      profile_events_.push_back({st.at, -1, 2 * prof.index, st.availability});
      profile_events_.push_back({st.at, -1, 2 * prof.index + 1, st.availability});
    }
  std::stable_sort(profile_events_.begin(), profile_events_.end(),
                   [](const ProfileEvent& x, const ProfileEvent& y) { return x.at < y.at; });
  copy_queue_.resize(n);
  in_queue_.resize(n);
  pending_to_.assign(n, -1);
}

std::uint32_t ContentionEvaluator::add_route(std::size_t route) {
  std::int32_t& slot = route_slot_[route];
  slot = static_cast<std::int32_t>(route_latency_.size());
  const auto n = static_cast<std::size_t>(devices_), a = route / n, b = route % n;
  const Route* r = a != b ? platform_->route(static_cast<DeviceId>(a), static_cast<DeviceId>(b)) : nullptr;
  route_resources_.emplace_back(), route_links_.emplace_back();
  double rate = std::numeric_limits<double>::infinity();
  for (const auto& hop : r ? r->hops : std::vector<RouteHop>{}) {
    route_resources_.back().push_back(link_direction(*platform_, hop));
    route_links_.back().push_back(hop.link);
    rate = std::min(rate, platform_->links[static_cast<std::size_t>(hop.link)].bandwidth);
  }
  route_latency_.push_back(r ? r->latency : 0.0);
  route_weight_.push_back(r && r->latency > 0 ? 1.0 / r->latency : 1.0);
  route_alone_rate_.push_back(rate), route_rate_.push_back(0.0);
  return static_cast<std::uint32_t>(slot);
}

void ContentionEvaluator::rebind(const CostModel& cost) {
  if (&cost.platform() != platform_)
    throw std::invalid_argument("ContentionEvaluator::rebind: a cost model on another platform");
  own_graph_.assign(cost.graph());
  issue_costs_ = cost.issue_costs();
  static const std::vector<double> none; // a model with pins is asked op by op: its table is ops x devices
  bind_graph(own_graph_, cost.dense() ? cost.op_time_table() : none);
  if (!cost.dense()) pinned_cost_ = &cost;
}

void ContentionEvaluator::rebind(const FlatGraph& graph, const std::vector<double>& op_times) {
  if (op_times.size() != graph.op_count() * static_cast<std::size_t>(devices_))
    throw std::invalid_argument("ContentionEvaluator::rebind: op times do not match the graph and platform");
  bind_graph(graph, op_times);
}

void ContentionEvaluator::bind_graph(const FlatGraph& graph, const std::vector<double>& op_times) {
  graph_ = &graph;
  op_time_ = op_times.empty() ? nullptr : op_times.data();
  pinned_cost_ = nullptr;
  Scenario noise;
  noise.noise_cv = noise_cv_;
  noise.noise_seed = noise_seed_;
  time_factor_ = noise.op_time_factors(static_cast<int>(graph.op_count()));
}

// The plan's slots and placement tables, and what its placement fixes from the start: parameters are
// resident on their op's device all run long.
void ContentionEvaluator::bind_plan(const Plan& plan) {
  const FlatGraph& g = *graph_;
  const auto n = g.op_count();
  const auto nd = static_cast<std::size_t>(devices_);
  plan_ = &plan;
  stream_base_.assign(nd + 1, 0);
  slot_device_.clear();
  slot_queue_.clear();
  for (std::size_t d = 0; d < nd; ++d) {
    stream_base_[d] = slot_device_.size();
    for (const auto& queue : plan.queues[d]) {
      slot_device_.push_back(static_cast<DeviceId>(d));
      slot_queue_.push_back(&queue);
    }
  }
  stream_base_[nd] = slot_device_.size();
  slot_words_.resize(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const std::size_t lo = stream_base_[d], hi = stream_base_[d + 1];
    slot_words_[d] = lo == hi ? SlotWords{1, 0, 0, 0}
                              : SlotWords{lo >> 6, (hi - 1) >> 6, ~std::uint64_t{0} << (lo & 63),
                                          ~std::uint64_t{0} >> (63 - ((hi - 1) & 63))};
  }
  check_slots_.clear();
  for (std::size_t s = 0; s < slot_device_.size(); ++s)
    check_slots_.push_back(s);
  op_wait_.resize(n);
  live_.assign(nd, 0.0);
  for (std::size_t o = 0; o < n; ++o) {
    const auto d = static_cast<std::size_t>(plan.device[o]);
    op_wait_[o] = {static_cast<int>(g.input_count(o)),
                   static_cast<std::uint32_t>(stream_base_[d] + static_cast<std::size_t>(plan.stream[o]))};
    live_[d] += g.param_bytes(o);
  }
  result_.issued = host_issue_times(plan, issue_costs_, n); // the run records them, as the replay does
  issue_waits_.clear();
  const auto& consumers = g.all_consumers();
  consumer_device_.resize(consumers.size());
  for (std::size_t k = 0; k < consumers.size(); ++k)
    consumer_device_[k] = plan.device[static_cast<std::size_t>(consumers[k])];
  bind_optimizer_step(plan);
}

// A copy is held to the step's end where an update on its device reads it.
void ContentionEvaluator::bind_optimizer_step(const Plan& plan) {
  const FlatGraph& g = *graph_;
  const auto nd = static_cast<std::size_t>(devices_);
  step_ops_.assign(nd, 0);
  for (std::size_t o = 0; g.has_optimizer_ops() && o < g.op_count(); ++o)
    if (g.optimizer(o)) ++step_ops_[static_cast<std::size_t>(plan.device[o])];
  step_ops_left_ = step_ops_; // a run starts with none of them ended (reset binds the plan each run)
  held_.assign(nd, 0.0);
  held_entry_.clear();
  if (!g.has_optimizer_ops()) return;
  const auto& consumers = g.all_consumers();
  held_entry_.assign(consumers.size(), 0);
  for (std::size_t t = 0; t < g.tensor_count(); ++t) {
    const std::uint32_t begin = g.consumer_begin(t), end = g.consumer_begin(t + 1);
    for (std::uint32_t k = begin; k < end; ++k) {
      if (!g.optimizer(static_cast<std::size_t>(consumers[k]))) continue;
      for (std::uint32_t j = begin; j < end; ++j)
        if (consumer_device_[j] == consumer_device_[k]) held_entry_[j] = 1;
    }
  }
}

bool ContentionEvaluator::source_copy_held(std::size_t tensor, DeviceId from) const {
  if (held_entry_.empty()) return false;
  for (std::uint32_t k = graph_->consumer_begin(tensor); k < graph_->consumer_begin(tensor + 1); ++k)
    if (held_entry_[k] && consumer_device_[k] == from) return true;
  return false;
}

void ContentionEvaluator::reset(const Plan& plan) {
  const Platform& p = *platform_;
  const auto nd = static_cast<std::size_t>(devices_);
  constexpr double inf = std::numeric_limits<double>::infinity();
  bind_plan(plan);
  result_.engine = "evaluator";
  result_.makespan = 0.0;
  result_.ops.assign(graph_->op_count(), OpRun{});
  result_.transfers.clear();
  const std::size_t slots = slot_device_.size();
  cursor_.assign(slots, 0);
  running_op_.assign(slots, -1);
  running_bits_.assign(slots / 64 + 1, 0);
  remaining_.assign(slots, 0.0);
  slot_updated_.assign(slots, 0.0);
  slot_rate_.assign(slots, 0.0);
  slot_finish_.assign(slots, inf);
  device_next_.assign(nd, inf);
  flow_next_ = inf;
  active_on_device_.assign(nd, 0);
  reshare_devices_.clear();
  reshare_mark_.assign(nd, 0);
  device_availability_.assign(nd, 1.0);
  resource_availability_.assign(2 * p.links.size(), 1.0);
  links_off_nominal_ = 0;
  sharing_states_.bound(kMaxSharingStates);
  mix_state_ = SharingStates::kIdle;
  transfers_.clear();
  out_free_.resize(nd);
  in_free_.resize(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    copy_queue_[d].clear();
    in_queue_[d].clear();
    out_free_[d] = in_free_[d] = p.devices[d].copy_engines;
  }
  for (auto* head : {&copy_queue_head_, &in_queue_head_})
    head->assign(nd, 0);
  copy_ready_.clear();
  freed_.clear();
  grown_.clear();
  copy_ready_mark_.assign(nd, 0);
  flowing_on_.assign(2 * p.links.size(), 0);
  flows_.clear();
  timed_.clear();
  ops_left_ = graph_->op_count();
  profile_next_ = 0;
  rates_dirty_ = false;
  for (auto* v : {&busy_seconds_, &busy_since_, &pstate_extra_})
    v->assign(nd, 0.0);
  link_bytes_.assign(p.links.size(), 0.0);
  peak_ = live_;
  grew_.assign(nd, 0);
  // At most one transfer per consumer entry, each with at least one waiter.
  const std::size_t entries = graph_->all_consumers().size();
  uses_.assign(graph_->tensor_count() + entries, 0);
  use_of_.resize(entries);
  waiters_.resize(entries);
  waiters_end_ = 0;
}

} // namespace hs
