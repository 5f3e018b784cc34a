#include "validation/report.hpp"

#include "sim/json_input.hpp"
#include "sim/units.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace hs::validation {
namespace {

Json stats_json(const ErrorStats& s) {
  return {{"count", s.count},         {"mape_percent", s.mape},   {"p50_abs_percent", s.p50},
          {"p95_abs_percent", s.p95}, {"max_abs_percent", s.max}, {"mean_signed_percent", s.mean_signed}};
}

Json fit_json(const RooflineFit& f) {
  Json j = {{"efficiency", f.efficiency},
            {"memory_efficiency", f.memory_efficiency},
            {"launch_overhead_s", f.launch_overhead}};
  for (const auto& t : f.memory_tiers)
    j["memory_tiers"].push_back({{"up_to_bytes", t.up_to}, {"bandwidth_Bps", t.bandwidth}});
  if (!f.memory_time_factor.empty()) j["memory_time_factor"] = f.memory_time_factor;
  return j;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string stats_line(const std::string& name, const ErrorStats& s) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "  %-22s n=%-4d MAPE %6.1f%%  P50 %6.1f%%  P95 %6.1f%%  max %6.1f%%  bias %+6.1f%%\n",
                name.c_str(), s.count, s.mape, s.p50, s.p95, s.max, s.mean_signed);
  return buf;
}

Json siblings_json(const std::vector<SiblingPair>& pairs) {
  Json j = Json::array();
  for (const auto& p : pairs)
    j.push_back({{"first", p.first},
                 {"second", p.second},
                 {"problems", p.problems},
                 {"measured_time_ratio", p.measured_ratio},
                 {"wave_model_time_ratio", p.wave_ratio}});
  return j;
}

Json deepbench_json(const DeepBenchResult& d) {
  Json j;
  j["table"] = d.table;
  j["held_out"] = "every third problem of each (gpu, precision) block";
  j["datasheet_only"] = stats_json(d.datasheet);
  j["calibrated_per_block"] = stats_json(d.calibrated);
  j["leave_one_gpu_out_fp32"] = stats_json(d.leave_one_gpu_out_all);
  for (const auto& [gpu, s] : d.leave_one_gpu_out)
    j["leave_one_gpu_out_by_gpu"][gpu] = stats_json(s);
  j["wave_model"]["model"] =
      "sim/wave_model.hpp: tiles in waves over SMs, K split, memory roofline, power-limited "
      "clock; one parameter set shared by all GPUs";
  j["wave_model"]["leave_one_gpu_out_fp32"] = stats_json(d.wave_leave_one_gpu_out_all);
  j["wave_model"]["leave_one_gpu_out_shared_only_fp32"] = stats_json(d.wave_leave_one_gpu_out_shared_all);
  j["wave_model"]["calibrated_per_gpu_fp32"] = stats_json(d.wave_calibrated);
  j["wave_model"]["leave_one_gpu_out_own_launch_fp32"] = stats_json(d.wave_leave_one_gpu_out_own_launch_all);
  j["twin_transfer"]["description"] =
      "reference, not a model: each GPU's problems predicted from the measured times of the other GPUs of "
      "its "
      "architecture, scaled by the wave model's ratio between the two (unscaled: the twin's time as it is)";
  j["twin_transfer"]["scaled_fp32"] = stats_json(d.twin_scaled_all);
  j["siblings"] = siblings_json(d.siblings);
  j["twin_transfer"]["unscaled_fp32"] = stats_json(d.twin_unscaled_all);
  for (const auto& [gpu, st] : d.twin_scaled) {
    j["twin_transfer"]["scaled_by_gpu"][gpu] = stats_json(st);
    j["twin_transfer"]["unscaled_by_gpu"][gpu] = stats_json(d.twin_unscaled.at(gpu));
  }
  for (const auto& [gpu, s] : d.wave_leave_one_gpu_out) {
    const WaveParams& w = d.wave_fit_without.at(gpu);
    j["wave_model"]["leave_one_gpu_out_by_gpu"][gpu] = stats_json(s);
    j["wave_model"]["leave_one_gpu_out_shared_only_by_gpu"][gpu] =
        stats_json(d.wave_leave_one_gpu_out_shared.at(gpu));
    j["wave_model"]["leave_one_gpu_out_own_launch_by_gpu"][gpu] =
        stats_json(d.wave_leave_one_gpu_out_own_launch.at(gpu));
    j["wave_model"]["fit_without"][gpu] = {
        {"peak_efficiency", w.peak_efficiency},     {"tile_intensity_knee", w.tile_intensity_knee},
        {"memory_efficiency", w.memory_efficiency}, {"launch_seconds", w.launch_seconds},
        {"watts_per_tflops", w.watts_per_tflops},   {"transposed_a_efficiency", w.transposed_a_efficiency},
        {"tile_k_overhead", w.tile_k_overhead}};
  }
  j["blocks"] = Json::array();
  for (const auto& b : d.blocks)
    j["blocks"].push_back({{"gpu", b.gpu},
                           {"precision", b.precision},
                           {"train", b.train},
                           {"test", b.test},
                           {"datasheet_only", stats_json(b.datasheet)},
                           {"calibrated", stats_json(b.calibrated)},
                           {"fit", fit_json(b.fit)}});
  return j;
}

