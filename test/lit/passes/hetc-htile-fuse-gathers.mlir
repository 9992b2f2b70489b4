// RUN: hetc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(hetc-htile-fuse-gathers))' | FileCheck %s

// Tests that a split part reshaped across rows (two gathers through a
// buffer only they use) becomes one gather with the indices composed, a
// zero kept zero, and the buffer between them gone.
// CHECK-LABEL: func.func @split_then_reshape
// CHECK: %[[X:.*]] = htile.input "x"
// CHECK-NOT: htile.alloc : memref<1x4xf32>
// CHECK: %[[Y:.*]] = htile.alloc : memref<2x3xf32>
// CHECK-NEXT: htile.gather ins(%[[X]]) outs(%[[Y]]) indices [5, 4, -1, 3, 2, -1] : (memref<1x8xf32>) -> memref<2x3xf32>
// CHECK-NOT: htile.gather
func.func @split_then_reshape() {
  %x = htile.input "x" : memref<1x8xf32>
  %a = htile.alloc : memref<1x4xf32>
  htile.gather ins(%x) outs(%a) indices [2, 3, 4, 5] : (memref<1x8xf32>) -> memref<1x4xf32>
  %y = htile.alloc : memref<2x3xf32>
  htile.gather ins(%a) outs(%y) indices [3, 2, -1, 1, 0, -1] : (memref<1x4xf32>) -> memref<2x3xf32>
  htile.output "y", %y : memref<2x3xf32>
  return
}

// -----

// Tests that a chain of three gathers becomes one, and that the first
// gather's inputs (two) stay its inputs.
// CHECK-LABEL: func.func @three_gathers
// CHECK: %[[Y:.*]] = htile.alloc : memref<3xf32>
// CHECK-NEXT: htile.gather ins(%{{.*}}, %{{.*}}) outs(%[[Y]]) indices [4, 0, 2] : (memref<2xf32>, memref<3xf32>) -> memref<3xf32>
// CHECK-NOT: htile.gather
func.func @three_gathers() {
  %x = htile.input "x" : memref<2xf32>
  %z = htile.input "z" : memref<3xf32>
  %a = htile.alloc : memref<5xf32>
  htile.gather ins(%x, %z) outs(%a) indices [0, 1, 2, 3, 4] : (memref<2xf32>, memref<3xf32>) -> memref<5xf32>
  %b = htile.alloc : memref<4xf32>
  htile.gather ins(%a) outs(%b) indices [4, 3, 2, 0] : (memref<5xf32>) -> memref<4xf32>
  %y = htile.alloc : memref<3xf32>
  htile.gather ins(%b) outs(%y) indices [0, 3, 2] : (memref<4xf32>) -> memref<3xf32>
  htile.output "y", %y : memref<3xf32>
  return
}

// -----

// Tests that a buffer with a second reader keeps its gather.
// CHECK-LABEL: func.func @shared_middle
// CHECK-COUNT-2: htile.gather
func.func @shared_middle() {
  %x = htile.input "x" : memref<4xf32>
  %a = htile.alloc : memref<2xf32>
  htile.gather ins(%x) outs(%a) indices [1, 2] : (memref<4xf32>) -> memref<2xf32>
  %y = htile.alloc : memref<2xf32>
  htile.gather ins(%a) outs(%y) indices [1, 0] : (memref<2xf32>) -> memref<2xf32>
  htile.output "y", %y : memref<2xf32>
  htile.output "a", %a : memref<2xf32>
  return
}

// -----

// Tests that a gather does not read through a buffer whose source is
// written in between: the first gather's copy is what it must read.
// CHECK-LABEL: func.func @source_written_between
// CHECK: htile.gather ins(%{{.*}}) outs(%[[A:.*]]) indices [1, 0]
// CHECK: htile.binary add
// CHECK: htile.gather ins(%[[A]])
func.func @source_written_between() {
  %x = htile.alloc : memref<2xf32>
  %one = htile.constant dense<1.0> : tensor<2xf32> : memref<2xf32>
  htile.binary add ins(%one, %one) outs(%x) : memref<2xf32>, memref<2xf32>, memref<2xf32>
  %a = htile.alloc : memref<2xf32>
  htile.gather ins(%x) outs(%a) indices [1, 0] : (memref<2xf32>) -> memref<2xf32>
  htile.binary add ins(%x, %one) outs(%x) : memref<2xf32>, memref<2xf32>, memref<2xf32>
  %y = htile.alloc : memref<2xf32>
  htile.gather ins(%a) outs(%y) indices [0, -1] : (memref<2xf32>) -> memref<2xf32>
  htile.output "y", %y : memref<2xf32>
  htile.output "x", %x : memref<2xf32>
  return
}

