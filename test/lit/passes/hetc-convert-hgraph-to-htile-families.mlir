// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile | FileCheck %s

// The lowerings of each op family (compiler/passes/HGraphToHTile/) that the
// other tests of this pass do not reach.

// Tests that every float unary op is one htile.unary of its kind, chained
// buffer to buffer, and fmod one htile.binary.
// CHECK-LABEL: func.func @main()
func.func @main(%x: tensor<2x8xf32> {hgraph.name = "x"}) -> (tensor<2x8xf32> {hgraph.name = "y"}) {
  // CHECK: %[[X:.*]] = htile.input "x" : memref<2x8xf32>
  // CHECK: htile.unary tanh ins(%[[X]]) outs(%[[A:.*]]) :
  // CHECK: htile.unary neg ins(%[[A]]) outs(%[[B:.*]]) :
  // CHECK: htile.unary reciprocal ins(%[[B]]) outs(%[[C:.*]]) :
  // CHECK: htile.unary erf ins(%[[C]]) outs(%[[D:.*]]) :
  // CHECK: htile.unary floor ins(%[[D]]) outs(%[[E:.*]]) :
  // CHECK: htile.unary ceil ins(%[[E]]) outs(%[[F:.*]]) :
  // CHECK: htile.unary sin ins(%[[F]]) outs(%[[G:.*]]) :
  // CHECK: htile.unary cos ins(%[[G]]) outs(%[[H:.*]]) :
  // CHECK: htile.unary round ins(%[[H]]) outs(%[[R:.*]]) :
  // CHECK: htile.binary fmod ins(%[[R]], %[[X]]) outs(%[[Y:.*]]) : memref<2x8xf32>, memref<2x8xf32>, memref<2x8xf32>
  // CHECK: htile.output "y", %[[Y]] : memref<2x8xf32>
  %0 = hgraph.tanh %x : tensor<2x8xf32>
  %1 = hgraph.neg %0 : tensor<2x8xf32>
  %2 = hgraph.reciprocal %1 : tensor<2x8xf32>
  %3 = hgraph.erf %2 : tensor<2x8xf32>
  %4 = hgraph.floor %3 : tensor<2x8xf32>
  %5 = hgraph.ceil %4 : tensor<2x8xf32>
  %6 = hgraph.sin %5 : tensor<2x8xf32>
  %7 = hgraph.cos %6 : tensor<2x8xf32>
  %8 = hgraph.round %7 : tensor<2x8xf32>
  %9 = hgraph.fmod %8, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %9 : tensor<2x8xf32>
}

// -----

// Tests that the comparisons not covered elsewhere write i1 buffers and
// that logical and/xor run on them.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xi32> {hgraph.name = "a"}, %b: tensor<2x8xi32> {hgraph.name = "b"}) -> (tensor<2x8xi1> {hgraph.name = "y"}) {
  // CHECK: htile.binary less ins(%[[A:.*]], %[[B:.*]]) outs(%[[LT:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi1>
  // CHECK: htile.binary less_equal ins(%[[A]], %[[B]]) outs(%[[LE:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi1>
  // CHECK: htile.binary greater_equal ins(%[[A]], %[[B]]) outs(%[[GE:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi1>
  // CHECK: htile.binary and ins(%[[LT]], %[[LE]]) outs(%[[AND:.*]]) : memref<2x8xi1>, memref<2x8xi1>, memref<2x8xi1>
  // CHECK: htile.binary xor ins(%[[AND]], %[[GE]]) outs(%{{.*}}) : memref<2x8xi1>, memref<2x8xi1>, memref<2x8xi1>
  %0 = hgraph.less %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %1 = hgraph.less_or_equal %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %2 = hgraph.greater_or_equal %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  %3 = hgraph.and %0, %1 : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  %4 = hgraph.xor %3, %2 : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  return %4 : tensor<2x8xi1>
}

// -----