std::string deepbench_text(const DeepBenchResult& d) {
  std::ostringstream s;
  s << "DeepBench " << d.table
    << " (published GPU timings; held out: every third problem per GPU and precision)\n";
  s << stats_line("datasheet only", d.datasheet);
  s << stats_line("calibrated per GPU", d.calibrated);
  s << stats_line("leave one GPU out", d.leave_one_gpu_out_all);
  for (const auto& b : d.blocks)
    s << stats_line(b.gpu + " " + b.precision, b.calibrated);
  s << "  leave one GPU out (fp32), roofline (one efficiency) vs wave model (tiles, waves, K split, "
       "power):\n";
  s << stats_line("wave, calibrated/GPU", d.wave_calibrated);
  s << stats_line("wave, LOGO shared only", d.wave_leave_one_gpu_out_shared_all);
  s << stats_line("wave, leave one out", d.wave_leave_one_gpu_out_all);
  s << stats_line("wave, LOGO+own launch", d.wave_leave_one_gpu_out_own_launch_all);
  if (!d.twin_scaled.empty()) {
    s << "  reference, not a model: each GPU from the measured times of its architecture's other GPUs,\n"
         "  scaled by the wave model's ratio between the two (GPUs with architecture kin only):\n";
    s << stats_line("twin, scaled", d.twin_scaled_all);
    s << stats_line("twin, unscaled", d.twin_unscaled_all);
  }
  for (const auto& [gpu, wave] : d.wave_leave_one_gpu_out) {
    s << stats_line(gpu + " roofline", d.leave_one_gpu_out.at(gpu));
    s << stats_line(gpu + " wave shared", d.wave_leave_one_gpu_out_shared.at(gpu));
    s << stats_line(gpu + " wave", wave);
    s << stats_line(gpu + " wave+launch", d.wave_leave_one_gpu_out_own_launch.at(gpu));
  }
  return s.str();
}

Json learned_json(const LearnedValidation& v) {
  Json j;
  j["model"] =
      "sim/learned_model.hpp: XGBoost trees over op and device features correcting the wave model, "
      "trained on DeepBench fp32 GEMM and convolution (forward and both gradients) of the other GPUs";
  j["leave_one_gpu_out_gemm"] = stats_json(v.gemm);
  j["leave_one_gpu_out_conv"] = stats_json(v.conv);
  j["gpu_seen_gemm"] = stats_json(v.gemm_seen);
  j["gpu_seen_conv"] = stats_json(v.conv_seen);
  j["stack_hidden_gemm"] = stats_json(v.gemm_stack_hidden);
  j["stack_hidden_conv"] = stats_json(v.conv_stack_hidden);
  j["leave_one_gpu_out_conv_data_gradient"] = stats_json(v.conv_data_grad);
  j["leave_one_gpu_out_conv_weight_gradient"] = stats_json(v.conv_weight_grad);
  j["wave_alone_conv_data_gradient"] = stats_json(v.conv_data_grad_wave);
  j["wave_alone_conv_weight_gradient"] = stats_json(v.conv_weight_grad_wave);
  for (const auto& [gpu, st] : v.gemm_by_gpu) {
    j["gemm_by_gpu"][gpu] = stats_json(st);
    j["conv_by_gpu"][gpu] = stats_json(v.conv_by_gpu.at(gpu));
  }
  for (const auto& [gpu, st] : v.conv_data_grad_by_gpu)
    j["conv_data_gradient_by_gpu"][gpu] = stats_json(st);
  for (const auto& [gpu, st] : v.conv_weight_grad_by_gpu)
    j["conv_weight_gradient_by_gpu"][gpu] = stats_json(st);
  j["gpu_constant_out_gemm"] = stats_json(v.gemm_constant_out);
  j["gpu_constant_out_conv"] = stats_json(v.conv_constant_out);
  for (const auto& [gpu, c] : v.gemm_constant_by_gpu)
    j["gpu_constant_percent"][gpu] = {{"gemm", c}, {"conv", v.conv_constant_by_gpu.at(gpu)}};
  return j;
}

