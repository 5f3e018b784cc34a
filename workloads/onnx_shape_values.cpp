#include "workloads/onnx_shape_values.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hs::onnx_import {
namespace {

using Values = std::vector<std::int64_t>; // a scalar or a 1-D integer tensor, flattened
constexpr std::size_t kMaxValues = 64;    // shape vectors are short; anything longer is data, not a shape

std::optional<Values> integer_values(const onnx::TensorProto& t) {
  Values v;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (t.int64_data_size() > 0)
      v.assign(t.int64_data().begin(), t.int64_data().end());
    else if (t.raw_data().size() % 8 == 0 && t.raw_data().size() <= kMaxValues * 8) {
      // An empty raw_data has a null data(); memcpy must not see it, even for zero bytes.
      if (t.raw_data().empty()) return v;
      v.resize(t.raw_data().size() / 8);
      std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
    }
  } else if (t.data_type() == onnx::TensorProto::INT32) {
    if (t.int32_data_size() > 0)
      v.assign(t.int32_data().begin(), t.int32_data().end());
    else if (t.raw_data().size() % 4 == 0 && t.raw_data().size() <= kMaxValues * 4) {
      if (t.raw_data().empty()) return v;
      std::vector<std::int32_t> w(t.raw_data().size() / 4);
      std::memcpy(w.data(), t.raw_data().data(), t.raw_data().size());
      v.assign(w.begin(), w.end());
    }
  } else {
    return std::nullopt;
  }
  if (v.size() > kMaxValues) return std::nullopt;
  return v;
}

std::optional<Values> known_dims(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  Values dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

// Integer arithmetic on values read from the file: a result that overflows is not a shape, so it is unknown
// (nullopt) instead of undefined behaviour.
using Checked = std::optional<std::int64_t>;
using BinaryOp = std::function<Checked(std::int64_t, std::int64_t)>;
Checked checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::nullopt : Checked(r);
}
Checked checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_sub_overflow(a, b, &r) ? std::nullopt : Checked(r);
}
Checked checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::nullopt : Checked(r);
}
Checked checked_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return std::int64_t{0};
  if (b == -1) return checked_sub(0, a);
  return a / b;
}

// Elementwise with numpy broadcasting between a scalar (or one-element) side and a vector.
std::optional<Values> elementwise(const Values& a, const Values& b, const BinaryOp& f) {
  if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return std::nullopt;
  Values out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Checked r = f(a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]);
    if (!r) return std::nullopt;
    out[i] = *r;
  }
  return out;
}