// Tests that i32 mod, the bitwise ops and a left shift are one i32 kernel
// each, with no widening or wrapping.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<2x8xi32> {hgraph.name = "a"}, %b: tensor<2x8xi32> {hgraph.name = "b"}) -> (tensor<2x8xi32> {hgraph.name = "y"}) {
  // CHECK: %[[A:.*]] = htile.input "a"
  // CHECK: %[[B:.*]] = htile.input "b"
  // CHECK: htile.binary mod ins(%[[A]], %[[B]]) outs(%[[M:.*]]) :
  // CHECK: htile.binary and ins(%[[M]], %[[B]]) outs(%[[AND:.*]]) :
  // CHECK: htile.binary or ins(%[[AND]], %[[A]]) outs(%[[OR:.*]]) :
  // CHECK: htile.binary xor ins(%[[OR]], %[[A]]) outs(%[[XOR:.*]]) :
  // CHECK: htile.binary shl ins(%[[XOR]], %[[B]]) outs(%[[Y:.*]]) : memref<2x8xi32>, memref<2x8xi32>, memref<2x8xi32>
  // CHECK-NOT: htile.cast
  // CHECK: htile.output "y", %[[Y]]
  %0 = hgraph.mod %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  %1 = hgraph.bitwise_and %0, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  %2 = hgraph.bitwise_or %1, %a : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  %3 = hgraph.bitwise_xor %2, %a : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  %4 = hgraph.shift_left %3, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi32>
  return %4 : tensor<2x8xi32>
}

// -----

// Tests an arithmetic right shift of i8: widened to i32, ~(~x >> y) where
// x is negative and x >> y elsewhere, selected by x < 0, narrowed back.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<8xi8> {hgraph.name = "a"}, %b: tensor<8xi8> {hgraph.name = "b"}) -> (tensor<8xi8> {hgraph.name = "y"}) {
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[X:.*]]) : memref<8xi8>, memref<8xi32>
  // CHECK: htile.cast ins(%{{.*}}) outs(%[[N:.*]]) : memref<8xi8>, memref<8xi32>
  // CHECK: %[[ONES:.*]] = htile.constant dense<-1> : tensor<8xi32>
  // CHECK: htile.binary xor ins(%[[X]], %[[ONES]]) outs(%[[FLIP:.*]]) :
  // CHECK: htile.binary shr ins(%[[FLIP]], %[[N]]) outs(%[[LOW:.*]]) :
  // CHECK: htile.binary xor ins(%[[LOW]], %{{.*}}) outs(%[[NEG:.*]]) :
  // CHECK: htile.binary shr ins(%[[X]], %[[N]]) outs(%[[POS:.*]]) :
  // CHECK: %[[ZERO:.*]] = htile.constant dense<0> : tensor<8xi32>
  // CHECK: htile.binary less ins(%[[X]], %[[ZERO]]) outs(%[[SIGN:.*]]) : memref<8xi32>, memref<8xi32>, memref<8xi1>
  // CHECK: htile.select ins(%[[SIGN]], %[[NEG]], %[[POS]]) outs(%[[R:.*]]) :
  // CHECK: htile.cast ins(%[[R]]) outs(%[[Y:.*]]) : memref<8xi32>, memref<8xi8>
  // CHECK: htile.output "y", %[[Y]] : memref<8xi8>
  %0 = hgraph.shift_right %a, %b : (tensor<8xi8>, tensor<8xi8>) -> tensor<8xi8>
  return %0 : tensor<8xi8>
}

// -----

