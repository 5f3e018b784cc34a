#include "policies/explain.hpp"

#include "sim/nearest_name.hpp"

#include <algorithm>
#include <cstdio>

namespace hs {

double Explanation::makespan() const {
  double end = 0;
  for (const auto& d : decisions)
    end = std::max(end, d.finish);
  return end;
}

void ExplainRecorder::ranks(const ListRules& rules, const std::vector<double>& rank,
                            const std::vector<OpId>& order, const std::vector<double>& oct) {
  e_ = Explanation{};
  e_.rules = rules;
  e_.rank = rank;
  e_.order = order;
  e_.oct = oct;
}

void ExplainRecorder::list_schedule(bool contention, const std::string& tie_rule) {
  e_.contention = contention;
  e_.tie_rule = tie_rule;
}

void ExplainRecorder::candidate(OpId op, DeviceId device, double ready, double start, double finish,
                                double score) {
  pending_.op = op;
  const bool ruled_out = score == kInfeasible && finish != kInfeasible;
  pending_.candidates.push_back(
      {device, ready, start, finish, score, ruled_out ? e_.rules.excluded_by_rule : ""});
}

void ExplainRecorder::excluded(OpId op, DeviceId device, const std::string& why) {
  pending_.op = op;
  ExplainedCandidate c;
  c.device = device;
  c.excluded = why.empty() ? "not a candidate" : why;
  pending_.candidates.push_back(std::move(c));
}

void ExplainRecorder::chosen(OpId op, DeviceId device, double start, double finish) {
  pending_.op = op;
  pending_.chosen = device;
  pending_.start = start;
  pending_.finish = finish;
  const auto& c = pending_.candidates;
  const auto mine = std::find_if(c.begin(), c.end(), [&](const auto& x) { return x.device == device; });
  if (mine != c.end())
    for (const auto& x : c)
      if (x.score == mine->score) pending_.tied.push_back(x.device);
  if (pending_.tied.size() < 2) pending_.tied.clear();
  e_.decisions.push_back(std::move(pending_));
  pending_ = ExplainedDecision{};
}

void ExplainRecorder::note(const std::string& text) {
  e_.notes.push_back(text);
}

const std::vector<std::string>& explainable_policies() {
  static const std::vector<std::string> names = {
      "expert-grouping",      "heft", "heft-classic", "memory-aware",
      "memory-aware-classic", "peft", "peft-classic"};
  return names;
}

std::optional<ExplainedPlan> plan_with_explanation(const std::string& policy, const PolicyContext& ctx) {
  const Policy* p = policy_registry().find(policy);
  if (!p || !p->plans_ahead()) return std::nullopt; // a run-time policy decides during the replay
  ExplainRecorder recorder;
  PolicyContext observed = ctx;
  observed.observer = &recorder;
  Plan plan = p->plan(observed);
  if (recorder.explanation().empty()) return std::nullopt;
  return ExplainedPlan{std::move(plan), recorder.explanation()};
}

std::string nothing_to_explain(const std::string& policy) {
  const Policy* p = policy_registry().find(policy);
  const std::string why =
      p && p->plans_ahead()
          ? "is not a list scheduler that records its ranks and decisions"
          : "decides at run time, inside the replay, so there is no list schedule to explain";
  return "policy '" + policy + "' " + why + " (explainable: " + name_list(explainable_policies()) + ")";
}

namespace {

std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

const std::string& device_name(const Platform& p, DeviceId d) {
  return p.devices[static_cast<std::size_t>(d)].name;
}

// A finite number, or null where the scheduler found no way (kInfeasible).
nlohmann::ordered_json time_or_null(double x) {
  return x == kInfeasible ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(x);
}

nlohmann::ordered_json rank_rows(const Explanation& e, const CostModel& cost) {
  const Platform& p = cost.platform();
  auto rows = nlohmann::ordered_json::array();
  for (OpId o : e.order) {
    nlohmann::ordered_json row;
    row["op"] = cost.graph().op(o).name;
    row["rank"] = e.rank[static_cast<std::size_t>(o)];
    row["mean_cost"] = time_or_null(cost.mean_op_time(o));
    if (!e.oct.empty()) {
      nlohmann::ordered_json oct = nlohmann::ordered_json::object();
      for (DeviceId d = 0; d < p.device_count(); ++d)
        oct[device_name(p, d)] = e.oct_of(o, d, p.device_count());
      row["oct"] = std::move(oct);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::ordered_json candidate_json(const Explanation& e, OpId op, const ExplainedCandidate& c,
                                      const CostModel& cost) {
  const bool peft = !e.oct.empty();
  nlohmann::ordered_json j;
  j["device"] = device_name(cost.platform(), c.device);
  j["start"] = time_or_null(c.start);
  j["finish"] = time_or_null(c.finish);
  j["o_eft"] = peft ? time_or_null(c.score) : nlohmann::ordered_json(nullptr);
  j["ready"] = time_or_null(c.ready);
  if (peft) j["oct"] = e.oct_of(op, c.device, cost.platform().device_count());
  if (!c.excluded.empty()) j["excluded"] = c.excluded;
  return j;
}

} // namespace

std::string tie_text(const Explanation& e, const ExplainedDecision& d, const Platform& p) {
  if (d.tied.empty()) return "";
  std::string names;
  for (std::size_t i = 0; i < d.tied.size(); ++i)
    names += (i == 0 ? "" : i + 1 == d.tied.size() ? " and " : ", ") + device_name(p, d.tied[i]);
  const auto c = std::find_if(d.candidates.begin(), d.candidates.end(),
                              [&](const ExplainedCandidate& x) { return x.device == d.chosen; });
  return names + " tie at " + e.rules.score_name + " " + short_number(c->score) + "; " +
         device_name(p, d.chosen) + " is kept (" + e.tie_rule + ")";
}

nlohmann::ordered_json explain_json(const Explanation& e, const CostModel& cost,
                                    const ExplainLabels& labels) {
  const Platform& p = cost.platform();
  nlohmann::ordered_json j;
  j["format"] = "heterosim-explain";
  j["version"] = 1;
  j["policy"] = labels.policy;
  j["form"] = e.contention ? "contention-aware" : "classic";
  j["platform"] = labels.platform;
  j["workload"] = labels.workload;
  j["time_unit"] = "s";
  j["rank_name"] = e.rules.rank_name;
  j["rank_formula"] = e.rules.rank_formula;
  j["order_rule"] = e.rules.order_rule;
  j["tie_rule"] = e.tie_rule;
  j["devices"] = nlohmann::ordered_json::array();
  for (const auto& d : p.devices)
    j["devices"].push_back(d.name);
  j["ranks"] = rank_rows(e, cost);
  auto decisions = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < e.decisions.size(); ++i) {
    const auto& d = e.decisions[i];
    nlohmann::ordered_json row;
    row["step"] = i + 1;
    row["op"] = cost.graph().op(d.op).name;
    row["candidates"] = nlohmann::ordered_json::array();
    for (const auto& c : d.candidates)
      row["candidates"].push_back(candidate_json(e, d.op, c, cost));
    row["chosen"] = device_name(p, d.chosen);
    row["start"] = d.start;
    row["finish"] = d.finish;
    row["rule"] = e.rules.choice_rule;
    const std::string tie = tie_text(e, d, p);
    row["tie"] = tie.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(tie);
    decisions.push_back(std::move(row));
  }
  j["decisions"] = std::move(decisions);
  j["makespan"] = e.makespan();
  j["notes"] = e.notes;
  return j;
}

} // namespace hs