// Why leave one GPU out stops short: the part of its error one constant per GPU would take out, and
// siblings whose timings disagree with their datasheets.
std::string constant_text(const LearnedValidation& v, const DeepBenchResult& gemm,
                          const DeepBenchResult& conv) {
  std::ostringstream s;
  s << "  what one constant per GPU explains (an oracle, not a prediction: each left-out GPU's median error "
       "taken out,\n  which leaves the error in the relative costs of its problems):\n";
  s << stats_line("GEMM, GPU constant out", v.gemm_constant_out);
  s << stats_line("conv, GPU constant out", v.conv_constant_out);
  s << "  each left-out GPU's median error, GEMM / conv:";
  for (const auto& [gpu, c] : v.gemm_constant_by_gpu)
    s << " " << gpu << " " << fmt("%+.0f", c) << "/" << fmt("%+.0f", v.conv_constant_by_gpu.at(gpu)) << "%";
  s << "\n  siblings (one architecture, memory type and software stack), the second's time / the first's, "
       "medians over\n  the problems both ran, as the wave model puts it from their datasheets and as "
       "measured:\n";
  for (const auto* r : {&gemm, &conv})
    for (const auto& p : r->siblings)
      s << "    " << (r == &gemm ? "GEMM" : "conv") << " " << p.second << " / " << p.first << ": model "
        << fmt("%.2f", p.wave_ratio) << ", measured " << fmt("%.2f", p.measured_ratio) << " (" << p.problems
        << " problems)\n";
  return s.str();
}

std::string learned_text(const LearnedValidation& v, const DeepBenchResult& gemm,
                         const DeepBenchResult& conv) {
  std::ostringstream s;
  s << "Learned model (XGBoost over op and device features, correcting the wave model), leave one GPU out,\n"
       "trained on the other GPUs' fp32 GEMM and convolution problems; beside it the roofline and the wave "
       "model\n";
  s << stats_line("GEMM, learned", v.gemm);
  s << stats_line("conv, learned", v.conv);
  if (v.conv_data_grad.count > 0) {
    s << "  a convolution's gradients (DeepBench's backward timings, trained on the other GPUs' too), and "
         "the\n"
         "  wave model alone on them (fitted on GEMMs; a run leaves gradients to the roofline without "
         "trees):\n";
    s << stats_line("conv dX, learned", v.conv_data_grad);
    s << stats_line("conv dW, learned", v.conv_weight_grad);
    s << stats_line("conv dX, wave alone", v.conv_data_grad_wave);
    s << stats_line("conv dW, wave alone", v.conv_weight_grad_wave);
  }
  s << "  reference, not a prediction for an unseen GPU: the same trees with the GPU's own training problems "
       "in the fit too\n  (two thirds of each GPU's points; scored on its held-out third):\n";
  s << stats_line("GEMM, learned, seen", v.gemm_seen);
  s << stats_line("conv, learned, seen", v.conv_seen);
  s << "  reference, why the trees need a device's software stack: applied anyway to the left-out GPU\n"
       "  with its driver, runtime and DNN versions hidden (a run costs such a device by the wave model):\n";
  s << stats_line("GEMM, stack hidden", v.gemm_stack_hidden);
  s << stats_line("conv, stack hidden", v.conv_stack_hidden);
  s << constant_text(v, gemm, conv);
  for (const auto& [gpu, st] : v.gemm_by_gpu) {
    s << "  " << gpu << ": GEMM roofline " << fmt("%.1f", gemm.leave_one_gpu_out.at(gpu).mape) << "%, wave "
      << fmt("%.1f", gemm.wave_leave_one_gpu_out.at(gpu).mape) << "%, learned " << fmt("%.1f", st.mape)
      << "%; conv roofline " << fmt("%.1f", conv.leave_one_gpu_out.at(gpu).mape) << "%, wave "
      << fmt("%.1f", conv.wave_leave_one_gpu_out.at(gpu).mape) << "%, learned "
      << fmt("%.1f", v.conv_by_gpu.at(gpu).mape) << "%";
    if (v.conv_data_grad_by_gpu.count(gpu) && v.conv_weight_grad_by_gpu.count(gpu))
      s << "; dX " << fmt("%.1f", v.conv_data_grad_by_gpu.at(gpu).mape) << "%, dW "
        << fmt("%.1f", v.conv_weight_grad_by_gpu.at(gpu).mape) << "%";
    s << "\n";
  }
  return s.str();
}

