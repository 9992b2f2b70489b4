// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%S/../Inputs/tiny-sram.chip --hetc-htile-plan-memory | FileCheck %s

// Tests that buffers spread over slices (8 vectors each) while there is
// room, that a kernel's operands land in different slices, and that a
// buffer whose life ended is reused: %e takes the slice of %a, dead after
// the first unary. At the peak (the add) x, b and c are live: 24 vectors
// holding 3 x 8 x 16 f32 elements, 1536 bytes.
// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.sram_peak_tensor_bytes = 1536
// CHECK-SAME: hetc.sram_peak_vectors = 24
func.func @main() {
  // CHECK: htile.input "x" {address = 0 : i64} : memref<8x16xf32>
  %x = htile.input "x" : memref<8x16xf32>
  // CHECK: %[[A:.*]] = htile.alloc {address = 8 : i64} : memref<8x16xf32>
  %a = htile.alloc : memref<8x16xf32>
  htile.unary relu ins(%x) outs(%a) : memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 16 : i64} : memref<8x16xf32>
  %b = htile.alloc : memref<8x16xf32>
  htile.unary exp ins(%a) outs(%b) : memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 24 : i64} : memref<8x16xf32>
  %c = htile.alloc : memref<8x16xf32>
  htile.binary add ins(%b, %x) outs(%c) : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 8 : i64} : memref<8x16xf32>
  %e = htile.alloc : memref<8x16xf32>
  htile.unary tanh ins(%c) outs(%e) : memref<8x16xf32>, memref<8x16xf32>
  htile.output "y", %e : memref<8x16xf32>
  return
}

// -----

// Tests that a program that does not fit reports the bytes it needs at its
// peak, the share of inputs and constants, the chip's bytes, the number of
// chips it would take, and where the peak is.
// expected-error @+1 {{the program does not fit in SRAM: it needs 3072 bytes at its peak (1024 in weights, constants and inputs, the rest in intermediate results), chip 'tiny-sram' has 2048 bytes; it would take 2 chips of this kind (placement over several chips is not supported yet); narrower weights take fewer bytes (hetc compile --precision fp16, bf16 or int8, docs/precision.md)}}
func.func @main() {
  %x = htile.input "x" : memref<16x16xf32>
  %a = htile.alloc : memref<16x16xf32>
  htile.unary relu ins(%x) outs(%a) : memref<16x16xf32>, memref<16x16xf32>
  // expected-note @+1 {{the most data are live here}}
  %b = htile.alloc : memref<16x16xf32>
  htile.unary exp ins(%a) outs(%b) : memref<16x16xf32>, memref<16x16xf32>
  htile.output "y", %b : memref<16x16xf32>
  return
}

// -----

// Tests packing: small buffers live throughout and a large one that needs
// every vector they leave. Spread over slices, the small buffers would
// leave no run of 24 free vectors; the pass then packs them.
// CHECK-LABEL: func.func @packs()
// CHECK-SAME: hetc.sram_peak_vectors = 32
func.func @packs() {
  // CHECK-COUNT-4: htile.input {{.*}} : memref<2x16xf32>
  %x0 = htile.input "x0" : memref<2x16xf32>
  %x1 = htile.input "x1" : memref<2x16xf32>
  %x2 = htile.input "x2" : memref<2x16xf32>
  %x3 = htile.input "x3" : memref<2x16xf32>
  // CHECK: htile.constant {{.*}} {address = 0 : i64} : memref<24x16xf32>
  %w = htile.constant dense<1.0> : tensor<24x16xf32> : memref<24x16xf32>
  htile.output "y0", %x0 : memref<2x16xf32>
  htile.output "y1", %x1 : memref<2x16xf32>
  htile.output "y2", %x2 : memref<2x16xf32>
  htile.output "y3", %x3 : memref<2x16xf32>
  htile.output "w", %w : memref<24x16xf32>
  return
}

// -----

// Tests that an op of the kernel plan only does not keep what it reads
// alive: %a, last read by the chip in the first unary, leaves its slice to
// %c although the plan's depthwise convolution reads it later.
// CHECK-LABEL: func.func @plan_only_reads
// CHECK-SAME: hetc.sram_peak_vectors = 32
func.func @plan_only_reads() {
  %x = htile.input "x" : memref<8x16xf32>
  // CHECK: htile.alloc {address = 16 : i64} : memref<8x16xf32>
  %a = htile.alloc : memref<8x16xf32>
  htile.unary relu ins(%x) outs(%a) : memref<8x16xf32>, memref<8x16xf32>
  %b = htile.alloc : memref<8x16xf32>
  htile.unary exp ins(%a) outs(%b) : memref<8x16xf32>, memref<8x16xf32>
  // CHECK: htile.alloc {address = 16 : i64} : memref<8x16xf32>
  %c = htile.alloc : memref<8x16xf32>
  htile.unary tanh ins(%b) outs(%c) : memref<8x16xf32>, memref<8x16xf32>
  %t = htile.constant dense<0.5> : tensor<8x1xf32> : memref<8x1xf32>
  htile.plan_depthwise_conv ins(%a, [%t]) outs(%c) {dilations = array<i64: 1>, input_shape = array<i64: 1, 8, 16>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<8x16xf32>, [memref<8x1xf32>] -> memref<8x16xf32>
  htile.output "y", %c : memref<8x16xf32>
  return
}

// -----

// Tests that a buffer only ops of the kernel plan use (here through a view)
// takes no SRAM: it gets no address, and the peak is that of the others
// (8 vectors each for the input, the constant and the result).
// CHECK-LABEL: func.func @plan_only_buffer
// CHECK-SAME: hetc.sram_peak_vectors = 24
func.func @plan_only_buffer() {
  %x = htile.input "x" : memref<8x16xf32>
  // CHECK: %[[P:.*]] = htile.alloc : memref<8x16xf32>
  // CHECK-NEXT: htile.plan_gather
  %p = htile.alloc : memref<8x16xf32>
  htile.plan_gather ins(%x) outs(%p) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127] : (memref<8x16xf32>) -> memref<8x16xf32>
  %v = htile.view %p : memref<8x16xf32> to memref<1x8x16xf32>
  // CHECK: htile.alloc {address = {{[0-9]+}} : i64} : memref<8x16xf32>
  %y = htile.alloc : memref<8x16xf32>
  htile.unary relu ins(%x) outs(%y) : memref<8x16xf32>, memref<8x16xf32>
  %t = htile.constant dense<0.5> : tensor<8x1xf32> : memref<8x1xf32>
  htile.plan_depthwise_conv ins(%v, [%t]) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 8, 16>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x8x16xf32>, [memref<8x1xf32>] -> memref<8x16xf32>
  htile.output "y", %y : memref<8x16xf32>
  return
}
