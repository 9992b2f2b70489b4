//===- CpuConvolution.cpp - A plan's convolutions through oneDNN --------===//

#include "runtime/cpu/CpuConvolution.h"

#include <dnnl.hpp>

#include <algorithm>
#include <unordered_map>

namespace hetc::cpu {

using plan::PlanKernelInfo;

namespace {

using Dims = dnnl::memory::dims;
using Tag = dnnl::memory::format_tag;

/// The plain (row-major) layout of an array of `rank` dimensions.
Tag plainTag(size_t rank) {
  switch (rank) {
  case 1:
    return Tag::a;
  case 2:
    return Tag::ab;
  case 3:
    return Tag::abc;
  case 4:
    return Tag::abcd;
  case 5:
    return Tag::abcde;
  default:
    return Tag::abcdef;
  }
}

dnnl::memory::desc plainDesc(const Dims &dims) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                            plainTag(dims.size()));
}

dnnl::memory::desc anyDesc(const Dims &dims) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, Tag::any);
}

} // namespace

/// oneDNN's objects for one convolution. The map and the result are
/// reordered to and from the primitive's layout where it is not the
/// plan's, in the room a run is given (the map first, then the result,
/// each from a 64-byte line).
struct Convolution::Primitive {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward convolution;
  /// The plan's map, result and weights (their data set at each use).
  dnnl::memory plainSrc, plainDst, plainWeights;
  /// In the primitive's layouts (the same objects as the plain ones where
  /// the layouts agree), and the bias.
  dnnl::memory src, dst, weights, bias;
  dnnl::reorder toSrc, fromDst;
  bool reorderSrc = false, reorderDst = false;
  /// Bytes of the room: the map's, and both.
  uint64_t srcBytes = 0, roomBytes = 0;
};

namespace {
uint64_t lines(uint64_t bytes) { return (bytes + 63) / 64 * 64; }
} // namespace

Convolution::Convolution(const PlanKernelInfo &kernel)
    : kernel(kernel), groups(kernel.operands.size() - 1) {}

Convolution::~Convolution() = default;

uint64_t Convolution::roomBytes() const {
  return primitive ? primitive->roomBytes : 0;
}

void Convolution::splitWeights(const std::vector<const float *> &operands) {
  uint64_t rows = kernel.m / groups,
           width = kernel.k + (kernel.withBias ? 1 : 0);
  weights.resize(kernel.m * kernel.k);
  if (kernel.withBias)
    bias.resize(kernel.m);
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t r = 0; r < rows; ++r) {
      const float *row = operands[1 + g] + r * width;
      uint64_t channel = g * rows + r;
      std::copy(row, row + kernel.k, weights.data() + channel * kernel.k);
      if (kernel.withBias)
        bias[channel] = row[kernel.k];
    }
}

std::unique_ptr<Convolution> Convolution::make(const plan::Plan &plan,
                                               const PlanKernelInfo &kernel,
                                               std::string &error) {
  std::unique_ptr<Convolution> conv(new Convolution(kernel));
  // Constant weights are split (and below laid out for the primitive)
  // once.
  std::vector<const float *> operands(kernel.operands.size(), nullptr);
  conv->constantWeights = true;
  for (size_t i = 1; i < kernel.operands.size(); ++i) {
    const plan::PlanBufferInfo &b = plan.buffers[kernel.operands[i]];
    conv->constantWeights &= b.constant != nullptr;
    operands[i] = b.constant ? b.constant->data() : nullptr;
  }
  if (conv->constantWeights)
    conv->splitWeights(operands);
  const std::vector<int64_t> &shape = kernel.inputShape;
  size_t rank = shape.size() - 2;
  const plan::Window3 &w = kernel.window;
  int64_t n = shape[0], c = shape[1], m = int64_t(kernel.m);
  int64_t g = int64_t(conv->groups);
  Dims src{n, c}, dst{n, m}, weights, strides, dilations, padL, padR;
  if (g > 1)
    weights = {g, m / g, c / g};
  else
    weights = {m, c};
  bool empty = n == 0 || c == 0 || m == 0;
  for (size_t i = 0; i < rank; ++i) {
    size_t j = 3 - rank + i;
    src.push_back(w.in[j]);
    dst.push_back(w.out[j]);
    weights.push_back(w.kernel[j]);
    strides.push_back(w.stride[j]);
    dilations.push_back(w.dilation[j] - 1);
    padL.push_back(kernel.pads[i]);
    padR.push_back(kernel.pads[rank + i]);
    empty |= w.in[j] == 0 || w.out[j] == 0;
  }
  // An empty map or result, and a window oneDNN has no primitive for, go
  // to the direct loop.
  if (empty)
    return conv;
  auto p = std::make_unique<Primitive>();
  dnnl::convolution_forward::primitive_desc pd;
  try {
    auto desc = kernel.withBias
                    ? dnnl::convolution_forward::desc(
                          dnnl::prop_kind::forward_inference,
                          dnnl::algorithm::convolution_direct, anyDesc(src),
                          anyDesc(weights), plainDesc({m}), anyDesc(dst),
                          strides, dilations, padL, padR)
                    : dnnl::convolution_forward::desc(
                          dnnl::prop_kind::forward_inference,
                          dnnl::algorithm::convolution_direct, anyDesc(src),
                          anyDesc(weights), anyDesc(dst), strides, dilations,
                          padL, padR);
    pd = dnnl::convolution_forward::primitive_desc(desc, p->engine);
  } catch (const dnnl::error &) {
    return conv;
  }
  try {
    p->convolution = dnnl::convolution_forward(pd);
    p->plainSrc = dnnl::memory(plainDesc(src), p->engine, DNNL_MEMORY_NONE);
    p->plainDst = dnnl::memory(plainDesc(dst), p->engine, DNNL_MEMORY_NONE);
    p->plainWeights =
        dnnl::memory(plainDesc(weights), p->engine, DNNL_MEMORY_NONE);
    p->reorderSrc = pd.src_desc() != p->plainSrc.get_desc();
    p->reorderDst = pd.dst_desc() != p->plainDst.get_desc();
    if (p->reorderSrc) {
      p->src = dnnl::memory(pd.src_desc(), p->engine, DNNL_MEMORY_NONE);
      p->srcBytes = lines(pd.src_desc().get_size());
    } else {
      p->src = p->plainSrc;
    }
    p->dst = p->reorderDst
                 ? dnnl::memory(pd.dst_desc(), p->engine, DNNL_MEMORY_NONE)
                 : p->plainDst;
    p->roomBytes =
        p->srcBytes + (p->reorderDst ? lines(pd.dst_desc().get_size()) : 0);
    p->weights = dnnl::memory(pd.weights_desc(), p->engine);
    if (kernel.withBias)
      p->bias = dnnl::memory(plainDesc({m}), p->engine, DNNL_MEMORY_NONE);
    if (p->reorderSrc)
      p->toSrc = dnnl::reorder(p->plainSrc, p->src);
    if (p->reorderDst)
      p->fromDst = dnnl::reorder(p->dst, p->plainDst);
    if (conv->constantWeights) {
      p->plainWeights.set_data_handle(conv->weights.data());
      dnnl::reorder(p->plainWeights, p->weights)
          .execute(p->stream, p->plainWeights, p->weights);
      p->stream.wait();
      // The primitive's copy is the one used from now on.
      conv->weights = std::vector<float>();
    }
  } catch (const dnnl::error &e) {
    error =
        kernel.label + ": oneDNN could not set up the convolution: " + e.what();
    return nullptr;
  }
  conv->primitive = std::move(p);
  return conv;
}