Json torch_json(const TorchValidation& v) {
  Json j = {{"kernels", v.kernels_file},
            {"runs", v.runs_file},
            {"environment", v.environment},
            {"end_to_end", stats_json(v.end_to_end)},
            {"end_to_end_one_rate_per_kind", stats_json(v.end_to_end_per_kind)},
            {"per_op", stats_json(v.op_errors)},
            {"per_op_one_rate_per_kind", stats_json(v.op_errors_per_kind)},
            {"per_op_against_fastest_pass", stats_json(v.op_errors_fastest_pass)}};
  for (const auto& [kind, s] : v.op_errors_by_kind)
    j["per_op_by_kind"][kind] = stats_json(s);
  for (const auto& r : v.rows) {
    j["models"].push_back({{"model", r.model},
                           {"network", r.network},
                           {"threads", r.threads},
                           {"measured_s", r.measured},
                           {"predicted_s", r.predicted},
                           {"predicted_one_rate_per_kind_s", r.predicted_per_kind},
                           {"op_error_p50_percent", r.op_error_p50},
                           {"op_error_p50_one_rate_per_kind_percent", r.op_error_p50_per_kind},
                           {"ops_compared", r.ops_compared},
                           {"unmodelled_measured_s", r.unmodelled_seconds},
                           {"fit_inputs", r.fit_inputs},
                           {"op_truth", r.op_truth},
                           {"library_paths", r.library_paths}});
    for (const auto& [kind, mp] : r.seconds_by_kind)
      j["models"].back()["seconds_by_kind"][kind] = {{"measured_s", mp.first}, {"predicted_s", mp.second}};
  }
  return j;
}

Json shipped_gpu_json(const ShippedGpuCheck& c) {
  Json j;
  j["calibration"] = c.calibration;
  j["costed_by"] = c.costed_by;
  j["held_out"] = "every GEMM point of the set: the shipped model was fitted on DeepBench's and NeuSight's "
                  "published timings only";
  j["gemm"] = stats_json(c.gemm);
  for (const auto& [group, st] : c.by_group)
    j["by_group"][group] = stats_json(st);
  return j;
}

std::string shipped_gpu_text(const ShippedGpuCheck& c) {
  std::ostringstream s;
  s << "  the shipped GPU model (" << c.calibration
    << "), fitted on published timings only, on every GEMM of "
    << "this GPU;\n  costed by " << c.costed_by << "\n";
  s << stats_line("shipped model, GEMMs", c.gemm);
  for (const auto& [group, st] : c.by_group)
    s << stats_line("  " + group, st);
  return s.str();
}

// The roofline fit's errors on a set's held-out GEMMs that the trees cost too (held_out_errors not NaN).
std::vector<double> roofline_on_trees_points(const MeasuredGpuTrees& t, const CpuKernelValidation& v) {
  const std::vector<double> by_trees = trees_error_by_row(t, v);
  std::vector<double> out;
  for (std::size_t i = 0; i < v.held_out.size(); ++i)
    if (!std::isnan(by_trees[i]))
      out.push_back(percent_error(v.held_out[i].calibrated, v.held_out[i].measured));
  return out;
}

Json measured_gpu_trees_json(const MeasuredGpuTrees& t, const CpuKernelValidation& v) {
  return {{"file", "learned-gpu.json"},
          {"board", t.board},
          {"trained_gemms", t.trained},
          {"learned_beside", t.beside},
          {"held_out", "every third GEMM of the set, as its roofline fit holds them out"},
          {"trees", stats_json(t.held_out)},
          {"shipped_model", stats_json(t.shipped_held_out)},
          {"roofline_fit", stats_json(summarize(roofline_on_trees_points(t, v)))},
          {"chosen", t.chosen ? "trees" : "roofline fit"},
          {"training_folds", t.inner_trees ? Json{{"trees", stats_json(*t.inner_trees)},
                                                  {"roofline_fit", stats_json(*t.inner_roofline)}}
                                           : Json("too few points to fold")}};
}

std::string measured_gpu_trees_text(const MeasuredGpuTrees& t, const CpuKernelValidation& v) {
  std::ostringstream s;
  s << "  the trees retrained with this GPU's own GEMMs (" << t.trained << " of them, beside " << t.beside
    << ";\n  costed by its model string '" << t.board << "'), on its held-out GEMMs:\n";
  s << stats_line("own trees, held out", t.held_out);
  s << stats_line("shipped model, same", t.shipped_held_out);
  s << stats_line("roofline fit, same", summarize(roofline_on_trees_points(t, v)));
  s << "  the GPU's GEMMs are costed by the " << (t.chosen ? "trees (learned-gpu.json)" : "roofline fit");
  if (t.inner_trees)
    s << ", chosen on the training GEMMs alone (three folds, each scored once: trees "
      << fmt("%.1f", t.inner_trees->mape) << " %, roofline fit " << fmt("%.1f", t.inner_roofline->mape)
      << " %)\n";
  else
    s << ": too few training GEMMs to choose on\n";
  return s.str();
}

Json memory_bound_fit_json(const MemoryBoundFit& f) {
  Json j = {{"memory_efficiency", f.memory_efficiency}, {"memory_time_factor", f.memory_time_factor}};
  if (!f.by_memory_type.empty()) j["by_memory_type"] = memory_systems_json(f.by_memory_type);
  return j;
}

