//===- HIsaOps.td - hisa instructions ----------------------*- tablegen -*-===//

#ifndef HETC_HISA_OPS
#define HETC_HISA_OPS

include "compiler/dialects/hisa/IR/HIsaDialect.td"
include "compiler/dialects/hisa/IR/HIsaInterfaces.td"
include "compiler/dialects/hisa/IR/HIsaVectorEnums.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"

//===----------------------------------------------------------------------===//
// Program data: I/O bindings and preloaded constants
//===----------------------------------------------------------------------===//

class HIsa_BindingOp<string mnemonic, string what> : HIsa_Op<mnemonic> {
  let summary = "Binds the model " # what # " `name` to SRAM at `address`";
  let description = [{
    The tensor's rows start at SRAM row `address`, each taking
    `ceil(cols / lanes)` vectors (see the htile layout). Vectors of an
    element type narrower than 32 bits are packed, two (f16, bf16) or four
    (8-bit and narrower) to a row (docs/isa.md, "Native width"): vector `v`
    is part `v % k` of row `address + v / k`. With `host`, the tensor lives
    in host memory from host vector `host`, one vector per host address,
    and the program moves it with `hisa.dma_in` / `hisa.dma_out`.

    ```mlir
    hisa.}] # mnemonic # [{ "x" at 0 : tensor<4x32xf32>
    hisa.}] # mnemonic # [{ "y" at 8 host 4 : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$address,
                       OptionalAttr<I64Attr>:$host,
                       TypeAttrOf<AnyStaticShapeTensor>:$type);
  let assemblyFormat =
      "$name `at` $address (`host` $host^)? attr-dict `:` $type";
  let hasVerifier = 1;
}

def HIsa_InputOp : HIsa_BindingOp<"input", "input">;
def HIsa_OutputOp : HIsa_BindingOp<"output", "output">;

def HIsa_ConstantOp : HIsa_Op<"constant"> {
  let summary = "Constant data preloaded into SRAM at `address`";
  let description = [{
    ```mlir
    hisa.constant at 8 dense<0.5> : tensor<32x10xf32>
    ```
  }];
  let arguments = (ins I64Attr:$address, ElementsAttr:$value);
  let assemblyFormat = "`at` $address $value attr-dict";
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

// An instruction: `overrides` names the InstructionOpInterface methods the
// op implements beyond `describe` (in HIsaInstructions.cpp).
class HIsa_Instruction<string mnemonic, list<string> overrides = [],
                       list<Trait> traits = []>
    : HIsa_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<HIsa_InstructionOpInterface, overrides>])>;

def HIsa_ReadOp : HIsa_Instruction<"read", ["verifyOnChip", "getMemoryAccess"]> {
  let summary = "MEM_READ: read the vector at `address` onto a stream";
  let description = [{
    Issues on the MEM slice that holds row `address`. A vector of a type
    narrower than 32 bits is `part` of its row (absent: part 0).

    With `parts n` (n > 1, a narrow type), the read takes n vectors of its
    row at once, parts `part` to `part + n - 1`, in one access and on one
    stream group: 320 bytes a part, the group's four streams full when the
    row is (two f16 or four i8 vectors). Only a `hisa.load_weights` of as
    many parts (or a `hisa.vcast` of as many, on its way to one) takes
    such a value, installing one weight row per part.

    With `repeat`, a train: issue k reads the vector `k * step` vectors of
    its type after the first, all in the first one's slice and bank.

    ```mlir
    %0 = hisa.read 12 at 3 on <east, 0>
    %1 = hisa.read 13 part 1 as f16 at 4 on <east, 4>
    %2 = hisa.read 64 repeat <16 every 1 step 2>
    %3 = hisa.read 80 parts 2 as f16
    ```
  }];
  let arguments = (ins I64Attr:$address, OptionalAttr<I32Attr>:$part,
                       OptionalAttr<I32Attr>:$parts,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $address (`part` $part^)? (`parts` $parts^)? (`as` $dtype^)?
    (`repeat` $repeat^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_GatherOp : HIsa_Instruction<"gather", ["verifyOnChip"]> {
  let summary = "MEM_GATHER chain: read the row of a table that an index names";
  let description = [{
    The table is `rows` rows of `stride` vectors, row 0's vector at
    (`table`, `part`); the row index is the i32 in lane `lane` of `index`.
    The result is the vector `index * stride` vectors after it (for a type
    narrower than 32 bits, counted in parts of rows). An index outside
    `[0, rows)` stops the program with an error naming the op's node.

    One op is a whole chain of MEM_GATHER instructions (docs/isa.md,
    "Indexed reads"), one on each MEM slice that holds rows of the table,
    found from the chip's geometry. `cycle` is the issue cycle of the
    instruction on the slice nearest the index's producer; the one on the
    slice at floorplan position `p` issues `|p - p0| * hop_cycles` later,
    as the index vector passes it. The index must come from beyond the
    table's slices on one side, and every reader of the result must be
    beyond them on the other. Unless the table is constant data, the
    scheduler orders each instruction of the chain as a read of every row
    of the table that its slice holds.

    ```mlir
    %2 = hisa.gather %1 lane 3 table 300 stride 1 rows 1500 at 10 on <east, 8>
    %3 = hisa.gather %1 lane 0 table 64 part 1 stride 2 rows 90 as f16
    ```
  }];
  let arguments = (ins HIsa_VecType:$index, I32Attr:$lane, I64Attr:$table,
                       OptionalAttr<I32Attr>:$part,
                       I64Attr:$stride, I64Attr:$rows,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $index `lane` $lane `table` $table (`part` $part^)? `stride` $stride
    `rows` $rows
    (`as` $dtype^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The chain on `chip` (after verifyOnChip): one band per MEM slice
    /// holding rows of the table, in increasing slice order.
    std::vector<::hetc::hisa::GatherBand>
    getBands(const ::hetc::chip::ChipSpec &chip);
  }];
}

def HIsa_ScatterOp : HIsa_Instruction<"scatter", ["verifyOnChip"],
                                         [AttrSizedOperandSegments]> {
  let summary = "MEM_SCATTER chain: store a vector at the row of a table that an index names";
  let description = [{
    The table is `rows` rows of `stride` vectors, row 0's vector at
    (`table`, `part`); the row index is the i32 in lane `lane` of an index
    vector. The vector is stored `index * stride` vectors after row 0's
    (for a type narrower than 32 bits, counted in parts of rows). An index
    outside `[0, rows)` stops the program with an error naming the op's
    node; nothing is stored then.

    One op is a whole chain of MEM_SCATTER instructions (docs/isa.md,
    "Indexed writes"), one on each MEM slice that holds rows of the table,
    found from the chip's geometry. Each reads an index vector and a value
    vector as they pass its slice, so both must come from one unit beyond
    the slice. With one pair (`values[0]`, `indices[0]`) every slice of
    the chain lies on one side of that unit; with two, the slices west of
    the unit read the first pair and those east of it the second (the
    vector unit sends both pairs in one cycle). `cycle` is the issue cycle
    of the instruction nearest that unit; one `k` positions farther issues
    `k * hop_cycles` later. The scheduler orders the chain as a write of
    every row of the table that its slices hold.

    ```mlir
    hisa.scatter %v by %i lane 0 table 300 stride 1 rows 1500 at 12
    hisa.scatter %vw, %ve by %iw, %ie lane 2 table 64 part 1 stride 2 rows 90 as f16
    ```
  }];
  let arguments = (ins Variadic<HIsa_VecType>:$values,
                       Variadic<HIsa_VecType>:$indices, I32Attr:$lane,
                       I64Attr:$table, OptionalAttr<I32Attr>:$part,
                       I64Attr:$stride, I64Attr:$rows,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = [{
    $values `by` $indices `lane` $lane `table` $table (`part` $part^)?
    `stride` $stride `rows` $rows (`as` $dtype^)? (`at` $cycle^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The chain on `chip` (after verifyOnChip): one band per MEM slice
    /// holding rows of the table, in increasing slice order.
    std::vector<::hetc::hisa::GatherBand>
    getBands(const ::hetc::chip::ChipSpec &chip);
  }];
}

def HIsa_WriteOp : HIsa_Instruction<"write", ["verifyOnChip", "getMemoryAccess"]> {
  let summary = "MEM_WRITE: store a stream vector at `address`";
  let description = [{
    A vector of a type narrower than 32 bits goes to `part` of row
    `address` (absent: part 0).

    With `repeat`, a train storing the vectors of a train: issue k stores
    at the vector `k * step` vectors of its type after the first, all in
    the first one's slice and bank.

    ```mlir
    hisa.write %1 to 40 at 9
    hisa.write %2 to 41 part 3 as i8 at 10
    hisa.write %3 to 64 repeat <8 every 1 step 2>
    ```
  }];
  let arguments = (ins HIsa_VecType:$value, I64Attr:$address,
                       OptionalAttr<I32Attr>:$part,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = [{
    $value `to` $address (`part` $part^)? (`as` $dtype^)?
    (`repeat` $repeat^)? (`at` $cycle^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_VBinaryKind : I32EnumAttr<"VBinaryKind", "vector binary operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
    I32EnumAttrCase<"pow", 6>, I32EnumAttrCase<"and_", 7, "and">,
    I32EnumAttrCase<"or_", 8, "or">, I32EnumAttrCase<"xor_", 9, "xor">,
    I32EnumAttrCase<"mod", 10>, I32EnumAttrCase<"fmod", 11>,
    I32EnumAttrCase<"shl", 12>, I32EnumAttrCase<"shr", 13>]> {
  let cppNamespace = "::hetc::hisa";
}


def HIsa_VCompareKind : I32EnumAttr<"VCompareKind", "vector comparison", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"lt", 1>,
    I32EnumAttrCase<"le", 2>]> {
  let cppNamespace = "::hetc::hisa";
}


def HIsa_VBinaryOp : HIsa_Instruction<"vbinary"> {
  let summary = "V_ADD/SUB/MUL/DIV/MAX/MIN/POW/AND/OR/XOR/MOD/FMOD/SHL/SHR: lanes [0, lanes) of lhs <kind> rhs";
  let description = [{
    A vector-unit instruction; lanes from `lanes` on are zero. `dtype` is
    the type of the operands and the result (f32 when absent): every kind
    but the logical ones is defined on f32, f16 and bf16; add, sub, mul,
    div, max, min, mod and fmod on i32; and, or and xor on i1 and (bitwise)
    on i32; `shl` and `shr`, logical shifts by the counts in rhs (outside
    [0, 31]: 0), on i32 only. `mod`
    is the remainder with the divisor's sign (numpy's mod), `fmod` the
    remainder with the dividend's sign.

    ```mlir
    %2 = hisa.vbinary add %0, %1 lanes 16 at 4 on <east, 4>
    %3 = hisa.vbinary mul %0, %1 lanes 16 as bf16
    ```
  }];
  let arguments = (ins HIsa_VBinaryKind:$kind, HIsa_VecType:$lhs,
                       HIsa_VecType:$rhs, I32Attr:$lanes,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs `lanes` $lanes (`as` $dtype^)?
    (`repeat` $repeat^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_VUnaryOp : HIsa_Instruction<"vunary"> {
  let summary = "V_RELU/SIGMOID/TANH/EXP/NEG/ABS/SQRT/.../ROUND/NOT: kind(x) on lanes [0, lanes)";
  let description = [{
    `dtype` is the type of the operand and the result (f32 when absent):
    every kind but `not` is defined on f32, f16 and bf16; relu, neg and abs
    on i32; `not` only on i1. `round` rounds half to even.

    ```mlir
    %1 = hisa.vunary relu %0 lanes 16 at 4 on <east, 0>
    %2 = hisa.vunary not %0 lanes 16 as i1
    ```
  }];
  let arguments = (ins HIsa_VUnaryKind:$kind, HIsa_VecType:$input,
                       I32Attr:$lanes, OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $kind $input `lanes` $lanes (`as` $dtype^)? (`repeat` $repeat^)?
    (`at` $cycle^)? (`on` $stream^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_VReduceOp : HIsa_Instruction<"vreduce"> {
  let summary = "V_REDUCE_SUM/MAX/MIN: reduce lanes [0, lanes), broadcast the result";
  let description = [{
    The reduction of lanes `[0, lanes)` of `input` is written to every lane
    of the result, so it combines with vectors of any lane count (a
    reduction with `lanes 1` broadcasts lane 0).

    ```mlir
    %1 = hisa.vreduce max %0 lanes 10 at 4 on <east, 0>
    %2 = hisa.vreduce sum %0 lanes 10 as i32
    ```

    Defined on f32, f16, bf16 and i32 (`dtype`, f32 when absent).
  }];
  let arguments = (ins HIsa_VReduceKind:$kind, HIsa_VecType:$input,
                       I32Attr:$lanes, OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $kind $input `lanes` $lanes (`as` $dtype^)? (`repeat` $repeat^)?
    (`at` $cycle^)? (`on` $stream^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_VBroadcastOp : HIsa_Instruction<"vbroadcast", ["verifyOnChip"]> {
  let summary = "V_BROADCAST: one lane of a vector to every lane";
  let description = [{
    The word in lane `lane` of `input` goes to every lane of the result,
    unchanged: a value held packed, one a lane (a per-row scale or bias
    kept 320 to a vector on tsp-v1), is spread over a row this way, as
    `hisa.vreduce … lanes 1` spreads lane 0.

    ```mlir
    %1 = hisa.vbroadcast %0 lane 37 at 4 on <east, 0>
    %2 = hisa.vbroadcast %0 lane 0 as i32 repeat <3 every 1>
    ```

    Defined on f32, f16, bf16 and i32 (`dtype`, f32 when absent); the lane
    must be one of the chip's (checked against a chip).
  }];
  let arguments = (ins HIsa_VecType:$input, I32Attr:$lane,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $input `lane` $lane (`as` $dtype^)? (`repeat` $repeat^)?
    (`at` $cycle^)? (`on` $stream^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_VCompareOp : HIsa_Instruction<"vcompare"> {
  let summary = "V_EQUAL/LESS/LESS_EQUAL: lanes [0, lanes) of lhs <kind> rhs as booleans";
  let description = [{
    Compares the operands, of type `dtype` (f32 when absent: f32, f16,
    bf16, i32 or i1), lane by lane; the result lanes are i1 (1 where the
    relation holds, 0 elsewhere, also for NaN operands). Greater-than is
    `lt` with the operands swapped.

    ```mlir
    %2 = hisa.vcompare lt %0, %1 lanes 16 as f16 at 4 on <east, 4>
    ```
  }];
  let arguments = (ins HIsa_VCompareKind:$kind, HIsa_VecType:$lhs,
                       HIsa_VecType:$rhs, I32Attr:$lanes,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs `lanes` $lanes (`as` $dtype^)?
    (`repeat` $repeat^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_VSelectOp : HIsa_Instruction<"vselect"> {
  let summary = "V_SELECT: lanes [0, lanes) of condition ? lhs : rhs";
  let description = [{
    `condition` holds i1 lanes; `lhs`, `rhs` and the result are of type
    `dtype` (f32 when absent; any element type). The lane words move
    without arithmetic, so infinities and NaNs are kept.

    ```mlir
    %3 = hisa.vselect %0, %1, %2 lanes 16 as i32 at 6 on <west, 0>
    ```
  }];
  let arguments = (ins HIsa_VecType:$condition, HIsa_VecType:$lhs,
                       HIsa_VecType:$rhs, I32Attr:$lanes,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs `lanes` $lanes (`as` $dtype^)?
    (`repeat` $repeat^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_CastOverflow : I32EnumAttr<"CastOverflow", "what V_CAST makes of a value beyond the result type's range", [
    I32EnumAttrCase<"standard", 0>, I32EnumAttrCase<"no_saturate", 1>,
    I32EnumAttrCase<"wrap", 2>]> {
  let cppNamespace = "::hetc::hisa";
}

def HIsa_E8M0Rounding : I32EnumAttr<"E8M0Rounding", "how V_CAST rounds to f8E8M0FNU", [
    I32EnumAttrCase<"up", 0>, I32EnumAttrCase<"down", 1>,
    I32EnumAttrCase<"nearest", 2>]> {
  let cppNamespace = "::hetc::hisa";
}

def HIsa_VCastOp : HIsa_Instruction<"vcast"> {
  let summary = "V_CAST: convert lanes [0, lanes) from one element type to another";
  let description = [{
    Converts each lane from `from` to `to` with the rules of docs/isa.md
    ("Numerics"): float to integer truncates towards zero and saturates,
    integer to integer saturates, float to float rounds to nearest even.
    `overflow` (standard when absent) changes what a value beyond the
    result type's range becomes: `no_saturate` (float8 results: infinity
    where the type has one, else NaN) or `wrap` (integer results: the low
    bits). `rounding` (`up` when absent) is how a cast to `f8E8M0FNU`
    rounds.

    With `repeat` (no step), a train converting each vector of a train.
    With `parts n`, it converts each of the n vectors of a `hisa.read` of
    n parts, for a `hisa.load_weights` of n parts (both types at most two
    bytes a lane when n is 2, one byte when n is 4).

    ```mlir
    %1 = hisa.vcast %0 from f32 to f16 lanes 16 at 4 on <east, 0>
    %2 = hisa.vcast %0 from f32 to f8E5M2 overflow no_saturate lanes 16
    %3 = hisa.vcast %0 from f32 to f8E8M0FNU rounding nearest lanes 16
    %5 = hisa.vcast %4 from i8 to f16 lanes 320 repeat <16 every 1>
    %7 = hisa.vcast %6 from i8 to f16 lanes 320 parts 2
    ```
  }];
  let arguments = (ins HIsa_VecType:$input, TypeAttr:$from, TypeAttr:$to,
                       OptionalAttr<HIsa_CastOverflow>:$overflow,
                       OptionalAttr<HIsa_E8M0Rounding>:$rounding,
                       I32Attr:$lanes, OptionalAttr<I32Attr>:$parts,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $input `from` $from `to` $to (`overflow` $overflow^)?
    (`rounding` $rounding^)? `lanes` $lanes (`parts` $parts^)?
    (`repeat` $repeat^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_WeightSlot : I32EnumAttr<"WeightSlot", "how a weight vector is installed", [
    I32EnumAttrCase<"row", 0>, I32EnumAttrCase<"column", 1>]> {
  let cppNamespace = "::hetc::hisa";
}

def HIsa_LoadWeightsOp : HIsa_Instruction<"load_weights", ["verifyOnChip", "getPlaneUse"]> {
  let summary = "M_LOAD_WEIGHTS(_COLUMN): install a stream vector in a plane";
  let description = [{
    Installs the vector as weight row `index` of `plane` (M_LOAD_WEIGHTS),
    or as weight column `index` (M_LOAD_WEIGHTS_COLUMN). Matrix multiplies
    by unit vectors then read out the rows, or the transpose, of what was
    installed.

    ```mlir
    hisa.load_weights %0 plane 1 row 3 at 7
    hisa.load_weights %1 plane 0 column 5
    hisa.load_weights %2 plane 2 row 0 as i8
    hisa.load_weights %3 plane 0 row 1 repeat <16 every 1 step 2>
    hisa.load_weights %4 plane 3 row 8 parts 2 as f16
    ```

    `dtype` (f32 when absent) is the weights' type: f32, f16, bf16, i8 or
    ui8. With `parts n`, the value is a `hisa.read` of n parts of one SRAM
    row (or a `hisa.vcast` of such a read, of as many parts): part q
    becomes row `index + q`, so that one load,
    one of the plane's `matrix.install_rows` a cycle, installs n rows of a
    narrow type. With `repeat`, a train installing the vectors of a train:
    issue k installs row (column) `index + k * step` (and the n - 1 rows
    after it).

    With `buffered`, the vector goes into the plane's weight buffer (the
    TSP's LW) instead of the array its matmuls multiply by, so that the
    next tile loads while the plane multiplies by this one;
    `hisa.install_weights` then makes the buffer the array.
  }];
  let arguments = (ins HIsa_VecType:$value, I32Attr:$plane,
                       HIsa_WeightSlot:$slot, I32Attr:$index,
                       UnitAttr:$buffered,
                       OptionalAttr<I32Attr>:$parts,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<HIsa_TrainAttr>:$repeat,
                       OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = [{
    $value `plane` $plane $slot $index (`buffered` $buffered^)?
    (`parts` $parts^)? (`as` $dtype^)? (`repeat` $repeat^)? (`at` $cycle^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_InstallWeightsOp : HIsa_Instruction<"install_weights",
                                             ["verifyOnChip", "getPlaneUse"]> {
  let summary = "M_INSTALL_WEIGHTS: make a plane's weight buffer its array";
  let description = [{
    The weights loaded into `plane`'s buffer (`hisa.load_weights …
    buffered`) become the array its matmuls multiply by, `matrix_load`
    cycles after issue, and the array the buffer (the TSP's IW from its LW
    buffer; what the buffer holds after, the older array, is a modelling
    choice: hetc loads every row it uses again). It takes the plane for
    its cycle, as an M_MATMUL does, and needs every buffered load stored
    and every matmul by the old array issued.

    ```mlir
    hisa.load_weights %0 plane 1 row 0 buffered
    hisa.install_weights plane 1 at 9
    ```
  }];
  let arguments = (ins I32Attr:$plane, OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = "`plane` $plane (`at` $cycle^)? attr-dict";
  let hasVerifier = 1;
}

def HIsa_MatMulOp : HIsa_Instruction<"matmul", ["verifyOnChip", "getPlaneUse"]> {
  let summary = "M_MATMUL: multiply a stream vector by a plane's weights";
  let description = [{
    Emits `out[j] = sum_i in[i] * W[i][j]` with the weights installed in
    `plane`. `dtype` (f32 when absent) is the input's type, which must be
    the type of the plane's weights (i8 and ui8 mix): f32, f16 and bf16
    inputs give f32 results, i8 and ui8 inputs i32 results. An 8-bit
    matmul keeps its plane busy for one cycle; a 16-bit one for the chip's
    `matrix.cycles_16bit`, an f32 one for `matrix.cycles_32bit`: the plane
    takes no other instruction until they have passed.

    ```mlir
    %1 = hisa.matmul %0 plane 1 at 9 on <west, 8>
    %2 = hisa.matmul %0 plane 2 as f16
    ```
  }];
  let arguments = (ins HIsa_VecType:$input, I32Attr:$plane,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $input `plane` $plane (`as` $dtype^)? (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_PermuteOp : HIsa_Instruction<"permute", ["verifyOnChip"]> {
  let summary = "S_PERMUTE: move lanes of a stream vector on a switch unit";
  let description = [{
    Issues on switch unit `switch` (the k-th SWITCH entry of the floorplan).
    `map` has one entry per result lane `j` (its length is the instruction's
    `lanes`): lane `map[j]` of `input`, or `-1` to keep lane `j` of `into`
    (zero without `into`). Lanes past the map's length are zero. It moves
    32-bit lane values and does no arithmetic; `dtype` (f32 when absent)
    names the lanes' type, which the result keeps.

    ```mlir
    %2 = hisa.permute %0 switch 0 map [3, 2, -1, 0] at 5 on <west, 4>
    %3 = hisa.permute %1 into %2 switch 0 map [-1, -1, 0, -1] at 7 on <east, 0>
    ```
  }];
  let arguments = (ins HIsa_VecType:$input, Optional<HIsa_VecType>:$into,
                       I32Attr:$switch_unit, DenseI32ArrayAttr:$map,
                       OptionalAttr<TypeAttr>:$dtype,
                       OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat = [{
    $input (`into` $into^)? `switch` $switch_unit `map` $map (`as` $dtype^)?
    (`at` $cycle^)? (`on` $stream^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_DmaInOp : HIsa_Instruction<"dma_in", ["verifyOnChip", "getMemoryAccess", "getDmaEngine"]> {
  let summary = "DMA_IN: copy a host-memory vector into SRAM";
  let description = [{
    Issues on DMA engine `engine`; the vector lands at SRAM row `address`
    (`part` of it for a type narrower than 32 bits) `dma.latency` cycles
    later. An engine moves one vector per
    `ceil(lanes * 4 / dma.bytes_per_cycle)` cycles.

    ```mlir
    hisa.dma_in host 3 to 40 engine 0 at 12
    hisa.dma_in host 4 to 41 part 1 as f16 engine 0 at 14
    ```
  }];
  let arguments = (ins I64Attr:$host, I64Attr:$address,
                       OptionalAttr<I32Attr>:$part,
                       OptionalAttr<TypeAttr>:$dtype, I32Attr:$engine,
                       OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = [{
    `host` $host `to` $address (`part` $part^)? (`as` $dtype^)?
    `engine` $engine (`at` $cycle^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_DmaOutOp : HIsa_Instruction<"dma_out", ["verifyOnChip", "getMemoryAccess", "getDmaEngine"]> {
  let summary = "DMA_OUT: copy an SRAM vector to host memory";
  let description = [{
    Issues on DMA engine `engine`, reading SRAM row `address` (`part` of
    it for a type narrower than 32 bits) at issue; the vector is in host
    memory `dma.latency` cycles later.

    ```mlir
    hisa.dma_out 40 to host 7 engine 1 at 30
    hisa.dma_out 41 part 2 as i8 to host 8 engine 1 at 31
    ```
  }];
  let arguments = (ins I64Attr:$address, OptionalAttr<I32Attr>:$part,
                       OptionalAttr<TypeAttr>:$dtype, I64Attr:$host,
                       I32Attr:$engine, OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = [{
    $address (`part` $part^)? (`as` $dtype^)? `to` `host` $host
    `engine` $engine (`at` $cycle^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HIsa_C2CSendOp : HIsa_Instruction<"c2c_send", ["verifyOnChip", "getLinkUse"]> {
  let summary = "C2C_SEND: send a stream vector over a chip-to-chip link";
  let description = [{
    Reads `value` at the switch unit link `link` attaches to (link k on
    switch k modulo the SWITCH units) and sends it; it arrives in the far
    end's receive buffer `c2c.latency` cycles later. A link sends one vector
    per `ceil(lanes * 4 / c2c.bytes_per_cycle)` cycles.

    ```mlir
    hisa.c2c_send %0 link 1 at 14
    ```
  }];
  let arguments = (ins HIsa_VecType:$value, I32Attr:$link,
                       OptionalAttr<I64Attr>:$cycle);
  let assemblyFormat = "$value `link` $link (`at` $cycle^)? attr-dict";
  let hasVerifier = 1;
}

def HIsa_C2CRecvOp : HIsa_Instruction<"c2c_recv", ["verifyOnChip", "getLinkUse"]> {
  let summary = "C2C_RECV: take the oldest vector a link has received";
  let description = [{
    Emits the oldest vector in link `link`'s receive buffer onto a stream
    at the link's switch unit. The k-th receive on a link takes the k-th
    vector sent to it.

    ```mlir
    %1 = hisa.c2c_recv link 1 at 620 on <east, 4>
    ```
  }];
  let arguments = (ins I32Attr:$link, OptionalAttr<I64Attr>:$cycle,
                       OptionalAttr<HIsa_StreamAttr>:$stream);
  let results = (outs HIsa_VecType:$result);
  let assemblyFormat =
      "`link` $link (`at` $cycle^)? (`on` $stream^)? attr-dict";
  let hasVerifier = 1;
}

#endif // HETC_HISA_OPS
