#include "sim/replay_process.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace hs::replay {
namespace {

// The pipe to the parent while this process is a replay child; -1 otherwise.
int g_result_fd = -1;

// The child's message: one tag byte, then the payload. 'R' a result, 'E' an error message.
constexpr char kResult = 'R';
constexpr char kError = 'E';

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(3);
    done += static_cast<std::size_t>(w);
  }
}

} // namespace

void fail_child(const std::string& message) {
  if (g_result_fd >= 0) {
    write_all(g_result_fd, std::string(1, kError));
    write_all(g_result_fd, message);
    ::close(g_result_fd);
  } else {
    std::fprintf(stderr, "heterosim: SimGrid replay failed: %s\n", message.c_str());
    std::fflush(stderr);
  }
  _exit(2);
}

std::string run_in_child(const std::function<std::string()>& body) {
  // Unflushed output would otherwise be written twice, once by the child.
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(fds[0]);
    g_result_fd = fds[1];
    try {
      const std::string result = body();
      write_all(fds[1], std::string(1, kResult));
      write_all(fds[1], result);
    } catch (const std::exception& ex) {
      fail_child(ex.what());
    }
    ::close(fds[1]);
    _exit(0); // skip static destructors the parent still owns
  }
  ::close(fds[1]);
  std::string data;
  char buf[1 << 16];
  for (;;) {
    const ssize_t r = ::read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    data.append(buf, static_cast<std::size_t>(r));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!data.empty() && data.front() == kError)
    throw std::runtime_error("the SimGrid replay failed: " + data.substr(1));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty() || data.front() != kResult)
    throw std::runtime_error("the SimGrid replay process failed (" +
                             (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                                  : "exit code " + std::to_string(WEXITSTATUS(status))) +
                             ") without a message");
  return data.substr(1);
}

} // namespace hs::replay
