#pragma once
// Explain mode (`heterosim explain`, `run --explain`): how a list scheduler decided, for teaching. The
// recorder is a ScheduleObserver handed to the policy through PolicyContext, so the ranks, the candidate
// start and finish times and the choices are the ones the scheduling code computed, not a replay of its
// rules. The writers give a JSON document for tools (format "heterosim-explain", docs/policies.md) and an
// aligned table for a terminal.
#include "policies/policy.hpp"
#include "policies/schedule_observer.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs {

struct ExplainedCandidate {
  DeviceId device = -1;
  double ready = kInfeasible, start = kInfeasible, finish = kInfeasible, score = kInfeasible;
  std::string excluded; // why the device was not a candidate; empty for a candidate
};

struct ExplainedDecision {
  OpId op = -1;
  std::vector<ExplainedCandidate> candidates; // every device, in platform order
  DeviceId chosen = -1;
  double start = 0, finish = 0;
  std::vector<DeviceId> tied; // devices scoring exactly the chosen one's score, when more than one does
};

struct Explanation {
  bool contention = false;
  ListRules rules;
  std::string tie_rule;
  std::vector<double> rank; // per op
  std::vector<OpId> order;  // priority order
  std::vector<double> oct;  // [op * devices + device], PEFT only
  std::vector<ExplainedDecision> decisions;
  std::vector<std::string> notes;

  bool empty() const { return order.empty(); }
  double oct_of(OpId op, DeviceId d, int devices) const {
    return oct[static_cast<std::size_t>(op) * static_cast<std::size_t>(devices) +
               static_cast<std::size_t>(d)];
  }
  double makespan() const; // of the list schedule
};

class ExplainRecorder final : public ScheduleObserver {
public:
  void ranks(const ListRules& rules, const std::vector<double>& rank, const std::vector<OpId>& order,
             const std::vector<double>& oct) override;
  void list_schedule(bool contention, const std::string& tie_rule) override;
  void candidate(OpId op, DeviceId device, double ready, double start, double finish, double score) override;
  void excluded(OpId op, DeviceId device, const std::string& why) override;
  void chosen(OpId op, DeviceId device, double start, double finish) override;
  void note(const std::string& text) override;

  const Explanation& explanation() const { return e_; }

private:
  Explanation e_;
  ExplainedDecision pending_;
};

// The static policies that report to an observer (a test keeps this list equal to the ones that do).
const std::vector<std::string>& explainable_policies();

struct ExplainedPlan {
  Plan plan;
  Explanation explanation;
};
// Plans with `policy` (a known name) while recording; nullopt when it has nothing to explain (a run-time
// policy, or a static one that is not a list scheduler).
std::optional<ExplainedPlan> plan_with_explanation(const std::string& policy, const PolicyContext& ctx);
// Why `policy` has nothing to explain, naming the policies that do.
std::string nothing_to_explain(const std::string& policy);

struct ExplainLabels {
  std::string policy, platform, workload;
};
nlohmann::ordered_json explain_json(const Explanation& e, const CostModel& cost, const ExplainLabels& labels);
std::string explain_text(const Explanation& e, const CostModel& cost, const ExplainLabels& labels);

// The tie, in words, or "" when the choice was not a tie.
std::string tie_text(const Explanation& e, const ExplainedDecision& d, const Platform& p);

} // namespace hs
