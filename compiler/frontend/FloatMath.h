//===- FloatMath.h - Elementwise f32 arithmetic for import rules -*- C++
//-*-===//
#ifndef HETC_COMPILER_FRONTEND_FLOATMATH_H
#define HETC_COMPILER_FRONTEND_FLOATMATH_H

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/frontend/OnnxOps.h"

namespace hetc::frontend {

/// Elementwise f32 arithmetic for import rules that compute coordinates
/// and weights on tensors of one shape (`type`), with scalars broadcast.
struct FloatMath {
  NodeContext &ctx;
  /// The f32 tensors' type, and the i1 type of comparisons of them.
  mlir::RankedTensorType type;
  mlir::RankedTensorType flags;

  mlir::Value scalar(double v) {
    return scalarConstant(ctx, ctx.builder.getF32Type(), v);
  }
  mlir::Value add(mlir::Value a, mlir::Value b) {
    return broadcastBinary<hgraph::AddOp>(ctx, a, b);
  }
  mlir::Value sub(mlir::Value a, mlir::Value b) {
    return broadcastBinary<hgraph::SubOp>(ctx, a, b);
  }
  mlir::Value mul(mlir::Value a, mlir::Value b) {
    return broadcastBinary<hgraph::MulOp>(ctx, a, b);
  }
  mlir::Value div(mlir::Value a, mlir::Value b) {
    return broadcastBinary<hgraph::DivOp>(ctx, a, b);
  }
  mlir::Value add(mlir::Value a, double b) { return add(a, scalar(b)); }
  mlir::Value mul(mlir::Value a, double b) { return mul(a, scalar(b)); }
  mlir::Value floor(mlir::Value a) {
    return ctx.create<hgraph::FloorOp>(type, a);
  }
  mlir::Value round(mlir::Value a) {
    return ctx.create<hgraph::RoundOp>(type, a);
  }
  mlir::Value clip(mlir::Value a, double lo, double hi) {
    return ctx.create<hgraph::ClipOp>(type, a, scalar(lo), scalar(hi));
  }
  mlir::Value less(mlir::Value a, double b) {
    return ctx.create<hgraph::LessOp>(flags, a, scalar(b));
  }
  mlir::Value greater(mlir::Value a, double b) {
    return ctx.create<hgraph::GreaterOp>(flags, a, scalar(b));
  }
  mlir::Value equal(mlir::Value a, double b) {
    return ctx.create<hgraph::EqualOp>(flags, a, scalar(b));
  }
  mlir::Value both(mlir::Value a, mlir::Value b) {
    return ctx.create<hgraph::AndOp>(flags, a, b);
  }
  mlir::Value either(mlir::Value a, mlir::Value b) {
    return ctx.create<hgraph::OrOp>(flags, a, b);
  }
  mlir::Value atLeast(mlir::Value a, double b) {
    return ctx.create<hgraph::GreaterOrEqualOp>(flags, a, scalar(b));
  }
  mlir::Value max(mlir::Value a, double b) {
    return ctx.create<hgraph::MaxOp>(type, a, scalar(b));
  }
  mlir::Value where(mlir::Value c, mlir::Value a, mlir::Value b) {
    return ctx.create<hgraph::WhereOp>(type, c, a, b);
  }
  mlir::Value asFloat(mlir::Value flag) {
    return castTo(ctx, flag, type.getElementType());
  }

  /// `x` reflected by the nearer border of [lo, hi] until it lies inside
  /// (the ONNX reference's _gs_reflect).
  mlir::Value reflect(mlir::Value x, double lo, double hi) {
    double range = hi - lo;
    if (range <= 0)
      return x;
    mlir::Value below = less(x, lo), above = greater(x, hi);
    mlir::Value dx = where(below, sub(scalar(lo), x), sub(x, scalar(hi)));
    mlir::Value n = floor(mul(dx, 1.0 / range));
    mlir::Value r = sub(dx, mul(n, range));
    mlir::Value even = equal(sub(n, mul(floor(mul(n, 0.5)), 2.0)), 0.0);
    mlir::Value fromLo = add(r, lo), fromHi = sub(scalar(hi), r);
    return where(below, where(even, fromLo, fromHi),
                 where(above, where(even, fromHi, fromLo), x));
  }
};

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_FLOATMATH_H
