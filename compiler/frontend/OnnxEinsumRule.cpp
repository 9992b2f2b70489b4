//===- OnnxEinsumRule.cpp - Einsum as transposes and batched matmuls ---===//
//
// Einsum's equation names each operand's dimensions by letters. The
// operands are contracted left to right, two at a time: a letter no later
// operand nor the output needs is summed out of the operand that alone
// has it, then the pair is transposed to [batch, free, contracted] and
// [batch, contracted, free], reshaped to three dimensions and multiplied
// by one batched matmul. The result is transposed to the output's order.
// "..." stands for the same leading dimensions in every operand that has
// it. A letter repeated within one operand takes the diagonal: the two
// dimensions are moved last, merged, and every (n + 1)-th element gathered.
// Det, the other linear-algebra reduction here, is a cofactor expansion of
// the matrices' elements (up to 6 x 6), each minor computed once.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "llvm/ADT/StringExtras.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

/// A tensor whose dimensions carry labels: letters, and for "..." the
/// characters '0' onwards, which no equation can use.
struct Labelled {
  Value value;
  std::string labels;
};

/// The equation's operand terms and output term, "..." expanded to one
/// label per dimension it stands for; failure with the reason.
struct Equation {
  SmallVector<std::string> inputs;
  std::string output;
};

FailureOr<Equation> parseEquation(NodeContext &ctx, StringRef text,
                                  ArrayRef<int64_t> ranks) {
  std::string equation;
  for (char c : text)
    if (c != ' ')
      equation.push_back(c);
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  SmallVector<StringRef> terms;
  StringRef(lhs).split(terms, ',');
  if (terms.size() != ranks.size())
    return ctx.error() << "equation '" << text << "' has " << terms.size()
                       << " operand terms, but the node has " << ranks.size()
                       << " inputs";
  // The dimensions "..." stands for: the most any operand has.
  int64_t ellipsis = 0;
  SmallVector<int64_t> letters;
  for (auto [term, rank] : llvm::zip(terms, ranks)) {
    size_t dots = term.find("...");
    int64_t named = int64_t(term.size()) - (dots == StringRef::npos ? 0 : 3);
    for (char c : term)
      if (c != '.' && !llvm::isAlpha(c))
        return ctx.error() << "equation '" << text << "' has '" << c
                           << "', which is not a letter";
    if (dots == StringRef::npos ? named != rank : named > rank)
      return ctx.error() << "term '" << term << "' of equation '" << text
                         << "' does not match an input of rank " << rank;
    if (dots != StringRef::npos)
      ellipsis = std::max(ellipsis, rank - named);
    letters.push_back(named);
  }
  auto expand = [&](StringRef term, int64_t dims) {
    std::string out;
    size_t dots = term.find("...");
    for (size_t i = 0; i < term.size(); ++i) {
      if (i == dots) {
        // Right-aligned: an operand with fewer dimensions takes the last.
        for (int64_t d = ellipsis - dims; d < ellipsis; ++d)
          out.push_back(char('0' + d));
        i += 2;
        continue;
      }
      out.push_back(term[i]);
    }
    return out;
  };
  if (ellipsis > 10)
    return ctx.error() << "'...' stands for " << ellipsis
                       << " dimensions; at most 10 are supported";
  Equation result;
  for (auto [term, rank, named] : llvm::zip(terms, ranks, letters))
    result.inputs.push_back(expand(term, rank - named));
  if (arrow != std::string::npos) {
    result.output = expand(equation.substr(arrow + 2), ellipsis);
  } else {
    // Implicit output: the "..." dimensions, then the letters used once,
    // in alphabetical order.
    std::map<char, int> count;
    for (const std::string &in : result.inputs)
      for (char c : in)
        ++count[c];
    for (int64_t d = 0; d < ellipsis; ++d)
      result.output.push_back(char('0' + d));
    for (auto [c, n] : count)
      if (llvm::isAlpha(c) && n == 1)
        result.output.push_back(c);
  }
  for (char c : result.output)
    if (llvm::none_of(result.inputs,
                      [&](const std::string &in) { return in.find(c) != std::string::npos; }))
      return ctx.error() << "equation '" << text << "' has '" << c
                         << "' in its output but in no operand";
  return result;
}

Value transposeTo(NodeContext &ctx, Labelled &t, StringRef order) {
  if (t.labels == order)
    return t.value;
  RankedTensorType type = tensorType(t.value);
  SmallVector<int64_t> perm, shape;
  for (char c : order) {
    int64_t d = int64_t(t.labels.find(c));
    perm.push_back(d);
    shape.push_back(type.getDimSize(d));
  }
  return ctx.create<hgraph::TransposeOp>(
      RankedTensorType::get(shape, type.getElementType()), t.value,
      ctx.builder.getDenseI64ArrayAttr(perm));
}

