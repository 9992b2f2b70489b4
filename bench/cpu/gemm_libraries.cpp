//===- gemm_libraries.cpp - sgemm of three CPU libraries, side by side ---===//
//
// The measurement behind the CPU backend's choice of oneDNN
// (docs/backends.md, "Why oneDNN"): row-major sgemm on the GEMM shapes of
// the model suite (ResNet-50's convolutions as im2col products, a
// transformer's projections, a decode-step GEMV), the fastest of six runs
// each, and the total. Not part of the build, since it links all three
// libraries; build each variant by hand:
//
//   apt-get install libopenblas-dev libblis-dev libdnnl-dev
//   g++ -O2 gemm_libraries.cpp -o gemm_openblas $(pkg-config --cflags --libs
//   openblas)
//   g++ -O2 gemm_libraries.cpp -o gemm_blis -fopenmp \
//       -I/usr/include/x86_64-linux-gnu/blis-openmp \
//       -L/usr/lib/x86_64-linux-gnu/blis-openmp -lblis \
//       -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blis-openmp
//   g++ -O2 -DUSE_DNNL gemm_libraries.cpp -o gemm_dnnl -ldnnl
//   for t in 1 2; do for v in openblas blis dnnl; do
//     OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t ./gemm_$v | tail -1; done;
//     done
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdio>
#include <vector>
#ifdef USE_DNNL
#include <dnnl.h>
#else
#include <cblas.h>
#endif
int main() {
  struct S {
    int m, k, n;
  } shapes[] = {{12544, 147, 64}, {3136, 576, 64},  {3136, 64, 256},
                {784, 1152, 128}, {196, 2304, 256}, {49, 4608, 512},
                {128, 256, 1024}, {128, 1024, 256}, {1, 4096, 4096}};
  double total = 0;
  for (auto s : shapes) {
    std::vector<float> a(size_t(s.m) * s.k, 0.5f), b(size_t(s.k) * s.n, 0.25f),
        c(size_t(s.m) * s.n);
    double best = 1e9;
    for (int r = 0; r < 6; ++r) {
      auto t = std::chrono::steady_clock::now();
#ifdef USE_DNNL
      dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), s.n,
                 0.0f, c.data(), s.n);
#else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k,
                  1.0f, a.data(), s.k, b.data(), s.n, 0.0f, c.data(), s.n);
#endif
      best = std::min(best, std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - t)
                                .count());
    }
    total += best;
    printf("%5d %5d %5d  %8.3f ms  %6.1f GFLOP/s\n", s.m, s.k, s.n, best * 1e3,
           2.0 * s.m * s.k * s.n / best / 1e9);
  }
  printf("total %.3f ms\n", total * 1e3);
}
