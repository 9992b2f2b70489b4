// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%S/../../../chips/test-chip.chip --hetc-htile-physical-bound | FileCheck %s

// The test chip's peaks per cycle: 2 planes x 16 x 16 = 512 MACs of every
// width (its matrix.cycles_16bit and cycles_32bit are unset: one cycle);
// weight install 2 x 32 streams x 16 lanes = 1024 bytes; SRAM 8 slices x
// 2 banks x 16 lanes = 256 bytes; vector 4 ALUs x 16 lanes = 64 lane
// operations. hetc-hisa-schedule-wide-matmul.mlir has slower wide rates.

// An f32 matmul is bound by the matrix unit: 64 x 64 x 64 MACs (512
// cycles); 16384 weight bytes (16), 3 x 16384 SRAM bytes (192), the relu
// on 4096 elements (64).
// CHECK-LABEL: func.func @f32_matmul()
// CHECK-SAME: hetc.physical_bound = 512 : i64
// CHECK-SAME: hetc.physical_bound_reason = "bound by matrix; matrix 512, weight install 16, SRAM 192, vector 64 cycles"
func.func @f32_matmul() {
  %x = htile.input "x" : memref<64x64xf32>
  %w = htile.input "w" : memref<64x64xf32>
  %y = htile.alloc : memref<64x64xf32>
  htile.matmul ins(%x, %w) outs(%y) activation(relu) : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>
  htile.output "y", %y : memref<64x64xf32>
  return
}

// -----

// int8 weights of an f16 matmul (--precision int8) are installed at the
// input's width: 4096 weights x 2 bytes (8 cycles); the vector unit
// converts each (4096) and scales each sum (4096): 8192 lane operations
// (128); SRAM 8192 + 4096 + 256 + 16384 bytes (113).
// CHECK-LABEL: func.func @int8_weight_matmul()
// CHECK-SAME: hetc.physical_bound = 512 : i64
// CHECK-SAME: hetc.physical_bound_reason = "bound by matrix; matrix 512, weight install 8, SRAM 113, vector 128 cycles"
func.func @int8_weight_matmul() {
  %x = htile.input "x" : memref<64x64xf16>
  %w = htile.input "w" : memref<64x64xi8>
  %s = htile.input "s" : memref<64xf32>
  %y = htile.alloc : memref<64x64xf32>
  htile.matmul ins(%x, %w) scale(%s : memref<64xf32>) outs(%y) activation(none) : memref<64x64xf16>, memref<64x64xi8>, memref<64x64xf32>
  htile.output "y", %y : memref<64x64xf32>
  return
}

// -----

// 8-bit weights, the same rate: 262144 MACs in 512 cycles;
// 4096 weight bytes (4); 4096 + 4096 + 16384 SRAM bytes (96); no
// activation, no vector work.
// CHECK-LABEL: func.func @i8_matmul()
// CHECK-SAME: hetc.physical_bound = 512 : i64
// CHECK-SAME: hetc.physical_bound_reason = "bound by matrix; matrix 512, weight install 4, SRAM 96, vector 0 cycles"
func.func @i8_matmul() {
  %x = htile.input "x" : memref<64x64xi8>
  %w = htile.input "w" : memref<64x64xi8>
  %y = htile.alloc : memref<64x64xi32>
  htile.matmul ins(%x, %w) outs(%y) activation(none) : memref<64x64xi8>, memref<64x64xi8>, memref<64x64xi32>
  htile.output "y", %y : memref<64x64xi32>
  return
}

// -----

// Vector kernels: the add reads two and writes one [8, 16] f32 buffer
// (1536 bytes, 6 cycles) for 128 lane operations (2); the softmax reads
// and writes [4, 64] f32 (2048 bytes, 8) and does five operations per
// element (1280, 20); the gather copies 32 f32 elements (256 bytes, 1).
// In all 6 + 8 + 1 = 15 SRAM cycles against 2 + 20 = 22 vector cycles.
// CHECK-LABEL: func.func @vector_kernels()
// CHECK-SAME: hetc.physical_bound = 22 : i64
// CHECK-SAME: hetc.physical_bound_reason = "bound by vector; matrix 0, weight install 0, SRAM 15, vector 22 cycles"
func.func @vector_kernels() {
  %a = htile.input "a" : memref<8x16xf32>
  %b = htile.alloc : memref<8x16xf32>
  htile.binary add ins(%a, %a) outs(%b) : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>
  %s = htile.input "s" : memref<4x64xf32>
  %t = htile.alloc : memref<4x64xf32>
  %scratch = htile.alloc : memref<4x64xf32>
  htile.softmax ins(%s) outs(%t) scratch(%scratch) : memref<4x64xf32>, memref<4x64xf32>, memref<4x64xf32>
  %g = htile.alloc : memref<2x16xf32>
  htile.gather ins(%b) outs(%g) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : (memref<8x16xf32>) -> memref<2x16xf32>
  htile.output "b", %g : memref<2x16xf32>
  htile.output "t", %t : memref<4x64xf32>
  return
}

// -----

// A channels-last depthwise convolution is bound by the vector unit: with
// a 3x3 window padded by one, each axis of 8 positions meets 22 kernel
// elements in all, so 22 x 22 = 484 products of 16 channels, each summed
// but a position's first (64), plus the bias (64): (2 x 484 - 64 + 64) x
// 16 = 15488 lane operations (242 cycles). SRAM: the input, one of the
// two copies of the weight, the bias and the output, 4096 + 576 + 64 +
// 4096 bytes (35).
// CHECK-LABEL: func.func @depthwise()
// CHECK-SAME: hetc.physical_bound = 242 : i64
// CHECK-SAME: hetc.physical_bound_reason = "bound by vector; matrix 0, weight install 0, SRAM 35, vector 242 cycles"
func.func @depthwise() {
  %x = htile.input "x" : memref<8x8x16xf32>
  %w0 = htile.constant dense<0.5> : tensor<3x3x16xf32> : memref<3x3x16xf32>
  %w1 = htile.constant dense<0.5> : tensor<3x3x16xf32> : memref<3x3x16xf32>
  %b = htile.constant dense<1.0> : tensor<16xf32> : memref<16xf32>
  %y = htile.alloc : memref<8x8x16xf32>
  htile.depthwise_conv ins(%x, [%w0, %w1], %b) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : memref<8x8x16xf32>, [memref<3x3x16xf32>, memref<3x3x16xf32>], memref<16xf32> -> memref<8x8x16xf32>
  htile.output "y", %y : memref<8x8x16xf32>
  return
}
