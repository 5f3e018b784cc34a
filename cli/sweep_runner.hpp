#pragma once
// Runs a sweep's points as `heterosim run` child processes, a few at a time, into one directory per point.
//
// A point is finished when its directory OUT/points/pNNNN exists: each runs in pNNNN.partial and is
// renamed when its process has ended and its outcome is written, so an interrupted sweep leaves no
// half-written point, and running it again skips the finished ones and starts the others afresh. A shard
// (K of N) runs the points whose index is K modulo N, so Slurm array tasks never touch each other's points.
#include "cli/sweep_spec.hpp"

#include <string>
#include <vector>

namespace hs::cli {

struct SweepRunOptions {
  std::string out;
  int jobs = 1;
  int shard = 0, shards = 1;
  bool quiet = false;
};

// OUT/points/pNNNN: the digits cover the largest index (at least four).
std::string point_directory(const std::string& out, const SweepSpec& spec, std::size_t index);
bool point_finished(const std::string& out, const SweepSpec& spec, std::size_t index);

// The command line of a point's run, with `out_dir` as its --out and `platform_file` replacing the platform
// when the point's platform is patched.
std::vector<std::string> point_command(const SweepPoint& p, const std::string& executable,
                                       const std::string& platform_file, const std::string& out_dir);

// Runs the shard's unfinished points; returns how many ran.
std::size_t run_sweep_points(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                             const SweepRunOptions& options);

} // namespace hs::cli
