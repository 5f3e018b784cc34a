#include "workloads/dot_import.hpp"

#include "sim/error.hpp"
#include "sim/graph_builder.hpp"
#include "sim/op_kinds.hpp"
#include "workloads/workload_registry.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>

namespace hs {
namespace {

struct Token {
  enum Kind { Id, Punct, End } kind;
  std::string text;
  int line;
};

class Lexer {
public:
  Lexer(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  Token next() {
    skip_space_and_comments();
    if (pos_ >= s_.size()) return {Token::End, "", line_};
    const char c = s_[pos_];
    if (c == '"') return quoted();
    if (c == '<') fail("HTML-like labels are not supported");
    if (c == '-' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '>' || s_[pos_ + 1] == '-')) {
      pos_ += 2;
      return {Token::Punct, s_.substr(pos_ - 2, 2), line_};
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
        static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t start = pos_;
      while (pos_ < s_.size()) {
        const auto d = static_cast<unsigned char>(s_[pos_]);
        if (!(std::isalnum(d) || d == '_' || d == '.' || d >= 0x80 || (d == '-' && pos_ == start))) break;
        ++pos_;
      }
      return {Token::Id, s_.substr(start, pos_ - start), line_};
    }
    if (std::string("{}[]=;,:").find(c) != std::string::npos) {
      ++pos_;
      return {Token::Punct, std::string(1, c), line_};
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file_, "line " + std::to_string(line_), what);
  }

private:
  void skip_space_and_comments() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '#' && only_space_before_on_line()) { // C preprocessor output lines
        while (pos_ < s_.size() && s_[pos_] != '\n')
          ++pos_;
      } else if (s_.compare(pos_, 2, "//") == 0) {
        while (pos_ < s_.size() && s_[pos_] != '\n')
          ++pos_;
      } else if (s_.compare(pos_, 2, "/*") == 0) {
        const int start_line = line_;
        const std::size_t end = s_.find("*/", pos_ + 2);
        if (end == std::string::npos) {
          line_ = start_line;
          fail("comment is never closed");
        }
        for (std::size_t i = pos_; i < end; ++i)
          line_ += s_[i] == '\n';
        pos_ = end + 2;
      } else {
        break;
      }
    }
  }

  bool only_space_before_on_line() const {
    for (std::size_t i = pos_; i-- > 0 && s_[i] != '\n';)
      if (!std::isspace(static_cast<unsigned char>(s_[i]))) return false;
    return true;
  }

  Token quoted() {
    const int start_line = line_;
    std::string out;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
        if (s_[pos_ + 1] == '\n') { // line continuation
          ++line_;
          pos_ += 2;
          continue;
        }
        if (s_[pos_ + 1] == '"') {
          out += '"';
          pos_ += 2;
          continue;
        }
      }
      line_ += s_[pos_] == '\n';
      out += s_[pos_++];
    }
    if (pos_ >= s_.size()) {
      line_ = start_line;
      fail("string is never closed");
    }
    ++pos_;
    // "a" + "b" concatenation
    skip_space_and_comments();
    if (pos_ < s_.size() && s_[pos_] == '+') {
      ++pos_;
      skip_space_and_comments();
      if (pos_ < s_.size() && s_[pos_] == '"') out += quoted().text;
    }
    return {Token::Id, out, start_line};
  }

  const std::string& s_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

using Attributes = std::map<std::string, std::pair<std::string, int>>; // value and its line

class DotParser {
public:
  DotParser(const std::string& text, const std::string& file) : lex_(text, file), file_(file) { advance(); }

  Graph parse() {
    if (is_id("strict")) advance();
    if (is_id("graph")) lex_.fail("an undirected graph: a DAG needs 'digraph'");
    if (!is_id("digraph")) lex_.fail("expected 'digraph'");
    advance();
    std::string name = "dot-graph";
    if (tok_.kind == Token::Id) {
      name = tok_.text;
      advance();
    }
    builder_ = std::make_unique<GraphBuilder>(name, file_);
    expect("{");
    while (!is_punct("}")) {
      if (tok_.kind == Token::End) lex_.fail("the graph is never closed with '}'");
      statement();
      if (is_punct(";")) advance();
    }
    advance();
    if (tok_.kind != Token::End) lex_.fail("unexpected text after the graph's closing '}'");
    // Repeated edges between the same two nodes are separate transfers, named a->b#1, a->b#2, ...
    std::map<std::pair<OpId, OpId>, int> count, seen;
    for (const Edge& e : edges_)
      ++count[{e.from, e.to}];
    for (const Edge& e : edges_) {
      const std::string edge_name =
          builder_->mutable_op(e.from).name + "->" + builder_->mutable_op(e.to).name;
      const int n = ++seen[{e.from, e.to}];
      builder_->tensor(count[{e.from, e.to}] > 1 ? edge_name + "#" + std::to_string(n) : edge_name, e.bytes,
                       e.from, {e.to});
    }
    return std::move(*builder_).build(); // its errors (a cycle) already name the file
  }

private:
  struct Edge {
    OpId from, to;
    double bytes;
  };

