//===- StepBindings.cpp - The bindings of a decode step ----------------===//

#include "runtime/run/StepBindings.h"

#include "runtime/sim/DataTypes.h"

namespace hetc::run {

/// The output a `past*` input's next value comes from: `present*` for
/// `past*`, and `present.*` for Hugging Face's `past_key_values.*`.
std::string presentNameOf(const std::string &input) {
  const std::string hf = "past_key_values";
  if (input.rfind(hf, 0) == 0)
    return "present" + input.substr(hf.size());
  if (input.rfind("past", 0) == 0)
    return "present" + input.substr(4);
  return "";
}

const hetx::TensorBinding *findBinding(const Bindings &bindings,
                                       const std::string &name) {
  for (const hetx::TensorBinding &b : bindings)
    if (b.name() == name)
      return &b;
  return nullptr;
}

std::string namesOf(const Bindings &bindings) {
  std::string names;
  for (const hetx::TensorBinding &b : bindings)
    names += (names.empty() ? "'" : ", '") + b.name() + "'";
  return names.empty() ? "none" : names;
}

uint64_t elementsOf(const hetx::TensorBinding &binding) {
  uint64_t count = 1;
  for (int64_t d : binding.shape())
    count *= uint64_t(d);
  return count;
}

bool isIntegerBinding(const hetx::TensorBinding &binding) {
  std::optional<io::ElementType> type = sim::elementTypeOf(binding.dtype());
  return type && !io::isFloat(*type) && *type != io::ElementType::Bool;
}

/// An integer tensor of `binding`'s shape and type holding `values`.
io::Tensor intTensor(const hetx::TensorBinding &binding,
                     const std::vector<int64_t> &values) {
  io::Tensor t;
  t.shape.assign(binding.shape().begin(), binding.shape().end());
  t.type = sim::elementTypeOf(binding.dtype()).value_or(io::ElementType::I64);
  t.ints.assign(values.begin(), values.end());
  return t;
}

/// A tensor of zeros of `binding`'s shape and type.
io::Tensor zerosLike(const hetx::TensorBinding &binding) {
  io::Tensor t;
  t.shape.assign(binding.shape().begin(), binding.shape().end());
  t.type = sim::elementTypeOf(binding.dtype()).value_or(io::ElementType::F32);
  if (io::isFloat(t.type))
    t.data.assign(elementsOf(binding), 0.0f);
  else
    t.ints.assign(elementsOf(binding), 0);
  return t;
}

} // namespace hetc::run
