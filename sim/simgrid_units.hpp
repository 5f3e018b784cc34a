#pragma once
// Quantities as SimGrid's platform files write them (SimGrid 3.32, src/xbt/xbt_parse_units.cpp), which differ
// from HeteroSim's own (sim/units.hpp): a number read in the C locale immediately followed by a unit,
//   speed      f, kf, Mf, Gf, Tf, Pf, Ef, Zf, Yf, and flops, kiloflops, ... yottaflops   (flop/s)
//   bandwidth  Bps and bps (bits), each with k, M, G, T, P, E, Z, Y (x1000) or Ki, Mi, ... Yi (x1024)
//   size       B and b (bits), with the same prefixes
//   time       w, d, h, m (minute), s, ms, us, ns, ps
// A bare number is read in the base unit (f, Bps, B, s), as SimGrid reads it (with a deprecation warning).
// Unlike SimGrid, a value that is not finite ("inf", "nan", "1e999Gf") or is negative is refused: nothing
// downstream could use it.
#include <string>
#include <vector>

namespace hs::simgrid_units {

// Each throws std::invalid_argument saying what is wrong with `text`; the caller adds the file and line.
double speed(const std::string& text);
double bandwidth(const std::string& text);
double size(const std::string& text);
double time(const std::string& text);
// A host's speed per p-state: a comma-separated list of speeds (spaces around each allowed).
std::vector<double> speeds(const std::string& text);

} // namespace hs::simgrid_units
