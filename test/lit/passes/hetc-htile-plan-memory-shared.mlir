// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetc-set-chip=file=%S/../Inputs/tiny-sram.chip --hetc-htile-plan-memory | FileCheck %s

// Tests that a program placed into a shared layout (a prefill program into
// its decode step's SRAM, 4 slices of 8 vectors here) gives its input named
// as the layout's resident input that input's address, and its constant of
// the layout's contents that constant's address (the fingerprint is FNV-1a
// 64 of "memref<8x16xf32>\0", the splat flag 1 and 1.0f's four bytes), and
// that its other buffers keep clear of everything the layout keeps: vectors
// 0-7 (a constant this program does not read), 16-23 (the cache) and 24-31
// (the shared constant) leave it vectors 8-15, which x takes. The figures
// count its own buffers: x, the cache and the constant, 24 vectors.
// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.sram_peak_vectors = 24
module attributes {hetc.shared_layout = {kept = array<i64: 0, 8, 16, 8, 24, 8>, constants = array<i64: -6633217660195241437, 24>, inputs = {past = [16, "memref<8x16xf32>"]}}} {
  func.func @main() {
    // CHECK: htile.input "past" {address = 16 : i64}
    %past = htile.input "past" : memref<8x16xf32>
    // CHECK: htile.input "x" {address = 8 : i64}
    %x = htile.input "x" : memref<8x16xf32>
    // CHECK: htile.constant {{.*}} {address = 24 : i64}
    %w = htile.constant dense<1.0> : tensor<8x16xf32> : memref<8x16xf32>
    htile.binary add ins(%x, %w) outs(%past) : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>
    htile.output "present", %past : memref<8x16xf32>
    return
  }
}

// -----

// Tests that a constant of other contents is placed as the program's own,
// clear of what the layout keeps.
// CHECK-LABEL: func.func @main()
module attributes {hetc.shared_layout = {kept = array<i64: 0, 8>, constants = array<i64: -6633217660195241437, 0>, inputs = {}}} {
  func.func @main() {
    %x = htile.input "x" : memref<8x16xf32>
    // CHECK: htile.constant {{.*}} {address = {{[1-9][0-9]*}} : i64}
    %w = htile.constant dense<2.0> : tensor<8x16xf32> : memref<8x16xf32>
    %y = htile.alloc : memref<8x16xf32>
    htile.binary add ins(%x, %w) outs(%y) : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>
    htile.output "y", %y : memref<8x16xf32>
    return
  }
}

// -----

// Tests that a program of one batch slot (slot = 1) takes that slot's rows
// of a resident input of two slots: the cache's 16 vectors from 16, the
// second slot's 8 from 24.
// CHECK-LABEL: func.func @main()
module attributes {hetc.shared_layout = {kept = array<i64: 16, 16>, constants = array<i64>, inputs = {past = [16, "memref<2x8x16xf32>"]}, slot = 1}} {
  func.func @main() {
    // CHECK: htile.input "past" {address = 24 : i64} : memref<1x8x16xf32>
    %past = htile.input "past" : memref<1x8x16xf32>
    // CHECK: htile.input "x" {address = {{0|8}} : i64}
    %x = htile.input "x" : memref<1x8x16xf32>
    htile.binary add ins(%x, %past) outs(%past) : memref<1x8x16xf32>, memref<1x8x16xf32>, memref<1x8x16xf32>
    htile.output "present", %past : memref<1x8x16xf32>
    return
  }
}

// -----

// Tests that an input of a resident input's name but another type is an
// error naming both types.
module attributes {hetc.shared_layout = {kept = array<i64: 16, 8>, constants = array<i64>, inputs = {past = [16, "memref<8x16xf32>"]}}} {
  func.func @main() {
    // expected-error @+1 {{input 'past' is memref<4x16xf32> here, but the program whose SRAM layout this one shares keeps it on the chip as memref<8x16xf32>}}
    %past = htile.input "past" : memref<4x16xf32>
    htile.output "present", %past : memref<4x16xf32>
    return
  }
}

// -----

// Tests that a layout keeping vectors beyond the chip's SRAM is an error.
module attributes {hetc.shared_layout = {kept = array<i64: 28, 8>, constants = array<i64>, inputs = {}}} {
  // expected-error @+1 {{the shared SRAM layout keeps vectors 28 to 35, beyond the 32 vectors of the chip}}
  func.func @main() {
    %x = htile.input "x" : memref<8x16xf32>
    htile.output "y", %x : memref<8x16xf32>
    return
  }
}

// -----

// Tests that a malformed layout is an error on the module.
// expected-error @+1 {{hetc.shared_layout must be {kept = array<i64: address, vectors, ...>, constants = array<i64: fingerprint, address, ...>, inputs = {NAME = [address, "memref type"], ...}[, slot = b]} with addresses, sizes and the slot 0 or more}}
module attributes {hetc.shared_layout = {kept = array<i64: 3>, constants = array<i64>, inputs = {}}} {
  func.func @main() {
    %x = htile.input "x" : memref<8x16xf32>
    htile.output "y", %x : memref<8x16xf32>
    return
  }
}
