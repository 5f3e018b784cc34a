#pragma once
// The files `heterosim run` writes are registered writers, so a new output format is one file and one
// registration line:
//
//   HS_REGISTER_RUN_WRITER(my_format, {"my-format", "result.xyz", "what it holds", 1,
//   RunWriter::When::full_run,
//                                      [](const RunArtifacts& a, const std::string& path) {
//                                        write_file_atomically(path, to_xyz(a.report), a.force);
//                                        return Written{}; }})
#include "sim/registry.hpp"
#include "sim/report.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hs::cli {

// What every writer may read of one run.
struct RunArtifacts {
  const Report& report;
  const nlohmann::ordered_json& report_json;
  const nlohmann::ordered_json* explain_json; // null when there is no explanation
  std::string dir;                            // the --out directory
  bool force;                                 // existing files may be replaced
};

// What a writer did: wrote its file, or did not, with a note saying why where the user should know.
struct Written {
  bool wrote = true;
  std::string note;
};

struct RunWriter {
  // In every run (--report-only too), in every full run, or with --explain only.
  enum class When { always, full_run, with_explain };
  std::string name;
  std::string file; // in the run's --out directory
  std::string description;
  int stage; // writers run by stage, then name: a writer that reads another's file comes in a later stage
  When when;
  std::function<Written(const RunArtifacts&, const std::string& path)> write;
};

Registry<RunWriter>& run_writers();

// The writers a run with these flags uses, in the order they run.
std::vector<const RunWriter*> run_writers_for(bool report_only, bool explain);

} // namespace hs::cli

#define HS_REGISTER_RUN_WRITER(id, ...)                                                                      \
  namespace {                                                                                                \
  [[maybe_unused]] const bool hs_run_writer_##id = ::hs::cli::run_writers().add(__VA_ARGS__);                \
  }