// -----

// Tests that a concatenation of two slices of one buffer (rotate_half's
// concat(x2, x1)) becomes one gather of that buffer, and that an input no
// gather fills stays an input of the fused gather.
// CHECK-LABEL: func.func @concat_of_slices
// CHECK: %[[X:.*]] = htile.input "x"
// CHECK: %[[Z:.*]] = htile.input "z"
// CHECK: %[[Y:.*]] = htile.alloc : memref<1x10xf32>
// CHECK-NEXT: htile.gather ins(%[[X]], %[[Z]]) outs(%[[Y]]) indices [4, 5, 6, 7, 0, 1, 2, 3, 8, 9] : (memref<1x8xf32>, memref<1x2xf32>) -> memref<1x10xf32>
// CHECK-NOT: htile.gather
func.func @concat_of_slices() {
  %x = htile.input "x" : memref<1x8xf32>
  %z = htile.input "z" : memref<1x2xf32>
  %lo = htile.alloc : memref<1x4xf32>
  htile.gather ins(%x) outs(%lo) indices [0, 1, 2, 3] : (memref<1x8xf32>) -> memref<1x4xf32>
  %hi = htile.alloc : memref<1x4xf32>
  htile.gather ins(%x) outs(%hi) indices [4, 5, 6, 7] : (memref<1x8xf32>) -> memref<1x4xf32>
  %y = htile.alloc : memref<1x10xf32>
  htile.gather ins(%hi, %lo, %z) outs(%y) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : (memref<1x4xf32>, memref<1x4xf32>, memref<1x2xf32>) -> memref<1x10xf32>
  htile.output "y", %y : memref<1x10xf32>
  return
}

// -----

// Tests that a buffer a gather reads twice keeps its own gather.
// CHECK-LABEL: func.func @input_read_twice
// CHECK: htile.gather ins(%{{.*}}) outs(%[[A:.*]]) indices [1, 0]
// CHECK: htile.gather ins(%[[A]], %[[A]])
func.func @input_read_twice() {
  %x = htile.input "x" : memref<2xf32>
  %a = htile.alloc : memref<2xf32>
  htile.gather ins(%x) outs(%a) indices [1, 0] : (memref<2xf32>) -> memref<2xf32>
  %y = htile.alloc : memref<4xf32>
  htile.gather ins(%a, %a) outs(%y) indices [0, 1, 2, 3] : (memref<2xf32>, memref<2xf32>) -> memref<4xf32>
  htile.output "y", %y : memref<4xf32>
  return
}

// -----

// Tests that an op of the kernel plan only does not count as a reader of
// the buffer between two gathers: the chip's program is what it would be
// without it (one gather, reading through), and the buffer stays for the
// plan, filled there by an htile.plan_gather in the first gather's place.
// CHECK-LABEL: func.func @plan_only_reader
// CHECK: %[[X:.*]] = htile.input "x"
// CHECK: %[[A:.*]] = htile.alloc : memref<1x2x4xf32>
// CHECK-NEXT: htile.plan_gather ins(%[[X]]) outs(%[[A]]) indices [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK-NEXT: %[[Y:.*]] = htile.alloc : memref<1x2x4xf32>
// CHECK-NEXT: htile.gather ins(%[[X]]) outs(%[[Y]]) indices [5, 4, 3, 2, 1, 0, -1, -1]
// CHECK-NOT: htile.gather
// CHECK: htile.plan_depthwise_conv ins(%[[A]], [%{{.*}}])
// CHECK-NOT: htile.gather
func.func @plan_only_reader() {
  %x = htile.input "x" : memref<8xf32>
  %t = htile.constant dense<0.5> : tensor<2x1xf32> : memref<2x1xf32>
  %a = htile.alloc : memref<1x2x4xf32>
  htile.gather ins(%x) outs(%a) indices [0, 1, 2, 3, 4, 5, 6, 7] : (memref<8xf32>) -> memref<1x2x4xf32>
  %y = htile.alloc : memref<1x2x4xf32>
  htile.gather ins(%a) outs(%y) indices [5, 4, 3, 2, 1, 0, -1, -1] : (memref<1x2x4xf32>) -> memref<1x2x4xf32>
  %z = htile.alloc : memref<1x2x4xf32>
  htile.plan_depthwise_conv ins(%a, [%t]) outs(%z) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 4>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x2x4xf32>, [memref<2x1xf32>] -> memref<1x2x4xf32>
  htile.output "y", %y : memref<1x2x4xf32>
  return
}
