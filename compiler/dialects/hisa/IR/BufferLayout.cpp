//===- BufferLayout.cpp - How a buffer's vectors lie in SRAM --------------===//

#include "compiler/dialects/hisa/IR/BufferLayout.h"

#include "compiler/dialects/hisa/IR/HIsa.h"

using namespace mlir;

hetc::BufferLayout hetc::layoutOf(ShapedType type, uint32_t lanes) {
  BufferLayout layout = layoutOf(type.getShape(), lanes);
  layout.perSramRow = 4 / hisa::sramLaneBytes(type.getElementType());
  return layout;
}

int64_t hetc::partOfWord(int64_t word, Type laneType) {
  return (word % 4) / hisa::sramLaneBytes(laneType);
}

hetc::BufferLayout hetc::layoutOf(ArrayRef<int64_t> shape, uint32_t lanes) {
  BufferLayout layout;
  if (shape.empty())
    return layout;
  layout.cols = shape.back();
  for (int64_t d : shape.drop_back())
    layout.rows *= d;
  layout.vectorsPerRow = (layout.cols + lanes - 1) / lanes;
  if (layout.cols == 0)
    layout.rows = 0;
  return layout;
}