std::int64_t int_attribute(const onnx::NodeProto& n, const char* name, std::int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

class ShapeValues {
public:
  explicit ShapeValues(const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) {
      if (auto v = integer_values(t)) values_[t.name()] = *v;
      Values dims(t.dims().begin(), t.dims().end());
      dims_[t.name()] = dims;
      types_[t.name()] = t.data_type();
    }
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (const auto& v : *list) {
        if (auto d = known_dims(v.type())) dims_[v.name()] = *d;
        if (v.type().has_tensor_type()) types_[v.name()] = v.type().tensor_type().elem_type();
      }
  }

  // The integer value `node` computes, if its inputs are known.
  std::optional<Values> evaluate(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") {
      for (const auto& a : n.attribute())
        if (a.name() == "value") return integer_values(a.t());
      return std::nullopt;
    }
    if (op == "Shape") return dims(n.input(0));
    if (op == "ConstantOfShape") return constant_of_shape(n);
    std::vector<const Values*> in;
    for (const auto& name : n.input()) {
      const Values* v = value(name);
      if (!v) return std::nullopt;
      in.push_back(v);
    }
    return evaluate(op, n, in);
  }

  std::optional<Values> evaluate(const std::string& op, const onnx::NodeProto& n,
                                 const std::vector<const Values*>& in) const {
    if (in.empty()) return std::nullopt;
    if (op == "Unsqueeze" || op == "Squeeze" || op == "Cast" || op == "Reshape" || op == "Identity")
      return *in[0];
    if (op == "Concat") {
      Values out;
      for (const Values* v : in)
        out.insert(out.end(), v->begin(), v->end());
      return out;
    }
    if (op == "Gather" && in.size() == 2 && int_attribute(n, "axis", 0) == 0) {
      Values out;
      for (std::int64_t i : *in[1]) {
        const auto size = static_cast<std::int64_t>(in[0]->size());
        if (i < -size || i >= size) return std::nullopt;
        out.push_back((*in[0])[static_cast<std::size_t>(i < 0 ? i + size : i)]);
      }
      return out;
    }
    if (in.size() == 2) {
      static const std::map<std::string, BinaryOp> binary = {
          {"Equal", [](std::int64_t a, std::int64_t b) { return Checked(std::int64_t{a == b}); }},
          {"Add", checked_add},
          {"Sub", checked_sub},
          {"Mul", checked_mul},
          {"Div", checked_div}};
      if (auto f = binary.find(op); f != binary.end()) return elementwise(*in[0], *in[1], f->second);
    }
    if (op == "Where" && in.size() == 3) {
      const std::size_t size = std::max({in[0]->size(), in[1]->size(), in[2]->size()});
      for (const Values* v : in)
        if (v->size() != size && v->size() != 1) return std::nullopt;
      const auto at = [](const Values& v, std::size_t i) { return v[v.size() == 1 ? 0 : i]; };
      Values out(size);
      for (std::size_t i = 0; i < size; ++i)
        out[i] = at(*in[0], i) ? at(*in[1], i) : at(*in[2], i);
      return out;
    }
    return std::nullopt;
  }

  // A tensor of the given shape filled with the attribute's value (default 0), when it is small.
  std::optional<Values> constant_of_shape(const onnx::NodeProto& n) const {
    const Values* shape = value(n.input(0));
    if (!shape) return std::nullopt;
    std::int64_t count = 1;
    for (std::int64_t d : *shape) {
      if (d < 0 || (d > 0 && count > static_cast<std::int64_t>(kMaxValues) / d)) return std::nullopt;
      count *= d;
    }
    std::int64_t fill = 0;
    for (const auto& a : n.attribute())
      if (a.name() == "value") {
        const auto v = integer_values(a.t());
        if (!v || v->size() != 1) return std::nullopt;
        fill = v->front();
      }
    return Values(static_cast<std::size_t>(count), fill);
  }

  void learn(const std::string& name, Values v) { values_[name] = std::move(v); }
  const Values* value(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }
  std::optional<Values> dims(const std::string& name) const {
    auto it = dims_.find(name);
    return it == dims_.end() ? std::nullopt : std::optional(it->second);
  }
  int type(const std::string& name) const {
    auto it = types_.find(name);
    return it == types_.end() ? 0 : it->second;
  }

private:
  std::map<std::string, Values> values_, dims_;
  std::map<std::string, int> types_;
};

// numpy broadcasting of `input` to `target`, aligned on the right; nullopt where they do not broadcast.
std::optional<Values> broadcast(const Values& input, const Values& target) {
  Values out(std::max(input.size(), target.size()), 1);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t a = k < input.size() ? input[input.size() - 1 - k] : 1;
    const std::int64_t b = k < target.size() ? target[target.size() - 1 - k] : 1;
    if (a != b && a != 1 && b != 1) return std::nullopt;
    out[out.size() - 1 - k] = a == 1 ? b : a;
  }
  return out;
}

