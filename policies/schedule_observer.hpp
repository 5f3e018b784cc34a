#pragma once
// An optional sink for what a list scheduler computes and decides, so that `heterosim explain` can show a
// teacher the ranks, every candidate device's start and finish, and the choice, taken from the scheduling
// code itself rather than from a second implementation that could drift. Schedulers take a pointer that is
// null unless someone asked; with null they do exactly the work they did before.
#include "sim/cost_model.hpp"

#include <string>
#include <vector>

namespace hs {

// How a policy ranks ops and chooses devices, in words, for the explanation's headings.
struct ListRules {
  std::string rank_name;    // "upward rank", "rank_oct"
  std::string rank_formula; // how the rank is computed
  std::string order_rule;   // how the rank gives the priority order, ties included
  std::string choice_rule;  // "earliest finish time", ...
  std::string score_name;   // what the choice minimises: "EFT", "O_EFT"
  std::string excluded_by_rule = "excluded by the policy's rule"; // a candidate whose score is kInfeasible
};

class ScheduleObserver {
public:
  virtual ~ScheduleObserver() = default;
  // Once per plan, before any decision: the rules, each op's rank, the order ops will be placed in, and
  // for PEFT the optimistic cost table ([op * devices + device]; empty for others).
  virtual void ranks(const ListRules& rules, const std::vector<double>& rank, const std::vector<OpId>& order,
                     const std::vector<double>& oct) = 0;
  // Once per list schedule: whether data-ready times book links and copy engines, and the rule that breaks
  // a tie between devices of equal score, as the loop applies it.
  virtual void list_schedule(bool contention, const std::string& tie_rule) = 0;
  // Every device considered for `op`, in platform order, either as a candidate (when its inputs can be there,
  // `ready`; the earliest start in a gap from then, EST; its finish, EFT; and the score the choice minimises)
  // or as excluded, with the reason.
  virtual void candidate(OpId op, DeviceId device, double ready, double start, double finish,
                         double score) = 0;
  virtual void excluded(OpId op, DeviceId device, const std::string& why) = 0;
  virtual void chosen(OpId op, DeviceId device, double start, double finish) = 0;
  // What happened to the list schedule afterwards (streams, the single-device floor), in words.
  virtual void note(const std::string& text) = 0;
};

} // namespace hs
