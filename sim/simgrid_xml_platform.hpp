#pragma once
// SimGrid platform files (DTD version 4.1, as SimGrid 3.32 reads them) as HeteroSim platforms, where they map
// cleanly onto devices: `--platform file.xml`. One <zone> with Full, Floyd or None routing, or one flat
// <cluster>; hosts become devices, links keep their bandwidth, latency and sharing (SPLITDUPLEX, SHARED), and
// every pair of hosts gets the route SimGrid would give it. What SimGrid does not describe (memory, the
// device kind, precisions) comes from <prop id="heterosim.*"> on the host or from documented defaults
// (platforms/README.md, "SimGrid platforms"). Anything else (nested zones, FATPIPE links, traces, Dijkstra
// routing, disks) is refused with the file and line.
#include "sim/json_input.hpp"

#include <string>

namespace hs {

// Whether load_platform() reads `path` as a SimGrid platform (its name ends in .xml).
bool is_simgrid_xml_path(const std::string& path);

// The platform document (format heterosim-platform) the SimGrid file at `path` describes; InputError naming
// the file and line for anything it cannot map.
Json simgrid_xml_platform(const std::string& path);

} // namespace hs
