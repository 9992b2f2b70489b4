//===- HTileEnums.td - htile's own kernel kinds ------------*- tablegen -*-===//
//
// The kinds only htile has; unary and reduce kernels take the vector
// unit's kinds (compiler/dialects/hisa/IR/HIsaVectorEnums.td).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_HTILE_ENUMS
#define HETC_HTILE_ENUMS

include "mlir/IR/EnumAttr.td"

def HTile_ActivationAttr : I32EnumAttr<"Activation", "epilogue activation", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"sigmoid", 2>, I32EnumAttrCase<"tanh", 3>]> {
  let cppNamespace = "::hetc::htile";
}

def HTile_BinaryKindAttr : I32EnumAttr<"BinaryKind", "elementwise binary operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
    I32EnumAttrCase<"pow", 6>, I32EnumAttrCase<"and_", 7, "and">,
    I32EnumAttrCase<"or_", 8, "or">, I32EnumAttrCase<"xor_", 9, "xor">,
    I32EnumAttrCase<"mod", 10>, I32EnumAttrCase<"fmod", 11>,
    I32EnumAttrCase<"equal", 12>, I32EnumAttrCase<"less", 13>,
    I32EnumAttrCase<"less_equal", 14>, I32EnumAttrCase<"greater", 15>,
    I32EnumAttrCase<"greater_equal", 16>, I32EnumAttrCase<"shl", 17>,
    I32EnumAttrCase<"shr", 18>]> {
  let cppNamespace = "::hetc::htile";
}

def HTile_OperandSideAttr : I32EnumAttr<"OperandSide", "an operand of a binary kernel", [
    I32EnumAttrCase<"lhs", 0>, I32EnumAttrCase<"rhs", 1>]> {
  let cppNamespace = "::hetc::htile";
}

def HTile_CastOverflowAttr : I32EnumAttr<"CastOverflow", "what a cast makes of a value beyond the output type's range", [
    I32EnumAttrCase<"standard", 0>, I32EnumAttrCase<"no_saturate", 1>,
    I32EnumAttrCase<"wrap", 2>]> {
  let cppNamespace = "::hetc::htile";
}

def HTile_E8M0RoundingAttr : I32EnumAttr<"E8M0Rounding", "how a cast rounds to f8E8M0FNU", [
    I32EnumAttrCase<"up", 0>, I32EnumAttrCase<"down", 1>,
    I32EnumAttrCase<"nearest", 2>]> {
  let cppNamespace = "::hetc::htile";
}

#endif // HETC_HTILE_ENUMS
