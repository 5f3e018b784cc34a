#pragma once
// Pieces shared by the static replay (sim/simgrid_engine.cpp) and the run-time policy replay
// (sim/simgrid_dynamic.cpp). Internal to the engine: not for policies.
#include "sim/execution.hpp"
#include "sim/scenario.hpp"
#include "sim/simgrid_platform.hpp"

#include <cstring>
#include <functional>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs::replay {

// A stream (or copy engine) sleeps on its condition variable until what it waits for is ready.
// Most of the time it is ready already, so both sides skip the mutex then: a waiter re-checks the condition
// under the mutex before blocking and a notifier notifies under it, so no wake-up is lost.
struct Waitable {
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr cv = simgrid::s4u::ConditionVariable::create();
  int waiting = 0;

  template <class Ready> void wait_for(Ready ready) {
    if (ready()) return;
    ++waiting;
    std::unique_lock lock(*mutex);
    cv->wait(lock, ready);
    --waiting;
  }
  // Waits for `ready` and runs `take` with no simcall in between, so no other actor can take the same item
  // first (unlocking a mutex is a simcall: other actors run during it).
  template <class Ready, class Take> void take_when(Ready ready, Take take) {
    if (ready()) return take();
    ++waiting;
    std::unique_lock lock(*mutex);
    cv->wait(lock, ready);
    --waiting;
    take();
  }
  void notify() {
    if (waiting == 0) return;
    std::unique_lock lock(*mutex);
    cv->notify_all();
  }
};

// Creates this process's one SimGrid engine with HeteroSim's network and energy configuration, builds the
// platform (with the scenario's profiles), lets `setup` create the actors, runs, and returns `finish()`.
// `pairs` as build_simgrid_platform takes them (null: every pair, for a replay that places ops as it runs).
std::string simulate(const Platform& p, const Scenario& scenario,
                     const std::function<void(SimgridPlatform&)>& setup,
                     const std::function<std::string()>& finish,
                     const std::vector<std::pair<DeviceId, DeviceId>>* pairs = nullptr);

// Measured energy of the platform so far (call at the end of the simulation).
void collect_energy(const SimgridPlatform& sg, Execution& e);

// --- binary serialization across the fork -------------------------------------------------------
template <class T> void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T> void put_vector(std::string& out, const std::vector<T>& v) {
  put(out, static_cast<uint64_t>(v.size()));
  if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
template <class T> T get(const std::string& in, std::size_t& pos) {
  if (pos + sizeof(T) > in.size()) throw std::runtime_error("truncated replay result");
  T v;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return v;
}
template <class T> std::vector<T> get_vector(const std::string& in, std::size_t& pos) {
  const auto n = get<uint64_t>(in, pos);
  if (n > (in.size() - pos) / sizeof(T)) throw std::runtime_error("truncated replay result");
  std::vector<T> v(n);
  if (n > 0) std::memcpy(v.data(), in.data() + pos, n * sizeof(T)); // an empty vector's data() may be null
  pos += n * sizeof(T);
  return v;
}

} // namespace hs::replay
