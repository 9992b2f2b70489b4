//===- OnnxRecurrentRules.cpp - RNN, GRU and LSTM, unrolled -----------===//
//
// The sequence length is static, so the recurrent operators unroll into
// one step of hgraph ops per time step: the input projections of all
// steps are one matmul up front, each step multiplies the hidden state by
// the recurrence weights and applies the cell's gates. Both directions of
// a bidirectional layer unroll independently; outputs are concatenated in
// ONNX's [seq, directions, batch, hidden] layout (or the batch-first one
// with layout = 1). sequence_lens, when given, masks the steps past each
// sequence's length (forward direction only).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/OnnxOps.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

using Results = FailureOr<SmallVector<Value>>;

enum class Cell { Rnn, Gru, Lstm };

/// Builds the hgraph ops of one node with f32 (or the input's) elements.
class Unroller {
public:
  Unroller(NodeContext &ctx, Type element) : ctx(ctx), element(element) {}

  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, element);
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    return reshapeTo(ctx, v, shape);
  }
  /// `v[starts : starts + sizes]`.
  Value slice(Value v, ArrayRef<int64_t> starts, ArrayRef<int64_t> sizes) {
    SmallVector<int64_t> steps(starts.size(), 1);
    return ctx.create<hgraph::SliceOp>(
        RankedTensorType::get(sizes, tensorType(v).getElementType()), v,
        ctx.builder.getDenseI64ArrayAttr(starts),
        ctx.builder.getDenseI64ArrayAttr(steps));
  }
  Value transpose2(Value v) {
    ArrayRef<int64_t> s = tensorType(v).getShape();
    return ctx.create<hgraph::TransposeOp>(type({s[1], s[0]}), v,
                                           ctx.builder.getDenseI64ArrayAttr({1, 0}));
  }
  Value matmul(Value a, Value b) {
    return ctx.create<hgraph::MatMulOp>(
        type({tensorType(a).getDimSize(0), tensorType(b).getDimSize(1)}), a, b);
  }
  Value add(Value a, Value b) {
    return broadcastBinary<hgraph::AddOp>(ctx, a, b);
  }
  Value sub(Value a, Value b) {
    return broadcastBinary<hgraph::SubOp>(ctx, a, b);
  }
  Value mul(Value a, Value b) {
    return broadcastBinary<hgraph::MulOp>(ctx, a, b);
  }
  Value scalar(double v) { return scalarConstant(ctx, element, v); }
  Value zeros(ArrayRef<int64_t> shape) {
    return hgraph::ConstantOp::create(
        ctx.builder, ctx.loc,
        cast<DenseElementsAttr>(ctx.builder.getZeroAttr(type(shape))));
  }
  Value concat(ArrayRef<Value> parts, int64_t axis) {
    if (parts.size() == 1)
      return parts[0];
    SmallVector<int64_t> shape(tensorType(parts[0]).getShape());
    shape[axis] = 0;
    for (Value p : parts)
      shape[axis] += tensorType(p).getDimSize(axis);
    return ctx.create<hgraph::ConcatOp>(type(shape), parts,
                                        ctx.builder.getI64IntegerAttr(axis));
  }
  /// ONNX's activation `name` (with its alpha and beta) at `x`.
  FailureOr<Value> activate(StringRef name, Value x, float alpha, float beta) {
    if (name == "Sigmoid")
      return ctx.create<hgraph::SigmoidOp>(x);
    if (name == "Tanh")
      return ctx.create<hgraph::TanhOp>(x);
    if (name == "Relu")
      return ctx.create<hgraph::ReluOp>(x);
    if (name == "HardSigmoid")
      return ctx.create<hgraph::PointwiseOp>(
          tensorType(x),
          hgraph::PointwiseFnAttr::get(ctx.builder.getContext(),
                                       hgraph::PointwiseFn::hard_sigmoid),
          x, ctx.builder.getF32FloatAttr(alpha), ctx.builder.getF32FloatAttr(beta));
    if (name == "LeakyRelu")
      return ctx.create<hgraph::LeakyReluOp>(x, ctx.builder.getF32FloatAttr(alpha));
    if (name == "Affine")
      return add(mul(scalar(alpha), x), scalar(beta));
    if (name == "ScaledTanh")
      return mul(scalar(alpha), ctx.create<hgraph::TanhOp>(mul(scalar(beta), x)));
    return ctx.error() << "activation '" << name
                       << "' is not supported; supported: Sigmoid, Tanh, Relu, "
                          "HardSigmoid, LeakyRelu, Affine and ScaledTanh";
  }

  NodeContext &ctx;
  Type element;

};

