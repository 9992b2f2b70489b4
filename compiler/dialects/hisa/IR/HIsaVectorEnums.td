//===- HIsaVectorEnums.td - The vector unit's operations ---*- tablegen -*-===//
//
// The unary operations and lane reductions of the vector unit. htile's
// unary and reduce kernels take the same kinds (HTileOps.td includes this
// file), so a kernel's kind is the instruction's, with no conversion.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_HISA_VECTOR_ENUMS
#define HETC_HISA_VECTOR_ENUMS

include "mlir/IR/EnumAttr.td"

def HIsa_VUnaryKind : I32EnumAttr<"VUnaryKind", "vector unary operation", [
    I32EnumAttrCase<"relu", 0>, I32EnumAttrCase<"sigmoid", 1>,
    I32EnumAttrCase<"tanh", 2>, I32EnumAttrCase<"exp", 3>,
    I32EnumAttrCase<"neg", 4>, I32EnumAttrCase<"abs", 5>,
    I32EnumAttrCase<"sqrt", 6>, I32EnumAttrCase<"reciprocal", 7>,
    I32EnumAttrCase<"log", 8>, I32EnumAttrCase<"erf", 9>,
    I32EnumAttrCase<"floor", 10>, I32EnumAttrCase<"ceil", 11>,
    I32EnumAttrCase<"sin", 12>, I32EnumAttrCase<"cos", 13>,
    I32EnumAttrCase<"round", 14>, I32EnumAttrCase<"not_", 15, "not">]> {
  let cppNamespace = "::hetc::hisa";
}

def HIsa_VReduceKind : I32EnumAttr<"VReduceKind", "vector lane reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::hetc::hisa";
}

#endif // HETC_HISA_VECTOR_ENUMS
