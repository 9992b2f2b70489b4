//===- InspectCommand.h - hetc inspect: what an artifact holds --*- C++ -*-===//
#ifndef HETC_RUNTIME_RUN_INSPECTCOMMAND_H
#define HETC_RUNTIME_RUN_INSPECTCOMMAND_H

#include <ostream>
#include <string>

namespace hetc::run {

struct InspectOptions {
  std::string artifactPath;
  /// Also list every instruction (cycle, opcode, unit, operands, node).
  bool disassemble = false;
  /// Also list the kernel plan's buffers and kernels.
  bool plan = false;
};

/// Prints what the artifact holds: its chip, the program's predicted
/// cycles, its input, output and constant bindings, its instruction counts
/// by opcode and by functional unit, its kernels, its kernel plan's counts
/// and, with `plan`, its buffers and kernels, and with `disassemble`,
/// every instruction. Returns 0, or 1 with the error on `err`.
int inspectCommand(const InspectOptions &options, std::ostream &out,
                   std::ostream &err);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_INSPECTCOMMAND_H
