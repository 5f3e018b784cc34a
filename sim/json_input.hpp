#pragma once
// Reads user JSON with a path for every value, so each error says "file: devices[2].memory.capacity: ...".
#include "sim/error.hpp"
#include "sim/units.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs {

using Json = nlohmann::json;

// Parses a whole file; syntax errors name the line and column.
Json read_json_file(const std::string& path);
// Parses JSON text; syntax errors and numbers too large for a double (1e400) become an InputError naming
// `label` and the line and column.
Json parse_json_text(const std::string& text, const std::string& label);

class JsonNode {
public:
  JsonNode(const Json& value, std::string file, std::string path)
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const Json& raw() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

  bool has(const std::string& key) const;
  JsonNode at(const std::string& key) const; // required member
  std::optional<JsonNode> find(const std::string& key) const;
  std::vector<JsonNode> items() const; // array elements
  std::vector<std::pair<std::string, JsonNode>> members() const;

  std::string as_string() const;
  double as_number() const;
  // A number or a string with a unit; negative values are refused unless allow_negative.
  double as_quantity(units::Quantity q, bool allow_negative = false) const;
  long long as_integer(long long min, long long max) const;
  bool as_bool() const;
  // A number in (0, 1]: efficiencies and other shares of a peak.
  double as_fraction() const;
  std::vector<std::string> as_string_list() const;
  // A string naming a known op kind (sim/op_kinds.hpp), or "default" when `allow_default`.
  std::string as_op_kind(bool allow_default = false) const;
  // Fails naming this node when `kind` (a member name used as an op kind) is unknown.
  void expect_op_kind_key(const std::string& kind, bool allow_default) const;

  std::string string_or(const std::string& key, const std::string& fallback) const;
  double quantity_or(const std::string& key, units::Quantity q, double fallback) const;

  // Checks the "format" name (required, or optional for hand-written inputs) and that "version" is 1, the
  // only version this build reads.
  void expect_format(const std::string& format, bool format_required) const;

  // Refuses members not in `known`, catching typos such as "bandwith".
  void expect_only(std::initializer_list<const char*> known) const;

  [[noreturn]] void fail(const std::string& what) const;

private:
  void expect_object() const;
  const Json* value_;
  std::string file_;
  std::string path_;
};

// Whether `path` names something on disk. Never throws: a name the system refuses (too long, a bad
// component) does not exist, so callers go on to their own clear error instead of a filesystem_error.
bool path_exists(const std::string& path);
// Whether a name the user gave is meant as a file: it has a directory part, or (without a builder's ':')
// ends with an extension of letters ("graph.json", "model.onnx"). Then a missing one is a missing file.
bool looks_like_a_path(const std::string& name);

// Writes text to `path` atomically (temporary file then rename); refuses to replace an existing file
// unless `overwrite`.
void write_file_atomically(const std::string& path, const std::string& text, bool overwrite);

} // namespace hs
