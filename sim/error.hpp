#pragma once
// Errors about user input carry where the problem is, so the CLI can say "file: place: what".
#include <stdexcept>
#include <string>

namespace hs {

class InputError : public std::runtime_error {
public:
  InputError(std::string file, std::string place, const std::string& what)
      : std::runtime_error(format(file, place, what)), file_(std::move(file)), place_(std::move(place)),
        detail_(what) {}

  const std::string& file() const { return file_; }
  const std::string& place() const { return place_; }
  // The message without its "file: place: " prefix, to re-raise at another place.
  const std::string& detail() const { return detail_; }

private:
  static std::string format(const std::string& file, const std::string& place, const std::string& what) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (!place.empty()) s += ": " + place;
    return s + ": " + what;
  }
  std::string file_;
  std::string place_;
  std::string detail_;
};

} // namespace hs