// Slice's output shape (opset 10 and later: starts, ends, axes and steps as inputs).
std::optional<Values> slice_dims(const Values& dims, const std::vector<const Values*>& args) {
  if (args.size() < 2 || !args[0] || !args[1] || args[0]->size() != args[1]->size()) return std::nullopt;
  Values out = dims;
  const auto rank = static_cast<std::int64_t>(dims.size());
  for (std::size_t k = 0; k < args[0]->size(); ++k) {
    std::int64_t axis = static_cast<std::int64_t>(k);
    if (args.size() > 2) {
      if (!args[2] || args[2]->size() != args[0]->size()) return std::nullopt;
      axis = (*args[2])[k] < 0 ? (*args[2])[k] + rank : (*args[2])[k];
    }
    std::int64_t step = 1;
    if (args.size() > 3) {
      if (!args[3] || args[3]->size() != args[0]->size() || (*args[3])[k] == 0) return std::nullopt;
      step = (*args[3])[k];
    }
    if (axis < 0 || axis >= rank || step == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    const std::int64_t dim = dims[static_cast<std::size_t>(axis)];
    if (dim < 0) return std::nullopt;
    const auto clamp = [&](std::int64_t i) {
      if (i < 0) i += dim;
      return step > 0 ? std::clamp<std::int64_t>(i, 0, dim) : std::clamp<std::int64_t>(i, -1, dim - 1);
    };
    const std::int64_t start = clamp((*args[0])[k]), end = clamp((*args[1])[k]);
    const std::int64_t span = step > 0 ? end - start : start - end;
    const std::int64_t magnitude = step > 0 ? step : -step;
    out[static_cast<std::size_t>(axis)] = span <= 0 ? 0 : 1 + (span - 1) / magnitude;
  }
  return out;
}

// Reshape's output shape: 0 copies the input's dimension, one -1 takes what is left.
std::optional<Values> reshape_dims(const Values& dims, const Values& target) {
  Values out = target;
  std::int64_t total = 1, known = 1;
  for (std::int64_t d : dims) {
    const Checked product = checked_mul(total, d);
    if (!product) return std::nullopt;
    total = *product;
  }
  int infer = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0) {
      if (i >= dims.size()) return std::nullopt;
      out[i] = dims[i];
    }
    if (out[i] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
    } else if (out[i] > 0) {
      const Checked product = checked_mul(known, out[i]);
      if (!product) return std::nullopt;
      known = *product;
    } else {
      return std::nullopt;
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0) return std::nullopt;
    out[static_cast<std::size_t>(infer)] = total / known;
  }
  return out;
}

// The output shape of a shape-taking node whose shape arguments the graph computes.
std::optional<Values> computed_dims(const onnx::NodeProto& n, const ShapeValues& known) {
  if (n.input_size() < 2) return std::nullopt;
  const auto input = known.dims(n.input(0));
  if (!input) return std::nullopt;
  std::vector<const Values*> args;
  for (int i = 1; i < n.input_size(); ++i)
    args.push_back(n.input(i).empty() ? nullptr : known.value(n.input(i)));
  if (n.op_type() == "Expand" && args[0]) return broadcast(*input, *args[0]);
  if (n.op_type() == "Slice") return slice_dims(*input, args);
  if (n.op_type() == "Reshape" && args[0]) return reshape_dims(*input, *args[0]);
  return std::nullopt;
}

} // namespace

int add_computed_shapes(onnx::GraphProto& g) {
  ShapeValues known(g);
  int added = 0;
  for (const auto& n : g.node()) {
    if (n.output_size() != 1) continue;
    if (!known.dims(n.output(0)))
      if (const auto out = computed_dims(n, known)) {
        auto* info = g.add_value_info();
        info->set_name(n.output(0));
        auto* tensor = info->mutable_type()->mutable_tensor_type();
        tensor->set_elem_type(known.type(n.input(0)));
        for (std::int64_t d : *out)
          tensor->mutable_shape()->add_dim()->set_dim_value(d);
        ++added;
      }
    if (known.value(n.output(0))) continue;
    if (auto v = known.evaluate(n); v && v->size() <= kMaxValues) known.learn(n.output(0), std::move(*v));
  }
  return added;
}

} // namespace hs::onnx_import
