// The terminal form of an explanation: the rank table and the decisions as aligned columns, times in the
// unit that suits the schedule's length (the JSON form keeps seconds).
#include "policies/explain.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace hs {
namespace {

struct TimeUnit {
  double per_second;
  const char* name;
};

TimeUnit unit_for(double makespan) {
  if (makespan == 0 || makespan >= 1) return {1, "s"};
  if (makespan >= 1e-3) return {1e3, "ms"};
  return {1e6, "us"};
}

std::string fixed(double x, const TimeUnit& u) {
  if (x == kInfeasible) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", x * u.per_second);
  return buf;
}

// Rows of cells, each column aligned to the left where `left[column]` (names) and to the right otherwise
// (numbers).
std::string aligned(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& left) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(width[c] - r[c].size(), ' ');
      line += "  " + (c < left.size() && left[c] ? r[c] + pad : pad + r[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

// Prose folded at spaces to lines of at most 100 characters, each starting with `indent`.
std::string wrapped(const std::string& text, const std::string& indent) {
  constexpr std::size_t kWidth = 100;
  std::string out, line = indent;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (line.size() > indent.size() && line.size() + 1 + w.size() > kWidth) {
      out += line + "\n";
      line = indent + "  "; // continuation lines indented a little more
    } else if (line.size() > indent.size() && line.back() != ' ') {
      line += ' ';
    }
    line += w;
  }
  return out + line + "\n";
}

std::string rank_table(const Explanation& e, const CostModel& cost, const TimeUnit& u) {
  const Platform& p = cost.platform();
  const int devices = p.device_count();
  std::vector<std::string> head = {"#", "op", "w-bar"};
  if (!e.oct.empty())
    for (const auto& d : p.devices)
      head.push_back("OCT(" + d.name + ")");
  head.push_back(e.rules.rank_name);
  std::vector<std::vector<std::string>> rows = {head};
  for (std::size_t i = 0; i < e.order.size(); ++i) {
    const OpId o = e.order[i];
    std::vector<std::string> r = {std::to_string(i + 1), cost.graph().op(o).name,
                                  fixed(cost.mean_op_time(o), u)};
    if (!e.oct.empty())
      for (DeviceId d = 0; d < devices; ++d)
        r.push_back(fixed(e.oct_of(o, d, devices), u));
    r.push_back(fixed(e.rank[static_cast<std::size_t>(o)], u));
    rows.push_back(std::move(r));
  }
  return aligned(rows, {false, true});
}

std::string decision_table(const Explanation& e, const CostModel& cost, const TimeUnit& u) {
  const Platform& p = cost.platform();
  const bool peft = !e.oct.empty();
  std::vector<std::string> head = {"step", "op", "device", "ready", "EST", "EFT"};
  if (peft) head.insert(head.end(), {"OCT", "O_EFT"});
  head.push_back("");
  std::vector<std::vector<std::string>> rows = {head};
  std::vector<std::string> ties; // printed under the table, numbered by step
  for (std::size_t i = 0; i < e.decisions.size(); ++i) {
    const auto& d = e.decisions[i];
    for (std::size_t k = 0; k < d.candidates.size(); ++k) {
      const auto& c = d.candidates[k];
      std::vector<std::string> r = {k == 0 ? std::to_string(i + 1) : "",
                                    k == 0 ? cost.graph().op(d.op).name : "",
                                    p.devices[static_cast<std::size_t>(c.device)].name,
                                    fixed(c.ready, u),
                                    fixed(c.start, u),
                                    fixed(c.finish, u)};
      if (peft) r.insert(r.end(), {fixed(e.oct_of(d.op, c.device, p.device_count()), u), fixed(c.score, u)});
      r.push_back(c.device == d.chosen ? (d.tied.empty() ? "<- chosen" : "<- chosen (tie)")
                  : c.excluded.empty() ? ""
                                       : "excluded: " + c.excluded);
      rows.push_back(std::move(r));
    }
    const std::string tie = tie_text(e, d, p);
    if (!tie.empty())
      ties.push_back("step " + std::to_string(i + 1) + " (" + cost.graph().op(d.op).name + "): " + tie);
  }
  std::vector<bool> left = {false, true, true};
  left.resize(head.size(), false);
  left.back() = true; // the chosen mark
  std::string out = aligned(rows, left);
  for (const auto& t : ties)
    out += wrapped(t, "  ");
  return out;
}

} // namespace

std::string explain_text(const Explanation& e, const CostModel& cost, const ExplainLabels& labels) {
  const TimeUnit u = unit_for(e.makespan());
  std::ostringstream out;
  out << labels.policy << " (" << (e.contention ? "contention-aware" : "classic") << ") on workload '"
      << labels.workload << "', platform '" << labels.platform << "'; times in " << u.name << "\n\n";
  out << wrapped("Ranks, in priority order (" + e.rules.order_rule + "):", "")
      << wrapped(e.rules.rank_formula, "  ") << rank_table(e, cost, u) << "\n";
  out << wrapped("Decisions, each op to the device with the " + e.rules.choice_rule + ":", "")
      << wrapped(std::string("ready: when its inputs can be there") +
                     (e.contention ? " (transfers booked on links and copy engines)" : "") +
                     "; EST: earliest start in a gap from then; EFT = EST + the op's time there",
                 "  ")
      << decision_table(e, cost, u) << "\n";
  out << "Schedule length of the list schedule: " << fixed(e.makespan(), u) << " " << u.name << "\n";
  for (const auto& n : e.notes)
    out << wrapped("Then: " + n, "");
  return out.str();
}

} // namespace hs
