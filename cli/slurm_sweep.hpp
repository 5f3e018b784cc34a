#pragma once
// A sweep on an existing Slurm cluster: a job array whose task K runs shard K of the points
// (`heterosim sweep OUT/sweep.json --out OUT --shard K/N`), and a merge job that starts once every task has
// succeeded and writes the table and plots (`--merge`). Both are plain sbatch scripts in OUT/slurm/, so
// they can be read, edited and resubmitted by hand.
#include <string>
#include <vector>

namespace hs::cli {

struct SlurmOptions {
  int shards = 1;
  bool wait = false;                       // block until the merge job ends (sbatch --wait)
  std::vector<std::string> sbatch_options; // passed to both sbatch calls, e.g. --partition=debug
  bool quiet = false;
};

// Writes the two scripts and submits them; returns 0, or with `wait` the merge job's exit status. The sweep
// file must already be in OUT/sweep.json. Throws InputError when sbatch is not on PATH.
int submit_sweep_to_slurm(const std::string& executable, const std::string& out, const SlurmOptions& options);

} // namespace hs::cli