Json memory_bound_json(const PublishedMemoryBound& m) {
  Json j;
  j["points"] = m.points;
  j["launch_overhead_s"] = m.launch_seconds;
  j["held_out"] = "held_out_by_kind and by_gpu: each GPU scored with the shares fitted on the other GPUs; "
                  "assumed_by_kind: the presets' assumed share, fitted on nothing";
  j["fit_on_every_gpu"] = memory_bound_fit_json(m.fit);
  j["assumed"] = memory_bound_fit_json(m.assumed);
  for (const auto& [kind, st] : m.assumed_by_kind)
    j["assumed_by_kind"][kind] = stats_json(st);
  for (const auto& [kind, st] : m.held_out_by_kind)
    j["held_out_by_kind"][kind] = stats_json(st);
  for (const auto& [gpu, kinds] : m.held_out_by_gpu) {
    j["by_gpu"][gpu]["fit_without_it"] = memory_bound_fit_json(m.fit_without.at(gpu));
    for (const auto& [kind, st] : kinds)
      j["by_gpu"][gpu]["held_out"][kind] = stats_json(st);
  }
  return j;
}

std::string memory_bound_text(const PublishedMemoryBound& m) {
  std::ostringstream s;
  s << "\nPublished memory-bound kernels (elementwise, softmax, layer norm; " << m.points
    << " timings), each GPU costed as `run` costs it with the shares\n  fitted on the other GPUs (held out); "
    << "'assumed' is the presets' " << fmt("%.2f", m.assumed.memory_efficiency)
    << " of the datasheet bandwidth. Fitted on every GPU: " << fmt("%.3f", m.fit.memory_efficiency)
    << " of the bandwidth for a streaming pass";
  for (const auto& [kind, factor] : m.fit.memory_time_factor)
    s << ", " << kind << " x" << fmt("%.3f", factor);
  for (const auto& [type, system] : m.fit.by_memory_type) {
    s << "; " << type << " " << fmt("%.3f", system.memory_efficiency);
    for (const auto& [kind, factor] : system.memory_time_factor)
      s << ", " << kind << " x" << fmt("%.3f", factor);
  }
  s << "\n";
  for (const auto& [kind, st] : m.held_out_by_kind) {
    s << stats_line(kind + ", assumed", m.assumed_by_kind.at(kind));
    s << stats_line(kind + ", held out", st);
    for (const auto& [gpu, kinds] : m.held_out_by_gpu)
      if (kinds.count(kind)) s << stats_line("  " + gpu, kinds.at(kind));
  }
  return s.str();
}

Json published_json(const PublishedKernelCheck& c) {
  Json j;
  j["data"] = c.shown_dir;
  j["held_out"] = "gemm and by_gpu: not held out, the shipped model's wave fit includes a sample of each "
                  "GPU's points; wave_chip_out: held out, the wave model fitted without the GPU's chip; "
                  "own_board: held out, the wave model refitted on two thirds of the board's own points "
                  "(its entry in calibration-published-boards.json), scored on the other third; "
                  "learned_board_seen: held out, the trees trained with the same two thirds, scored on the "
                  "other third; learned_chip_out: the trees trained without the GPU's chip, applied anyway";
  if (c.shipped_unavailable.empty())
    j["gemm"] = stats_json(c.all);
  else
    j["shipped_model_not_checked"] = c.shipped_unavailable;
  for (const auto& [gpu, check] : c.by_gpu) {
    j["by_gpu"][gpu] = shipped_gpu_json(check);
    j["by_gpu"][gpu].erase("held_out"); // not held out here: this object's held_out says why
  }
  if (c.wave_logo) {
    j["wave_chip_out"]["all"] = stats_json(c.wave_logo->all);
    for (const auto& [gpu, st] : c.wave_logo->by_gpu) {
      j["wave_chip_out"]["by_gpu"][gpu]["gemm"] = stats_json(st);
      for (const auto& [group, g] : c.wave_logo->by_gpu_group.at(gpu))
        j["wave_chip_out"]["by_gpu"][gpu]["by_group"][group] = stats_json(g);
    }
  }
  if (!c.boards.by_gpu.empty()) {
    j["own_board"]["all"] = stats_json(c.boards.all);
    for (const auto& [gpu, fit] : c.boards.by_gpu) {
      j["own_board"]["by_gpu"][gpu]["trained_on"] = fit.trained;
      j["own_board"]["by_gpu"][gpu]["timing_overhead_us"] = fit.timing_overhead * 1e6;
      j["own_board"]["by_gpu"][gpu]["sustained_clock_share"] = fit.clock_share;
      j["own_board"]["by_gpu"][gpu]["gemm"] = stats_json(fit.held_out);
      for (const auto& [group, g] : fit.held_out_by_group)
        j["own_board"]["by_gpu"][gpu]["by_group"][group] = stats_json(g);
    }
  }
  if (c.learned) {
    j["learned_board_seen"]["all"] = stats_json(c.learned->seen_all);
    j["learned_chip_out"]["all"] = stats_json(c.learned->chip_out_all);
    for (const auto& [gpu, st] : c.learned->seen_by_gpu) {
      j["learned_board_seen"]["by_gpu"][gpu]["gemm"] = stats_json(st);
      for (const auto& [group, g] : c.learned->seen_by_group.at(gpu))
        j["learned_board_seen"]["by_gpu"][gpu]["by_group"][group] = stats_json(g);
    }
    for (const auto& [gpu, st] : c.learned->chip_out_by_gpu)
      j["learned_chip_out"]["by_gpu"][gpu] = stats_json(st);
  }
  if (c.memory_bound) j["memory_bound"] = memory_bound_json(*c.memory_bound);
  return j;
}