Results importRecurrent(NodeContext &ctx, Cell cell) {
  if (failed(expectInputs(ctx, 3, cell == Cell::Lstm ? 8 : 6)))
    return failure();
  Value x = ctx.inputs[0], w = ctx.inputs[1], r = ctx.inputs[2];
  Value bias = ctx.input(3), lens = ctx.input(4), h0 = ctx.input(5);
  Value c0 = cell == Cell::Lstm ? ctx.input(6) : Value();
  Value peep = cell == Cell::Lstm ? ctx.input(7) : Value();
  RankedTensorType xType = tensorType(x);
  Type element = xType.getElementType();
  if (!element.isF32())
    return ctx.error() << "only float32 is supported, got " << xType;
  int64_t gates = cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1;
  int64_t hidden = ctx.intAttr("hidden_size", 0);
  std::string direction = ctx.stringAttr("direction", "forward");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && dirs != 2)
    return ctx.error() << "direction must be forward, reverse or "
                          "bidirectional, got '"
                       << direction << "'";
  bool batchFirst = ctx.intAttr("layout", 0) != 0;
  if (xType.getRank() != 3)
    return ctx.error() << "X must be 3-D, got " << xType;
  int64_t seq = xType.getDimSize(batchFirst ? 1 : 0);
  int64_t batch = xType.getDimSize(batchFirst ? 0 : 1);
  int64_t in = xType.getDimSize(2);
  RankedTensorType wType = tensorType(w), rType = tensorType(r);
  if (hidden <= 0)
    hidden = rType.getRank() == 3 ? rType.getDimSize(2) : 0;
  if (wType.getShape() != ArrayRef<int64_t>{dirs, gates * hidden, in} ||
      rType.getShape() != ArrayRef<int64_t>{dirs, gates * hidden, hidden})
    return ctx.error() << "W " << wType << " and R " << rType
                       << " do not match " << dirs << " direction(s), "
                       << gates << " gate(s), hidden_size " << hidden
                       << " and input size " << in;
  if (bias && tensorType(bias).getShape() !=
                  ArrayRef<int64_t>{dirs, 2 * gates * hidden})
    return ctx.error() << "B " << tensorType(bias) << " must be [" << dirs
                       << ", " << 2 * gates * hidden << "]";
  if (cell == Cell::Lstm && ctx.intAttr("input_forget", 0) != 0)
    return ctx.error() << "input_forget is not supported";
  if (lens && direction != "forward")
    return ctx.error() << "sequence_lens is supported for the forward "
                          "direction only";
  std::optional<float> clip;
  if (const onnx::AttributeProto *a = ctx.attr("clip"))
    clip = a->f();

  // Activation functions: f (and g, h) per direction, with their defaults.
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *a = ctx.attr("activations"))
    for (const std::string &n : a->strings())
      names.push_back(n);
  SmallVector<std::string> defaults =
      cell == Cell::Rnn   ? SmallVector<std::string>{"Tanh"}
      : cell == Cell::Gru ? SmallVector<std::string>{"Sigmoid", "Tanh"}
                          : SmallVector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  size_t perDir = defaults.size();
  if (names.empty())
    for (int64_t d = 0; d < dirs; ++d)
      names.append(defaults.begin(), defaults.end());
  if (names.size() != perDir * dirs)
    return ctx.error() << "activations needs " << perDir * dirs
                       << " names, got " << names.size();
  SmallVector<float> alphas, betas;
  if (const onnx::AttributeProto *a = ctx.attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const onnx::AttributeProto *a = ctx.attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());

  Unroller u(ctx, element);
  // Time-major input: [seq, batch, in].
  if (batchFirst)
    x = ctx.create<hgraph::TransposeOp>(
        u.type({seq, batch, in}), x, ctx.builder.getDenseI64ArrayAttr({1, 0, 2}));
  auto initial = [&](Value v, int64_t d) -> Value {
    if (!v)
      return u.zeros({batch, hidden});
    // [dirs, batch, hidden], or [batch, dirs, hidden] with layout = 1.
    Value part = batchFirst ? u.slice(v, {0, d, 0}, {batch, 1, hidden})
                            : u.slice(v, {d, 0, 0}, {1, batch, hidden});
    return u.reshape(part, {batch, hidden});
  };
  Value xRows = u.reshape(x, {seq * batch, in});

  SmallVector<Value> ys, yh, yc;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    int64_t gh = gates * hidden;
    Value wd = u.transpose2(u.reshape(u.slice(w, {d, 0, 0}, {1, gh, in}), {gh, in}));
    Value rd = u.transpose2(
        u.reshape(u.slice(r, {d, 0, 0}, {1, gh, hidden}), {gh, hidden}));
    Value wb, rb;
    if (bias) {
      wb = u.reshape(u.slice(bias, {d, 0}, {1, gh}), {gh});
      rb = u.reshape(u.slice(bias, {d, gh}, {1, gh}), {gh});
    }
    Value xw = u.matmul(xRows, wd); // [seq * batch, gh]
    if (wb)
      xw = u.add(xw, wb);
    xw = u.reshape(xw, {seq, batch, gh});
    // Every gate adds its Rb to H * R^T. GRU's h gate without
    // linear_before_reset multiplies (r . H) by its own block of R instead,
    // and adds its Rb after that product.
    bool lbr = cell == Cell::Gru && ctx.intAttr("linear_before_reset", 0) != 0;
    Value rdh, rbh;
    if (cell == Cell::Gru && !lbr) {
      rdh = u.slice(rd, {0, 2 * hidden}, {hidden, hidden});
      if (rb)
        rbh = u.reshape(u.slice(u.reshape(rb, {1, gh}), {0, 2 * hidden},
                                {1, hidden}),
                        {hidden});
    }
    auto gate = [&](Value v, int64_t g) {
      return u.slice(v, {0, g * hidden}, {batch, hidden});
    };
    auto act = [&](size_t k, Value v) -> FailureOr<Value> {
      size_t index = d * perDir + k;
      if (clip) {
        v = ctx.create<hgraph::MaxOp>(tensorType(v), v, u.scalar(-*clip));
        v = ctx.create<hgraph::MinOp>(tensorType(v), v, u.scalar(*clip));
      }
      float alpha = index < alphas.size() ? alphas[index] : 0.0f;
      float beta = index < betas.size() ? betas[index] : 0.0f;
      return u.activate(names[index], v, alpha, beta);
    };
    Value pi, po, pf;
    if (peep) {
      pi = u.reshape(u.slice(peep, {d, 0}, {1, hidden}), {hidden});
      po = u.reshape(u.slice(peep, {d, hidden}, {1, hidden}), {hidden});
      pf = u.reshape(u.slice(peep, {d, 2 * hidden}, {1, hidden}), {hidden});
    }

    Value h = initial(h0, d);
    Value c = cell == Cell::Lstm ? initial(c0, d) : Value();
    SmallVector<Value> steps(seq);
    for (int64_t step = 0; step < seq; ++step) {
      int64_t t = reverse ? seq - 1 - step : step;
      Value xt = u.reshape(u.slice(xw, {t, 0, 0}, {1, batch, gh}), {batch, gh});
      Value hr = u.matmul(h, rd);
      if (rb)
        hr = u.add(hr, rb);
      Value hNew, cNew;
      if (cell == Cell::Rnn) {
        FailureOr<Value> a = act(0, u.add(xt, hr));
        if (failed(a))
          return failure();
        hNew = *a;
      } else if (cell == Cell::Gru) {
        // z, r, h.
        FailureOr<Value> z = act(0, u.add(gate(xt, 0), gate(hr, 0)));
        FailureOr<Value> rg = act(0, u.add(gate(xt, 1), gate(hr, 1)));
        if (failed(z) || failed(rg))
          return failure();
        Value candidate;
        if (lbr) {
          candidate = u.add(gate(xt, 2), u.mul(*rg, gate(hr, 2)));
        } else {
          Value rh = u.mul(*rg, h);
          candidate = u.add(gate(xt, 2), u.matmul(rh, rdh));
          if (rbh)
            candidate = u.add(candidate, rbh);
        }
        FailureOr<Value> ht = act(1, candidate);
        if (failed(ht))
          return failure();
        hNew = u.add(u.mul(u.sub(u.scalar(1.0), *z), *ht), u.mul(*z, h));
      } else {
        // i, o, f, c.
        Value iIn = u.add(gate(xt, 0), gate(hr, 0));
        Value fIn = u.add(gate(xt, 2), gate(hr, 2));
        if (peep) {
          iIn = u.add(iIn, u.mul(pi, c));
          fIn = u.add(fIn, u.mul(pf, c));
        }
        FailureOr<Value> ig = act(0, iIn);
        FailureOr<Value> fg = act(0, fIn);
        FailureOr<Value> cg = act(1, u.add(gate(xt, 3), gate(hr, 3)));
        if (failed(ig) || failed(fg) || failed(cg))
          return failure();
        cNew = u.add(u.mul(*fg, c), u.mul(*ig, *cg));
        Value oIn = u.add(gate(xt, 1), gate(hr, 1));
        if (peep)
          oIn = u.add(oIn, u.mul(po, cNew));
        FailureOr<Value> og = act(0, oIn);
        FailureOr<Value> hc = act(2, cNew);
        if (failed(og) || failed(hc))
          return failure();
        hNew = u.mul(*og, *hc);
      }
      Value out = hNew;
      if (lens) {
        // Steps at or past a sequence's length keep its state; its
        // outputs there are 0.
        Type lensElement = tensorType(lens).getElementType();
        Value tConst = hgraph::ConstantOp::create(
            ctx.builder, ctx.loc,
            DenseElementsAttr::get(RankedTensorType::get({}, lensElement),
                                   IntegerAttr::get(lensElement, t)));
        Value live = ctx.create<hgraph::LessOp>(
            RankedTensorType::get({batch}, ctx.builder.getI1Type()), tConst, lens);
        live = u.reshape(live, {batch, 1});
        hNew = ctx.create<hgraph::WhereOp>(u.type({batch, hidden}), live, hNew, h);
        if (cNew)
          cNew = ctx.create<hgraph::WhereOp>(u.type({batch, hidden}), live, cNew, c);
        out = ctx.create<hgraph::WhereOp>(u.type({batch, hidden}), live, out,
                                          u.scalar(0.0));
      }
      h = hNew;
      if (cNew)
        c = cNew;
      steps[t] = u.reshape(out, {1, 1, batch, hidden});
    }
    // A sequence of no steps gives an empty Y and the initial state.
    ys.push_back(steps.empty() ? u.zeros({0, 1, batch, hidden})
                               : u.concat(steps, 0));
    yh.push_back(u.reshape(h, {1, batch, hidden}));
    if (cell == Cell::Lstm)
      yc.push_back(u.reshape(c, {1, batch, hidden}));
  }
  Value y = u.concat(ys, 1);           // [seq, dirs, batch, hidden]
  Value finalH = u.concat(yh, 0);      // [dirs, batch, hidden]
  Value finalC = cell == Cell::Lstm ? u.concat(yc, 0) : Value();
  if (batchFirst) {
    y = ctx.create<hgraph::TransposeOp>(u.type({batch, seq, dirs, hidden}), y,
                                        ctx.builder.getDenseI64ArrayAttr({2, 0, 1, 3}));
    finalH = ctx.create<hgraph::TransposeOp>(
        u.type({batch, dirs, hidden}), finalH,
        ctx.builder.getDenseI64ArrayAttr({1, 0, 2}));
    if (finalC)
      finalC = ctx.create<hgraph::TransposeOp>(
          u.type({batch, dirs, hidden}), finalC,
          ctx.builder.getDenseI64ArrayAttr({1, 0, 2}));
  }
  SmallVector<Value> results{y, finalH};
  if (finalC)
    results.push_back(finalC);
  return results;
}

Results importRnn(NodeContext &ctx) { return importRecurrent(ctx, Cell::Rnn); }
Results importGru(NodeContext &ctx) { return importRecurrent(ctx, Cell::Gru); }
Results importLstm(NodeContext &ctx) {
  return importRecurrent(ctx, Cell::Lstm);
}

} // namespace

void hetc::frontend::addRecurrentRules(llvm::StringMap<ImportRule> &rules) {
  rules.insert({{"RNN", importRnn}, {"GRU", importGru}, {"LSTM", importLstm}});
}
