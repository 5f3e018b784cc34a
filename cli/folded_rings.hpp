#pragma once
// `--parallel dp=D,replicas=R`: whether the R replicas built, their gradients' rings folded onto them, take
// the time the whole run of D would. It does where every hop of the whole run's rings is alike (the same
// number of links, latency and bandwidth) and as shared as every hop of the folded rings: then each built
// rank's links carry what they carry in the whole run.
#include "cli/parallel_option.hpp"
#include "sim/platform.hpp"

namespace hs::cli {

// Throws InputError naming "--parallel" and "replicas" where the fold would not stand for the whole run,
// with the two kinds of hop that differ. The whole run's devices are the platform's first D x tp x pp GPUs.
void check_folded_rings(const ParallelSetup& s, const Platform& platform);

} // namespace hs::cli
