//===- HetcTarget.td - The hetc target dialect -------------*- tablegen -*-===//

#ifndef HETC_TARGET
#define HETC_TARGET

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Hetc_Dialect : Dialect {
  let name = "hetc";
  let cppNamespace = "::hetc::target";
  let summary = "The compilation target: the chip a module is compiled for";
  let description = [{
    The `hetc` dialect holds what every level of the compiler shares about
    its target. A module compiled for a chip carries the chip as its
    `hetc.chip` attribute, set once by `hetc-set-chip` (or by `hetc
    compile`, from its `--chip` file); the passes that tile, place, lower
    and schedule for the chip read it from there and never open a chip
    file themselves.

    The passes also record figures on each function they compile, which
    the compile summary and the artifact report: `hetc.sram_peak_vectors`
    (the most SRAM vectors live at once), `hetc.sram_peak_tensor_bytes`
    (what the tensors live then hold at their own element width),
    `hetc.instructions`,
    `hetc.predicted_cycles`, `hetc.lower_bound`, `hetc.physical_bound`
    (integers), `hetc.lower_bound_reason` and `hetc.physical_bound_reason`
    (strings), and on request `hetc.sram_peak_buffers` (the buffers live
    at the SRAM peak with the most padding: dictionaries of `node`, `type`,
    `vectors` and `tensor_bytes`). The dialect checks each `hetc.*`
    attribute's place and kind.

    ```mlir
    module attributes {hetc.chip = #hetc.chip<"test-chip", "name: \"test-chip\" ...">} {
      ...
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

def Hetc_ChipAttr : AttrDef<Hetc_Dialect, "Chip"> {
  let mnemonic = "chip";
  let summary = "The chip a module is compiled for";
  let description = [{
    The chip's name and its whole description in the chip-file format
    (`runtime/schema/chip.proto`, protobuf text format; docs/chip-model.md):
    lanes, memory, matrix and vector units, streams, latencies and
    floorplan. The description is checked like a chip file when the
    attribute is parsed or built, and its `name` field must be the name
    given first.

    ```mlir
    #hetc.chip<"tiny", "name: \"tiny\" revision: 1 clock_mhz: 1000 lanes: 16 ...">
    ```
  }];
  let parameters = (ins
    StringRefParameter<"the chip's name">:$name,
    StringRefParameter<"the chip description, protobuf text format">:$spec
  );
  let assemblyFormat = "`<` $name `,` $spec `>`";
  let genVerifyDecl = 1;
}

#endif // HETC_TARGET