/// `t` with each label it repeats taken once: the diagonal of the two
/// dimensions; failure when their sizes differ.
FailureOr<Labelled> diagonals(NodeContext &ctx, Labelled t) {
  for (size_t i = 0; i < t.labels.size(); ++i) {
    size_t j = t.labels.find(t.labels[i], i + 1);
    if (j == std::string::npos)
      continue;
    RankedTensorType type = tensorType(t.value);
    int64_t n = type.getDimSize(int64_t(i));
    if (type.getDimSize(int64_t(j)) != n)
      return ctx.error() << "the diagonal of '" << t.labels[i]
                         << "' takes dimensions of " << n << " and "
                         << type.getDimSize(int64_t(j));
    std::string rest;
    for (size_t k = 0; k < t.labels.size(); ++k)
      if (k != i && k != j)
        rest.push_back(t.labels[k]);
    // The two dimensions last as one of n * n, of which elements
    // 0, n + 1, 2 (n + 1), ... are the diagonal.
    char mark = t.labels[i];
    SmallVector<int64_t> perm, shape;
    for (size_t k = 0; k < t.labels.size(); ++k)
      if (k != i && k != j)
        perm.push_back(int64_t(k));
    perm.push_back(int64_t(i));
    perm.push_back(int64_t(j));
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    Value moved = t.value;
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, int64_t(perm.size()))))
      moved = ctx.create<hgraph::TransposeOp>(
          RankedTensorType::get(shape, type.getElementType()), t.value,
          ctx.builder.getDenseI64ArrayAttr(perm));
    shape.pop_back();
    shape.back() = n * n;
    Value flat = reshapeTo(ctx, moved, shape);
    SmallVector<int64_t> picks;
    for (int64_t k = 0; k < n; ++k)
      picks.push_back(k * (n + 1));
    Value indices = hgraph::ConstantOp::create(
        ctx.builder, ctx.loc,
        DenseElementsAttr::get(
            RankedTensorType::get({n}, ctx.builder.getI64Type()),
            ArrayRef<int64_t>(picks)));
    shape.back() = n;
    Value diagonal = ctx.create<hgraph::GatherOp>(
        RankedTensorType::get(shape, type.getElementType()), flat, indices,
        ctx.builder.getI64IntegerAttr(int64_t(shape.size()) - 1));
    t = {diagonal, rest + mark};
    i = size_t(-1); // look again from the start
  }
  return t;
}

/// Sums the dimensions of `t` whose labels `keep` lacks.
Labelled sumOut(NodeContext &ctx, Labelled t, StringRef keep) {
  RankedTensorType type = tensorType(t.value);
  SmallVector<int64_t> axes, shape;
  std::string labels;
  for (auto [d, c] : llvm::enumerate(t.labels)) {
    if (keep.contains(c)) {
      shape.push_back(type.getDimSize(d));
      labels.push_back(c);
    } else {
      axes.push_back(int64_t(d));
    }
  }
  if (axes.empty())
    return t;
  Value sum = ctx.create<hgraph::ReduceOp>(
      RankedTensorType::get(shape, type.getElementType()),
      hgraph::ReduceKindAttr::get(ctx.builder.getContext(),
                                  hgraph::ReduceKind::sum),
      t.value, ctx.builder.getDenseI64ArrayAttr(axes),
      ctx.builder.getBoolAttr(false));
  return {sum, labels};
}

/// The size of dimension `c` of `t`.
int64_t sizeOf(const Labelled &t, char c) {
  return tensorType(t.value).getDimSize(int64_t(t.labels.find(c)));
}

/// Contracts `a` and `b`, keeping the labels in `keep`.
FailureOr<Labelled> contract(NodeContext &ctx, Labelled a, Labelled b,
                             StringRef keep) {
  // A label only one operand has and nothing later needs is summed there.
  std::string keepA = keep.str() + b.labels, keepB = keep.str() + a.labels;
  a = sumOut(ctx, a, keepA);
  b = sumOut(ctx, b, keepB);
  std::string batch, left, right, inner;
  for (char c : a.labels) {
    bool inB = b.labels.find(c) != std::string::npos;
    (inB ? (keep.contains(c) ? batch : inner) : left).push_back(c);
  }
  for (char c : b.labels)
    if (a.labels.find(c) == std::string::npos)
      right.push_back(c);
  for (char c : batch + inner)
    if (sizeOf(a, c) != sizeOf(b, c))
      return ctx.error() << "dimension '" << (llvm::isAlpha(c) ? c : '.')
                         << "' is " << sizeOf(a, c) << " in one operand and "
                         << sizeOf(b, c) << " in another";
  auto product = [](const Labelled &t, StringRef labels) {
    int64_t n = 1;
    for (char c : labels)
      n *= sizeOf(t, c);
    return n;
  };
  int64_t nb = product(a, batch), nl = product(a, left),
          nk = product(a, inner), nr = product(b, right);
  Value lhs = reshapeTo(ctx, transposeTo(ctx, a, batch + left + inner),
                      {nb, nl, nk});
  Value rhs = reshapeTo(ctx, transposeTo(ctx, b, batch + inner + right),
                      {nb, nk, nr});
  Type element = tensorType(a.value).getElementType();
  Value product3 = hgraph::MatMulOp::create(
      ctx.builder, ctx.loc, RankedTensorType::get({nb, nl, nr}, element), lhs,
      rhs);
  SmallVector<int64_t> shape;
  for (char c : batch + left)
    shape.push_back(sizeOf(a, c));
  for (char c : right)
    shape.push_back(sizeOf(b, c));
  return Labelled{reshapeTo(ctx, product3, shape), batch + left + right};
}

