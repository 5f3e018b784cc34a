#include "validation/op_times.hpp"

#include "sim/error.hpp"
#include "sim/nearest_name.hpp"
#include "sim/op_kinds.hpp"
#include "validation/csv_table.hpp"
#include "validation/profiler_trace.hpp"

#include <algorithm>
#include <cstdio>

namespace hs::validation {

namespace {

const std::vector<std::string>& known_columns() {
  static const std::vector<std::string> columns = {"index", "kind", "op", "pass", "seconds"};
  return columns;
}

void check_header(const CsvTable& t) {
  for (const auto& c : t.columns())
    if (std::find(known_columns().begin(), known_columns().end(), c) == known_columns().end())
      throw InputError(t.file(), "line 1, column " + c,
                       "unknown column" + did_you_mean(c, known_columns()) +
                           " (known: " + name_list(known_columns()) + ")");
  for (const char* needed : {"kind", "seconds"})
    if (!t.has(needed)) throw InputError(t.file(), "line 1", std::string("no column '") + needed + "'");
  if (!t.has("op") && !t.has("index"))
    throw InputError(t.file(), "line 1", "no column 'op' or 'index' (one of them names each op)");
}

std::string place(const CsvTable& t, std::size_t row, const std::string& column) {
  return "line " + std::to_string(t.line(row)) + ", column " + column;
}

// A whole number in [0, 2^53), as a workload op id or a pass number.
long long whole_number(const CsvTable& t, std::size_t row, const std::string& column) {
  const double v = t.number(row, column);
  if (v < 0 || v != static_cast<double>(static_cast<long long>(v)) || v >= 9007199254740992.0)
    throw InputError(t.file(), place(t, row, column),
                     "expected a whole number >= 0, found '" + t.text(row, column) + "'");
  return static_cast<long long>(v);
}

OpTimeRow read_row(const CsvTable& t, std::size_t r) {
  OpTimeRow row;
  row.where = "line " + std::to_string(t.line(r));
  if (t.has("op")) row.op = t.text(r, "op");
  if (t.has("index") && !t.empty(r, "index")) row.index = whole_number(t, r, "index");
  if (row.op.empty() && row.index < 0)
    throw InputError(t.file(), place(t, r, t.has("op") ? "op" : "index"), "names no op (empty)");
  row.kind = t.text(r, "kind");
  if (!is_known_op_kind(row.kind))
    throw InputError(t.file(), place(t, r, "kind"), unknown_op_kind_message(row.kind));
  row.seconds = t.number(r, "seconds");
  if (!(row.seconds > 0))
    throw InputError(t.file(), place(t, r, "seconds"),
                     "a measured time must be positive, found '" + t.text(r, "seconds") + "'");
  if (t.has("pass")) row.pass = whole_number(t, r, "pass");
  return row;
}

} // namespace

OpTimes load_op_times(const std::string& path) {
  const CsvTable t = CsvTable::read(path);
  check_header(t);
  OpTimes times;
  times.file = path;
  times.noun = "times file";
  times.has_pass = t.has("pass");
  for (std::size_t r = 0; r < t.rows(); ++r)
    times.rows.push_back(read_row(t, r));
  if (times.rows.empty()) throw InputError(path, "line 2", "holds no measured op");
  return times;
}

OpTimes op_times_from_trace(const std::string& path) {
  OpTimes times;
  times.file = path;
  times.noun = "trace";
  const ProfilerTrace trace = read_profiler_trace(path);
  const auto ops = trace_work_ops(trace.ops);
  times.device_events = trace.device_events;
  times.unattributed_device_events = trace.unattributed;
  times.device_times = trace.device_events > trace.unattributed;
  if (times.device_times) times.issue_seconds = trace_issue_seconds(trace.ops);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    OpTimeRow row;
    row.op = ops[i].name;
    row.kind = ops[i].kind == "pool" ? "pooling" : ops[i].kind;
    row.seconds = ops[i].seconds;
    row.where = "top-level op " + std::to_string(i);
    times.rows.push_back(std::move(row));
  }
  if (times.rows.empty()) throw InputError(path, "", "holds no top-level op of a known kind that does work");
  return times;
}

std::string op_times_csv(const std::vector<OpTimeRow>& rows) {
  const auto quoted = [](const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s)
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out = "op,index,kind,seconds,pass\n";
  char number[64];
  for (const auto& r : rows) {
    std::snprintf(number, sizeof number, "%.17g", r.seconds);
    out += quoted(r.op) + "," + (r.index < 0 ? "" : std::to_string(r.index)) + "," + r.kind + "," + number +
           "," + std::to_string(std::max(0LL, r.pass)) + "\n";
  }
  return out;
}

} // namespace hs::validation
