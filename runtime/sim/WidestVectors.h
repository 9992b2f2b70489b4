//===- WidestVectors.h - Clones of a loop for the host's widest vectors ---===//
//
// HETC_WIDEST_VECTORS before a function compiles it once per vector width
// (AVX-512, AVX2, the baseline) and picks the widest the host has at load.
// GCC may inline a cloned function into its caller and lose the clones,
// hence noinline; clang never does, and refuses noinline beside
// target_clones.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_WIDESTVECTORS_H
#define HETC_RUNTIME_SIM_WIDESTVECTORS_H

#if defined(__clang__)
#define HETC_WIDEST_VECTORS [[gnu::target_clones("avx512f", "avx2", "default")]]
#else
#define HETC_WIDEST_VECTORS                                                    \
  [[gnu::noinline, gnu::target_clones("avx512f", "avx2", "default")]]
#endif

#endif // HETC_RUNTIME_SIM_WIDESTVECTORS_H
