//===- HGraphElementwise.td - hgraph elementwise operators -*- tablegen -*-===//
//
// Unary, binary, comparison and selection operators that work element by
// element, with ONNX multidirectional broadcasting where ONNX has it.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_HGRAPH_ELEMENTWISE
#define HETC_HGRAPH_ELEMENTWISE

include "compiler/dialects/hgraph/IR/HGraphDialect.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

class HGraph_MathUnaryOp<string mnemonic, string onnxName, string formula>
    : HGraph_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise " # onnxName # ": " # formula;
  let description = [{
    Computes the ONNX `}] # onnxName # [{` of each element: }] # formula # [{.
    Constant operands fold at compile time.

    ```mlir
    %0 = hgraph.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def HGraph_NegOp : HGraph_MathUnaryOp<"neg", "Neg", "-x">;
def HGraph_AbsOp : HGraph_MathUnaryOp<"abs", "Abs", "|x|">;
def HGraph_SqrtOp : HGraph_MathUnaryOp<"sqrt", "Sqrt", "sqrt(x)">;
def HGraph_ReciprocalOp : HGraph_MathUnaryOp<"reciprocal", "Reciprocal", "1 / x">;
def HGraph_ExpOp : HGraph_MathUnaryOp<"exp", "Exp", "e to the power x">;
def HGraph_LogOp : HGraph_MathUnaryOp<"log", "Log", "natural logarithm of x">;
def HGraph_ErfOp : HGraph_MathUnaryOp<"erf", "Erf", "the Gauss error function of x">;
def HGraph_FloorOp : HGraph_MathUnaryOp<"floor", "Floor", "largest integer <= x">;
def HGraph_CeilOp : HGraph_MathUnaryOp<"ceil", "Ceil", "smallest integer >= x">;
def HGraph_SinOp : HGraph_MathUnaryOp<"sin", "Sin", "sine of x">;
def HGraph_CosOp : HGraph_MathUnaryOp<"cos", "Cos", "cosine of x">;
def HGraph_NotOp : HGraph_MathUnaryOp<"not", "Not", "logical negation of a boolean">;
def HGraph_RoundOp : HGraph_MathUnaryOp<"round", "Round", "the nearest integer, halfway cases to even">;
def HGraph_BitwiseNotOp : HGraph_MathUnaryOp<"bitwise_not", "BitwiseNot", "the integer with every bit of x flipped">;

def HGraph_LeakyReluOp : HGraph_Op<"leaky_relu", [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise LeakyRelu: x if x >= 0, alpha * x otherwise";
  let description = [{
    ONNX `LeakyRelu`. `hetc-hgraph-decompose-elementwise` rewrites it into
    `relu`, `mul` and `sub`, which the chip runs.

    ```mlir
    %0 = hgraph.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, F32Attr:$alpha);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HGraph_GeluOp : HGraph_Op<"gelu", [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise Gelu, exact (erf) or with the tanh approximation";
  let description = [{
    ONNX `Gelu` (opset 20): `0.5 * x * (1 + erf(x / sqrt(2)))`, or with
    `approximate = "tanh"` the tanh form
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %0 = hgraph.gelu %x {approximate = "none"} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, StrAttr:$approximate);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def HGraph_PointwiseFnAttr : I32EnumAttr<"PointwiseFn",
    "an elementwise function that simpler elementwise ops express", [
    I32EnumAttrCase<"elu", 0>, I32EnumAttrCase<"selu", 1>,
    I32EnumAttrCase<"celu", 2>, I32EnumAttrCase<"hard_sigmoid", 3>,
    I32EnumAttrCase<"hard_swish", 4>, I32EnumAttrCase<"softplus", 5>,
    I32EnumAttrCase<"softsign", 6>, I32EnumAttrCase<"thresholded_relu", 7>,
    I32EnumAttrCase<"shrink", 8>, I32EnumAttrCase<"swish", 9>,
    I32EnumAttrCase<"mish", 10>, I32EnumAttrCase<"sinh", 11>,
    I32EnumAttrCase<"cosh", 12>, I32EnumAttrCase<"tan", 13>,
    I32EnumAttrCase<"asinh", 14>, I32EnumAttrCase<"acosh", 15>,
    I32EnumAttrCase<"atanh", 16>, I32EnumAttrCase<"asin", 17>,
    I32EnumAttrCase<"acos", 18>, I32EnumAttrCase<"atan", 19>,
    I32EnumAttrCase<"sign", 20>]> {
  let cppNamespace = "::hetc::hgraph";
}

def HGraph_PointwiseOp : HGraph_Op<"pointwise", [Pure, SameOperandsAndResultType]> {
  let summary = "An ONNX elementwise function with up to two float parameters";
  let description = [{
    The ONNX activations and math functions that other elementwise ops
    express: `elu`, `selu`, `celu`, `hard_sigmoid`, `hard_swish`,
    `softplus`, `softsign`, `thresholded_relu`, `shrink`, `swish`, `mish`,
    `sinh`, `cosh`, `tan`, `asinh`, `acosh`, `atanh`, `asin`, `acos`,
    `atan` and `sign`. `alpha` and `beta` carry the ONNX attributes (Selu's
    `gamma` is `beta`, Shrink's `lambd` and `bias` are `alpha` and `beta`);
    functions without parameters ignore them. `hetc-hgraph-decompose`
    rewrites each into the ops the chip runs; the pass's description gives
    the formulas.

    ```mlir
    %0 = hgraph.pointwise elu %x {alpha = 1.000000e+00 : f32} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins HGraph_PointwiseFnAttr:$fn, AnyStaticShapeTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.0f">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.0f">:$beta);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$fn $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def HGraph_BitcastOp : HGraph_Op<"bitcast", [Pure]> {
  let summary = "Reinterprets each f32 element's bits as i32, or the reverse (ONNX BitCast)";
  let description = [{
    The result holds the bits of each element of `input`, read as the
    result's element type: f32 to i32 or i32 to f32, which the chip holds
    as one 32-bit lane word each, so nothing moves (the result is a view of
    the input's buffer). Shapes are equal. Constant operands fold. ONNX
    BitCast between integers of one width is a modular conversion instead
    (the importer builds it from hgraph.cast and arithmetic).

    ```mlir
    %0 = hgraph.bitcast %x : tensor<4xf32> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_CastOp : HGraph_Op<"cast", [Pure]> {
  let summary = "Converts each element to the result's element type (ONNX Cast)";
  let description = [{
    Converts `input` to the element type of the result; shapes are equal.
    Float to integer truncates toward zero, as ONNX Cast does; to the 4-
    and 2-bit integer types (i4, ui4, i2, ui2) the result wraps (keeps the
    low bits), as the ONNX reference does. To the float8 types the result
    saturates to the largest finite value unless `no_saturate` is set
    (ONNX saturate=0: infinity or NaN instead); `round_mode` ("up", the
    default, "down" or "nearest") is how a cast to f8E8M0FNU rounds.
    Constant operands fold, except to and from the 8-, 4- and 2-bit types.

    ```mlir
    %0 = hgraph.cast %x : tensor<4xi64> -> tensor<4xf32>
    %1 = hgraph.cast %y {no_saturate} : tensor<4xf32> -> tensor<4xf8E5M2>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, UnitAttr:$no_saturate,
                       OptionalAttr<StrAttr>:$round_mode);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_ClipOp : HGraph_Op<"clip", [Pure, AttrSizedOperandSegments]> {
  let summary = "Clamps each element to [min, max] (ONNX Clip)";
  let description = [{
    `min` and `max` are optional scalar tensors of the input's element type;
    a missing bound does not clamp.

    ```mlir
    %0 = hgraph.clip %x, %lo, %hi : (tensor<4x8xf32>, tensor<f32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       Optional<AnyStaticShapeTensor>:$min,
                       Optional<AnyStaticShapeTensor>:$max);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input (`,` `min` $min^)? (`,` `max` $max^)? attr-dict `:` `(` type($input)
    (`,` type($min)^)? (`,` type($max)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Binary with broadcasting (besides add, sub, mul, div in HGraphOps.td)
//===----------------------------------------------------------------------===//

def HGraph_PowOp : HGraph_BinaryOp<"pow", "Pow">;
def HGraph_MinOp : HGraph_BinaryOp<"min", "Min">;
def HGraph_MaxOp : HGraph_BinaryOp<"max", "Max">;
def HGraph_AndOp : HGraph_BinaryOp<"and", "And">;
def HGraph_OrOp : HGraph_BinaryOp<"or", "Or">;
def HGraph_XorOp : HGraph_BinaryOp<"xor", "Xor">;
// ONNX Mod with fmod = 0 (integers: the remainder takes the divisor's sign)
// and with fmod = 1 (the remainder takes the dividend's sign, C's fmod).
def HGraph_ModOp : HGraph_BinaryOp<"mod", "Mod (fmod = 0, remainder with the divisor's sign)">;
def HGraph_FModOp : HGraph_BinaryOp<"fmod", "Mod (fmod = 1, remainder with the dividend's sign)">;
def HGraph_BitwiseAndOp : HGraph_BinaryOp<"bitwise_and", "BitwiseAnd">;
def HGraph_BitwiseOrOp : HGraph_BinaryOp<"bitwise_or", "BitwiseOr">;
def HGraph_BitwiseXorOp : HGraph_BinaryOp<"bitwise_xor", "BitwiseXor">;
// BitShift: a left shift keeps the type's low bits (a count of its width
// or more gives 0); a right shift is logical for unsigned and arithmetic
// for signed integers (a count past the width gives 0 or -1).
def HGraph_ShiftLeftOp : HGraph_BinaryOp<"shift_left", "BitShift (direction LEFT)">;
def HGraph_ShiftRightOp : HGraph_BinaryOp<"shift_right", "BitShift (direction RIGHT)">;

class HGraph_CompareOp<string mnemonic, string onnxName, string relation>
    : HGraph_Op<mnemonic, [Pure]> {
  let summary = "Elementwise " # onnxName # " (" # relation # ") giving booleans";
  let description = [{
    Compares `lhs` and `rhs` elementwise with }] # relation # [{ under ONNX
    multidirectional broadcasting; the result holds `i1`.

    ```mlir
    %0 = hgraph.}] # mnemonic # [{ %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_EqualOp : HGraph_CompareOp<"equal", "Equal", "==">;
def HGraph_LessOp : HGraph_CompareOp<"less", "Less", "<">;
def HGraph_LessOrEqualOp : HGraph_CompareOp<"less_or_equal", "LessOrEqual", "<=">;
def HGraph_GreaterOp : HGraph_CompareOp<"greater", "Greater", ">">;
def HGraph_GreaterOrEqualOp : HGraph_CompareOp<"greater_or_equal", "GreaterOrEqual", ">=">;

def HGraph_WhereOp : HGraph_Op<"where", [Pure]> {
  let summary = "Selects from two tensors by a boolean condition (ONNX Where)";
  let description = [{
    Result element is `lhs` where `condition` holds, `rhs` otherwise; the
    three operands broadcast together.

    ```mlir
    %0 = hgraph.where %c, %a, %b : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$condition,
                       AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` `(` type($condition) `,` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // HETC_HGRAPH_ELEMENTWISE