// One published GPU's held-out lines: the wave model with its chip out, its own board fit, and the trees.
std::string published_gpu_held_out(const PublishedKernelCheck& c, const std::string& gpu) {
  std::ostringstream s;
  s << stats_line("  wave, chip out", c.wave_logo->by_gpu.at(gpu));
  for (const auto& [group, st] : c.wave_logo->by_gpu_group.at(gpu))
    s << stats_line("    " + group, st);
  const auto board = c.boards.by_gpu.find(gpu);
  if (board == c.boards.by_gpu.end()) return s.str();
  s << stats_line("  own board", board->second.held_out);
  for (const auto& [group, st] : board->second.held_out_by_group)
    s << stats_line("    " + group, st);
  if (!c.learned || !c.learned->seen_by_gpu.count(gpu)) return s.str();
  s << stats_line("  learned, board seen", c.learned->seen_by_gpu.at(gpu));
  for (const auto& [group, st] : c.learned->seen_by_group.at(gpu))
    s << stats_line("    " + group, st);
  s << stats_line("  learned, chip out", c.learned->chip_out_by_gpu.at(gpu));
  return s.str();
}

std::string published_text(const PublishedKernelCheck& c) {
  std::ostringstream s;
  s << "\nPublished fp32 GEMM timings of newer GPUs (NeuSight, ASPLOS 2025; " << c.shown_dir
    << "), each GPU on its datasheet figures.\n  The shipped GPU model's wave fit includes up to "
    << kFitPointsPerPublishedGpu << " of each GPU's points and its trees all of them, so its lines are not "
    << "held out; 'wave, chip out' is\n  the wave model fitted without the GPU's chip (architecture and "
       "SMs): "
    << "held out; 'own board' is the wave model refitted on two\n  thirds of the board's own points (its "
    << "entry in calibration-published-boards.json), scored on the other third: held out;\n  'learned, board "
    << "seen' is the trees trained with those two thirds (and DeepBench), scored on the same third, as the "
    << "shipped\n  trees cost the boards they were trained on: held out; 'learned, chip out' is the trees "
    << "trained without the chip and applied\n  to it anyway (a reference: a run costs a board the trees "
    << "never saw by the wave model alone)\n";
  if (c.shipped_unavailable.empty())
    s << stats_line("all GPUs", c.all);
  else
    s << "  The shipped GPU model is not checked: " << c.shipped_unavailable << "\n";
  for (const auto& [gpu, model] : c.models) {
    const auto shipped = c.by_gpu.find(gpu);
    if (shipped != c.by_gpu.end()) {
      s << stats_line(gpu, shipped->second.gemm);
      for (const auto& [group, st] : shipped->second.by_group)
        s << stats_line("  " + group, st);
      s << "    costed by " << shipped->second.costed_by << "\n";
    } else {
      s << "  " << gpu << "\n";
    }
    if (c.wave_logo && c.wave_logo->by_gpu.count(gpu)) s << published_gpu_held_out(c, gpu);
  }
  if (c.wave_logo) s << stats_line("all, wave chip out", c.wave_logo->all);
  if (!c.boards.by_gpu.empty()) s << stats_line("all, own board", c.boards.all);
  if (c.learned) {
    s << stats_line("all, learned, board seen", c.learned->seen_all);
    s << stats_line("all, learned, chip out", c.learned->chip_out_all);
  }
  if (c.memory_bound) s << memory_bound_text(*c.memory_bound);
  return s.str();
}

} // namespace

