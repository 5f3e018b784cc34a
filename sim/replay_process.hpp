#pragma once
// SimGrid keeps one engine per process, so each replay runs in a forked child that sends its result back
// through a pipe. The child's failure comes back too, with its message: the parent throws it, instead of
// reporting only "exit code 2". Internal to the engine.
#include <functional>
#include <string>

namespace hs::replay {

// Runs `body` in a forked child and returns the bytes it produced; throws std::runtime_error with the
// child's message if it failed (an exception, fail_child(), or a signal).
std::string run_in_child(const std::function<std::string()>& body);

// From inside a replay: reports `message` as the replay's failure and leaves at once, without unwinding
// through SimGrid actors that may still be blocked. In a child of run_in_child the parent gets the
// message; elsewhere it is printed.
[[noreturn]] void fail_child(const std::string& message);

} // namespace hs::replay