  void advance() { tok_ = lex_.next(); }
  bool is_id(const char* s) const { return tok_.kind == Token::Id && tok_.text == s; }
  bool is_punct(const char* s) const { return tok_.kind == Token::Punct && tok_.text == s; }
  void expect(const char* s) {
    if (!is_punct(s))
      lex_.fail(std::string("expected '") + s + "'" +
                (tok_.kind == Token::End ? " before the end" : ", found '" + tok_.text + "'"));
    advance();
  }
  std::string id() {
    if (tok_.kind != Token::Id)
      lex_.fail("expected a name" +
                (tok_.kind == Token::End ? std::string(" before the end") : ", found '" + tok_.text + "'"));
    std::string s = tok_.text;
    advance();
    return s;
  }

  Attributes attributes() {
    Attributes a;
    while (is_punct("[")) {
      advance();
      while (!is_punct("]")) {
        const int line = tok_.line;
        const std::string key = id();
        expect("=");
        a[key] = {id(), line};
        if (is_punct(",") || is_punct(";")) advance();
      }
      advance();
    }
    return a;
  }

  // `key` from the statement's own attributes, else from the defaults (`node [...]`, `edge [...]`). With
  // `negative_is_zero`, a negative value reads as 0 (SimGrid's DOT files mark a plain dependency, an edge
  // that moves no data, with size="-1").
  double number(const Attributes& a, const char* key, double fallback, const Attributes& defaults,
                bool negative_is_zero = false) const {
    auto it = a.find(key);
    if (it == a.end()) {
      it = defaults.find(key);
      if (it == defaults.end()) return fallback;
    }
    const auto& [text, line] = it->second;
    double x = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(x) ||
        (x < 0 && !negative_is_zero))
      throw InputError(file_, "line " + std::to_string(line),
                       std::string(key) + " must be a " + (negative_is_zero ? "finite" : "non-negative") +
                           " number, not '" + text + "'");
    return std::max(x, 0.0);
  }

  OpId node(const std::string& name, int line) {
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    if (name.empty()) throw InputError(file_, "line " + std::to_string(line), "a node needs a name");
    const OpId id = builder_->op(name).id();
    ids_[name] = id;
    apply(id, node_defaults_, {});
    return id;
  }

  void apply(OpId id, const Attributes& a, const Attributes& defaults) {
    Op& o = builder_->mutable_op(id);
    if (a.count("size") || defaults.count("size")) o.flops = number(a, "size", 0, defaults);
    auto text = [&](const char* key, std::string& field) {
      if (auto it = a.find(key); it != a.end())
        field = it->second.first;
      else if (auto d = defaults.find(key); d != defaults.end())
        field = d->second.first;
    };
    text("kind", o.kind);
    if (!is_known_op_kind(o.kind)) {
      const auto it = a.count("kind") ? a.find("kind") : defaults.find("kind");
      throw InputError(file_, "line " + std::to_string(it->second.second), unknown_op_kind_message(o.kind));
    }
    text("precision", o.precision);
  }

  void statement() {
    if (is_id("subgraph") || is_punct("{")) lex_.fail("subgraphs are not supported");
    if (is_id("node") || is_id("edge") || is_id("graph")) {
      const std::string which = id();
      Attributes a = attributes();
      Attributes& target = which == "node"   ? node_defaults_
                           : which == "edge" ? edge_defaults_
                                             : graph_attributes_;
      for (auto& [k, v] : a)
        target[k] = v;
      return;
    }
    const int line = tok_.line;
    std::string first = id();
    if (is_punct("=")) { // graph attribute: ID = ID
      advance();
      id();
      return;
    }
    if (is_punct(":")) lex_.fail("node ports are not supported");
    std::vector<std::pair<std::string, int>> chain{{first, line}};
    while (is_punct("->") || is_punct("--")) {
      if (is_punct("--")) lex_.fail("'--' is an undirected edge: use '->'");
      advance();
      const int l = tok_.line;
      chain.emplace_back(id(), l);
    }
    const Attributes a = attributes();
    if (chain.size() == 1) {
      apply(node(first, line), a, {});
      return;
    }
    const double bytes = number(a, "size", 0, edge_defaults_, true);
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      const OpId from = node(chain[i].first, chain[i].second),
                 to = node(chain[i + 1].first, chain[i + 1].second);
      if (from == to)
        throw InputError(file_, "line " + std::to_string(chain[i + 1].second),
                         "edge from '" + chain[i].first + "' to itself");
      edges_.push_back(Edge{from, to, bytes});
    }
  }

  Lexer lex_;
  std::string file_;
  Token tok_{Token::End, "", 0};
  std::unique_ptr<GraphBuilder> builder_;
  std::unordered_map<std::string, OpId> ids_;
  Attributes node_defaults_, edge_defaults_, graph_attributes_;
  std::vector<Edge> edges_;
};

} // namespace

Graph parse_dot(const std::string& text, const std::string& file_label) {
  return DotParser(text, file_label).parse();
}

Graph load_dot(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return parse_dot(s.str(), path);
}

} // namespace hs

HS_REGISTER_WORKLOAD_FILE_FORMAT(
    dot, hs::WorkloadFileFormat{".dot",
                                "Graphviz DOT, SimGrid DAG convention (node size = FLOPs, edge size = bytes)",
                                hs::load_dot})