Results importEinsum(NodeContext &ctx) {
  if (ctx.inputs.empty())
    return ctx.error() << "needs at least one input";
  for (Value in : ctx.inputs)
    if (!in)
      return ctx.error() << "inputs must all be present";
  const onnx::AttributeProto *attr = ctx.attr("equation");
  if (!attr)
    return ctx.error() << "attribute 'equation' is required";
  SmallVector<int64_t> ranks;
  for (Value in : ctx.inputs)
    ranks.push_back(tensorType(in).getRank());
  FailureOr<Equation> equation =
      parseEquation(ctx, ctx.stringAttr("equation", ""), ranks);
  if (failed(equation))
    return failure();
  SmallVector<Labelled> operands;
  for (auto [value, labels] : llvm::zip(ctx.inputs, equation->inputs)) {
    FailureOr<Labelled> operand = diagonals(ctx, {value, labels});
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  Labelled result = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    // Labels the output or a later operand needs stay.
    std::string keep = equation->output;
    for (size_t j = i + 1; j < ctx.inputs.size(); ++j)
      keep += equation->inputs[j];
    FailureOr<Labelled> next = contract(ctx, result, operands[i], keep);
    if (failed(next))
      return failure();
    result = *next;
  }
  result = sumOut(ctx, result, equation->output);
  return SmallVector<Value>{transposeTo(ctx, result, equation->output)};
}

/// The most rows a Det's cofactor expansion handles: it takes 2^n minors.
constexpr int64_t kMaxDetRows = 6;

Results importDet(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  Value x = ctx.inputs[0];
  RankedTensorType type = tensorType(x);
  int64_t rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2) ||
      !isa<FloatType>(type.getElementType()))
    return ctx.error() << "input must be square float matrices [.., n, n], "
                          "got "
                       << type;
  int64_t n = type.getDimSize(rank - 1);
  if (n < 1 || n > kMaxDetRows)
    return ctx.error() << "matrices of " << n << " x " << n
                       << " are not supported: hetc expands the determinant "
                          "by cofactors, up to "
                       << kMaxDetRows << " x " << kMaxDetRows;
  Type element = type.getElementType();
  ArrayRef<int64_t> batch = type.getShape().drop_back(2);
  auto batchType = RankedTensorType::get(batch, element);
  // Element (i, j) of every matrix, as a tensor of the batch's shape.
  auto at = [&](int64_t i, int64_t j) {
    SmallVector<int64_t> starts(rank, 0), steps(rank, 1), shape(batch);
    starts[rank - 2] = i;
    starts[rank - 1] = j;
    shape.append({1, 1});
    Value one = ctx.create<hgraph::SliceOp>(
        RankedTensorType::get(shape, element), x,
        ctx.builder.getDenseI64ArrayAttr(starts),
        ctx.builder.getDenseI64ArrayAttr(steps));
    return reshapeTo(ctx, one, batch);
  };
  // det of the last popcount(cols) rows restricted to the columns `cols`,
  // expanded along its first row.
  DenseMap<unsigned, Value> minors;
  std::function<Value(unsigned)> det = [&](unsigned cols) -> Value {
    if (Value done = minors.lookup(cols))
      return done;
    int64_t size = llvm::popcount(cols);
    int64_t row = n - size;
    Value sum;
    int64_t sign = 1;
    for (int64_t j = 0; j < n; ++j) {
      if (!(cols & (1u << j)))
        continue;
      Value term = at(row, j);
      if (size > 1)
        term = ctx.create<hgraph::MulOp>(batchType, term, det(cols & ~(1u << j)));
      sum = !sum ? term
            : sign > 0 ? ctx.create<hgraph::AddOp>(batchType, sum, term)
                       : ctx.create<hgraph::SubOp>(batchType, sum, term);
      sign = -sign;
    }
    minors[cols] = sum;
    return sum;
  };
  return SmallVector<Value>{det((1u << n) - 1)};
}

} // namespace

void hetc::frontend::addEinsumRule(llvm::StringMap<ImportRule> &rules) {
  rules["Einsum"] = importEinsum;
  rules["Det"] = importDet;
}
