#include "validation/op_matching.hpp"

#include "sim/error.hpp"

#include <algorithm>

namespace hs::validation {

namespace {

std::string describe(const MeasuredOp& m) {
  return m.name + (m.where.empty() ? "" : " (" + m.where + ")");
}

} // namespace

PassTimes match_in_order(const std::vector<MeasuredOp>& measured, const std::vector<ModelOp>& model,
                         const std::string& source, const std::string& noun) {
  std::vector<std::size_t> work; // indices of the model's ops that do work
  for (std::size_t i = 0; i < model.size(); ++i)
    if (model[i].kind != "view") work.push_back(i);
  if (work.empty()) throw InputError(source, "", "the model has no op that does work");
  PassTimes t;
  t.passes = std::max<std::size_t>(1, measured.size() / work.size());
  t.seconds.resize(model.size());
  std::size_t next = 0;
  for (std::size_t pass = 0; pass < t.passes; ++pass)
    for (const std::size_t i : work) {
      const ModelOp& op = model[i];
      if (next == measured.size())
        throw InputError(source, op.label,
                         "the " + noun + " ends before this op (" + std::to_string(measured.size()) +
                             " ops that do work)");
      if (measured[next].kind != op.kind)
        throw InputError(source, op.label,
                         "is a " + op.kind + " but the " + noun + "'s op " + std::to_string(next) + " is " +
                             describe(measured[next]) +
                             (measured[next].kind.empty() ? "" : " (kind " + measured[next].kind + ")"));
      t.seconds[i].push_back(measured[next++].seconds);
    }
  if (next != measured.size())
    throw InputError(source, describe(measured[next]),
                     "the " + noun + " has " + std::to_string(measured.size() - next) + " more ops than " +
                         std::to_string(t.passes) + " pass(es) of the model");
  return t;
}

std::size_t fastest_pass(const PassTimes& t) {
  std::size_t fastest = 0;
  double fastest_sum = 0.0;
  for (std::size_t pass = 0; pass < t.passes; ++pass) {
    double sum = 0.0;
    for (const auto& op : t.seconds)
      if (!op.empty()) sum += op[pass];
    if (pass == 0 || sum < fastest_sum) {
      fastest = pass;
      fastest_sum = sum;
    }
  }
  return fastest;
}

std::vector<double> pick_pass(const PassTimes& t, TracePass which) {
  std::vector<double> seconds(t.seconds.size(), 0.0);
  const std::size_t fastest = fastest_pass(t);
  for (std::size_t i = 0; i < t.seconds.size(); ++i) {
    const auto& op = t.seconds[i];
    if (op.empty()) continue;
    seconds[i] = which == TracePass::FastestEach ? *std::min_element(op.begin(), op.end()) : op[fastest];
  }
  return seconds;
}

} // namespace hs::validation
