#include "sim/critical_path.hpp"

#include <map>
#include <utility>

namespace hs {
namespace {

class Dependencies {
public:
  Dependencies(const Execution& e, const Plan& plan, const Graph& g) : e_(e), plan_(plan), g_(g) {
    for (std::size_t i = 0; i < e.transfers.size(); ++i)
      transfer_[{e.transfers[i].tensor, e.transfers[i].to}] = static_cast<int>(i);
    before_on_stream_.assign(e.ops.size(), -1);
    for (const auto& streams : plan.queues)
      for (const auto& queue : streams)
        for (std::size_t k = 1; k < queue.size(); ++k)
          before_on_stream_[static_cast<std::size_t>(queue[k])] = queue[k - 1];
  }

  std::vector<Activity> of(const Activity& a) const {
    std::vector<Activity> deps;
    if (a.kind == Activity::Kind::Transfer) {
      const OpId producer = g_.tensor(e_.transfers[static_cast<std::size_t>(a.index)].tensor).producer;
      if (producer >= 0) deps.push_back({Activity::Kind::Op, producer});
      return deps;
    }
    const DeviceId device = plan_.device[static_cast<std::size_t>(a.index)];
    for (TensorId t : g_.op(a.index).inputs) {
      const OpId producer = g_.tensor(t).producer;
      if (producer < 0) continue;
      const auto copy = transfer_.find({t, device});
      if (plan_.device[static_cast<std::size_t>(producer)] != device && copy != transfer_.end())
        deps.push_back({Activity::Kind::Transfer, copy->second});
      else
        deps.push_back({Activity::Kind::Op, producer});
    }
    if (const OpId prev = before_on_stream_[static_cast<std::size_t>(a.index)]; prev >= 0)
      deps.push_back({Activity::Kind::Op, prev});
    return deps;
  }

  double start(const Activity& a) const {
    return a.kind == Activity::Kind::Op ? e_.ops[static_cast<std::size_t>(a.index)].start
                                        : e_.transfers[static_cast<std::size_t>(a.index)].start;
  }
  double end(const Activity& a) const {
    return a.kind == Activity::Kind::Op ? e_.ops[static_cast<std::size_t>(a.index)].end
                                        : e_.transfers[static_cast<std::size_t>(a.index)].end;
  }

private:
  const Execution& e_;
  const Plan& plan_;
  const Graph& g_;
  std::map<std::pair<TensorId, DeviceId>, int> transfer_;
  std::vector<OpId> before_on_stream_;
};

} // namespace

std::vector<Activity> critical_path(const Execution& e, const Plan& plan, const Graph& g) {
  if (e.ops.empty()) return {};
  const Dependencies deps(e, plan, g);
  Activity current{Activity::Kind::Op, 0};
  for (std::size_t o = 1; o < e.ops.size(); ++o)
    if (e.ops[o].end > deps.end(current)) current.index = static_cast<int>(o);
  const double slack = 1e-9 * e.makespan;
  std::vector<Activity> reversed{current};
  // Every step moves to an activity that ended no later than this one started, along dependencies and
  // stream order, which a valid plan keeps acyclic; the bound only guards against a corrupt Execution.
  const std::size_t bound = e.ops.size() + e.transfers.size();
  while (reversed.size() <= bound) {
    const double start = deps.start(current);
    bool found = false;
    Activity best;
    for (const Activity& d : deps.of(current))
      if (deps.end(d) <= start + slack && (!found || deps.end(d) > deps.end(best))) {
        best = d;
        found = true;
      }
    if (!found) break;
    current = best;
    reversed.push_back(current);
  }
  return {reversed.rbegin(), reversed.rend()};
}

} // namespace hs
