// The scheduler names and the request CSV's header, which the CLI and the simulation share.
#include "serving/request_simulation.hpp"

#include <stdexcept>

namespace hs::serving {

Discipline discipline_named(const std::string& name) {
  if (name == "fifo") return Discipline::Fifo;
  if (name == "priority") return Discipline::Priority;
  if (name == "edf") return Discipline::Edf;
  if (name == "least-slack") return Discipline::LeastSlack;
  throw std::invalid_argument("unknown scheduler '" + name + "' (fifo, priority, edf, least-slack)");
}

std::string requests_csv_header() {
  return "id,tenant,arrival_s,start_s,end_s,latency_s,status\n";
}

} // namespace hs::serving
