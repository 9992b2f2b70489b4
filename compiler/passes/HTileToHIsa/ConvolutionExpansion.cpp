//===- ConvolutionExpansion.cpp - Channels-last depthwise convolution ----===//
//
// htile.depthwise_conv: per vector of an output row, the input rows under
// the kernel elements inside the map, each times its weight row (from the
// position's copy of the weight), summed in kernel order on the vector
// unit, plus the bias row, and one write.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

#include <set>

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

class ConvolutionExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  LogicalResult expandDepthwiseConv(htile::DepthwiseConvOp op);
};

} // namespace

LogicalResult
ConvolutionExpander::expandDepthwiseConv(htile::DepthwiseConvOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  SmallVector<Tensor> copies;
  for (Value copy : op.getWeights())
    copies.push_back(tensor(copy));
  std::optional<Tensor> bias;
  if (op.getBias())
    bias = tensor(op.getBias());
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> outShape = op.getOutput().getType().getShape();
  ArrayRef<int64_t> kernel =
      cast<MemRefType>(op.getWeights().front().getType()).getShape();
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads(),
                    dilations = op.getDilations();
  // The input row of kernel element (i, j) at output position (y, x), or
  // -1 in the padding.
  auto inputRow = [&](int64_t y, int64_t x, int64_t i, int64_t j) {
    int64_t r = y * strides[0] - pads[0] + i * dilations[0];
    int64_t c = x * strides[1] - pads[1] + j * dilations[1];
    return r < 0 || r >= inShape[0] || c < 0 || c >= inShape[1]
               ? int64_t(-1)
               : r * inShape[1] + c;
  };
  // The SRAM bank of a word (Tensor::at: four words a vector).
  auto bankOf = [&](int64_t word) {
    return chip.chipBankOf(uint64_t(word / 4));
  };
  // An output vector's products and sums form one chain whose values meet
  // without waiting, so every read in it has a fixed time relative to the
  // others; two reads of one bank at one time cannot be scheduled. Reads
  // of one bank lie in one slice and travel the same hops, so they collide
  // exactly when they reach their instructions in the same cycle. The
  // chain is laid out in those times (a sum issues a vector-op latency
  // after its operands' instructions) and a read that would collide is
  // moved earlier through V_CASTs to its own type, a latency each: the
  // weight read where it shares the input read's bank, the whole product
  // where its reads meet earlier ones.
  int64_t latency = int64_t(chip.proto().latency().vector_op());
  auto delayed = [&](Value v, int64_t casts, int32_t n) {
    for (int64_t c = 0; c < casts; ++c)
      v = convert(loc, v, f32(), f32(), n);
    return v;
  };
  for (int64_t y = 0; y < outShape[0]; ++y)
    for (int64_t x = 0; x < outShape[1]; ++x)
      for (int64_t v = 0; v < out.layout.vectorsPerRow; ++v) {
        int32_t n = lanesOf(out.layout.cols, v);
        const Tensor &weight =
            copies[size_t(y * outShape[1] + x) % copies.size()];
        std::set<std::pair<uint64_t, int64_t>> taken;
        // Where the reads of one product (input and weight words) reach
        // the product issued at `time`, or nothing where one collides.
        auto place = [&](int64_t xWord, int64_t wWord, int64_t time) {
          uint64_t xBank = bankOf(xWord), wBank = bankOf(wWord);
          int64_t wTime = xBank == wBank ? time - latency : time;
          if (taken.count({xBank, time}) || taken.count({wBank, wTime}))
            return false;
          taken.insert({xBank, time});
          taken.insert({wBank, wTime});
          return true;
        };
        auto product = [&](int64_t xWord, int64_t wWord) {
          Value w = read(loc, wWord);
          if (bankOf(xWord) == bankOf(wWord))
            w = delayed(w, 1, n);
          return binary(loc, hisa::VBinaryKind::mul, read(loc, xWord), w, n);
        };
        Value sum;
        // The time the instruction giving `sum` issues.
        int64_t sumTime = 0;
        for (int64_t i = 0; i < kernel[0]; ++i)
          for (int64_t j = 0; j < kernel[1]; ++j) {
            int64_t row = inputRow(y, x, i, j);
            if (row < 0)
              continue;
            int64_t xWord = in.at(row, v),
                    wWord = weight.at(i * kernel[1] + j, v);
            if (!sum) {
              place(xWord, wWord, 0);
              sum = product(xWord, wWord);
              continue;
            }
            // The product meets the sum at the sum's instruction's time,
            // or a latency earlier per V_CAST after it.
            int64_t casts = 0;
            while (!place(xWord, wWord, sumTime - casts * latency))
              ++casts;
            sum = binary(loc, hisa::VBinaryKind::add, sum,
                         delayed(product(xWord, wWord), casts, n), n);
            sumTime += latency;
          }
        // The verifier guarantees each window meets the map.
        assert(sum && "an output position whose window lies in the padding");
        if (bias) {
          int64_t word = bias->at(0, v), casts = 0;
          // The bias meets the sum a latency after its instruction.
          while (taken.count(
              {bankOf(word), sumTime + latency - casts * latency}))
            ++casts;
          sum = binary(loc, hisa::VBinaryKind::add, sum,
                       delayed(read(loc, word), casts, n), n);
        }
        write(loc, sum, out.at(y * outShape[1] + x, v));
      }
  return success();
}

void expansion::populateConvolutionExpansions(RewritePatternSet &patterns,
                                              ExpansionState &state) {
  patterns.add<ExpandWith<htile::DepthwiseConvOp, ConvolutionExpander,
                          &ConvolutionExpander::expandDepthwiseConv>>(
      patterns.getContext(), state);
}
