//===- StepBindings.h - The bindings of a decode step -----------*- C++ -*-===//
//
// Helpers of `hetc generate` on an artifact's input and output bindings:
// finding them, their sizes, and the tensors fed to them.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_STEPBINDINGS_H
#define HETC_RUNTIME_RUN_STEPBINDINGS_H

#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::run {

using Bindings = google::protobuf::RepeatedPtrField<hetx::TensorBinding>;

/// The output a `past*` input's next value comes from: `present*` for
/// `past*`, and `present.*` for Hugging Face's `past_key_values.*`; empty
/// for any other input.
std::string presentNameOf(const std::string &input);

/// The binding named `name`, or null.
const hetx::TensorBinding *findBinding(const Bindings &bindings,
                                       const std::string &name);

/// The bindings' names, quoted and comma-separated ("none" for none).
std::string namesOf(const Bindings &bindings);

uint64_t elementsOf(const hetx::TensorBinding &binding);

/// Whether the binding holds integers (not floats, not booleans).
bool isIntegerBinding(const hetx::TensorBinding &binding);

/// An integer tensor of `binding`'s shape and type holding `values`.
io::Tensor intTensor(const hetx::TensorBinding &binding,
                     const std::vector<int64_t> &values);

/// A tensor of zeros of `binding`'s shape and type.
io::Tensor zerosLike(const hetx::TensorBinding &binding);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_STEPBINDINGS_H