std::string validation_report_json(const ValidationReport& r) {
  Json j;
  j["format"] = "heterosim-validation-report";
  j["version"] = 1;
  j["errors"] = "absolute percentage error |predicted - measured| / measured, on held-out points only; "
                "mean_signed > 0 means the model predicts too slow";
  Json cpu;
  cpu["device_kind"] = r.kernel_device_kind;
  cpu["measurements"] = r.cpu_measurements;
  cpu["environment"] = r.cpu_environment;
  cpu["held_out"] = "every third point of each kernel kind, in measurement order";
  for (const auto& [threads, v] : r.cpu) {
    Json c;
    c["co_running_threads"] = threads;
    c["train_points"] = v.train;
    c["test_points"] = v.test;
    c["fit"] = fit_json(v.fit);
    c["nominal"] = stats_json(v.nominal_all);
    c["calibrated"] = stats_json(v.calibrated_all);
    for (const auto& [kind, st] : v.calibrated)
      c["calibrated_by_kind"][kind] = stats_json(st);
    for (const auto& [kind, st] : v.nominal)
      c["nominal_by_kind"][kind] = stats_json(st);
    c["held_out_points"] = Json::array();
    for (const auto& k : v.held_out)
      c["held_out_points"].push_back({{"kind", k.kind},
                                      {"label", k.label},
                                      {"measured_s", k.measured},
                                      {"nominal_s", k.nominal},
                                      {"calibrated_s", k.calibrated}});
    cpu["by_co_running_threads"].push_back(std::move(c));
  }
  if (r.shipped_gpu) cpu["shipped_gpu_model"] = shipped_gpu_json(*r.shipped_gpu);
  if (r.measured_gpu_trees) cpu["own_trees"] = measured_gpu_trees_json(*r.measured_gpu_trees, r.cpu.at(1));
  if (!r.measured_gpu_trees_skipped.empty()) cpu["own_trees_skipped"] = r.measured_gpu_trees_skipped;
  j["cpu_kernels"] = std::move(cpu);
  if (r.end_to_end) {
    Json e;
    e["executions"] = r.executions_file;
    e["simgrid"] = stats_json(r.end_to_end->simgrid);
    e["simgrid_without_executor"] = stats_json(r.end_to_end->simgrid_without_executor);
    e["share_adjusted_diagnostic"] = stats_json(r.end_to_end->share_adjusted);
    e["measured_ops_replay_diagnostic"] = stats_json(r.end_to_end->measured_ops_replay);
    e["graphs"] = Json::array();
    for (const auto& row : r.end_to_end->rows) {
      Json ops = Json::array();
      for (const auto& op : row.ops)
        ops.push_back({{"kernel", op.kernel}, {"measured_s", op.measured}, {"predicted_s", op.predicted}});
      e["graphs"].push_back({{"graph", row.graph},
                             {"threads", row.threads},
                             {"measured_p50_s", row.measured},
                             {"simgrid_s", row.simgrid},
                             {"analytic_s", row.analytic},
                             {"error_percent", row.error},
                             {"executor_overhead_per_op_s", row.executor_overhead},
                             {"simgrid_without_executor_s", row.simgrid_without_executor},
                             {"measured_op_sum_s", row.measured_op_sum},
                             {"predicted_op_sum_s", row.predicted_op_sum},
                             {"core_share", row.core_share},
                             {"share_adjusted_makespan_s", row.share_adjusted},
                             {"share_adjusted_error_percent", row.share_adjusted_error},
                             {"measured_ops_replay_s", row.measured_ops_replay},
                             {"measured_ops_replay_error_percent", row.measured_ops_replay_error},
                             {"ops", std::move(ops)}});
    }
    j["end_to_end"] = std::move(e);
  }
  if (r.deepbench_gemm || r.deepbench_conv) {
    j["deepbench"]["data"] = r.deepbench_dir;
    if (r.deepbench_gemm) j["deepbench"]["gemm"] = deepbench_json(*r.deepbench_gemm);
    if (r.deepbench_conv) j["deepbench"]["conv"] = deepbench_json(*r.deepbench_conv);
    if (r.learned) j["deepbench"]["learned"] = learned_json(*r.learned);
  }
  if (r.torch) j["torch"] = torch_json(*r.torch);
  if (r.published) j["published_gpu_kernels"] = published_json(*r.published);
  return j.dump(1) + "\n";
}

