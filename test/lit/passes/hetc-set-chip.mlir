// RUN: hetc-opt %s --hetc-set-chip=file=%chips/test-chip.chip | FileCheck %s
// RUN: hetc-opt %s --hetc-set-chip=file=%chips/test-chip.chip --hetc-set-chip=file=%S/../Inputs/tiny-sram.chip | FileCheck %s --check-prefix=REPLACED
// RUN: not hetc-opt %s --hetc-set-chip 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not hetc-opt %s --hetc-set-chip=file=%t.missing.chip 2>&1 | FileCheck %s --check-prefix=MISSING -DFILE=%t.missing.chip
// RUN: not hetc-opt %s --hetc-htile-plan-memory 2>&1 | FileCheck %s --check-prefix=NOCHIP

// Tests that the pass sets the module's chip from the file, with its whole
// description, that a second one replaces it, and the errors: no file, a
// file that cannot be read, and a chip-dependent pass on a module without
// a chip.

// CHECK: module attributes {hetc.chip = #hetc.chip<"test-chip", "name: \22test-chip\22 {{.*}}lanes: 16 {{.*}}memory { slices: 8 slice_bytes: 65536 {{.*}}">}
// REPLACED: module attributes {hetc.chip = #hetc.chip<"tiny-sram",
// NOFILE: error: hetc-set-chip needs a chip file: pass file=<chip file>
// MISSING: error: {{.*}}[[FILE]]
// NOCHIP: error: hetc-htile-plan-memory needs the chip the module is compiled for: run --hetc-set-chip=file=<chip file> first (the module has no 'hetc.chip' attribute)
module {
}
