//===- ConstantEvaluator.h - Constant subgraphs compiled and run -*- C++
//-*-===//
//
// The importer's evaluator of constant subgraphs (frontend::
// ConstantEvaluator): the subgraph is compiled for the chip as any model
// is (hgraph, htile and hisa pipelines) and its kernel plan run on the CPU
// backend, whose numerics are the chip's. A value computed at compile
// time is therefore the value the chip would compute at run time.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_CODEGEN_CONSTANTEVALUATOR_H
#define HETC_COMPILER_CODEGEN_CONSTANTEVALUATOR_H

#include "compiler/frontend/OnnxImporter.h"
#include "runtime/chip/ChipSpec.h"

namespace hetc::codegen {

/// An evaluator for `chip`; the spec must outlive it. Diagnostics of a
/// subgraph that does not compile or run are kept from the user: the
/// failure comes back with its first message.
frontend::ConstantEvaluator constantEvaluator(const chip::ChipSpec &chip);

} // namespace hetc::codegen

#endif // HETC_COMPILER_CODEGEN_CONSTANTEVALUATOR_H
