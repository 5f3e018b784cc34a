#include "sim/json_input.hpp"

#include "sim/op_kinds.hpp"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace hs {

namespace {
std::string line_and_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}
} // namespace

bool path_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) && !ec;
}

bool looks_like_a_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return true;
  if (name.find(':') != std::string::npos) return false;
  const auto dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dot) + 1, name.end(),
                     [](unsigned char c) { return std::isalnum(c) != 0; }) &&
         std::isalpha(static_cast<unsigned char>(name[dot + 1])) != 0;
}

Json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_json_text(buffer.str(), path);
}

Json parse_json_text(const std::string& text, const std::string& label) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // Translate nlohmann's byte offset (one past the error) into a line and column people can jump to.
    std::string what = e.what();
    if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
    throw InputError(label, line_and_column(text, e.byte > 0 ? e.byte - 1 : 0), "invalid JSON: " + what);
  } catch (const Json::out_of_range& e) {
    // A number literal no double holds ("number overflow parsing '1e400'"): nlohmann gives no offset, so
    // find the literal it quotes.
    const std::string what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    std::string place;
    if (open != std::string::npos && close > open) {
      const std::string literal = what.substr(open + 1, close - open - 1);
      if (const auto at = text.find(literal); at != std::string::npos) place = line_and_column(text, at);
      throw InputError(label, place, "number " + literal + " is out of range (larger than any double)");
    }
    throw InputError(label, place, "a number is out of range (larger than any double)");
  }
}

void JsonNode::fail(const std::string& what) const {
  throw InputError(file_, path_, what);
}

void JsonNode::expect_object() const {
  if (!value_->is_object()) fail("expected an object");
}

bool JsonNode::has(const std::string& key) const {
  return value_->is_object() && value_->contains(key);
}

JsonNode JsonNode::at(const std::string& key) const {
  expect_object();
  auto it = value_->find(key);
  if (it == value_->end()) fail("missing required field '" + key + "'");
  return JsonNode(*it, file_, path_.empty() ? key : path_ + "." + key);
}

std::optional<JsonNode> JsonNode::find(const std::string& key) const {
  expect_object();
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return JsonNode(*it, file_, path_.empty() ? key : path_ + "." + key);
}

std::vector<JsonNode> JsonNode::items() const {
  if (!value_->is_array()) fail("expected an array");
  std::vector<JsonNode> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i)
    out.emplace_back((*value_)[i], file_, path_ + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::pair<std::string, JsonNode>> JsonNode::members() const {
  expect_object();
  std::vector<std::pair<std::string, JsonNode>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it)
    out.emplace_back(it.key(),
                     JsonNode(it.value(), file_, path_.empty() ? it.key() : path_ + "." + it.key()));
  return out;
}

std::string JsonNode::as_string() const {
  if (!value_->is_string()) fail("expected a string");
  return value_->get<std::string>();
}

double JsonNode::as_number() const {
  if (!value_->is_number()) fail("expected a number");
  const double v = value_->get<double>();
  if (!std::isfinite(v)) fail("expected a finite number");
  // A subnormal value (below 2.2e-308) is no quantity anyone means; dividing by it overflows.
  if (v != 0 && std::abs(v) < DBL_MIN)
    fail("is too close to zero to be meaningful (got " + value_->dump() + ")");
  return v;
}

double JsonNode::as_quantity(units::Quantity q, bool allow_negative) const {
  double v = 0;
  if (value_->is_number()) {
    v = as_number();
  } else if (value_->is_string()) {
    try {
      v = units::parse(value_->get<std::string>(), q);
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  } else {
    fail("expected a " + std::string(units::name(q)));
  }
  if (!allow_negative && v < 0) fail("must not be negative (got " + value_->dump() + ")");
  return v;
}

long long JsonNode::as_integer(long long min, long long max) const {
  if (!value_->is_number_integer()) fail("expected an integer");
  const auto v = value_->get<long long>();
  if (v < min || v > max)
    fail("must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " +
         std::to_string(v) + ")");
  return v;
}

double JsonNode::as_fraction() const {
  const double v = as_number();
  if (v <= 0 || v > 1) fail("must be in (0, 1] (got " + value_->dump() + ")");
  return v;
}

bool JsonNode::as_bool() const {
  if (!value_->is_boolean()) fail("expected true or false");
  return value_->get<bool>();
}

std::vector<std::string> JsonNode::as_string_list() const {
  std::vector<std::string> out;
  for (const auto& item : items())
    out.push_back(item.as_string());
  return out;
}

std::string JsonNode::as_op_kind(bool allow_default) const {
  const std::string k = as_string();
  if (!(allow_default && k == "default") && !is_known_op_kind(k)) fail(unknown_op_kind_message(k));
  return k;
}

void JsonNode::expect_op_kind_key(const std::string& kind, bool allow_default) const {
  if (!(allow_default && kind == "default") && !is_known_op_kind(kind)) fail(unknown_op_kind_message(kind));
}

std::string JsonNode::string_or(const std::string& key, const std::string& fallback) const {
  auto n = find(key);
  return n ? n->as_string() : fallback;
}

double JsonNode::quantity_or(const std::string& key, units::Quantity q, double fallback) const {
  auto n = find(key);
  return n ? n->as_quantity(q) : fallback;
}

void JsonNode::expect_format(const std::string& format, bool format_required) const {
  const std::string found = format_required ? at("format").as_string() : string_or("format", format);
  if (found != format) at("format").fail("expected format \"" + format + "\"");
  if (at("version").as_integer(1, 1000) != 1) at("version").fail("unsupported version (this build reads 1)");
}

void JsonNode::expect_only(std::initializer_list<const char*> known) const {
  expect_object();
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    bool ok = false;
    for (const char* k : known)
      ok = ok || it.key() == k;
    if (!ok) {
      std::string list;
      for (const char* k : known)
        list += std::string(list.empty() ? "" : ", ") + k;
      fail("unknown field '" + it.key() + "' (known: " + list + ")");
    }
  }
}

void write_file_atomically(const std::string& path, const std::string& text, bool overwrite) {
  namespace fs = std::filesystem;
  if (!overwrite && path_exists(path))
    throw InputError(path, "", "already exists; pass --force to overwrite");
  const fs::path target(path);
  if (target.has_parent_path()) {
    std::error_code made;
    fs::create_directories(target.parent_path(), made);
    if (made) throw InputError(path, "", "cannot create its directory: " + made.message());
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(tmp, "", "cannot write file");
    out << text;
    out.flush();
    if (!out) throw InputError(tmp, "", "write failed (disk full?)");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp);
    throw InputError(path, "", "cannot move finished file into place: " + ec.message());
  }
}

} // namespace hs