std::string validation_report_text(const ValidationReport& r) {
  std::ostringstream s;
  s << "HeteroSim validation report (errors on held-out points only)\n\n";
  const auto env = [&](const char* k) {
    auto it = r.cpu_environment.find(k);
    return it == r.cpu_environment.end() ? std::string("?") : it->second;
  };
  if (r.kernel_device_kind == "gpu") {
    s << "GPU kernels: " << r.cpu_measurements << "\n  measured " << env("date") << " on " << env("gpu_model")
      << " (" << env("multiprocessors") << " SMs), " << env("cublas") << ", " << env("math_mode") << "\n";
  } else {
    s << "CPU kernels: " << r.cpu_measurements << "\n  measured " << env("date") << " on " << env("cpu_model")
      << " (" << env("hardware_threads") << " hardware threads), " << env("compiler") << ", Eigen "
      << env("eigen") << "\n";
    s << "  core share while timing: " << env("core_share_while_timing") << "\n";
  }
  for (const auto& [threads, v] : r.cpu) {
    s << (threads == 1 ? "  each kernel alone on one thread"
                       : "  each kernel on " + std::to_string(threads) + " threads at once (co-running)")
      << ": calibrated on " << v.train << " points, tested on " << v.test << " held-out points\n";
    s << "  fit: launch overhead " << fmt("%.2f", v.fit.launch_overhead * 1e6)
      << " us, main-memory efficiency " << fmt("%.3f", v.fit.memory_efficiency);
    for (const auto& t : v.fit.memory_tiers)
      s << ", up to " << units::format_bytes(t.up_to) << " " << fmt("%.1f", t.bandwidth / 1e9) << " GB/s";
    s << "\n  compute efficiency:";
    for (const auto& [kind, e] : v.fit.efficiency)
      s << " " << kind << " " << fmt("%.3f", e);
    if (!v.fit.memory_time_factor.empty()) {
      s << "\n  memory time factor:";
      for (const auto& [kind, g] : v.fit.memory_time_factor)
        s << " " << kind << " " << fmt("%.3f", g);
    }
    s << "\n";
    s << stats_line("nominal (no calib.)", v.nominal_all);
    s << stats_line("calibrated, all", v.calibrated_all);
    for (const auto& [kind, st] : v.calibrated)
      s << stats_line(kind, st);
  }
  if (r.shipped_gpu) s << shipped_gpu_text(*r.shipped_gpu);
  if (r.measured_gpu_trees) s << measured_gpu_trees_text(*r.measured_gpu_trees, r.cpu.at(1));
  if (!r.measured_gpu_trees_skipped.empty())
    s << "  the trees were not retrained with this GPU's GEMMs: " << r.measured_gpu_trees_skipped << "\n";
  if (r.end_to_end) {
    s << "\nEnd-to-end: real executions on threads vs SimGrid replay (" << r.executions_file << ")\n";
    for (const auto& row : r.end_to_end->rows) {
      char buf[300];
      std::snprintf(buf, sizeof buf,
                    "  %-11s %d thread(s): measured %7.2f ms  SimGrid %7.2f ms  error %+6.1f%%  | op busy: "
                    "measured %7.2f ms, predicted %7.2f ms; core share %.2f\n",
                    row.graph.c_str(), row.threads, row.measured * 1e3, row.simgrid * 1e3, row.error,
                    row.measured_op_sum * 1e3, row.predicted_op_sum * 1e3, row.core_share);
      s << buf;
    }
    s << stats_line("SimGrid makespan", r.end_to_end->simgrid);
    s << "  (each op pays the executor's own time per op, from the other graphs' one-thread runs:";
    for (const auto& row : r.end_to_end->rows)
      if (row.threads == 1) s << " " << fmt("%.1f", row.executor_overhead * 1e6) << " us";
    s << ")\n";
    s << stats_line("without executor", r.end_to_end->simgrid_without_executor);
    s << "  (op busy: summed over ops, each op's P50 over the runs; core share: their thread CPU time / wall "
         "time, 1 = "
         "cores of their own)\n";
    if (r.end_to_end->share_adjusted.count > 0) {
      s << "  diagnostic, not a measurement: SimGrid against measured makespan x core share (the time other "
           "processes took removed)\n";
      s << stats_line("SimGrid vs adjusted", r.end_to_end->share_adjusted);
    }
    if (r.end_to_end->measured_ops_replay.count > 0) {
      s << "  diagnostic: the same plans replayed with each op's measured P50 time instead of the cost "
           "model's "
           "(what is left is the executor's and the schedule's, not the cost model's):\n ";
      for (const auto& row : r.end_to_end->rows)
        s << " " << row.graph.substr(row.graph.rfind('-') + 1) << "/" << row.threads << "t "
          << fmt("%+.1f", row.measured_ops_replay_error) << "%";
      s << "\n" << stats_line("replay, measured ops", r.end_to_end->measured_ops_replay);
    }
  }
  if (r.deepbench_gemm) s << "\n" << deepbench_text(*r.deepbench_gemm);
  if (r.published) s << published_text(*r.published);
  if (r.deepbench_conv) s << "\n" << deepbench_text(*r.deepbench_conv);
  if (r.learned) s << "\n" << learned_text(*r.learned, *r.deepbench_gemm, *r.deepbench_conv);
  if (r.torch) s << "\n" << torch_validation_text(*r.torch);
  return s.str();
}

} // namespace hs::validation
