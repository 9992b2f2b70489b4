//===- HIsaInterfaces.td - What every instruction answers --*- tablegen -*-===//

#ifndef HETC_HISA_INTERFACES
#define HETC_HISA_INTERFACES

include "mlir/IR/OpBase.td"

def HIsa_InstructionOpInterface : OpInterface<"InstructionOpInterface"> {
  let cppNamespace = "::hetc::hisa";
  let description = [{
    A chip instruction, as the scheduler, the emitter and the compile report
    see it: its issue cycle and the stream its result leaves on (once
    `hetc-hisa-schedule` has set them), whether its fields fit a chip, the
    unit it issues on with its latency, and the orders it joins: the SRAM
    row it reads or writes, the matrix plane whose weights it loads or
    multiplies by, the DMA engine or chip-to-chip link it queues on.
    A gather or scatter is a chain of instructions, one per MEM slice of
    its table (`getBands`): it has no single unit.
  }];

  let methods = [
    InterfaceMethod<"The issue cycle; null until scheduled.",
      "::mlir::IntegerAttr", "getIssueCycleAttr", (ins),
      [{ return $_op.getCycleAttr(); }]>,
    InterfaceMethod<"Sets the issue cycle.",
      "void", "setIssueCycle", (ins "int64_t":$cycle),
      [{ $_op.setCycleAttr(::mlir::Builder($_op.getContext())
                              .getI64IntegerAttr(cycle)); }]>,
    InterfaceMethod<[{The stream the result leaves on; null until scheduled
                      and for instructions without a result.}],
      "::hetc::hisa::StreamAttr", "getResultStream", (ins),
      [{
        if constexpr (ConcreteOp::template hasTrait<::mlir::OpTrait::ZeroResults>())
          return {};
        else
          return $_op.getStreamAttr();
      }]>,
    InterfaceMethod<"Sets the result's stream (instructions with a result).",
      "void", "setResultStream", (ins "::hetc::hisa::StreamAttr":$stream),
      [{
        if constexpr (!ConcreteOp::template hasTrait<::mlir::OpTrait::ZeroResults>())
          $_op.setStreamAttr(stream);
      }]>,
    InterfaceMethod<[{Checks that the instruction's address, plane, switch
                      unit, link or engine exists on `chip`, reporting at
                      the op otherwise.}],
      "::mlir::LogicalResult", "verifyOnChip",
      (ins "const ::hetc::chip::ChipSpec &":$chip), "",
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{The unit the instruction issues on, its floorplan
                      position and latency on `chip` (after verifyOnChip);
                      nullopt for a gather's or scatter's chain.}],
      "std::optional<::hetc::hisa::IssueInfo>", "describe",
      (ins "const ::hetc::chip::ChipSpec &":$chip)>,
    InterfaceMethod<"The SRAM row it reads or writes, if any.",
      "std::optional<::hetc::hisa::MemoryAccess>", "getMemoryAccess", (ins),
      "", [{ return std::nullopt; }]>,
    InterfaceMethod<"The matrix plane it loads or multiplies by, if any.",
      "std::optional<::hetc::hisa::PlaneUse>", "getPlaneUse", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{The DMA engine it queues on, in program order, if
                      any.}],
      "std::optional<int32_t>", "getDmaEngine", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{The train it is (`repeat`), if any: how often and how
                      far apart it issues, and its step.}],
      "::hetc::hisa::TrainAttr", "getTrain", (ins), "",
      [{ return $_op->template getAttrOfType<::hetc::hisa::TrainAttr>("repeat"); }]>,
    InterfaceMethod<"The chip-to-chip link it sends or receives on, if any.",
      "std::optional<::hetc::hisa::LinkUse>", "getLinkUse", (ins), "",
      [{ return std::nullopt; }]>,
  ];
}

#endif // HETC_HISA_INTERFACES