bool Convolution::run(const std::vector<const float *> &operands, float *out,
                      void *room, std::string &error) {
  if (!constantWeights)
    splitWeights(operands);
  if (!primitive) {
    runDirect(operands[0], out);
    return true;
  }
  Primitive &p = *primitive;
  try {
    if (!constantWeights) {
      p.plainWeights.set_data_handle(weights.data());
      dnnl::reorder(p.plainWeights, p.weights)
          .execute(p.stream, p.plainWeights, p.weights);
    }
    // oneDNN reads the map and never writes it.
    p.plainSrc.set_data_handle(const_cast<float *>(operands[0]));
    p.plainDst.set_data_handle(out);
    if (p.reorderSrc) {
      p.src.set_data_handle(room);
      p.toSrc.execute(p.stream, p.plainSrc, p.src);
    }
    if (p.reorderDst)
      p.dst.set_data_handle(static_cast<char *>(room) + p.srcBytes);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, p.src},
                                               {DNNL_ARG_WEIGHTS, p.weights},
                                               {DNNL_ARG_DST, p.dst}};
    if (kernel.withBias) {
      p.bias.set_data_handle(bias.data());
      args.emplace(DNNL_ARG_BIAS, p.bias);
    }
    p.convolution.execute(p.stream, args);
    if (p.reorderDst)
      p.fromDst.execute(p.stream, p.dst, p.plainDst);
    p.stream.wait();
  } catch (const dnnl::error &e) {
    error = kernel.label + ": oneDNN failed: " + e.what();
    return false;
  }
  return true;
}

void Convolution::runDirect(const float *in, float *out) const {
  const plan::Window3 &w = kernel.window;
  int64_t n = kernel.inputShape[0], c = kernel.inputShape[1];
  int64_t m = int64_t(kernel.m), g = int64_t(groups);
  int64_t rows = m / g, cg = c / g;
  int64_t inPlane = w.in[0] * w.in[1] * w.in[2];
  int64_t outPlane = w.out[0] * w.out[1] * w.out[2];
  int64_t taps = w.kernel[0] * w.kernel[1] * w.kernel[2];
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic)
#endif
  for (int64_t plane = 0; plane < n * m; ++plane) {
    int64_t image = plane / m, channel = plane % m, group = channel / rows;
    const float *x = in + (image * c + group * cg) * inPlane;
    const float *weight = weights.data() + channel * cg * taps;
    float *y = out + plane * outPlane;
    for (int64_t p = 0; p < outPlane; ++p) {
      int64_t o[3] = {p / (w.out[1] * w.out[2]), p / w.out[2] % w.out[1],
                      p % w.out[2]};
      float sum = 0.0f;
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t t = 0; t < taps; ++t) {
          int64_t k[3] = {t / (w.kernel[1] * w.kernel[2]),
                          t / w.kernel[2] % w.kernel[1], t % w.kernel[2]};
          int64_t at = 0;
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            int64_t i = o[d] * w.stride[d] + k[d] * w.dilation[d] - w.pad[d];
            inside &= i >= 0 && i < w.in[d];
            at = at * w.in[d] + i;
          }
          if (inside)
            sum += x[ci * inPlane + at] * weight[ci * taps + t];
        }
      y[p] = sum + (kernel.withBias ? bias[size_t(channel)] : 0.0f);
    }
  }
}

} // namespace hetc::cpu
