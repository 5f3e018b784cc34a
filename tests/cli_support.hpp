#pragma once
// Runs the built CLI (HS_CLI) as a user would, for the command-line tests.
#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace hs::test {

struct Outcome {
  int exit_code;
  std::string output; // stdout and stderr together
};

// `env`: assignments for the command's environment ("HETEROSIM_PLUGINS=/tmp/x"), or empty.
inline Outcome heterosim(const std::string& args, const std::string& env = "") {
  const std::string cmd = (env.empty() ? "" : env + " ") + std::string(HS_CLI) + " " + args + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe))
    out.append(buf, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, out};
}

// A fresh, empty directory for one test, unique to this process.
inline std::filesystem::path scratch_dir(const std::string& suite, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("heterosim-" + suite + "-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Writes `text` to `path` and returns the path, for inputs a test makes up.
inline std::filesystem::path write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

// The whole file, bytes as they are.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace hs::test