// Tests that an i16 left shift is computed in an i32 buffer, wrapped into
// i16's range, and that the output is that i32 buffer (i16 is held as
// i32), with no cast in between.
// CHECK-LABEL: func.func @main()
func.func @main(%a: tensor<4xi16> {hgraph.name = "a"}, %b: tensor<4xi16> {hgraph.name = "b"}) -> (tensor<4xi16> {hgraph.name = "y"}) {
  // CHECK: htile.binary shl ins(%{{.*}}, %{{.*}}) outs(%[[S:.*]]) : memref<4xi16>, memref<4xi16>, memref<4xi32>
  // CHECK: htile.binary add ins(%[[S]], %{{.*}}) outs(%[[P:.*]]) :
  // CHECK: htile.binary mod ins(%[[P]], %{{.*}}) outs(%[[M:.*]]) :
  // CHECK: htile.binary sub ins(%[[M]], %{{.*}}) outs(%[[Y:.*]]) : memref<4xi32>, memref<4xi32>, memref<4xi32>
  // CHECK-NOT: htile.cast
  // CHECK: htile.output "y", %[[Y]] : memref<4xi32>
  %0 = hgraph.shift_left %a, %b : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

// Tests that a lookup in a constant table is one htile.gather_rows reading
// the table's htile.constant with the run-time indices.
// CHECK-LABEL: func.func @main()
func.func @main(%i: tensor<3xi32> {hgraph.name = "ids"}) -> (tensor<3x8xf32> {hgraph.name = "y"}) {
  // CHECK: %[[IDS:.*]] = htile.input "ids" : memref<3xi32>
  // CHECK: %[[T:.*]] = htile.constant dense<1.500000e+00> : tensor<10x8xf32> : memref<10x8xf32>
  // CHECK: htile.gather_rows ins(%[[T]], %[[IDS]]) outs(%[[Y:.*]]) : (memref<10x8xf32>, memref<3xi32>) -> memref<3x8xf32>
  // CHECK: htile.output "y", %[[Y]]
  %t = hgraph.constant dense<1.5> : tensor<10x8xf32>
  %0 = hgraph.gather_rows %t, %i : (tensor<10x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// Tests that a row scatter whose table nothing else reads (here a model
// input, seen through a reshape) writes the table's own buffer, with no
// copy: a KV cache updated in place.
// CHECK-LABEL: func.func @main()
func.func @main(%c: tensor<2x5x8xf32> {hgraph.name = "cache"}, %i: tensor<3xi64> {hgraph.name = "pos"}, %u: tensor<3x8xf32> {hgraph.name = "kv"}) -> (tensor<10x8xf32> {hgraph.name = "y"}) {
  // CHECK: %[[C:.*]] = htile.input "cache" : memref<2x5x8xf32>
  // CHECK-DAG: %[[IDS:.*]] = htile.input "pos" : memref<3xi64>
  // CHECK-DAG: %[[U:.*]] = htile.input "kv" : memref<3x8xf32>
  // CHECK: %[[T:.*]] = htile.view %[[C]] : memref<2x5x8xf32> to memref<10x8xf32>
  // CHECK-NOT: htile.gather
  // CHECK: htile.scatter_rows ins(%[[U]], %[[IDS]]) outs(%[[T]]) : (memref<3x8xf32>, memref<3xi64>) -> memref<10x8xf32>
  // CHECK: htile.output "y", %[[T]]
  %t = hgraph.reshape %c : tensor<2x5x8xf32> -> tensor<10x8xf32>
  %0 = hgraph.scatter_rows %t, %i, %u : (tensor<10x8xf32>, tensor<3xi64>, tensor<3x8xf32>) -> tensor<10x8xf32>
  return %0 : tensor<10x8xf32>
}

// -----

// Tests that a row scatter whose table is read again writes a copy: the
// table is moved whole (an identity gather), and the copy's rows replaced.
// CHECK-LABEL: func.func @main()
func.func @main(%c: tensor<10x8xf32> {hgraph.name = "cache"}, %i: tensor<3xi64> {hgraph.name = "pos"}, %u: tensor<3x8xf32> {hgraph.name = "kv"}) -> (tensor<10x8xf32> {hgraph.name = "y"}, tensor<10x8xf32> {hgraph.name = "z"}) {
  // CHECK: %[[C:.*]] = htile.input "cache" : memref<10x8xf32>
  // CHECK: %[[T:.*]] = htile.alloc : memref<10x8xf32>
  // CHECK: htile.gather ins(%[[C]]) outs(%[[T]]) indices [0, 1, 2,
  // CHECK: htile.scatter_rows ins(%{{.*}}, %{{.*}}) outs(%[[T]])
  // CHECK: htile.output "y", %[[T]]
  // CHECK: htile.output "z", %[[C]]
  %0 = hgraph.scatter_rows %c, %i, %u : (tensor<10x8xf32>, tensor<3xi64>, tensor<3x8xf32>) -> tensor<10x8xf32>
  return %0, %c : tensor<10x8xf32>, tensor<10x8xf32>
}

// -----

// Tests that a lookup in a table computed at run time (here a model input)
// reads the table's buffer by index as a constant table's is.
// CHECK-LABEL: func.func @main()
func.func @main(%t: tensor<10x8xf32> {hgraph.name = "t"}, %i: tensor<3xi32> {hgraph.name = "ids"}) -> (tensor<3x8xf32> {hgraph.name = "y"}) {
  // CHECK: %[[T:.*]] = htile.input "t" : memref<10x8xf32>
  // CHECK: %[[IDS:.*]] = htile.input "ids" : memref<3xi32>
  // CHECK: htile.gather_rows ins(%[[T]], %[[IDS]]) outs(%{{.*}}) : (memref<10x8xf32>, memref<3xi32>) -> memref<3x8xf32>
  %0 = hgraph.gather_rows %t, %i : (tensor<10x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
