//===- HIsaDialect.td - The hisa dialect definition --------*- tablegen -*-===//

#ifndef HETC_HISA_DIALECT
#define HETC_HISA_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def HIsa_Dialect : Dialect {
  let name = "hisa";
  let cppNamespace = "::hetc::hisa";
  let summary = "One op per chip instruction, stamped with its issue cycle";
  let description = [{
    The `hisa` dialect is hetc's instruction level: each op is one
    instruction on one functional unit (docs/isa.md gives their semantics
    and timing rules). A value of type `!hisa.vec` is a vector travelling
    on a stream from the instruction that emits it to those that read it;
    SRAM traffic is explicit in `hisa.read` / `hisa.write` addresses.
    `hetc-hisa-schedule` stamps every instruction with its issue `cycle`
    and every stream value with its stream group, so the printed IR is the
    timed instruction stream.

    ```mlir
    func.func @main() {
      hisa.input "x" at 0 : tensor<1x16xf32>
      hisa.output "y" at 1 : tensor<1x16xf32>
      %0 = hisa.read 0 at 0 on <east, 0>
      %1 = hisa.vunary relu %0 lanes 16 at 5 on <west, 0>
      hisa.write %1 to 1 at 11
      return
    }
    ```
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

class HIsa_Op<string mnemonic, list<Trait> traits = []>
    : Op<HIsa_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

def HIsa_VecType : TypeDef<HIsa_Dialect, "Vec"> {
  let mnemonic = "vec";
  let summary = "A vector of `lanes` elements travelling on a stream group";
  let description = [{
    The value an instruction emits onto a stream; its readers must issue
    exactly when it passes their position.
  }];
}

def HIsa_Direction : I32EnumAttr<"Direction", "stream direction", [
    I32EnumAttrCase<"east", 0>, I32EnumAttrCase<"west", 1>]> {
  let cppNamespace = "::hetc::hisa";
  let genSpecializedAttr = 0;
}
def HIsa_DirectionAttr : EnumAttr<HIsa_Dialect, HIsa_Direction, "direction">;

def HIsa_StreamAttr : AttrDef<HIsa_Dialect, "Stream"> {
  let mnemonic = "stream";
  let summary = "A stream group: direction and first stream id";
  let description = [{
    `<east, 4>` is the group of streams 4..7 flowing east.
  }];
  let parameters = (ins EnumParameter<HIsa_Direction>:$dir, "uint32_t":$id);
  let assemblyFormat = "`<` $dir `,` $id `>`";
}

def HIsa_TrainAttr : AttrDef<HIsa_Dialect, "Train"> {
  let mnemonic = "train";
  let summary = "A train: an instruction issued `count` times, `every` cycles apart";
  let description = [{
    The TSP's Repeat: `<16 every 1 step 2>` issues the instruction 16
    times, one cycle apart, on one unit and one stream; issue k of a read
    or write takes the vector `k * step` vectors of its type after the
    first, of a weight load the row (column) `index + k * step`. Vector
    instructions and matmuls repeat with no step. A train's operands come
    from trains of the same count and spacing: issue k reads issue k.
    The dispatcher places a train once (docs/isa.md, "Trains").
  }];
  let parameters = (ins "uint32_t":$count, "uint32_t":$every,
                        DefaultValuedParameter<"int64_t", "0">:$step);
  let assemblyFormat = "`<` $count `every` $every (`step` $step^)? `>`";
}

#endif // HETC_HISA_DIALECT
