#include "sim/calibration.hpp"
#include "sim/nearest_name.hpp"

#include <cstdio>

// What a run says about the calibration it used: which devices each entry calibrated, by which model, and
// the held-out errors validate measured for them.
namespace hs {

namespace {

// Why the learned model of `e` leaves device `d`'s GEMMs to its wave model; empty when the trees cost them.
std::string wave_only_reason(const Calibration::Entry& e, const Device& d) {
  return e.learned && d.units.count > 0 ? e.learned->untrained_reason(wave_device(d)) : "";
}

struct OwnHeldOut {
  std::string device;
  double percent;
  bool wave; // the wave model's figure: the learned model's trees leave the device to it
};

// The calibrated devices of `e` with a held-out error of their own: the wave model's where it alone costs
// them, else their model's where the entry has one.
std::vector<OwnHeldOut> own_held_out(const Calibration& c, const Calibration::Entry& e, const Platform& p) {
  std::vector<OwnHeldOut> out;
  for (const auto& d : p.devices) {
    if (c.find(d) != &e) continue;
    if (!wave_only_reason(e, d).empty()) {
      if (auto it = e.wave_held_out_mape_percent_by_model.find(d.model);
          it != e.wave_held_out_mape_percent_by_model.end())
        out.push_back({d.name, it->second, true});
      else if (e.wave_held_out_mape_percent)
        out.push_back({d.name, *e.wave_held_out_mape_percent, true});
    } else if (auto it = e.held_out_mape_percent_by_model.find(d.model);
               it != e.held_out_mape_percent_by_model.end()) {
      out.push_back({d.name, it->second, false});
    }
  }
  return out;
}

// The calibrated devices of `e` whose GEMMs its learned model leaves to the wave model, with why.
std::vector<std::pair<std::string, std::string>>
wave_only_devices(const Calibration& c, const Calibration::Entry& e, const Platform& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : p.devices)
    if (c.find(d) == &e)
      if (auto reason = wave_only_reason(e, d); !reason.empty()) out.emplace_back(d.name, std::move(reason));
  return out;
}

} // namespace

nlohmann::ordered_json calibration_usage_json(const Calibration& c, const Platform& p) {
  nlohmann::ordered_json j;
  j["file"] = c.file;
  j["source"] = c.source;
  j["entries"] = nlohmann::ordered_json::array();
  for (const auto& e : c.entries) {
    if (c.calibrated_devices(e, p).empty()) continue; // an optional entry the platform has no use for
    nlohmann::ordered_json entry;
    entry["name"] = e.name;
    entry["measured"] = e.measured.empty() ? "not recorded (version 1 file)" : e.measured;
    entry["devices"] = c.calibrated_devices(e, p);
    if (e.held_out_mape_percent) entry["held_out_mape_percent"] = *e.held_out_mape_percent;
    for (const auto& held : own_held_out(c, e, p))
      entry["held_out_mape_percent_by_device"][held.device] = held.percent;
    if (!e.memory_held_out_mape_percent.empty())
      entry["memory_held_out_mape_percent"] = e.memory_held_out_mape_percent;
    entry["gemm_model"] = e.learned ? "learned (" + e.learned_file + ")" : e.wave ? "wave" : "roofline";
    if (e.learned) entry["learned_precisions"] = e.learned->precisions();
    for (const auto& [device, reason] : wave_only_devices(c, e, p))
      entry["wave_model_only"][device] = reason;
    if (e.framework) {
      entry["framework_model"] = e.framework_file;
      entry["intra_op_threads"] = e.intra_op_threads;
    }
    j["entries"].push_back(std::move(entry));
  }
  return j;
}

namespace {

// Appends `device` to the group of `key`, in the order the keys first came.
void add_to_group(std::vector<std::pair<std::string, std::string>>& groups, const std::string& key,
                  const std::string& device) {
  for (auto& [k, devices] : groups)
    if (k == key) {
      devices.append(", ").append(device);
      return;
    }
  groups.emplace_back(key, device);
}

} // namespace

std::string calibration_usage_text(const Calibration& c, const Platform& p) {
  std::string text;
  for (const auto& e : c.entries) {
    std::string devices;
    for (const auto& d : c.calibrated_devices(e, p))
      devices.append(devices.empty() ? "" : ", ").append(d);
    if (devices.empty()) continue; // an optional entry the platform has no use for
    text.append("calibration '").append(e.name).append("' (").append(c.file).append(") calibrated ");
    text.append(devices)
        .append(e.learned
                    ? " (GEMMs and convolutions in " + name_list(e.learned->precisions()) +
                          " by the learned model " + e.learned_file + ", other precisions by its wave model)"
                : e.wave ? " (GEMMs by the wave model)"
                         : "")
        .append(e.framework ? " (ops with named dimensions by the framework model " + e.framework_file +
                                  " on " + std::to_string(e.intra_op_threads) + " intra-op thread(s))"
                            : "")
        .append(": ")
        .append(e.measured.empty() ? "what was measured is not recorded" : e.measured);
    if (e.held_out_mape_percent) {
      char held[64];
      std::snprintf(held, sizeof held, "; held-out error %.1f %%", *e.held_out_mape_percent);
      text.append(held);
    }
    // One clause per reason and per figure, naming every device it holds for: eight GPUs of a node
    // share both.
    std::vector<std::pair<std::string, std::string>> wave_only;
    for (const auto& [device, reason] : wave_only_devices(c, e, p))
      add_to_group(wave_only, reason, device);
    for (const auto& [reason, names] : wave_only)
      text.append("; ").append(names).append(": GEMMs by the wave model alone: ").append(reason);
    std::vector<std::pair<std::string, std::string>> held_out;
    for (const auto& held : own_held_out(c, e, p)) {
      char percent[64];
      std::snprintf(percent, sizeof percent, ": %.1f %%", held.percent);
      add_to_group(held_out,
                   std::string(held.wave ? " (the wave model, leave one GPU out)" : " (own model)") + percent,
                   held.device);
    }
    for (const auto& [figure, names] : held_out)
      text.append("; held out for ").append(names).append(figure);
    if (!e.memory_held_out_mape_percent.empty()) {
      text.append("; memory-bound kernels held out:");
      for (const auto& [kind, percent] : e.memory_held_out_mape_percent) {
        char figure[96];
        std::snprintf(figure, sizeof figure, " %s %.1f %%", kind.c_str(), percent);
        text.append(figure);
      }
    }
    text.append("\n");
  }
  return text;
}

} // namespace hs
