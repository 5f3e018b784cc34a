#pragma once
// Fitted parameters that override a platform's defaults. Each entry says which devices it applies to (by
// device name, kind or model string) and what was measured to fit it, so a run can say which devices it
// calibrated and a calibration that would change nothing is refused instead of silently ignored.
#include "sim/framework_model.hpp"
#include "sim/learned_model.hpp"
#include "sim/platform.hpp"
#include "sim/wave_model.hpp"

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs {

struct Calibration {
  // Effective bandwidth for ops that move at most `up_to` bytes: their data stays in a cache level, so
  // they run faster than main memory allows (measured on CPUs; see validation/).
  struct MemoryTier {
    double up_to = 0.0;     // bytes moved (read + written)
    double bandwidth = 0.0; // bytes/s
  };
  // A device is matched by any listed name, kind or model; a name match beats a model match, which beats
  // a kind match, so a file may hold a kind-wide entry and a per-device refinement.
  struct AppliesTo {
    std::vector<std::string> devices, kinds, models;
    // An entry of a library of boards (the shipped GPU model's entry per published board) may calibrate no
    // device of a platform; every other entry that calibrates nothing is an error. A file whose entries
    // calibrate no device at all is an error either way.
    bool optional = false;
    // 3 by name, 2 by model, 1 by kind, 0 when the device is not matched.
    int specificity(const Device& d) const;
  };
  struct Entry {
    std::string name;
    AppliesTo applies_to;
    std::string measured; // what the fit was made on (empty in version-1 files, which do not say)
    std::optional<double> held_out_mape_percent; // the error `validate` measured on points it did not fit
    // Per device model string, the error measured for that model itself where the entry was fitted on
    // several (for the DeepBench GPU model: each GPU left out of the fit); `run` names it for such a device.
    std::map<std::string, double> held_out_mape_percent_by_model;
    // The wave model's own error, leave one GPU out, for the devices a learned model's trees do not apply to
    // (LearnedModel::untrained_reason), whose GEMMs the wave model alone costs.
    std::optional<double> wave_held_out_mape_percent;
    // The wave model's own held-out figure for a device of a given model (the name its driver reports), where
    // validate measured one for that board with its chip out of the fit; wave_held_out_mape_percent
    // elsewhere.
    std::map<std::string, double> wave_held_out_mape_percent_by_model;
    std::map<std::string, double> compute_efficiency; // per op kind, "default" as fallback
    std::optional<double> memory_efficiency;
    std::optional<double> launch_overhead;
    // The host's time to issue one op (Device::issue_overhead), as a traced run of the user's framework
    // measured it.
    std::optional<double> issue_overhead;
    std::vector<MemoryTier> memory_tiers; // ascending up_to; ops larger than the last use memory_efficiency
    // Per op kind, its memory-bound time over what the bandwidth above gives (1 where absent): kernels that
    // move the same bytes differ in how many streams they run and how their stores and prefetches use the
    // memory system (measured on this project's CPU kernels: a two-input elementwise pass at 0.88 of a
    // copy's rate), which one bandwidth per cache level cannot say.
    std::map<std::string, double> memory_time_factor;
    // The memory figures above for a kind of memory: a device whose compute units' memory_type starts with
    // a key (the longest that matches) takes that key's figures instead. Streaming kernels reach a share of
    // the datasheet bandwidth that belongs to the memory system (HBM about 0.87 of it, GDDR about 0.76, in
    // published PyTorch timings; validation/README.md), more than to the chip.
    struct MemorySystem {
      double memory_efficiency = 1.0;
      std::map<std::string, double> memory_time_factor;
    };
    std::map<std::string, MemorySystem> by_memory_type;
    // Per op kind, the error `validate` measured for the memory-bound figures above on kernels of devices
    // left out of their fit (for the shipped GPU model: published softmax, layer-norm and elementwise
    // timings, each GPU left out in turn); `run` names it beside the entry.
    std::map<std::string, double> memory_held_out_mape_percent;
    // When set, GEMMs and convolutions that name their dimensions are costed by the loop structure of a CPU
    // BLAS (sim/cost_model.cpp): the operands are packed into blocks, a convolution's im2col first writes
    // its column matrix, then the packed GEMM runs at the "gemm" efficiency; the steps follow one another.
    struct GemmStructure {
      double pack_bandwidth = 0.0;   // bytes/s of packing A and B (each element read and written once)
      double im2col_bandwidth = 0.0; // bytes/s of writing a convolution's column matrix
    };
    std::optional<GemmStructure> gemm_structure;
    // When set, GEMMs and convolutions (with their dims, as implicit GEMMs) on a device with compute units
    // are costed by the wave model (sim/wave_model.hpp) with these parameters instead of the roofline.
    std::optional<WaveParams> wave;
    // When set (a heterosim-learned-model file, named relative to the calibration file), it costs those
    // GEMMs instead, and the wave model above is ignored.
    std::shared_ptr<const LearnedModel> learned;
    std::string learned_file;
    // When set (a heterosim-framework-model file, named relative to the calibration file), every op that
    // names its dimensions and whose kind the model knows is costed by it, each op on
    // `intra_op_threads` threads of the device; other ops keep the models above.
    std::shared_ptr<const FrameworkModel> framework;
    std::string framework_file;
    int intra_op_threads = 1;
  };
  std::vector<Entry> entries;
  std::string source;
  std::string file; // where it was loaded from (empty when built in code)

  // The by_memory_type figures of `e` for `d`, or nullptr where none matches its memory type.
  static const Entry::MemorySystem* memory_system(const Entry& e, const Device& d);
  // The most specific entry matching `d`, or nullptr.
  const Entry* find(const Device& d) const;
  // Names of the devices of `p` that entry `e` calibrates (those for which it is the most specific).
  std::vector<std::string> calibrated_devices(const Entry& e, const Platform& p) const;
};

// Reads format "heterosim-calibration" version 2 (entries with applies_to) or version 1 (devices keyed by
// device name or kind; still read, each key becoming an entry that matches that name or kind).
Calibration load_calibration(const std::string& path);
// The same, for use on `p`: every entry must calibrate at least one device of `p` (a calibration that
// would change nothing is an error naming the entry and the file), and no device may be matched equally
// well by two entries. `name_or_path` is a file, or the name of one shipped in the data directory's models/
// ("deepbench-gpu" for models/calibration-deepbench-gpu.json).
Calibration load_calibration(const std::string& name_or_path, const Platform& p);
// The file `name_or_path` stands for (see above); throws InputError naming the shipped ones when neither.
std::string calibration_file(const std::string& name_or_path);
std::vector<std::string> shipped_calibration_names();

// What a run records: the file, its source, and per entry what was measured and which devices it
// calibrated. One line per entry for the terminal.
nlohmann::ordered_json calibration_usage_json(const Calibration& c, const Platform& p);
std::string calibration_usage_text(const Calibration& c, const Platform& p);

} // namespace hs
